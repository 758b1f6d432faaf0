// alknet infer MODEL --inputs DIR_OR_GLOB --out DIR [--remote POOL]: one onnx.run call per
// input file, locally or over a pool, through alknet::call::RunInferBatch (alknet/call/batch.h:
// resume, atomic writes; the JS Registry.inferBatch() runs the same code).
#pragma once

#include <string>
#include <vector>

#include "alknet/call/batch.h"
#include "registry_setup.h"

namespace alknet::cli {

struct InferBatchArgs {
  std::string model;
  std::vector<std::string> inputs;  // expanded --inputs
  std::string out_dir;
  TargetFlags target;
  bool progress = false;
};

// The CLI's face of a batch: a progress bar on stderr when it is a terminal (or with
// `progress`), and each failed input printed as "alknet WHAT: INPUT: ERROR".
call::BatchOptions CliBatchOptions(const std::string& what, unsigned concurrency, bool progress);

// Each input is a .npy (the model's only input) or a .mtf (its only tensor, or one tensor per
// model input, named as the input); each output DIR/STEM.mtf holds every model output by
// name. Exit code: 0 all written, 1 some input failed (each named with its error: a bad
// input, the model refused, no device, the server unreachable), 2 usage.
int RunInferBatch(const InferBatchArgs& args);

}  // namespace alknet::cli
