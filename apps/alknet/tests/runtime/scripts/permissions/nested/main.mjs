// node_modules in an ancestor directory loads without --allow-read.
import value from "ancestor-pkg";
console.log(value);
