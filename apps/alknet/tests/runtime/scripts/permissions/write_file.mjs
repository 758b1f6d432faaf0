import { writeTextFile, readTextFile } from "alknet:fs";
import { args } from "alknet:process";
await writeTextFile(args[0], "written by alknet");
console.log(`wrote: ${await readTextFile(args[0])}`);
