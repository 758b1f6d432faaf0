// A denial is an ordinary exception the script may catch.
import { env } from "alknet:process";
try {
  env.get("HOME");
} catch (e) {
  console.log(`caught ${e.name}: ${e.message}`);
}
