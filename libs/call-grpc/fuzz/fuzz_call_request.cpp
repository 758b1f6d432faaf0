// libFuzzer target for everything alknet-call parses from outside: a remote request as the
// server reassembles it (control frame + metatensor payload -> Values -> signature check),
// JSON arguments of `alknet call`, signature text, and one gRPC message as the wire's frame
// parser sees it. First byte picks the parser.
#include <cstdint>
#include <cstring>
#include <string_view>

#include "alknet/call/json.h"
#include "alknet/call/signature.h"
#include "tensor_payload.h"
#include "wire.h"

namespace ac = alknet::call;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t which = data[0] % 4;
  ++data;
  --size;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (which == 0) {
    auto v = ac::ParseJson(text);
    if (v.ok()) {
      // What we print must parse back to the same value (NaN/inf cannot come from JSON).
      auto again = ac::ParseJson(ac::ToJson(*v));
      if (!again.ok() || !(*again == *v)) __builtin_trap();
    }
    return 0;
  }
  if (which == 1) {
    auto s = ac::ParseSignature(text);
    if (s.ok()) {
      auto again = ac::ParseSignature(s->ToString());
      if (!again.ok() || again->ToString() != s->ToString()) __builtin_trap();
    }
    return 0;
  }
  if (which == 3) {
    // One message: a frame is parsed or reported malformed, never both, never neither.
    grpc::Slice slice(data, size);
    grpc::ByteBuffer buffer(&slice, 1);
    ac::StreamFrame frame;
    frame.malformed = "stale";
    const grpc::Status s = grpc::SerializationTraits<ac::StreamFrame>::Deserialize(&buffer, &frame);
    if (s.ok() != frame.malformed.empty()) __builtin_trap();
    if (s.ok() && frame.is_chunk && frame.in_size + 1 != size) __builtin_trap();
    return 0;
  }
  // A request: u32 control length, the control Frame, then the payload.
  if (size < 4) return 0;
  std::uint32_t control_len;
  std::memcpy(&control_len, data, 4);
  data += 4;
  size -= 4;
  if (control_len > size) return 0;
  alknet::call::wire::Frame frame;
  if (!frame.ParseFromArray(data, static_cast<int>(control_len))) return 0;
  auto payload = ac::AllocatePayload(size - control_len);
  if (size > control_len) std::memcpy(payload.get(), data + control_len, size - control_len);
  auto tensors = ac::DecodePayload(payload, size - control_len);
  if (!tensors.ok()) return 0;
  std::vector<ac::Value> args;
  for (const auto& a : frame.header().args()) {
    auto v = ac::FromWire(a, *tensors);
    if (!v.ok()) return 0;
    args.push_back(std::move(*v));
  }
  static const ac::Signature sigs[] = {*ac::ParseSignature("(t: tensor) -> map"),
                                       *ac::ParseSignature("(...v: any) -> list"),
                                       *ac::ParseSignature("(a: int, b: number?) -> int")};
  for (const auto& sig : sigs) (void)ac::CheckArguments("fuzz.call", sig, args);
  // Whatever decoded must encode again (the server echoes such values back).
  std::vector<ac::Tensor> out;
  ac::wire::Value w;
  for (const auto& a : args) ac::ToWire(a, &w, out);
  (void)ac::EncodePayload(std::move(out));
  return 0;
}
