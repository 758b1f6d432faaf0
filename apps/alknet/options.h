// Numeric values of command-line options, parsed one way for every subcommand: plain decimal
// digits only, so `12abc`, `1e3`, `0x10`, ` 7`, `+7` and an empty value are refused instead of
// silently read as 12, 1 or 0 (what strtoul/atoi do), and so are a sign on an unsigned option
// and anything out of the option's range. The message names the option and the text given.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "alknet/base/result.h"

namespace alknet::cli {

struct OptionError {
  std::string message;  // e.g. "--elements: '12abc' is not a whole number"
};

template <typename T>
using OptionResult = base::Result<T, OptionError>;

// An unsigned whole number in [min, max].
OptionResult<std::uint64_t> ParseUnsignedOption(
    std::string_view option, std::string_view text, std::uint64_t min = 0,
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// A whole number in [min, max]; a leading '-' is allowed only when min < 0.
OptionResult<std::int64_t> ParseIntegerOption(
    std::string_view option, std::string_view text,
    std::int64_t min = std::numeric_limits<std::int64_t>::min(),
    std::int64_t max = std::numeric_limits<std::int64_t>::max());

// A non-negative decimal number ("2", "0.25"; no exponent, sign, inf or nan) greater than
// `above` (exclusive) and at most `max`.
OptionResult<double> ParseDecimalOption(std::string_view option, std::string_view text,
                                        double above, double max);

// Text from elsewhere (a remote server's call docs and error messages) made safe to print on
// a terminal: bytes that are not UTF-8 become U+FFFD, and control characters (C0, DEL, C1:
// escape sequences, carriage returns, ...) are written as \xNN, so no peer can move the
// cursor, retitle the window or hide text.
std::string TerminalText(std::string_view text);

}  // namespace alknet::cli
