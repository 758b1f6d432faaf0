# alknet:call, alknet:compute, alknet:tensor (docs/runtime-modules.md), each against an
# independent reference: float64 JS for ops, sha256sum/hashlib for SHA-256, the C++ reader and
# writer for .mtf, a real `alknet serve` for connect() and `alknet run --remote`.
set(M ${CMAKE_CURRENT_SOURCE_DIR}/scripts/alknet_modules)
set(MODULES_TEST ${CMAKE_CURRENT_SOURCE_DIR}/alknet_modules_test.py)
add_test(NAME runtime.alknet_compute.ops_vs_float64 COMMAND $<TARGET_FILE:alknet> run ${M}/ops.mjs)
foreach(what sha256 tensor call run-remote onnx)
  add_test(NAME runtime.alknet_modules.${what}
           COMMAND /usr/bin/python3 ${MODULES_TEST} $<TARGET_FILE:alknet> ${M} ${what})
endforeach()
# Every export has a TypeScript declaration; the op methods of alknet-compute.d.ts match the table.
set(TYPES ${CMAKE_CURRENT_SOURCE_DIR}/../types)
add_test(NAME runtime.alknet_modules.dts_exports
         COMMAND $<TARGET_FILE:alknet> run --allow-read=${TYPES} ${M}/dts_check.mjs ${TYPES})
add_test(NAME runtime.alknet_modules.dts_ops_match_table
         COMMAND $<TARGET_FILE:alknet> run --allow-read=${TYPES} ${TYPES}/gen_compute_dts.mjs --check)
set_tests_properties(runtime.alknet_compute.ops_vs_float64 runtime.alknet_modules.sha256
  runtime.alknet_modules.tensor runtime.alknet_modules.call runtime.alknet_modules.run-remote runtime.alknet_modules.onnx
  runtime.alknet_modules.dts_exports runtime.alknet_modules.dts_ops_match_table
  PROPERTIES LABELS "runtime;modules" TIMEOUT 300)
# The .d.ts files are valid TypeScript and type the modules as scripts use them (deno check,
# offline: no remote imports). Skipped, with the reason, when node_modules has no Deno.
add_test(NAME runtime.alknet_modules.dts_deno_check
         COMMAND sh -c "d='${PROJECT_SOURCE_DIR}/node_modules/deno/deno'; if [ ! -x \"$d\" ]; then echo 'SKIP: no Deno in node_modules (npm ci)'; exit 77; fi; cd '${M}' && DENO_NO_UPDATE_CHECK=1 \"$d\" check --quiet types_use.ts")
set_tests_properties(runtime.alknet_modules.dts_deno_check PROPERTIES
  LABELS "runtime;modules" TIMEOUT 300 SKIP_RETURN_CODE 77)
