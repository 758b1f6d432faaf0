async function load() {
  await null;
  throw new TypeError("async failure");
}
load();
