// Opens a .mtf file and prints it as JSON: names, dtypes, shapes, values (as numbers), metadata.
import { open } from "alknet:tensor";
import { args } from "alknet:process";

const file = open(args[0]);
const out = { metadata: {}, tensors: [] };
for (const [k, v] of Object.entries(file.metadata)) out.metadata[k] = v instanceof Uint8Array ? Array.from(v) : v;
for (const t of file.tensors) {
  out.tensors.push({ name: t.name, dtype: t.dtype, shape: Array.from(t.shape), values: Array.from(t.data, Number) });
}
// Writing into a mapped tensor changes private pages only (the test checks the file after).
if (file.tensors.length) {
  const d = file.tensors[0].data;
  if (d.length) d[0] = d[0];
  if (d.length && typeof d[0] === "number") d[0] = 12345;
}
console.log(JSON.stringify(out));
