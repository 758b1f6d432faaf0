// Any byte string given as a model must parse or fail with an Error; every initializer and
// TENSOR attribute of a model that parses must decode or fail with an Error (external data
// is refused without a base folder); the loader's checks and ONNX shape inference behind them
// (validate.cpp) must accept or refuse it. Never a crash, a hang or an out-of-bounds access.
#include <cstddef>
#include <cstdint>
#include <span>

#include "proto.h"
#include "validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace d = alknet::onnx::detail;
  auto m = d::ParseModel(std::as_bytes(std::span(data, size)), "fuzz");
  if (!m.ok()) return 0;
  (void)d::ValidateModel(**m, "fuzz", uint64_t{1} << 30);
  for (const auto& t : (*m)->graph().initializer()) {
    auto r = d::DecodeTensor(t, {}, "initializer");
    if (r.ok()) (void)alknet::onnx::ToRef(*r, true);
  }
  for (const auto& n : (*m)->graph().node()) {
    for (const auto& a : n.attribute()) (void)d::ConvertAttribute(a, {}, true, "attribute");
  }
  return 0;
}
