#include "options.h"

#include <charconv>
#include <cstdio>
#include <string>
#include <system_error>

#include "alknet/base/utf8.h"

namespace alknet::cli {
namespace {

OptionError Bad(std::string_view option, std::string_view text, std::string_view what) {
  return OptionError{std::string(option) + ": '" + std::string(text) + "' " + std::string(what)};
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

template <typename T>
std::string Range(T min, T max) {
  return "from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string Decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

OptionResult<std::uint64_t> ParseUnsignedOption(std::string_view option, std::string_view text,
                                                std::uint64_t min, std::uint64_t max) {
  if (!text.empty() && text[0] == '-') {
    return Bad(option, text, "is negative; it needs a number " + Range(min, max));
  }
  if (!AllDigits(text)) return Bad(option, text, "is not a whole number (digits 0-9 only)");
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && (v < min || v > max))) {
    return Bad(option, text, "is out of range; it needs a number " + Range(min, max));
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Bad(option, text, "is not a whole number (digits 0-9 only)");
  }
  return v;
}

OptionResult<std::int64_t> ParseIntegerOption(std::string_view option, std::string_view text,
                                              std::int64_t min, std::int64_t max) {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative && min >= 0) {
    return Bad(option, text, "is negative; it needs a number " + Range(min, max));
  }
  if (!AllDigits(negative ? text.substr(1) : text)) {
    return Bad(option, text, "is not a whole number (an optional '-', then digits 0-9)");
  }
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && (v < min || v > max))) {
    return Bad(option, text, "is out of range; it needs a number " + Range(min, max));
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Bad(option, text, "is not a whole number (an optional '-', then digits 0-9)");
  }
  return v;
}

OptionResult<double> ParseDecimalOption(std::string_view option, std::string_view text,
                                        double above, double max) {
  // Digits with at most one '.', and a digit somewhere: no exponent, sign, hex, inf or nan.
  bool dot = false, digit = false;
  for (char c : text) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c >= '0' && c <= '9') {
      digit = true;
    } else {
      return Bad(option, text, "is not a decimal number (like 2 or 0.5)");
    }
  }
  if (!digit) return Bad(option, text, "is not a decimal number (like 2 or 0.5)");
  double v = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || end != text.data() + text.size() || !(v > above) || v > max) {
    return Bad(option, text,
               "is out of range; it needs a number above " + Decimal(above) + " and at most " +
                   Decimal(max));
  }
  return v;
}

std::string TerminalText(std::string_view text) {
  const std::string valid = base::utf8::Sanitize(text);
  std::string out;
  out.reserve(valid.size());
  auto escape = [&](unsigned code) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", code);
    out += hex;
  };
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const auto c = static_cast<unsigned char>(valid[i]);
    if (c < 0x20 || c == 0x7f) {
      escape(c);
    } else if (c == 0xc2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) < 0xa0) {
      escape(static_cast<unsigned char>(valid[++i]));  // U+0080..U+009F (C1): C2 80..C2 9F
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace alknet::cli
