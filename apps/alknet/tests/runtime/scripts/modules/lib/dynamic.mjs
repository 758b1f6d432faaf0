export const value = "loaded on demand";
