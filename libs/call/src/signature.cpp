#include "alknet/call/signature.h"

#include <algorithm>
#include <cctype>

namespace alknet::call {

namespace {

constexpr std::string_view kTypeNames[] = {"any",    "null",  "bool", "int", "float", "number",
                                           "string", "bytes", "list", "map", "tensor"};

// A tiny cursor over the signature text; errors report the column (1-based).
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(std::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  std::string_view Identifier() {
    SkipSpace();
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  Error Fail(std::string_view what) const {
    return MakeError(ErrorCode::kInvalidArgument, "signature \"" + std::string(text_) +
                                                      "\", column " + std::to_string(pos_ + 1) +
                                                      ": " + std::string(what));
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

Result<Type> ParseType(Cursor& c) {
  const std::string_view name = c.Identifier();
  for (std::size_t i = 0; i < std::size(kTypeNames); ++i) {
    if (kTypeNames[i] == name) return static_cast<Type>(i);
  }
  return c.Fail("unknown type '" + std::string(name) +
                "' (expected any, null, bool, int, float, number, string, bytes, list, map, "
                "tensor)");
}

}  // namespace

std::string_view TypeName(Type type) { return kTypeNames[static_cast<std::size_t>(type)]; }

bool TypeAccepts(Type type, ValueKind kind) {
  switch (type) {
    case Type::kAny: return true;
    case Type::kNull: return kind == ValueKind::kNull;
    case Type::kBool: return kind == ValueKind::kBool;
    case Type::kInt: return kind == ValueKind::kInt;
    case Type::kFloat: return kind == ValueKind::kFloat;
    case Type::kNumber: return kind == ValueKind::kInt || kind == ValueKind::kFloat;
    case Type::kString: return kind == ValueKind::kString;
    case Type::kBytes: return kind == ValueKind::kBytes;
    case Type::kList: return kind == ValueKind::kList;
    case Type::kMap: return kind == ValueKind::kMap;
    case Type::kTensor: return kind == ValueKind::kTensor;
  }
  return false;
}

std::string Signature::ToString() const {
  std::string out = "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    if (params[i].variadic) out += "...";
    out += params[i].name;
    out += ": ";
    out += TypeName(params[i].type);
    if (params[i].optional) out += "?";
  }
  out += ") -> ";
  out += TypeName(result);
  return out;
}

Result<Signature> ParseSignature(std::string_view text) {
  Cursor c(text);
  Signature sig;
  if (!c.Eat("(")) return c.Fail("expected '('");
  if (!c.Eat(")")) {
    for (;;) {
      Param p;
      p.variadic = c.Eat("...");
      p.name = std::string(c.Identifier());
      if (p.name.empty()) return c.Fail("expected a parameter name");
      for (const auto& q : sig.params) {
        if (q.name == p.name) return c.Fail("parameter '" + p.name + "' appears twice");
      }
      if (!sig.params.empty() && sig.params.back().variadic) {
        return c.Fail("a variadic parameter must be the last one");
      }
      if (!c.Eat(":")) return c.Fail("expected ':' after parameter '" + p.name + "'");
      auto type = ParseType(c);
      if (!type) return std::move(type).error();
      p.type = *type;
      p.optional = c.Eat("?");
      if (p.optional && p.variadic) return c.Fail("a variadic parameter cannot also be optional");
      if (!p.optional && !sig.params.empty() && sig.params.back().optional) {
        return c.Fail("required parameter '" + p.name + "' follows an optional one");
      }
      sig.params.push_back(std::move(p));
      if (c.Eat(")")) break;
      if (!c.Eat(",")) return c.Fail("expected ',' or ')'");
    }
  }
  if (!c.Eat("->")) return c.Fail("expected '->' and a result type");
  auto result = ParseType(c);
  if (!result) return std::move(result).error();
  sig.result = *result;
  if (!c.AtEnd()) return c.Fail("unexpected text after the result type");
  return sig;
}

Status CheckArguments(std::string_view call, const Signature& sig, std::span<const Value> args) {
  auto fail = [&](std::string message) {
    return Error{ErrorCode::kInvalidArgument, std::string(call), std::move(message)};
  };
  std::size_t required = 0;
  for (const auto& p : sig.params) {
    if (!p.optional && !p.variadic) ++required;
  }
  const bool variadic = !sig.params.empty() && sig.params.back().variadic;
  if (args.size() < required || (!variadic && args.size() > sig.params.size())) {
    std::string expected = std::to_string(required);
    if (variadic) {
      expected = "at least " + expected;
    } else if (sig.params.size() != required) {
      expected += " to " + std::to_string(sig.params.size());
    }
    return fail("expects " + expected + " argument(s) " + sig.ToString() + ", given " +
                std::to_string(args.size()));
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Param& p = sig.params[std::min(i, sig.params.size() - 1)];
    if (!TypeAccepts(p.type, args[i].kind())) {
      std::string where = "parameter '" + p.name + "'";
      if (p.variadic) where += " (argument " + std::to_string(i + 1) + ")";
      return fail(where + " expects " + std::string(TypeName(p.type)) + ", given " +
                  std::string(ValueKindName(args[i].kind())));
    }
    if (args[i].kind() == ValueKind::kTensor) {
      auto valid = args[i].as_tensor().Validate();
      if (!valid) return fail("parameter '" + p.name + "': " + valid.error().message);
    }
  }
  return {};
}

}  // namespace alknet::call
