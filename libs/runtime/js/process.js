// alknet:process — the script's arguments, its environment (--allow-env) and exit().
const core = import.meta.native;

// The arguments after the script name: `alknet run main.js a b` gives ["a", "b"].
export const args = Object.freeze(core.args());

export const env = Object.freeze({
  // The variable's value or undefined; throws PermissionDenied without --allow-env.
  get(name) { return core.envGet(String(name)); },
});

// Ends the script at once with `code` (pending timers and jobs are dropped).
export function exit(code = 0) { core.exit(code); }

export default { args, env, exit };
