const a = 1;
function inner() {
  throw new Error("deep failure");
}
function outer() { inner(); }
outer();
