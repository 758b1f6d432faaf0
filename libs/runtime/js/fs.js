// alknet:fs — files. Every call is checked against --allow-read / --allow-write; a denial
// throws a PermissionDenied error naming the flag to add.
const core = import.meta.native;

const path = (p) => String(p);

export function readFileSync(p) { return core.readFile(path(p)); }
export function readTextFileSync(p) { return core.readTextFile(path(p)); }
export function writeFileSync(p, data) { core.writeFile(path(p), data); }
export function writeTextFileSync(p, text) { core.writeFile(path(p), String(text)); }

export async function readFile(p) { return readFileSync(p); }
export async function readTextFile(p) { return readTextFileSync(p); }
export async function writeFile(p, data) { writeFileSync(p, data); }
export async function writeTextFile(p, text) { writeTextFileSync(p, text); }

export default {
  readFile, readTextFile, writeFile, writeTextFile,
  readFileSync, readTextFileSync, writeFileSync, writeTextFileSync,
};
