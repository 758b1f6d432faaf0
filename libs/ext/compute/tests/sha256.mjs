// Prints "<hex>  <path>" (sha256sum's format) for each file argument, hashed on the GPU by
// alknet:compute; a multi-message batch in one call.
import { sha256, toHex } from "alknet:compute";
import { readFileSync } from "alknet:fs";
import { args } from "alknet:process";

const digests = await sha256(args.map((p) => readFileSync(p)));
args.forEach((p, i) => console.log(`${toHex(digests[i])}  ${p}`));
