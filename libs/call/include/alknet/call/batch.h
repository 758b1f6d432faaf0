// Batch runs over a pool (alknet sha256/infer --remote ... --out DIR, and Registry.inferBatch()
// from JS): many inputs, one registry call each, at most N in flight, spread by the
// RemoteRegistry's gRPC round_robin (docs/remote.md, "Batch commands"). Outputs already present
// are skipped (resume), each output is written to a temporary file in DIR, fsynced and renamed
// (atomic: a run killed midway leaves whole outputs or none). The CLI and the JS binding share
// this code (ADR 0017); what they show (a progress bar, a JS callback) is theirs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "alknet/call/registry.h"

namespace alknet::call {

// DIR: its regular files (not recursive), sorted; anything with * ? or [: glob(3), sorted;
// else the file itself. An empty expansion is an error naming the spec.
Result<std::vector<std::string>> ExpandInputs(const std::string& spec);

struct BatchItem {
  std::string input;   // the input file
  std::string output;  // the final output path
};

struct BatchProgress {
  std::size_t total = 0, done = 0, skipped = 0, failed = 0;
};

struct BatchFailure {
  std::string input;  // the item's input file
  std::string error;  // why it failed (the call's error, a bad input, a write error)
};

struct BatchOptions {
  unsigned concurrency = 8;  // calls in flight at once (1..1024)
  // Items whose call failed as unavailable or cancelled (a worker killed or shut down while
  // the call was on it, after gRPC's own retry could no longer replay it) are tried again in
  // up to this many later rounds. Only for idempotent calls (crypto.sha256, onnx.run): a
  // repeat computes the same output, written atomically.
  unsigned retries = 2;
  // Both run on the thread that called RunBatch (a JS host may call into its engine there).
  // on_progress: once before the first call, after calls finish (several that finish
  // together are reported once), and once at the end (final = true). Returning false stops the
  // batch: no further item starts, the ones in flight finish and are written (a later run resumes
  // after them).
  std::function<bool(const BatchProgress&, bool final)> on_progress;
  // on_failure: once per failed item, soon after it failed.
  std::function<void(const BatchFailure&)> on_failure;
};

struct BatchSummary {
  std::size_t done = 0, skipped = 0, failed = 0;
  std::size_t stale_removed = 0;  // temporaries of an earlier, killed run, removed
  bool stopped = false;           // on_progress returned false before every item ran
  std::vector<BatchFailure> failures;
};

// For each item whose output does not exist: `make_args` reads the input into the call's
// arguments (an error fails the item), the call runs through `target`, and `render` turns its
// result into the output's bytes. Failures are counted and kept; the batch goes on.
// Temporaries left by an earlier run that was killed are removed first.
BatchSummary RunBatch(
    CallTarget& target, const std::string& call, const std::vector<BatchItem>& items,
    const std::function<Result<std::vector<Value>>(const BatchItem&)>& make_args,
    const std::function<Result<std::string>(const BatchItem&, const Value&)>& render,
    const BatchOptions& options);

// Writes `bytes` to `path` atomically: PATH.tmp-PID-N, fsync, rename over PATH.
Status WriteFileAtomic(const std::string& path, std::string_view bytes);

// ---- onnx.run batches (alknet infer --inputs, Registry.inferBatch) ---------------------------

// The items of an onnx.run batch: input F writes OUT_DIR/STEM(F).mtf. Creates OUT_DIR; two
// inputs of one stem are an error naming both.
Result<std::vector<BatchItem>> InferBatchItems(const std::vector<std::string>& inputs,
                                               const std::string& out_dir);

// onnx.run's `inputs` argument from one file: a .npy is the model's only input; a .mtf with
// one tensor the same; a .mtf with several: a map by tensor name (one per model input).
Result<Value> ReadInferInputs(const std::string& path);

// onnx.run's result (a map of tensors by output name) as a .mtf file's bytes.
Result<std::string> InferOutputsToMtf(const Value& result);

// Reads the model (at most 2 GiB) once and runs one onnx.run per item through RunBatch.
Result<BatchSummary> RunInferBatch(CallTarget& target, const std::string& model_path,
                                   const std::vector<BatchItem>& items,
                                   const BatchOptions& options);

}  // namespace alknet::call
