// The runtime's error type: fallible calls return a [[nodiscard]] Result<T>. A JavaScript
// exception that escapes to the host becomes an Error whose message is already formatted for
// the user ("Uncaught TypeError: x is not a function\n    at main.js:3:5").
#pragma once

#include <string>
#include <utility>

#include "alknet/base/result.h"

namespace alknet::runtime {

struct Error {
  std::string message;
};

template <typename T>
using Result = base::Result<T, Error>;
using Status = base::Result<void, Error>;
using base::Ok;

inline Error MakeError(std::string message) { return Error{std::move(message)}; }

}  // namespace alknet::runtime
