#include "alknet/call/connect.h"

#include <charconv>

namespace alknet::call {

namespace {

Result<TargetEndpoint> ParseEndpoint(std::string_view text, std::string_view target, bool want_v6) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "remote target '" + std::string(target) + "': " + why +
                         " (expected HOST:PORT, ipv4:A:PORT,B:PORT, ipv6:[A]:PORT,... or "
                         "dns:///NAME:PORT)");
  };
  TargetEndpoint e;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("'" + std::string(text) + "' has no ']:PORT'");
    }
    e.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("'" + std::string(text) + "' has no port");
    e.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (e.host.find(':') != std::string::npos) {
      return bad("the IPv6 address in '" + std::string(text) + "' needs brackets ([::1]:7000)");
    }
  }
  if (e.host.empty()) return bad("'" + std::string(text) + "' has no host");
  if (want_v6 && text.front() != '[') {
    return bad("an ipv6: list takes [ADDRESS]:PORT, not '" + std::string(text) + "'");
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
      value > 65535) {
    return bad("the port '" + std::string(port) + "' is not a number in 1..65535");
  }
  e.port = static_cast<std::uint16_t>(value);
  return e;
}

}  // namespace

Result<ParsedTarget> ParseTarget(std::string_view target) {
  ParsedTarget out;
  std::string_view rest = target;
  bool want_v6 = false;
  bool list = false;
  if (rest.substr(0, 4) == "dns:") {
    rest.remove_prefix(4);
    if (rest.substr(0, 3) == "///") {
      rest.remove_prefix(3);
    } else if (rest.substr(0, 2) == "//") {
      return MakeError(ErrorCode::kInvalidArgument,
                       "remote target '" + std::string(target) +
                           "': a DNS server authority is not supported; use dns:///NAME:PORT");
    }
    out.dns = true;
    out.pool = true;
  } else if (rest.substr(0, 5) == "ipv4:") {
    rest.remove_prefix(5);
    list = true;
  } else if (rest.substr(0, 5) == "ipv6:") {
    rest.remove_prefix(5);
    list = want_v6 = true;
  }
  if (!list) {
    auto e = ParseEndpoint(rest, target, false);
    if (!e) return std::move(e).error();
    out.endpoints.push_back(std::move(*e));
    return out;
  }
  while (true) {
    const auto comma = rest.find(',');
    auto e = ParseEndpoint(rest.substr(0, comma), target, want_v6);
    if (!e) return std::move(e).error();
    out.endpoints.push_back(std::move(*e));
    if (out.endpoints.size() > 1024) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "remote target '" + std::string(target).substr(0, 200) + "...': more than 1024 workers");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  out.pool = out.endpoints.size() > 1;
  return out;
}

}  // namespace alknet::call
