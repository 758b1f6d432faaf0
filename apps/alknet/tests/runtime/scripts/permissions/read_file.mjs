// Reads the file named by the first argument: denied without --allow-read covering it.
import { readTextFile } from "alknet:fs";
import { args } from "alknet:process";
console.log(`read: ${(await readTextFile(args[0])).trim()}`);
