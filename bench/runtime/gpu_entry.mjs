// Entry for runtimes with navigator.gpu (alknet, Deno): MODE [COUNT] from the arguments.
import { run } from "./workload.mjs";
const argv = globalThis.Deno ? Deno.args : (await import("alknet:process")).args;
console.log(await run(navigator.gpu, argv[0], Number(argv[1] ?? 0)));
