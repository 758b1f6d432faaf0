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
