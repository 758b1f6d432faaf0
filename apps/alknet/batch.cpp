#include "batch.h"

#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "options.h"

namespace alknet::cli {

namespace fs = std::filesystem;
namespace ac = alknet::call;

call::Result<std::vector<std::string>> ExpandInputs(const std::string& spec) {
  std::vector<std::string> out;
  std::error_code ec;
  if (spec.find_first_of("*?[") == std::string::npos && fs::is_directory(spec, ec)) {
    for (const auto& e : fs::directory_iterator(spec, ec)) {
      if (e.is_regular_file(ec)) out.push_back(e.path().string());
    }
    if (ec)
      return ac::MakeError(ac::ErrorCode::kNotFound, "cannot list " + spec + ": " + ec.message());
  } else if (spec.find_first_of("*?[") != std::string::npos) {
    glob_t g{};
    const int rc = glob(spec.c_str(), 0, nullptr, &g);
    if (rc == 0) {
      for (std::size_t i = 0; i < g.gl_pathc; ++i) {
        if (fs::is_regular_file(g.gl_pathv[i], ec)) out.emplace_back(g.gl_pathv[i]);
      }
    }
    globfree(&g);
  } else {
    out.push_back(spec);
  }
  if (out.empty()) {
    return ac::MakeError(ac::ErrorCode::kNotFound, "'" + spec + "' names no regular file");
  }
  std::sort(out.begin(), out.end());
  return out;
}

call::Status WriteFileAtomic(const std::string& path, std::string_view bytes) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
  auto fail = [&](const char* what) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return ac::MakeError(ac::ErrorCode::kUnknown,
                         std::string("cannot ") + what + " " + tmp + ": " + std::strerror(err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return fail("create");
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return fail("write");
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("fsync");
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  return ac::Ok{};
}

namespace {

// A run killed between creating PATH.tmp-PID-N and renaming it leaves that file behind: the
// next run removes the ones of its own outputs whose process is gone (so a resumed folder holds
// each output once and nothing else). Another live batch's temporaries are left alone.
std::size_t RemoveStaleTemporaries(const std::vector<BatchItem>& items) {
  std::map<fs::path, std::set<std::string>> by_dir;
  for (const auto& item : items) {
    const fs::path out(item.output);
    by_dir[out.parent_path()].insert(out.filename().string());
  }
  std::size_t removed = 0;
  for (const auto& [dir, names] : by_dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
      const std::string name = e.path().filename().string();
      const auto at = name.rfind(".tmp-");
      if (at == std::string::npos || !names.count(name.substr(0, at))) continue;
      const std::string rest = name.substr(at + 5);  // PID-N
      const auto dash = rest.find('-');
      if (dash == std::string::npos || dash == 0) continue;
      char* end = nullptr;
      const long pid = std::strtol(rest.c_str(), &end, 10);
      if (end != rest.c_str() + dash || pid <= 0) continue;
      if (pid == getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      if (::unlink(e.path().c_str()) == 0) ++removed;
    }
  }
  return removed;
}

}  // namespace

BatchSummary RunBatch(
    call::CallTarget& target, const std::string& call, const std::vector<BatchItem>& items,
    const std::function<call::Result<std::vector<call::Value>>(const BatchItem&)>& make_args,
    const std::function<call::Result<std::string>(const BatchItem&, const call::Value&)>& render,
    const BatchOptions& options) {
  BatchSummary summary;
  summary.stale_removed = RemoveStaleTemporaries(items);
  std::vector<const BatchItem*> todo;
  for (const auto& item : items) {
    struct stat st {};
    if (::lstat(item.output.c_str(), &st) == 0) {
      ++summary.skipped;  // written by an earlier run: resume skips it
    } else {
      todo.push_back(&item);
    }
  }
  const bool show = options.progress || isatty(STDERR_FILENO);
  std::mutex mutex;
  std::condition_variable changed;
  unsigned in_flight = 0;
  auto last_draw = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const std::size_t total = items.size();
  auto draw = [&](bool final) {  // under mutex
    if (!show) return;
    const auto now = std::chrono::steady_clock::now();
    if (!final && now - last_draw < std::chrono::milliseconds(100)) return;
    last_draw = now;
    const std::size_t finished = summary.done + summary.skipped + summary.failed;
    const int width = 30;
    const int filled = total ? static_cast<int>(width * finished / total) : width;
    std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu (%zu skipped, %zu failed)%s", options.what.c_str(),
                 filled, "==============================", width - filled, "", finished, total,
                 summary.skipped, summary.failed, final ? "\n" : "");
    std::fflush(stderr);
  };
  auto report = [&](const BatchItem& item, const std::string& why) {  // under mutex
    if (show) std::fputc('\n', stderr);
    std::fprintf(stderr, "alknet %s: %s: %s\n", options.what.c_str(),
                 TerminalText(item.input).c_str(), TerminalText(why).c_str());
    ++summary.failed;
  };
  const unsigned limit = std::clamp(options.concurrency, 1u, 1024u);
  auto retriable = [](const call::Error& e) {
    return e.code == call::ErrorCode::kUnavailable || e.code == call::ErrorCode::kCancelled;
  };
  for (unsigned round = 0; !todo.empty(); ++round) {
    const bool last_round = round >= options.retries;
    std::vector<const BatchItem*> again;  // failed as retriable in this round (under mutex)
    for (const BatchItem* item : todo) {
      auto args = make_args(*item);
      std::unique_lock lock(mutex);
      if (!args) {
        report(*item, args.error().message);
        continue;
      }
      changed.wait(lock, [&] { return in_flight < limit; });
      ++in_flight;
      lock.unlock();
      target.InvokeAsync(call, std::move(*args), {}, [&, item](call::Result<call::Value> r) {
        std::string error;
        bool retry = false;
        if (!r) {
          error = r.error().ToString();
          retry = !last_round && retriable(r.error());
        } else if (auto bytes = render(*item, *r); !bytes) {
          error = bytes.error().message;
        } else if (auto w = WriteFileAtomic(item->output, *bytes); !w) {
          error = w.error().message;
        }
        std::lock_guard guard(mutex);
        if (error.empty()) {
          ++summary.done;
        } else if (retry) {
          again.push_back(item);
        } else {
          report(*item, error);
        }
        --in_flight;
        draw(false);
        changed.notify_all();
      });
    }
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return in_flight == 0; });
    }
    todo = std::move(again);
    // A moment for the pool's health checks to take a dead worker out of the rotation.
    if (!todo.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  std::unique_lock lock(mutex);
  changed.wait(lock, [&] { return in_flight == 0; });
  draw(true);
  return summary;
}

}  // namespace alknet::cli
