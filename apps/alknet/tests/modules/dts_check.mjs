// Every export of alknet:call, alknet:compute and alknet:tensor (and every key of their default
// export objects) has a declaration in libs/ext/<name>/alknet-<name>.d.ts.
import * as call from "alknet:call";
import * as compute from "alknet:compute";
import * as tensor from "alknet:tensor";
import { readTextFileSync } from "alknet:fs";
import { args, exit } from "alknet:process";

const extDir = args[0];  // libs/ext
let failures = 0;
for (const [name, mod] of [["call", call], ["compute", compute], ["tensor", tensor]]) {
  const dts = readTextFileSync(`${extDir}/${name}/alknet-${name}.d.ts`);
  if (!dts.includes(`declare module "alknet:${name}"`)) {
    console.error(`alknet-${name}.d.ts does not declare module "alknet:${name}"`);
    failures++;
  }
  const declared = (key) =>
    key === "default" ? /export default /.test(dts)
                      : new RegExp(`export (function|const|class|let) ${key}\\b`).test(dts);
  for (const key of Object.keys(mod)) {
    if (!declared(key)) {
      console.error(`alknet:${name} exports '${key}' but alknet-${name}.d.ts does not declare it`);
      failures++;
    }
  }
  // Keys of the default export object: declared as exports, or as members of its type.
  for (const key of Object.keys(mod.default)) {
    if (!declared(key) && !new RegExp(`^\\s+(readonly )?${key}: `, "m").test(dts)) {
      console.error(`alknet:${name}'s default export has '${key}' with no declaration`);
      failures++;
    }
  }
  console.log(`alknet:${name}: ${Object.keys(mod).length} exports, ${Object.keys(mod.default).length} default members checked`);
}
if (failures) exit(1);
