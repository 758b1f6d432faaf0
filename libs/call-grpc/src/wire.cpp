#include "wire.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <mutex>
#include <string_view>

namespace alknet::call {

namespace {

// Protobuf already caps nesting at 100 when parsing; this keeps our recursion bounded for
// values built in C++ too.
constexpr int kMaxDepth = 96;

Result<Value> FromWireAt(const wire::Value& in, const std::vector<Tensor>& tensors, int depth) {
  if (depth > kMaxDepth) return MakeError(ErrorCode::kInvalidArgument, "value nested too deeply");
  switch (in.kind_case()) {
    case wire::Value::KIND_NOT_SET:
    case wire::Value::kNull: return Value();
    case wire::Value::kB: return Value(in.b());
    case wire::Value::kI: return Value(static_cast<std::int64_t>(in.i()));
    case wire::Value::kF: return Value(in.f());
    case wire::Value::kS: return Value(in.s());
    case wire::Value::kBytes: return Value(Bytes(in.bytes().begin(), in.bytes().end()));
    case wire::Value::kList: {
      Value::List list;
      list.reserve(in.list().items_size());
      for (const auto& item : in.list().items()) {
        auto v = FromWireAt(item, tensors, depth + 1);
        if (!v) return v;
        list.push_back(std::move(*v));
      }
      return Value(std::move(list));
    }
    case wire::Value::kMap: {
      const auto& m = in.map();
      if (m.keys_size() != m.values_size()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "map with " + std::to_string(m.keys_size()) + " keys but " +
                             std::to_string(m.values_size()) + " values");
      }
      Value::Map map;
      for (int i = 0; i < m.keys_size(); ++i) {
        auto v = FromWireAt(m.values(i), tensors, depth + 1);
        if (!v) return v;
        if (!map.emplace(m.keys(i), std::move(*v)).second) {
          return MakeError(ErrorCode::kInvalidArgument, "duplicate map key '" + m.keys(i) + "'");
        }
      }
      return Value(std::move(map));
    }
    case wire::Value::kTensor: {
      if (in.tensor() >= tensors.size()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "value refers to tensor " + std::to_string(in.tensor()) +
                             ", but the payload holds " + std::to_string(tensors.size()));
      }
      return Value(tensors[in.tensor()]);
    }
  }
  return MakeError(ErrorCode::kInvalidArgument, "unknown value kind on the wire");
}

}  // namespace

void ToWire(const Value& value, wire::Value* out, std::vector<Tensor>& tensors) {
  switch (value.kind()) {
    case ValueKind::kNull: out->set_null(true); return;
    case ValueKind::kBool: out->set_b(value.as_bool()); return;
    case ValueKind::kInt: out->set_i(value.as_int()); return;
    case ValueKind::kFloat: out->set_f(value.as_float()); return;
    case ValueKind::kString: out->set_s(value.as_string()); return;
    case ValueKind::kBytes: {
      const auto& b = value.as_bytes();
      out->set_bytes(b.data(), b.size());
      return;
    }
    case ValueKind::kList: {
      auto* list = out->mutable_list();
      for (const auto& item : value.as_list()) ToWire(item, list->add_items(), tensors);
      return;
    }
    case ValueKind::kMap: {
      auto* map = out->mutable_map();
      for (const auto& [k, item] : value.as_map()) {
        map->add_keys(k);
        ToWire(item, map->add_values(), tensors);
      }
      return;
    }
    case ValueKind::kTensor:
      out->set_tensor(static_cast<std::uint32_t>(tensors.size()));
      tensors.push_back(value.as_tensor());
      return;
  }
}

Result<Value> FromWire(const wire::Value& in, const std::vector<Tensor>& tensors) {
  return FromWireAt(in, tensors, 0);
}

grpc::Status ToStatus(const Error& error) {
  return grpc::Status(static_cast<grpc::StatusCode>(error.code), error.message);
}

Error FromStatus(const grpc::Status& status,
                 const std::multimap<grpc::string_ref, grpc::string_ref>& trailers,
                 std::string_view call) {
  Error e;
  e.call = std::string(call);
  e.message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::CANCELLED: e.code = ErrorCode::kCancelled; break;
    case grpc::StatusCode::INVALID_ARGUMENT: e.code = ErrorCode::kInvalidArgument; break;
    case grpc::StatusCode::DEADLINE_EXCEEDED: e.code = ErrorCode::kDeadlineExceeded; break;
    case grpc::StatusCode::NOT_FOUND: e.code = ErrorCode::kNotFound; break;
    case grpc::StatusCode::ALREADY_EXISTS: e.code = ErrorCode::kAlreadyExists; break;
    case grpc::StatusCode::PERMISSION_DENIED: e.code = ErrorCode::kPermissionDenied; break;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: e.code = ErrorCode::kResourceExhausted; break;
    case grpc::StatusCode::FAILED_PRECONDITION: e.code = ErrorCode::kFailedPrecondition; break;
    case grpc::StatusCode::INTERNAL: e.code = ErrorCode::kInternal; break;
    case grpc::StatusCode::UNAVAILABLE: e.code = ErrorCode::kUnavailable; break;
    case grpc::StatusCode::UNAUTHENTICATED: e.code = ErrorCode::kUnauthenticated; break;
    default: e.code = ErrorCode::kUnknown; break;
  }
  if (auto it = trailers.find(kCallKey); it != trailers.end()) {
    e.call.assign(it->second.data(), it->second.size());
  }
  if (e.message.empty())
    e.message = "remote call failed with gRPC status " +
                std::to_string(static_cast<int>(status.error_code()));
  return e;
}

void TuneAllocatorForLargeMessages() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* off = std::getenv("ALKNET_MALLOC_TUNING");
    if (off != nullptr && (std::string_view(off) == "off" || std::string_view(off) == "0")) return;
#if defined(__GLIBC__)
    constexpr int kKeep = 1 << 30;
    mallopt(M_MMAP_THRESHOLD, kKeep);
    mallopt(M_TRIM_THRESHOLD, kKeep);
#endif
  });
}

}  // namespace alknet::call
