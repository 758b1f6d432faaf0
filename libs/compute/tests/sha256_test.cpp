// SHA-256 on the GPU against the FIPS 180-4 examples and against OpenSSL on random messages
// of every length 0..1100 (the 55/56/63/64-byte padding edges included), in every K mode.
#include <openssl/sha.h>

#include <string>

#include "alknet/compute/sha256.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

Sha256Digest OpenSsl(std::span<const std::byte> m) {
  Sha256Digest d;
  SHA256(reinterpret_cast<const unsigned char*>(m.data()), m.size(), d.data());
  return d;
}

std::span<const std::byte> Bytes(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

class Sha256Modes : public ::testing::TestWithParam<std::string> {};

TEST_P(Sha256Modes, FipsExamples) {
  Executor ex(testing::SharedContext());
  Sha256 sha(ex, {.k_mode = GetParam()});
  // FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf") with their published
  // digests.
  const std::string million(1000000, 'a');
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {million, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  std::vector<std::span<const std::byte>> msgs;
  for (const auto& v : vectors) msgs.push_back(Bytes(v.first));
  auto batch = sha.HashBatch(msgs);
  ASSERT_TRUE(batch.ok()) << batch.error().ToString();
  for (size_t i = 0; i < vectors.size(); ++i) {
    EXPECT_EQ(ToHex((*batch)[i]), vectors[i].second) << "batch, message " << i;
    EXPECT_EQ(ToHex(OpenSsl(msgs[i])), vectors[i].second) << "OpenSSL disagrees with FIPS?";
  }
  auto one = sha.HashOne(Bytes(million), 4096);
  ASSERT_TRUE(one.ok()) << one.error().ToString();
  EXPECT_EQ(ToHex(*one), vectors[3].second) << "stream mode, 4 KiB chunks";
}

TEST_P(Sha256Modes, EveryLengthTo1100MatchesOpenSsl) {
  Executor ex(testing::SharedContext());
  Sha256 sha(ex, {.k_mode = GetParam()});
  std::mt19937_64 rng(testing::Seed());
  std::vector<std::vector<std::byte>> data;
  for (size_t len = 0; len <= 1100; ++len) {
    std::vector<std::byte> m(len);
    for (auto& b : m) b = static_cast<std::byte>(rng());
    data.push_back(std::move(m));
  }
  std::vector<std::span<const std::byte>> msgs(data.begin(), data.end());
  auto got = sha.HashBatch(msgs);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  ASSERT_EQ(got->size(), msgs.size());
  int bad = 0;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if ((*got)[i] != OpenSsl(msgs[i]) && bad++ < 5)
      ADD_FAILURE() << "length " << i << ": " << ToHex((*got)[i]);
  }
  EXPECT_EQ(bad, 0);
}

INSTANTIATE_TEST_SUITE_P(K, Sha256Modes, ::testing::Values("inline", "switch", "array"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The fixed-length kernel (one length per batch, padding resolved when rendering) against
// OpenSSL at every padding edge up to its longest length, with one and several messages per
// invocation, and batch sizes that leave a ragged last workgroup.
TEST(Sha256Fixed, PaddingEdgesMatchOpenSsl) {
  Executor ex(testing::SharedContext());
  std::mt19937_64 rng(testing::Seed() + 3);
  // Each length a kernel of its own (llvmpipe compiles each in about a second): the edges where
  // the tail word, the 0x80 word and the block count change.
  const std::vector<uint32_t> lengths = {0, 3, 4, 53, 55, 56, 64, 119, 120, 185, 247};
  for (uint32_t per : {1u, 3u}) {
    Sha256 sha(ex, {.layout = "fixed", .per_invocation = per});
    for (uint32_t len : lengths) {
      if (per != 1 && len != 53) continue;  // one length is enough for the grid math
      const size_t count = 37 + len % 5;
      std::vector<std::byte> data(count * len);
      for (auto& b : data) b = static_cast<std::byte>(rng());
      std::vector<std::span<const std::byte>> msgs;
      for (size_t i = 0; i < count; ++i) msgs.emplace_back(data.data() + i * len, len);
      auto prepared = sha.Prepare(msgs);
      ASSERT_TRUE(prepared.ok()) << prepared.error().ToString();
      EXPECT_TRUE(prepared->fixed);
      ASSERT_TRUE(sha.Dispatch(*prepared, true).ok());
      auto got = sha.Finish(*prepared);
      ASSERT_TRUE(got.ok()) << got.error().ToString();
      for (size_t i = 0; i < count; ++i) {
        ASSERT_EQ(ToHex((*got)[i]), ToHex(OpenSsl(msgs[i])))
            << "length " << len << ", message " << i << ", " << per << " per invocation";
      }
    }
  }
}

TEST(Sha256Fixed, AutoChoosesTheLayoutAndFixedRefusesMixedLengths) {
  Executor ex(testing::SharedContext());
  const std::string a(55, 'a'), b(56, 'b'), c(kSha256MaxFixedLength + 1, 'c');
  Sha256 sha(ex);
  std::vector<std::span<const std::byte>> same(kSha256FixedMinBatch, Bytes(a)),
      mixed{Bytes(a), Bytes(b)}, too_long{Bytes(c), Bytes(c)}, few{Bytes(a), Bytes(a)};
  auto p1 = sha.Prepare(same);
  ASSERT_TRUE(p1.ok());
  EXPECT_TRUE(p1->fixed);
  auto p0 = sha.Prepare(few);  // a small batch keeps the indexed kernel (no compile per length)
  ASSERT_TRUE(p0.ok());
  EXPECT_FALSE(p0->fixed);
  auto p2 = sha.Prepare(mixed);
  ASSERT_TRUE(p2.ok());
  EXPECT_FALSE(p2->fixed);
  auto p3 = sha.Prepare(too_long);
  ASSERT_TRUE(p3.ok());
  EXPECT_FALSE(p3->fixed);
  auto digests = sha.HashBatch(too_long);
  ASSERT_TRUE(digests.ok());
  EXPECT_EQ(ToHex((*digests)[1]), ToHex(OpenSsl(Bytes(c))));
  Sha256 indexed(ex, {.layout = "indexed"});
  auto p4 = indexed.Prepare(same);
  ASSERT_TRUE(p4.ok());
  EXPECT_FALSE(p4->fixed);
  Sha256 fixed(ex, {.layout = "fixed"});
  auto p5 = fixed.Prepare(mixed);
  ASSERT_FALSE(p5.ok());
  EXPECT_NE(p5.error().message.find("one length"), std::string::npos) << p5.error().message;
  Sha256 bad(ex, {.per_invocation = 9});
  auto p6 = bad.Prepare(same);
  ASSERT_FALSE(p6.ok());
  EXPECT_NE(p6.error().message.find("per_invocation 9"), std::string::npos);
}

// Stream mode across chunk boundaries: every length around the padding edges of the last
// chunk, with 128-byte chunks.
TEST(Sha256Stream, ChunkBoundariesMatchOpenSsl) {
  Executor ex(testing::SharedContext());
  Sha256 sha(ex);
  std::mt19937_64 rng(testing::Seed() + 7);
  for (size_t len :
       {0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 183, 184, 191, 192, 255, 256, 1000}) {
    std::vector<std::byte> m(len);
    for (auto& b : m) b = static_cast<std::byte>(rng());
    auto got = sha.HashOne(m, 128);
    ASSERT_TRUE(got.ok()) << got.error().ToString();
    EXPECT_EQ(ToHex(*got), ToHex(OpenSsl(m))) << "length " << len;
  }
}

TEST(Sha256Errors, UnknownKModeIsAnError) {
  Executor ex(testing::SharedContext());
  Sha256 sha(ex, {.k_mode = "table"});
  const std::string s = "x";
  std::vector<std::span<const std::byte>> msgs{Bytes(s)};
  auto r = sha.HashBatch(msgs);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("k_mode 'table'"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace alknet::compute
