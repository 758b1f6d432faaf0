// A small streaming JSON writer for `--json` output (no parsing; alknet-tensor's CLI may
// bring a full JSON library for reading).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace alknet::cli {

class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view k) {
    Separate();
    String(k);
    out_ += ':';
    after_key_ = true;
  }
  void Value(std::string_view s) { Separate(); String(s); }
  void Value(const char* s) { Value(std::string_view(s)); }
  void Value(uint64_t v) { Separate(); out_ += std::to_string(v); }
  void Value(int64_t v) { Separate(); out_ += std::to_string(v); }
  void Value(uint32_t v) { Value(static_cast<uint64_t>(v)); }
  void Value(int v) { Value(static_cast<int64_t>(v)); }
  void Value(double v) {
    Separate();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
  }
  void Value(bool b) { Separate(); out_ += b ? "true" : "false"; }
  template <typename T>
  void Field(std::string_view k, const T& v) { Key(k); Value(v); }

  const std::string& str() const { return out_; }

 private:
  void Open(char c) { Separate(); out_ += c; first_.push_back(true); }
  void Close(char c) { out_ += c; first_.pop_back(); }
  void Separate() {
    if (after_key_) { after_key_ = false; return; }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  void String(std::string_view s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace alknet::cli
