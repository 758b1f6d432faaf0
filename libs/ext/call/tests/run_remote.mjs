// Run with `alknet run --remote ADDR`: call() goes to that server. Prints the server's answer.
import { call } from "alknet:call";
const y = await call("compute.relu", [{ dtype: "f32", shape: [4], data: Float32Array.of(-1, 2, -3, 4) }]);
console.log(JSON.stringify(Array.from(y.data)));
