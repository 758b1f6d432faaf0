// alknet infer MODEL --inputs DIR_OR_GLOB --out DIR [--remote POOL]: one onnx.run call per
// input file (onnx_calls.h), locally or over a pool, through RunBatch (batch.h: resume,
// atomic writes, progress).
#pragma once

#include <string>
#include <vector>

#include "registry_setup.h"

namespace alknet::cli {

struct InferBatchArgs {
  std::string model;
  std::vector<std::string> inputs;  // expanded --inputs
  std::string out_dir;
  TargetFlags target;
  bool progress = false;
};

// Each input is a .npy (the model's only input) or a .mtf (its only tensor, or one tensor per
// model input, named as the input); each output DIR/STEM.mtf holds every model output by
// name. Exit code: 0 all written, 1 some input failed (each named with its error: a bad
// input, the model refused, no device, the server unreachable), 2 usage.
int RunInferBatch(const InferBatchArgs& args);

}  // namespace alknet::cli
