// Top-level await in a dependency: main.mjs runs only after this settles.
export const ready = await new Promise((resolve) => setTimeout(() => resolve("dependency awaited"), 5));
