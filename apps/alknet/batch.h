// Batch runs over a pool (alknet sha256 --remote ... --out DIR): many inputs, one registry call
// each, at most N in flight, spread by the RemoteRegistry's gRPC round_robin (docs/remote.md,
// "Batch commands"). Outputs already present are skipped (resume), each output is written to a
// temporary file in DIR, fsynced and renamed (atomic: a run killed midway leaves whole outputs
// or none), and a progress line shows on stderr when it is a terminal (or with --progress).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "alknet/call/registry.h"

namespace alknet::cli {

// DIR: its regular files (not recursive), sorted; anything with * ? or [: glob(3), sorted;
// else the file itself. An empty expansion is an error naming the spec.
call::Result<std::vector<std::string>> ExpandInputs(const std::string& spec);

struct BatchItem {
  std::string input;   // the input file
  std::string output;  // the final output path
};

struct BatchOptions {
  unsigned concurrency = 8;    // calls in flight at once (1..1024)
  bool progress = false;       // print the progress line even when stderr is not a terminal
  std::string what = "batch";  // the command's name in messages
  // Items whose call failed as unavailable or cancelled (a worker killed or shut down while
  // the call was on it, after gRPC's own retry could no longer replay it) are tried again in
  // up to this many later rounds. Only for idempotent calls (crypto.sha256, onnx.run): a
  // repeat computes the same output, written atomically.
  unsigned retries = 2;
};

struct BatchSummary {
  std::size_t done = 0, skipped = 0, failed = 0;
  std::size_t stale_removed = 0;  // temporaries of an earlier, killed run, removed
};

// For each item whose output does not exist: `make_args` reads the input into the call's
// arguments (an error fails the item), the call runs through `target`, and `render` turns its
// result into the output's bytes. Failures are printed (input, call error) and counted; the
// batch goes on. Temporaries left by an earlier run that was killed are removed first.
BatchSummary RunBatch(
    call::CallTarget& target, const std::string& call, const std::vector<BatchItem>& items,
    const std::function<call::Result<std::vector<call::Value>>(const BatchItem&)>& make_args,
    const std::function<call::Result<std::string>(const BatchItem&, const call::Value&)>& render,
    const BatchOptions& options);

// Writes `bytes` to `path` atomically: PATH.tmp-PID-N, fsync, rename over PATH.
call::Status WriteFileAtomic(const std::string& path, std::string_view bytes);

}  // namespace alknet::cli
