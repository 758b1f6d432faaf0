#include "onnx_calls.h"

#include <cstring>
#include <list>
#include <string>
#include <vector>

#include "alknet/compute-calls/calls.h"
#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace alknet::cli {

namespace {

namespace c = alknet::call;
namespace ox = alknet::onnx;

// Sessions kept per model bytes (the same model sent by every call of a batch is loaded once).
// Touched only with the device held (RunOnDevice), so no lock of its own; the sessions were
// created on that device.
constexpr std::size_t kCachedSessions = 4;

struct CachedSession {
  std::string model;  // the bytes, compared in full: a hash collision must not mix models
  ox::Session session;
};

std::list<CachedSession>& Cache() {
  static std::list<CachedSession> cache;  // most recently used first
  return cache;
}

c::Error ToCallError(const ox::Error& e) {
  c::ErrorCode code = c::ErrorCode::kInvalidArgument;
  switch (e.code) {
    case compute::ErrorCode::kLimit: code = c::ErrorCode::kResourceExhausted; break;
    case compute::ErrorCode::kDevice: code = c::ErrorCode::kUnavailable; break;
    case compute::ErrorCode::kTemplate: code = c::ErrorCode::kInternal; break;
    default: break;
  }
  return c::MakeError(code, e.ToString());
}

c::Result<ox::Session*> SessionFor(std::string_view model, webgpu::Context& device) {
  auto& cache = Cache();
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->model == model) {
      cache.splice(cache.begin(), cache, it);
      return &cache.front().session;
    }
  }
  ox::SessionOptions options;
  options.context = &device;
  // No base folder: a model naming external data is refused, so a request cannot make the
  // server read its files.
  auto s =
      ox::Session::LoadFromBytes(std::as_bytes(std::span(model.data(), model.size())), {}, options);
  if (!s.ok()) return ToCallError(s.error());
  cache.push_front(CachedSession{std::string(model), std::move(*s)});
  if (cache.size() > kCachedSessions) cache.pop_back();
  return &cache.front().session;
}

// A call tensor as the declared input: same type as it is, otherwise converted through the
// library's float64 path (the rules alknet infer uses).
c::Result<ox::Tensor> ToInput(const ox::ValueInfo& info, const c::Tensor& t) {
  const tensor::DTypeInfo* d = tensor::FindDType(t.dtype);
  auto type = d ? ox::ElemTypeOf(d->dtype) : std::nullopt;
  if (!type) {
    return c::MakeError(c::ErrorCode::kInvalidArgument,
                        "input '" + info.name + "' has dtype '" + t.dtype +
                            "', which has no ONNX equivalent alknet runs");
  }
  if (auto v = t.Validate(); !v) return v.error();
  ox::Tensor raw;
  raw.name = info.name;
  raw.type = *type;
  for (std::int64_t dim : t.shape) raw.shape.push_back(static_cast<std::uint64_t>(dim));
  raw.data.assign(t.data.begin(), t.data.end());
  if (raw.type == info.type) return raw;
  std::vector<double> values(raw.elements());
  for (std::uint64_t i = 0; i < values.size(); ++i) values[i] = raw.At(i);
  compute::RefTensor r{compute::DType::kF32, raw.shape, std::move(values)};
  auto converted = ox::FromRef(info.name, r, info.type);
  if (!converted.ok()) return ToCallError(converted.error());
  return std::move(*converted);
}

c::Result<c::Value> RunModel(const c::CallContext& ctx, std::span<const c::Value> args) {
  std::string_view model;
  if (args[0].kind() == c::ValueKind::kBytes) {
    const auto& b = args[0].as_bytes();
    model = std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
  } else if (args[0].kind() == c::ValueKind::kTensor &&
             (args[0].as_tensor().dtype == "u8" || args[0].as_tensor().dtype == "i8") &&
             args[0].as_tensor().shape.size() == 1) {
    const auto& d = args[0].as_tensor().data;
    model = std::string_view(reinterpret_cast<const char*>(d.data()), d.size());
  } else {
    return c::MakeError(c::ErrorCode::kInvalidArgument,
                        "parameter 'model' expects the .onnx file's bytes (bytes or a 1-D u8 "
                        "tensor), given " +
                            std::string(c::ValueKindName(args[0].kind())));
  }
  // `inputs`: a map by input name, or a list in the model's input order.
  const c::Value& given = args[1];
  if (given.kind() != c::ValueKind::kMap && given.kind() != c::ValueKind::kList) {
    return c::MakeError(c::ErrorCode::kInvalidArgument,
                        "parameter 'inputs' expects a map (input name -> tensor) or a list (in "
                        "the model's input order), given " +
                            std::string(c::ValueKindName(given.kind())));
  }
  auto not_tensor = [](const std::string& where, const c::Value& v) {
    return c::MakeError(
        c::ErrorCode::kInvalidArgument,
        where + " is a " + std::string(c::ValueKindName(v.kind())) + ", not a tensor");
  };
  if (given.kind() == c::ValueKind::kMap) {
    for (const auto& [name, v] : given.as_map()) {
      if (v.kind() != c::ValueKind::kTensor) return not_tensor("inputs['" + name + "']", v);
    }
  } else {
    for (std::size_t i = 0; i < given.as_list().size(); ++i) {
      const c::Value& v = given.as_list()[i];
      if (v.kind() != c::ValueKind::kTensor)
        return not_tensor("inputs[" + std::to_string(i) + "]", v);
    }
  }
  return compute::RunOnDevice(
      ctx, [&](webgpu::Context& device, compute::Executor&) -> c::Result<c::Value> {
        auto session = SessionFor(model, device);
        if (!session) return session.error();
        ox::Session& s = **session;
        std::vector<ox::Tensor> held;
        held.reserve(s.inputs().size());
        if (given.kind() == c::ValueKind::kList) {
          if (given.as_list().size() != s.inputs().size()) {
            return c::MakeError(c::ErrorCode::kInvalidArgument,
                                "the model has " + std::to_string(s.inputs().size()) +
                                    " inputs; 'inputs' lists " +
                                    std::to_string(given.as_list().size()));
          }
          for (std::size_t i = 0; i < s.inputs().size(); ++i) {
            auto t = ToInput(s.inputs()[i], given.as_list()[i].as_tensor());
            if (!t) return t.error();
            held.push_back(std::move(*t));
          }
        } else {
          const c::Value::Map& by_name = given.as_map();
          for (const ox::ValueInfo& info : s.inputs()) {
            auto it = by_name.find(info.name);
            if (it == by_name.end()) {
              return c::MakeError(c::ErrorCode::kInvalidArgument,
                                  "the model's input '" + info.name + "' is not in 'inputs'");
            }
            auto t = ToInput(info, it->second.as_tensor());
            if (!t) return t.error();
            held.push_back(std::move(*t));
          }
          for (const auto& [name, v] : by_name) {
            bool known = false;
            for (const auto& info : s.inputs()) known = known || info.name == name;
            if (!known) {
              return c::MakeError(c::ErrorCode::kInvalidArgument,
                                  "inputs['" + name + "']: the model has no input of that name");
            }
          }
        }
        std::vector<ox::HostInput> in;
        for (const ox::Tensor& t : held) {
          in.push_back({t.name, t.type, t.shape, std::span<const std::byte>(t.data), {}});
        }
        if (ctx.ShouldStop()) return ctx.StopError();
        auto run = s.Run(in);
        if (!run.ok()) return ToCallError(run.error());
        c::Value::Map out;
        for (ox::Tensor& t : run->outputs) {
          auto meta = MetaTypeOf(t.type);
          if (!meta) {
            return c::MakeError(c::ErrorCode::kInvalidArgument, "output '" + t.name + "' of type " +
                                                                    ox::ElemTypeName(t.type) +
                                                                    " has no metatensor dtype");
          }
          std::vector<std::int64_t> shape(t.shape.begin(), t.shape.end());
          out.emplace(t.name, c::Tensor::Adopt(std::string(tensor::Info(*meta).name),
                                               std::move(shape), std::move(t.data)));
        }
        return c::Value(std::move(out));
      });
}

}  // namespace

std::optional<tensor::DType> MetaTypeOf(ox::ElemType t) {
  switch (t) {
    case ox::ElemType::kFloat: return tensor::DType::kF32;
    case ox::ElemType::kDouble: return tensor::DType::kF64;
    case ox::ElemType::kFloat16: return tensor::DType::kF16;
    case ox::ElemType::kInt8: return tensor::DType::kI8;
    case ox::ElemType::kInt16: return tensor::DType::kI16;
    case ox::ElemType::kInt32: return tensor::DType::kI32;
    case ox::ElemType::kInt64: return tensor::DType::kI64;
    case ox::ElemType::kUint8: return tensor::DType::kU8;
    case ox::ElemType::kUint16: return tensor::DType::kU16;
    case ox::ElemType::kUint32: return tensor::DType::kU32;
    case ox::ElemType::kUint64: return tensor::DType::kU64;
    case ox::ElemType::kBool: return tensor::DType::kBool;
    default: return std::nullopt;
  }
}

c::Component OnnxComponent() {
  c::Component comp;
  comp.name = "onnx";
  c::CallDecl run;
  run.name = "onnx.run";
  run.signature = "(model: any, inputs: any) -> map";
  run.flags.execution = c::Execution::kAsync;
  run.flags.idempotent = true;
  run.doc =
      "Runs an ONNX model (its bytes, or a 1-D u8 tensor) on input tensors (a map by name, or a "
      "list in input order); the outputs by name";
  run.handler = [](c::CallContext& ctx, std::span<const c::Value> args) {
    return RunModel(ctx, args);
  };
  comp.calls.push_back(std::move(run));
  return comp;
}

}  // namespace alknet::cli
