#include "infer_batch.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "command.h"
#include "options.h"

namespace alknet::cli {

namespace c = alknet::call;

call::BatchOptions CliBatchOptions(const std::string& what, unsigned concurrency, bool progress) {
  c::BatchOptions bo;
  bo.concurrency = concurrency;
  const bool show = progress || isatty(STDERR_FILENO);
  if (show) {
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    bo.on_progress = [what, last](const c::BatchProgress& p, bool final) {
      const auto now = std::chrono::steady_clock::now();
      if (!final && now - *last < std::chrono::milliseconds(100)) return true;
      *last = now;
      const std::size_t finished = p.done + p.skipped + p.failed;
      const int width = 30;
      const int filled = p.total ? static_cast<int>(width * finished / p.total) : width;
      std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu (%zu skipped, %zu failed)%s", what.c_str(),
                   filled, "==============================", width - filled, "", finished, p.total,
                   p.skipped, p.failed, final ? "\n" : "");
      std::fflush(stderr);
      return true;
    };
  }
  bo.on_failure = [what, show](const c::BatchFailure& f) {
    if (show) std::fputc('\n', stderr);
    std::fprintf(stderr, "alknet %s: %s: %s\n", what.c_str(), TerminalText(f.input).c_str(),
                 TerminalText(f.error).c_str());
  };
  return bo;
}

int RunInferBatch(const InferBatchArgs& a) {
  auto items = c::InferBatchItems(a.inputs, a.out_dir);
  if (!items) {
    std::fprintf(stderr, "alknet infer: %s\n", TerminalText(items.error().message).c_str());
    return items.error().code == c::ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  auto opened = OpenTarget(a.target);
  if (!opened) {
    std::fprintf(stderr, "alknet infer: %s\n", opened.error().ToString().c_str());
    return a.target.remote.empty() ? kExitFailure : kExitUsage;
  }
  auto summary = c::RunInferBatch(**opened, a.model, *items,
                                  CliBatchOptions("infer", a.target.concurrency, a.progress));
  if (!summary) {
    std::fprintf(stderr, "alknet infer: %s\n", TerminalText(summary.error().message).c_str());
    return kExitFailure;
  }
  std::fprintf(stderr, "alknet infer: %zu run, %zu skipped (already written), %zu failed\n",
               summary->done, summary->skipped, summary->failed);
  return summary->failed ? kExitFailure : kExitOk;
}

}  // namespace alknet::cli
