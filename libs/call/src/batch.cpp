#include "alknet/call/batch.h"

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

#include "alknet/base/file.h"
#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"

namespace alknet::call {

namespace fs = std::filesystem;
namespace ac = alknet::call;

Result<std::vector<std::string>> ExpandInputs(const std::string& spec) {
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

Status WriteFileAtomic(const std::string& path, std::string_view bytes) {
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
    CallTarget& target, const std::string& call, const std::vector<BatchItem>& items,
    const std::function<Result<std::vector<Value>>(const BatchItem&)>& make_args,
    const std::function<Result<std::string>(const BatchItem&, const Value&)>& render,
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
  std::mutex mutex;
  std::condition_variable changed;
  unsigned in_flight = 0;
  std::vector<BatchFailure> fresh;         // failures not yet handed to on_failure (under mutex)
  bool stop = false;                       // on_progress said stop (calling thread only)
  std::size_t reported = ~std::size_t{0};  // items finished at the last on_progress
  // The calling thread's side: hands new failures to on_failure and, when items finished
  // since the last time, the counts to on_progress. Called with `lock` held; releases it
  // around the callbacks.
  auto pump = [&](std::unique_lock<std::mutex>& lock, bool final) {
    std::vector<BatchFailure> failures = std::move(fresh);
    fresh.clear();
    BatchProgress p{items.size(), summary.done, summary.skipped, summary.failed};
    const std::size_t finished = p.done + p.skipped + p.failed;
    const bool report = final || finished != reported;
    if (failures.empty() && !report) return;
    lock.unlock();
    if (options.on_failure) {
      for (const auto& f : failures) options.on_failure(f);
    }
    if (report) {
      reported = finished;
      if (options.on_progress && !options.on_progress(p, final)) stop = true;
    }
    lock.lock();
  };
  // Waits (on the calling thread) until `ready`, pumping while it waits.
  auto wait = [&](std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready) {
    while (!ready()) {
      changed.wait_for(lock, std::chrono::milliseconds(100));
      pump(lock, false);
    }
  };
  auto fail = [&](const BatchItem& item, std::string why) {  // under mutex
    ++summary.failed;
    BatchFailure f{item.input, std::move(why)};
    summary.failures.push_back(f);
    fresh.push_back(std::move(f));
  };
  const unsigned limit = std::clamp(options.concurrency, 1u, 1024u);
  auto retriable = [](const Error& e) {
    return e.code == ErrorCode::kUnavailable || e.code == ErrorCode::kCancelled;
  };
  {
    std::unique_lock lock(mutex);
    pump(lock, false);
  }
  for (unsigned round = 0; !todo.empty() && !stop; ++round) {
    const bool last_round = round >= options.retries;
    std::vector<const BatchItem*> again;  // failed as retriable in this round (under mutex)
    std::size_t next = 0;
    for (; next < todo.size() && !stop; ++next) {
      const BatchItem* item = todo[next];
      auto args = make_args(*item);
      std::unique_lock lock(mutex);
      if (!args) {
        fail(*item, args.error().message);
        pump(lock, false);
        continue;
      }
      wait(lock, [&] { return in_flight < limit || stop; });
      if (stop) break;
      ++in_flight;
      lock.unlock();
      target.InvokeAsync(call, std::move(*args), {}, [&, item, last_round](Result<Value> r) {
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
          fail(*item, std::move(error));
        }
        --in_flight;
        changed.notify_all();
      });
    }
    {
      std::unique_lock lock(mutex);
      wait(lock, [&] { return in_flight == 0; });
    }
    if (stop) {
      summary.stopped = next < todo.size() || !again.empty();
      break;
    }
    todo = std::move(again);
    // A moment for the pool's health checks to take a dead worker out of the rotation.
    if (!todo.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  std::unique_lock lock(mutex);
  wait(lock, [&] { return in_flight == 0; });
  pump(lock, true);
  return summary;
}

// ---- onnx.run batches ---------------------------------------------------------------------

namespace {

namespace at = alknet::tensor;
namespace tc = alknet::tensor::convert;

constexpr std::uint64_t kMaxInputBytes = std::uint64_t{4} << 30;
constexpr std::uint64_t kMaxModelBytes = std::uint64_t{2} << 30;

Error Bad(const std::string& why) { return MakeError(ErrorCode::kInvalidArgument, why); }

}  // namespace

Result<std::vector<BatchItem>> InferBatchItems(const std::vector<std::string>& inputs,
                                               const std::string& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return MakeError(ErrorCode::kUnknown, "cannot create " + out_dir + ": " + ec.message());
  std::vector<BatchItem> items;
  std::map<std::string, std::string> by_output;
  for (const auto& f : inputs) {
    const std::string stem = fs::path(f).stem().string();
    std::string out = (fs::path(out_dir) / (stem + ".mtf")).string();
    if (auto [it, fresh] = by_output.emplace(out, f); !fresh) {
      return Bad("two inputs named " + stem + " (" + it->second + ", " + f + ") would both write " +
                 out);
    }
    items.push_back({f, std::move(out)});
  }
  return items;
}

Result<Value> ReadInferInputs(const std::string& path) {
  auto text = base::ReadRegularFile(path, kMaxInputBytes);
  if (!text) return MakeError(ErrorCode::kNotFound, text.error().message);
  const std::string& f = *text;
  const auto bytes = std::as_bytes(std::span(f.data(), f.size()));
  const auto ext = fs::path(path).extension();
  if (ext == ".npy") {
    const tc::MemorySource src(path, bytes);
    auto h = tc::ParseNpyHeader(src, 0, f.size(), path);
    if (!h) return Bad(h.error().ToString());
    std::vector<std::int64_t> shape(h->shape.begin(), h->shape.end());
    Value::List one;
    one.emplace_back(Tensor::Copy(std::string(at::Info(h->dtype).name), std::move(shape),
                                  bytes.subspan(h->data_offset, h->data_bytes)));
    return Value(std::move(one));
  }
  if (ext != ".mtf") return Bad(path + ": inputs are .npy or .mtf files");
  auto r = at::Reader::FromMemory(bytes);
  if (!r.ok()) return Bad(r.error().ToString());
  auto tensor_of = [](const at::TensorView& v) {
    std::vector<std::int64_t> shape(v.shape().begin(), v.shape().end());
    return Tensor::Copy(std::string(at::Info(v.dtype()).name), std::move(shape), v.data);
  };
  if (r->tensors().size() == 1) {
    auto v = r->Tensor(0);
    if (!v.ok()) return Bad(v.error().ToString());
    Value::List one;
    one.emplace_back(tensor_of(*v));
    return Value(std::move(one));
  }
  Value::Map m;
  for (std::size_t i = 0; i < r->tensors().size(); ++i) {
    auto v = r->Tensor(i);
    if (!v.ok()) return Bad(v.error().ToString());
    m.emplace(std::string(v->name()), tensor_of(*v));
  }
  return Value(std::move(m));
}

Result<std::string> InferOutputsToMtf(const Value& result) {
  if (result.kind() != ValueKind::kMap) return Bad("onnx.run answered no map");
  at::MemorySink sink;
  at::Writer w(sink);
  for (const auto& [name, v] : result.as_map()) {
    if (v.kind() != ValueKind::kTensor) return Bad("output '" + name + "' is not a tensor");
    const Tensor& t = v.as_tensor();
    if (auto ok = t.Validate(); !ok) return ok.error();
    const at::DTypeInfo* d = at::FindDType(t.dtype);
    if (d == nullptr) return Bad("output '" + name + "' has an unknown dtype");
    std::vector<std::uint64_t> shape(t.shape.begin(), t.shape.end());
    if (auto s = w.AddTensor(name, d->dtype, shape, t.data); !s.ok())
      return Bad(s.error().ToString());
  }
  if (auto s = w.Finish(); !s.ok()) return Bad(s.error().ToString());
  const auto& out = sink.bytes();
  return std::string(reinterpret_cast<const char*>(out.data()), out.size());
}

Result<BatchSummary> RunInferBatch(CallTarget& target, const std::string& model_path,
                                   const std::vector<BatchItem>& items,
                                   const BatchOptions& options) {
  auto model_text = base::ReadRegularFile(model_path, kMaxModelBytes);
  if (!model_text) return MakeError(ErrorCode::kNotFound, model_text.error().message);
  // One copy of the model, shared by every call's arguments (a u8 tensor: it travels in the
  // tensor payload).
  auto model_bytes = std::make_shared<std::vector<std::byte>>(model_text->size());
  std::memcpy(model_bytes->data(), model_text->data(), model_text->size());
  Tensor model;
  model.dtype = "u8";
  model.shape = {static_cast<std::int64_t>(model_bytes->size())};
  model.data = *model_bytes;
  model.owner = model_bytes;
  return RunBatch(
      target, "onnx.run", items,
      [&](const BatchItem& item) -> Result<std::vector<Value>> {
        auto in = ReadInferInputs(item.input);
        if (!in) return in.error();
        return std::vector<Value>{Value(model), std::move(*in)};
      },
      [](const BatchItem&, const Value& v) { return InferOutputsToMtf(v); }, options);
}

}  // namespace alknet::call
