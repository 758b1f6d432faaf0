// Shared helpers for the compute benchmarks: argument parsing, timing, failure exits.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/webgpu/result.h"

namespace bench {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

[[noreturn]] inline void Die(const std::string& what) {
  std::fprintf(stderr, "benchmark failed: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Must(alknet::compute::Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.error().ToString());
  return std::move(r).value();
}
template <typename T>
T Must(alknet::webgpu::Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.error().ToString());
  return std::move(r).value();
}

inline std::vector<uint64_t> ParseList(std::string_view s) {
  std::vector<uint64_t> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    out.push_back(std::strtoull(std::string(s.substr(pos, comma - pos)).c_str(), nullptr, 10));
    pos = comma + 1;
  }
  return out;
}

}  // namespace bench
