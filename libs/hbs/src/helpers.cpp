// Built-in helpers: handlebars.js's own (native, in render.cpp), handlebars-rust's comparison and
// logic helpers, and arithmetic/loop helpers for shader code generation.
#include <cmath>
#include <limits>

#include "registry_impl.h"

namespace alknet::hbs::detail {

namespace {

// handlebars-rust truthiness: empty arrays and objects are false too.
bool helper_truthy(const Value& v) {
  if (v.is_array()) return !v.as_array().empty();
  if (v.is_object()) return !v.as_object().empty();
  return v.truthy();
}

void need_args(const HelperCall& c, std::size_t min, std::size_t max) {
  std::size_t n = c.param_count();
  if (n < min || n > max) {
    std::string want = min == max        ? std::to_string(min)
                       : max == SIZE_MAX ? "at least " + std::to_string(min)
                                         : std::to_string(min) + " to " + std::to_string(max);
    c.fail("takes " + want + " argument(s), got " + std::to_string(n));
  }
}

const Value& number_arg(const HelperCall& c, std::size_t i) {
  const Value& v = c.param(i);
  if (!v.is_number())
    c.fail("argument " + std::to_string(i + 1) + " is " + std::string(Value::kind_name(v.kind())) +
           " " + v.to_json() + ", not a number");
  return v;
}

// Three-way comparison for gt/gte/lt/lte: numbers by value, strings by bytes.
int compare(const HelperCall& c) {
  need_args(c, 2, 2);
  const Value& a = c.param(0);
  const Value& b = c.param(1);
  if (a.is_number() && b.is_number()) {
    if (a.is_int() && b.is_int()) return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int();
    double x = a.as_number(), y = b.as_number();
    if (std::isnan(x) || std::isnan(y)) c.fail("cannot compare NaN");
    return x < y ? -1 : x > y;
  }
  if (a.is_string() && b.is_string()) {
    int r = a.as_string().compare(b.as_string());
    return r < 0 ? -1 : r > 0;
  }
  c.fail("cannot compare " + std::string(Value::kind_name(a.kind())) + " with " +
         std::string(Value::kind_name(b.kind())) + " (numbers or strings only)");
}

enum class ArithOp { kAdd, kSub, kMul, kDiv, kMod, kMin, kMax };

Value arith2(const HelperCall& c, ArithOp op, const Value& a, const Value& b) {
  if (a.is_int() && b.is_int()) {
    std::int64_t x = a.as_int(), y = b.as_int(), r = 0;
    bool overflow = false;
    switch (op) {
      case ArithOp::kAdd: overflow = __builtin_add_overflow(x, y, &r); break;
      case ArithOp::kSub: overflow = __builtin_sub_overflow(x, y, &r); break;
      case ArithOp::kMul: overflow = __builtin_mul_overflow(x, y, &r); break;
      case ArithOp::kDiv:
      case ArithOp::kMod:
        if (y == 0) c.fail("division by zero (" + std::to_string(x) + " / 0)");
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1)
          overflow = true;
        else
          r = op == ArithOp::kDiv ? x / y : x % y;
        break;
      case ArithOp::kMin: r = x < y ? x : y; break;
      case ArithOp::kMax: r = x > y ? x : y; break;
    }
    if (overflow)
      c.fail("integer overflow (" + std::to_string(x) + ", " + std::to_string(y) +
             " do not fit in 64 bits)");
    return Value(r);
  }
  double x = a.as_number(), y = b.as_number();
  switch (op) {
    case ArithOp::kAdd: return Value(x + y);
    case ArithOp::kSub: return Value(x - y);
    case ArithOp::kMul: return Value(x * y);
    case ArithOp::kDiv:
      if (y == 0) c.fail("division by zero");
      return Value(x / y);
    case ArithOp::kMod:
      if (y == 0) c.fail("division by zero (modulo)");
      return Value(std::fmod(x, y));
    case ArithOp::kMin: return Value(x < y ? x : y);
    case ArithOp::kMax: return Value(x > y ? x : y);
  }
  return Value();
}

Helper arith(ArithOp op, bool variadic) {
  return [op, variadic](const HelperCall& c) {
    need_args(c, 2, variadic ? SIZE_MAX : 2);
    Value acc = number_arg(c, 0);
    for (std::size_t i = 1; i < c.param_count(); ++i) acc = arith2(c, op, acc, number_arg(c, i));
    return acc;
  };
}

void add(Registry::Impl& impl, const char* name, Helper fn, bool lenient = false) {
  HelperEntry e;
  e.fn = std::move(fn);
  e.lenient_args = lenient;
  impl.helpers.insert_or_assign(name, std::move(e));
}

void add_native(Registry::Impl& impl, const char* name, NativeHelper kind) {
  HelperEntry e;
  e.native = kind;
  impl.helpers.insert_or_assign(name, std::move(e));
}

}  // namespace

void register_builtin_helpers(Registry::Impl& impl) {
  add_native(impl, "if", NativeHelper::kIf);
  add_native(impl, "unless", NativeHelper::kUnless);
  add_native(impl, "each", NativeHelper::kEach);
  add_native(impl, "with", NativeHelper::kWith);
  add_native(impl, "lookup", NativeHelper::kLookup);
  add_native(impl, "log", NativeHelper::kLog);
  add_native(impl, "times", NativeHelper::kTimes);

  add(impl, "eq", [](const HelperCall& c) {
    need_args(c, 2, 2);
    return Value(c.param(0) == c.param(1));
  });
  add(impl, "ne", [](const HelperCall& c) {
    need_args(c, 2, 2);
    return Value(!(c.param(0) == c.param(1)));
  });
  add(impl, "gt", [](const HelperCall& c) { return Value(compare(c) > 0); });
  add(impl, "gte", [](const HelperCall& c) { return Value(compare(c) >= 0); });
  add(impl, "lt", [](const HelperCall& c) { return Value(compare(c) < 0); });
  add(impl, "lte", [](const HelperCall& c) { return Value(compare(c) <= 0); });
  add(impl, "and", [](const HelperCall& c) {
    need_args(c, 1, SIZE_MAX);
    for (std::size_t i = 0; i < c.param_count(); ++i)
      if (!helper_truthy(c.param(i))) return Value(false);
    return Value(true);
  });
  add(impl, "or", [](const HelperCall& c) {
    need_args(c, 1, SIZE_MAX);
    for (std::size_t i = 0; i < c.param_count(); ++i)
      if (helper_truthy(c.param(i))) return Value(true);
    return Value(false);
  });
  add(impl, "not", [](const HelperCall& c) {
    need_args(c, 1, 1);
    return Value(!helper_truthy(c.param(0)));
  });
  add(impl, "len", [](const HelperCall& c) {
    need_args(c, 1, 1);
    const Value& v = c.param(0);
    if (v.is_array()) return Value(static_cast<std::int64_t>(v.as_array().size()));
    if (v.is_object()) return Value(static_cast<std::int64_t>(v.as_object().size()));
    if (v.is_string()) {
      std::int64_t n = 0;
      for (unsigned char ch : v.as_string()) n += (ch & 0xC0) != 0x80;
      return Value(n);
    }
    c.fail("needs an array, object or string, got " + std::string(Value::kind_name(v.kind())));
  });

  add(impl, "add", arith(ArithOp::kAdd, true));
  add(impl, "sub", arith(ArithOp::kSub, false));
  add(impl, "mul", arith(ArithOp::kMul, true));
  add(impl, "div", arith(ArithOp::kDiv, false));
  add(impl, "mod", arith(ArithOp::kMod, false));
  add(impl, "min", arith(ArithOp::kMin, true));
  add(impl, "max", arith(ArithOp::kMax, true));

  add(impl, "range", [](const HelperCall& c) {
    need_args(c, 1, 3);
    for (std::size_t i = 0; i < c.param_count(); ++i) {
      if (!number_arg(c, i).is_int()) c.fail("arguments must be integers");
    }
    std::int64_t start = 0, end, step = 1;
    if (c.param_count() == 1) {
      end = c.param(0).as_int();
    } else {
      start = c.param(0).as_int();
      end = c.param(1).as_int();
      if (c.param_count() == 3) step = c.param(2).as_int();
    }
    if (step == 0) c.fail("step must not be 0");
    // Each item is a Value to allocate, fill and free: 4 render steps, paid again each time a
    // loop evaluates the range.
    Array out;
    constexpr std::int64_t kMaxItems = 1 << 20;
    for (std::int64_t i = start; step > 0 ? i < end : i > end; i += step) {
      if (static_cast<std::int64_t>(out.size()) >= kMaxItems)
        c.fail("range longer than " + std::to_string(kMaxItems) + " items");
      if ((out.size() & 1023) == 0) c.charge(4 * 1024);
      out.emplace_back(i);
      if ((step > 0 && i > std::numeric_limits<std::int64_t>::max() - step) ||
          (step < 0 && i < std::numeric_limits<std::int64_t>::min() - step))
        break;
    }
    return Value(std::move(out));
  });
  add(impl, "join", [](const HelperCall& c) {
    need_args(c, 1, 2);
    const Value& a = c.param(0);
    if (!a.is_array()) c.fail("first argument must be an array, got " + a.to_json());
    std::string sep = c.param_count() > 1 ? c.param(1).to_js_string() : ",";
    // The result is checked against the output limit as it grows, before it can exhaust
    // memory (a long separator times many items).
    std::string out;
    bool first = true;
    for (const auto& item : a.as_array()) {
      c.charge(1);
      if (!first) {
        c.check_size(out.size() + sep.size());
        out += sep;
      }
      first = false;
      item.append_js_string(out);
      c.check_size(out.size());
    }
    return Value(std::move(out));
  });
  add(
      impl, "default",
      [](const HelperCall& c) {
        need_args(c, 2, 2);
        return c.param(0).is_nullish() ? c.param(1) : c.param(0);
      },
      /*lenient=*/true);
  add(impl, "raw", [](const HelperCall& c) {
    if (!c.is_block()) c.fail("is a block helper: {{{{raw}}}}...{{{{/raw}}}}");
    return Value(c.fn());
  });
}

}  // namespace alknet::hbs::detail
