// Prints whether this runtime gets a WebGPU adapter here (compare_with_deno.py skips without).
const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
console.log(adapter ? "adapter" : "none");
