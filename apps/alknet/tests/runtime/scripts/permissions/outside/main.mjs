// Imports a module from outside this script's directory: a read that needs --allow-read.
import { greet } from "../../modules/lib/util.mjs";
console.log(greet("outside"));
