#include "infer_batch.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "alknet/base/file.h"
#include "alknet/call/value.h"
#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"
#include "batch.h"
#include "command.h"

namespace alknet::cli {

namespace {

namespace c = alknet::call;
namespace fs = std::filesystem;
namespace at = alknet::tensor;
namespace tc = alknet::tensor::convert;

constexpr std::uint64_t kMaxInputBytes = std::uint64_t{4} << 30;

c::Error Bad(const std::string& why) { return c::MakeError(c::ErrorCode::kInvalidArgument, why); }

// The call's `inputs` from one file: a .npy is the model's only input (a one-element list, in
// input order); a .mtf with one tensor the same; a .mtf with several: a map by tensor name,
// each name a model input (onnx.run says which one is missing or unknown).
c::Result<c::Value> ReadInputs(const std::string& path) {
  auto text = base::ReadRegularFile(path, kMaxInputBytes);
  if (!text) return c::MakeError(c::ErrorCode::kNotFound, text.error().message);
  const std::string& f = *text;
  const auto bytes = std::as_bytes(std::span(f.data(), f.size()));
  const auto ext = fs::path(path).extension();
  if (ext == ".npy") {
    const tc::MemorySource src(path, bytes);
    auto h = tc::ParseNpyHeader(src, 0, f.size(), path);
    if (!h) return Bad(h.error().ToString());
    std::vector<std::int64_t> shape(h->shape.begin(), h->shape.end());
    c::Value::List one;
    one.emplace_back(c::Tensor::Copy(std::string(at::Info(h->dtype).name), std::move(shape),
                                     bytes.subspan(h->data_offset, h->data_bytes)));
    return c::Value(std::move(one));
  }
  if (ext != ".mtf") return Bad("inputs are .npy or .mtf files");
  auto r = at::Reader::FromMemory(bytes);
  if (!r.ok()) return Bad(r.error().ToString());
  auto tensor_of = [](const at::TensorView& v) {
    std::vector<std::int64_t> shape(v.shape().begin(), v.shape().end());
    return c::Tensor::Copy(std::string(at::Info(v.dtype()).name), std::move(shape), v.data);
  };
  if (r->tensors().size() == 1) {
    auto v = r->Tensor(0);
    if (!v.ok()) return Bad(v.error().ToString());
    c::Value::List one;
    one.emplace_back(tensor_of(*v));
    return c::Value(std::move(one));
  }
  c::Value::Map m;
  for (std::size_t i = 0; i < r->tensors().size(); ++i) {
    auto v = r->Tensor(i);
    if (!v.ok()) return Bad(v.error().ToString());
    m.emplace(std::string(v->name()), tensor_of(*v));
  }
  return c::Value(std::move(m));
}

c::Result<std::string> WriteOutputs(const c::Value& result) {
  if (result.kind() != c::ValueKind::kMap) return Bad("onnx.run answered no map");
  at::MemorySink sink;
  at::Writer w(sink);
  for (const auto& [name, v] : result.as_map()) {
    if (v.kind() != c::ValueKind::kTensor) return Bad("output '" + name + "' is not a tensor");
    const c::Tensor& t = v.as_tensor();
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

}  // namespace

int RunInferBatch(const InferBatchArgs& a) {
  auto model_text = base::ReadRegularFile(a.model, std::uint64_t{2} << 30);
  if (!model_text) {
    std::fprintf(stderr, "alknet infer: %s\n", model_text.error().message.c_str());
    return kExitFailure;
  }
  // One copy of the model, shared by every call's arguments (a u8 tensor: it travels in the
  // tensor payload).
  auto model_bytes = std::make_shared<std::vector<std::byte>>(model_text->size());
  std::memcpy(model_bytes->data(), model_text->data(), model_text->size());
  c::Tensor model;
  model.dtype = "u8";
  model.shape = {static_cast<std::int64_t>(model_bytes->size())};
  model.data = *model_bytes;
  model.owner = model_bytes;

  std::error_code ec;
  fs::create_directories(a.out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "alknet infer: cannot create %s: %s\n", a.out_dir.c_str(),
                 ec.message().c_str());
    return kExitFailure;
  }
  std::vector<BatchItem> items;
  std::set<std::string> outputs;
  for (const auto& f : a.inputs) {
    const std::string stem = fs::path(f).stem().string();
    std::string out = (fs::path(a.out_dir) / (stem + ".mtf")).string();
    if (!outputs.insert(out).second) {
      std::fprintf(stderr, "alknet infer: two inputs named %s would both write %s\n", stem.c_str(),
                   out.c_str());
      return kExitUsage;
    }
    items.push_back({f, std::move(out)});
  }
  auto opened = OpenTarget(a.target);
  if (!opened) {
    std::fprintf(stderr, "alknet infer: %s\n", opened.error().ToString().c_str());
    return a.target.remote.empty() ? kExitFailure : kExitUsage;
  }
  BatchOptions bo;
  bo.concurrency = a.target.concurrency;
  bo.progress = a.progress;
  bo.what = "infer";
  auto summary = RunBatch(
      **opened, "onnx.run", items,
      [&](const BatchItem& item) -> c::Result<std::vector<c::Value>> {
        auto in = ReadInputs(item.input);
        if (!in) return in.error();
        return std::vector<c::Value>{c::Value(model), std::move(*in)};
      },
      [](const BatchItem&, const c::Value& v) { return WriteOutputs(v); }, bo);
  std::fprintf(stderr, "alknet infer: %zu run, %zu skipped (already written), %zu failed\n",
               summary.done, summary.skipped, summary.failed);
  return summary.failed ? kExitFailure : kExitOk;
}

}  // namespace alknet::cli
