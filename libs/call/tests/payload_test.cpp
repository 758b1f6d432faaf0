// The tensor payload codec: round trip, and one test per validation rule on decode.
#include <gtest/gtest.h>

#include <cstring>

#include "tensor_payload.h"
#include "test_component.h"

namespace alknet::call {
namespace {

std::shared_ptr<std::byte[]> Flatten(const EncodedPayload& p) {
  auto buf = std::make_shared<std::byte[]>(p.size);
  std::size_t at = 0;
  for (auto piece : p.pieces) {
    std::memcpy(buf.get() + at, piece.data(), piece.size());
    at += piece.size();
  }
  EXPECT_EQ(at, p.size);
  return buf;
}

std::vector<Tensor> Sample() {
  std::vector<float> a{1, 2, 3};
  std::vector<std::int64_t> b{-1, 1LL << 40};
  return {Tensor::Copy("f32", {3}, std::as_bytes(std::span(a))),
          Tensor::Copy("i64", {1, 2}, std::as_bytes(std::span(b))),
          Tensor::Copy("u8", {0, 4}, {})};
}

TEST(Payload, RoundTrip) {
  auto tensors = Sample();
  auto enc = EncodePayload(tensors);
  auto buf = Flatten(enc);
  auto dec = DecodePayload(buf, enc.size);
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  ASSERT_EQ(dec->size(), tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_TRUE(Value((*dec)[i]) == Value(tensors[i])) << i;
    if (!(*dec)[i].data.empty()) {
      EXPECT_EQ(((*dec)[i].data.data() - buf.get()) % 64, 0);
    }
  }
}

TEST(Payload, EveryTruncationIsRefused) {
  auto enc = EncodePayload(Sample());
  auto buf = Flatten(enc);
  // Cutting anywhere before the last tensor's data ends must fail cleanly.
  for (std::size_t n = 1; n < enc.size; ++n) {
    auto dec = DecodePayload(buf, n);
    EXPECT_FALSE(dec.ok()) << n;
  }
}

TEST(Payload, CorruptFieldsAreRefused) {
  auto enc = EncodePayload(Sample());
  auto fresh = [&] { return Flatten(enc); };
  struct Case {
    std::size_t offset;
    std::uint8_t value;
    const char* needle;
  };
  // Offsets into the header: magic, count, first dtype length, first ndim, first offset.
  for (const Case& c : {Case{0, 'X', "bad magic"}, Case{11, 0xFF, "tensor count"},
                        Case{16, 9, "tensor 0"}, Case{20, 33, "more than 32 dimensions"},
                        Case{29, 0x01, "not 64-byte aligned"}, Case{36, 0xFF, "outside"}}) {
    auto buf = fresh();
    buf[c.offset] = static_cast<std::byte>(c.value);
    auto dec = DecodePayload(buf, enc.size);
    ASSERT_FALSE(dec.ok()) << c.offset;
    EXPECT_NE(dec.error().message.find(c.needle), std::string::npos)
        << c.offset << ": " << dec.error().message;
  }
}

}  // namespace
}  // namespace alknet::call
