// An exception in a timer callback ends the script like a top-level one.
console.log("before");
setTimeout(function tick() {
  null.property;
}, 1);
