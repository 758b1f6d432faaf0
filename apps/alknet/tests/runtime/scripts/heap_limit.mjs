// Past --max-heap, allocation fails with an out-of-memory error the script can catch (the
// engine reports it as an uncatchable-by-default "out of memory" value, which catch sees).
const objects = [];
try {
  for (let i = 0; i < 50_000_000; i++) objects.push({ i });
  console.log("never ran out");
} catch (e) {
  console.log(`caught ${e} after ${objects.length > 100_000 ? "more than" : "fewer than"} 100000 objects`);
}
