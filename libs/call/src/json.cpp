#include "alknet/call/json.h"

#include "alknet/base/json.h"

namespace alknet::call {

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64(const Bytes& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < in.size()) {
    const unsigned v = (in[i] << 16) | (i + 1 < in.size() ? in[i + 1] << 8 : 0);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A call value as a JSON document: bytes as {"$bytes": base64}, a tensor as its summary.
base::json::Value ToDocument(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return nullptr;
    case ValueKind::kBool: return v.as_bool();
    case ValueKind::kInt: return v.as_int();
    case ValueKind::kFloat: return v.as_float();  // the writer keeps it a float ("3.0")
    case ValueKind::kString: return v.as_string();
    case ValueKind::kBytes: return base::json::Object{{"$bytes", Base64(v.as_bytes())}};
    case ValueKind::kList: {
      base::json::Array a;
      a.reserve(v.as_list().size());
      for (const auto& item : v.as_list()) a.push_back(ToDocument(item));
      return a;
    }
    case ValueKind::kMap: {
      base::json::Object o;
      for (const auto& [k, item] : v.as_map()) o.append(k, ToDocument(item));
      return o;
    }
    case ValueKind::kTensor: {
      const Tensor& t = v.as_tensor();
      base::json::Array shape;
      for (auto d : t.shape) shape.emplace_back(d);
      return base::json::Object{{"$tensor", base::json::Object{{"dtype", t.dtype},
                                                               {"shape", std::move(shape)},
                                                               {"bytes", t.data.size()}}}};
    }
  }
  return nullptr;
}

Result<Value> FromDocument(const base::json::Value& j) {
  using Kind = base::json::Value::Kind;
  switch (j.kind()) {
    case Kind::kNull: return Value();
    case Kind::kBool: return Value(j.as_bool());
    case Kind::kInt: return Value(j.as_int());
    case Kind::kUint:
      return MakeError(ErrorCode::kInvalidArgument,
                       "JSON integer " + std::to_string(j.as_uint()) + " does not fit in int64");
    case Kind::kDouble: return Value(j.as_double());
    case Kind::kString: return Value(j.as_string());
    case Kind::kArray: {
      Value::List list;
      list.reserve(j.as_array().size());
      for (const auto& item : j.as_array()) {
        ALKNET_ASSIGN_OR_RETURN(Value v, FromDocument(item));
        list.push_back(std::move(v));
      }
      return Value(std::move(list));
    }
    case Kind::kObject: {
      Value::Map map;
      for (const auto& [k, item] : j.as_object()) {
        ALKNET_ASSIGN_OR_RETURN(Value v, FromDocument(item));
        map.emplace(k, std::move(v));
      }
      return Value(std::move(map));
    }
  }
  return Value();
}

}  // namespace

Result<Value> ParseJson(std::string_view text) {
  base::json::ParseOptions options;
  options.max_depth = 128;
  options.duplicate_keys = base::json::DuplicateKeys::kError;
  options.big_integers_as_double = false;
  auto doc = base::json::Parse(text, options);
  if (!doc.ok()) {
    return MakeError(ErrorCode::kInvalidArgument, "invalid JSON at " + doc.error().ToString());
  }
  return FromDocument(*doc);
}

std::string ToJson(const Value& value) { return base::json::Write(ToDocument(value)); }

Value CallInfosToValue(const std::vector<CallInfo>& calls) {
  Value::List list;
  for (const auto& c : calls) {
    Value::Map m;
    m.emplace("name", c.name);
    m.emplace("signature", c.signature);
    m.emplace("owner", c.owner);
    m.emplace("async", c.flags.execution == Execution::kAsync);
    m.emplace("side_effects", c.flags.side_effects);
    m.emplace("idempotent", c.flags.idempotent);
    m.emplace("doc", c.doc);
    list.emplace_back(std::move(m));
  }
  return Value(std::move(list));
}

std::string CallInfosToJson(const std::vector<CallInfo>& calls) {
  return ToJson(CallInfosToValue(calls));
}

}  // namespace alknet::call
