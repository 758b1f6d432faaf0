// The call payload is a metatensor file: round trip, no copy of tensor data when encoding,
// and anything the metatensor Reader rejects is refused with its rule.
#include <gtest/gtest.h>

#include <cstring>

#include "alknet/tensor/writer.h"
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
  std::vector<std::byte> q(18 * 2, std::byte{0x5a});  // two q4_0 blocks
  return {Tensor::Copy("f32", {3}, std::as_bytes(std::span(a))),
          Tensor::Copy("i64", {1, 2}, std::as_bytes(std::span(b))), Tensor::Copy("u8", {0, 4}, {}),
          Tensor::Copy("q4_0", {64}, q)};
}

TEST(Payload, RoundTripWithoutCopyingTensorData) {
  auto tensors = Sample();
  auto enc = EncodePayload(tensors);
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  // Each non-empty tensor is one piece pointing at the tensor's own bytes.
  for (const auto& t : tensors) {
    if (t.data.empty()) continue;
    bool referenced = false;
    for (auto piece : enc->pieces) referenced |= piece.data() == t.data.data();
    EXPECT_TRUE(referenced) << t.dtype;
  }
  auto buf = Flatten(*enc);
  auto dec = DecodePayload(buf, enc->size);
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  ASSERT_EQ(dec->size(), tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_TRUE(Value((*dec)[i]) == Value(tensors[i])) << i;
    if (!(*dec)[i].data.empty()) {
      EXPECT_GE((*dec)[i].data.data(), buf.get());
      EXPECT_LT((*dec)[i].data.data(), buf.get() + enc->size);
    }
  }
}

TEST(Payload, ReadsAFileFromTheMetatensorWriterDefaults) {
  // The index-after-data layout with checksums: another writer configuration than ours.
  tensor::MemorySink sink;
  tensor::Writer w(sink);
  std::vector<double> d{1.0, -0.0, 3.5};
  std::vector<std::uint64_t> shape{3};
  ASSERT_TRUE(w.AddTensor("0", tensor::DType::kF64, shape, std::as_bytes(std::span(d))).ok());
  ASSERT_TRUE(w.Finish().ok());
  auto bytes = sink.Take();
  auto buf = std::make_shared<std::byte[]>(bytes.size());
  std::memcpy(buf.get(), bytes.data(), bytes.size());
  auto dec = DecodePayload(buf, bytes.size());
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  ASSERT_EQ(dec->size(), 1u);
  EXPECT_TRUE(Value((*dec)[0]) == Value(Tensor::Copy("f64", {3}, std::as_bytes(std::span(d)))));
}

TEST(Payload, TensorsMustBeNamedByIndex) {
  tensor::MemorySink sink;
  tensor::Writer w(sink);
  std::vector<std::uint64_t> shape{1};
  std::byte one{1};
  ASSERT_TRUE(w.AddTensor("weights", tensor::DType::kU8, shape, std::span(&one, 1)).ok());
  ASSERT_TRUE(w.Finish().ok());
  auto bytes = sink.Take();
  auto buf = std::make_shared<std::byte[]>(bytes.size());
  std::memcpy(buf.get(), bytes.data(), bytes.size());
  auto dec = DecodePayload(buf, bytes.size());
  ASSERT_FALSE(dec.ok());
  EXPECT_NE(dec.error().message.find("none is named \"0\""), std::string::npos)
      << dec.error().message;
}

TEST(Payload, EveryTruncationIsRefused) {
  auto enc = EncodePayload(Sample());
  ASSERT_TRUE(enc.ok());
  auto buf = Flatten(*enc);
  for (std::size_t n = 1; n < enc->size; ++n) {
    auto dec = DecodePayload(buf, n);
    EXPECT_FALSE(dec.ok()) << n;
    if (!dec.ok()) {
      EXPECT_NE(dec.error().message.find("malformed tensor payload"), std::string::npos);
    }
  }
}

TEST(Payload, UnknownDtypeIsRefusedWhenEncoding) {
  Tensor t = Tensor::Copy("f32", {1}, std::vector<std::byte>(4));
  t.dtype = "float";
  auto enc = EncodePayload({t});
  ASSERT_FALSE(enc.ok());
  EXPECT_NE(enc.error().message.find("unknown dtype 'float'"), std::string::npos);
}

}  // namespace
}  // namespace alknet::call
