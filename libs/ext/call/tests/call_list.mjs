// Prints alknet:call's list() as JSON [{name, signature, owner}], for comparison with
// `alknet calls --json`.
import { list } from "alknet:call";
console.log(JSON.stringify((await list()).map(({ name, signature, owner }) => ({ name, signature, owner }))));
