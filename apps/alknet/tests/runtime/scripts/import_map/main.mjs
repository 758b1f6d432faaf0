import lib from "lib";
import extra from "lib/extra.mjs";
import proc from "proc";
import remapped from "./remapped.mjs";
import scoped from "./scoped/user.mjs";
console.log([lib, extra, typeof proc.exit, remapped, scoped].join(" | "));
