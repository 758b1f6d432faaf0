// Remote calls behave like local ones: same results, same errors, same deadline and cancel
// semantics; tensors round-trip bit for bit; the bearer token and TLS guard the server.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "remote_fixture.h"

// LeakSanitizer (preset asan): c-ares, gRPC's DNS resolver, keeps ~30 bytes per process
// after resolving "localhost" (the TLS test). Not ours to fix; everything else must be clean.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcares.so\n"; }

namespace alknet::call {
namespace {

using namespace std::chrono_literals;
using testing::RandomTensor;
using testing::RemoteFixture;

class Remote : public RemoteFixture {};

// The same record invoked locally and through the server gives the same Value or the same
// Error, for every kind of argument.
TEST_F(Remote, LocalAndRemoteGiveIdenticalResults) {
  auto client = Client();
  Value::Map map;
  map.emplace("k", Value::List{Value(1), Value(2.5), Value(Bytes{0, 255, 7})});
  const std::vector<std::vector<Value>> cases = {
      {Value(40), Value(2)},
      {Value(), Value(true), Value(-7), Value(1e-300), Value(std::string("nul\0and \xff", 9)),
       Value(Bytes{1, 2, 3}), Value(Value::List{}), Value(std::move(map))},
      {Value(RandomTensor("f32", {3, 5}, 1)), Value(RandomTensor("u8", {0}, 2)),
       Value(RandomTensor("f64", {}, 3))},
      {Value(1), Value("two")},  // signature error
      {},                        // arity error
  };
  for (const char* name : {"test.add", "test.echo"}) {
    for (const auto& args : cases) {
      auto local = registry_.Invoke(name, args);
      auto remote = client->Invoke(name, args);
      ASSERT_EQ(local.ok(), remote.ok()) << name;
      if (local.ok()) {
        EXPECT_TRUE(*local == *remote) << name;
      } else {
        EXPECT_EQ(local.error().code, remote.error().code) << name;
        EXPECT_EQ(local.error().call, remote.error().call) << name;
        EXPECT_EQ(local.error().message, remote.error().message) << name;
      }
    }
  }
  for (const char* name : {"test.fail", "test.throw", "test.wrong_result", "call.list"}) {
    std::vector<Value> args;
    if (std::string_view(name) == "test.fail") args.emplace_back("no space left");
    auto local = registry_.Invoke(name, args);
    auto remote = client->Invoke(name, args);
    ASSERT_EQ(local.ok(), remote.ok()) << name;
    if (local.ok()) {
      EXPECT_TRUE(*local == *remote) << name;
    } else {
      EXPECT_EQ(local.error().ToString(), remote.error().ToString());
    }
  }
}

TEST_F(Remote, ListMatchesTheServerRegistry) {
  auto client = Client();
  auto remote = client->List();
  ASSERT_TRUE(remote.ok()) << remote.error().ToString();
  auto local = registry_.List();
  // The server adds its own server.stats to the listing, nothing else.
  std::erase_if(*remote, [](const CallInfo& c) { return c.name == kServerStatsCall; });
  ASSERT_EQ(remote->size(), local->size());
  for (std::size_t i = 0; i < local->size(); ++i) {
    EXPECT_EQ((*remote)[i].name, (*local)[i].name);
    EXPECT_EQ((*remote)[i].signature, (*local)[i].signature);
    EXPECT_EQ((*remote)[i].owner, (*local)[i].owner);
    EXPECT_EQ((*remote)[i].flags.execution, (*local)[i].flags.execution);
    EXPECT_EQ((*remote)[i].flags.idempotent, (*local)[i].flags.idempotent);
  }
}

TEST_F(Remote, TensorsRoundTripBitExact) {
  auto client = Client();
  // Sizes straddle the chunk size so the last chunk is partial, and odd element counts
  // exercise the payload padding.
  for (auto [dtype, shape, seed] :
       std::vector<std::tuple<const char*, std::vector<std::int64_t>, unsigned>>{
           {"f32", {1021, 1031}, 7},
           {"f64", {3, 7, 11}, 8},
           {"i64", {1}, 9},
           {"bf16", {2, 3, 5, 7}, 10},
           {"u8", {(4 << 20) + 3}, 11}}) {
    std::vector<Value> args{Value(RandomTensor(dtype, shape, seed)), Value(1),
                            Value(RandomTensor("f32", {5}, seed + 100))};
    auto r = client->Invoke("test.echo", args);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    ASSERT_EQ(r->as_list().size(), 3u);
    EXPECT_TRUE(r->as_list()[0] == args[0]) << dtype;
    EXPECT_TRUE(r->as_list()[2] == args[2]) << dtype;
    // The received tensor is a view into the received buffer, 64-byte aligned.
    const auto& t = r->as_list()[0].as_tensor();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data.data()) % 16, 0u);
  }
}

TEST_F(Remote, BadTokenIsRefused) {
  for (std::string token : {std::string(), std::string("wrong"), std::string(testing::kToken) + "x",
                            std::string(testing::kToken).substr(1)}) {
    auto client = Client(token);
    std::vector<Value> args{Value(1), Value(2)};
    auto r = client->Invoke("test.add", args);
    ASSERT_FALSE(r.ok()) << "token '" << token << "'";
    EXPECT_EQ(r.error().code, ErrorCode::kUnauthenticated);
    EXPECT_NE(r.error().message.find("bearer token"), std::string::npos);
    auto l = client->List();
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.error().code, ErrorCode::kUnauthenticated);
  }
  ExpectServerAnswers();
}

TEST_F(Remote, DeadlineTravelsWithTheCall) {
  auto client = Client();
  const auto start = Clock::now();
  std::vector<Value> args{Value(5000)};
  auto r = client->Invoke("test.sleep", args, CallOptions::WithTimeout(100ms));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_LT(Clock::now() - start, 3s);
  ExpectServerAnswers();
}

TEST_F(Remote, CancelReachesTheServer) {
  auto client = Client();
  CancelSource source;
  CallOptions o;
  o.cancel = source.Token();
  auto fut = client->InvokeAsync("test.sleep", {Value(5000)}, o);
  std::this_thread::sleep_for(100ms);
  const auto start = Clock::now();
  source.Cancel();
  auto r = fut.get();
  EXPECT_LT(Clock::now() - start, 2s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kCancelled);
  ExpectServerAnswers();
}

TEST_F(Remote, UnreachableServerIsUnavailable) {
  RemoteOptions o;
  o.address = "127.0.0.1:1";  // nothing listens on port 1
  auto c = RemoteRegistry::Connect(o);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Invoke("test.add", {}, CallOptions::WithTimeout(2s));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().code == ErrorCode::kUnavailable ||
              r.error().code == ErrorCode::kDeadlineExceeded)
      << r.error().ToString();
}

TEST(RemoteStart, RefusesNonLoopbackWithoutToken) {
  CallRegistry reg;
  for (const char* addr : {"0.0.0.0:0", "[::]:0", "10.1.2.3:0", "127.example.com:0"}) {
    ServerOptions o;
    o.listen = addr;
    auto s = CallServer::Start(reg, o);
    ASSERT_FALSE(s.ok()) << addr;
    EXPECT_EQ(s.error().code, ErrorCode::kFailedPrecondition);
    EXPECT_NE(s.error().message.find("without a token"), std::string::npos);
  }
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:80"));
  EXPECT_TRUE(IsLoopbackAddress("127.1.2.3:80"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:80"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:80"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:80"));
  EXPECT_FALSE(IsLoopbackAddress("128.0.0.1:80"));
}

// gRPC aborts the process (an assertion) on a header value it cannot send, so tokens are
// checked where they enter: Connect(), LoadToken() (ALKNET_TOKEN, --token-file), Start().
TEST(RemoteToken, UnsendableTokensAreRefusedClearly) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"tab\there", "a tab"},
      {"s\xc3\xa9"
       "cret",
       "a non-ASCII byte"},
      {"secret\n", "a line break"},
      {"two words", "a space"},
      {"bell\x07", "a control character"}};
  for (const auto& [token, what] : bad) {
    RemoteOptions o;
    o.address = "127.0.0.1:1";
    o.token = token;
    auto c = RemoteRegistry::Connect(o);
    ASSERT_FALSE(c.ok()) << token;
    EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(c.error().message.find("printable ASCII"), std::string::npos) << c.error().message;
    EXPECT_NE(c.error().message.find(what), std::string::npos) << c.error().message;
  }
  ::setenv("ALKNET_TOKEN", "secret\n", 1);
  auto loaded = LoadToken("");
  ::unsetenv("ALKNET_TOKEN");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("ALKNET_TOKEN"), std::string::npos);
  CallRegistry registry;
  ServerOptions so;
  so.token = "tab\tinside";
  EXPECT_FALSE(CallServer::Start(registry, so).ok());
  // Every printable ASCII character but space is fine.
  std::string all;
  for (char c = 0x21; c < 0x7f; ++c) all += c;
  RemoteOptions o;
  o.address = "127.0.0.1:1";
  o.token = all;
  EXPECT_TRUE(RemoteRegistry::Connect(o).ok());
}

TEST(RemoteStart, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", std::string_view("abc\0", 4)));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
}

// TLS with a certificate made by the openssl command line for this test: the client that
// trusts it connects; a client trusting nothing else (system roots) is refused.
TEST(RemoteTls, ClientVerifiesTheServer) {
  const std::string dir = ::testing::TempDir() + "alknet_tls_" + std::to_string(getpid());
  const std::string cmd =
      "mkdir -p " + dir +
      " && openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
      "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
      dir + "/key.pem -out " + dir + "/cert.pem 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "openssl could not make a certificate";
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CallRegistry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  ServerOptions so;
  so.listen = "127.0.0.1:0";
  so.token = "t";
  so.tls_cert_pem = slurp(dir + "/cert.pem");
  so.tls_key_pem = slurp(dir + "/key.pem");
  auto server = CallServer::Start(reg, so);
  ASSERT_TRUE(server.ok()) << server.error().ToString();

  RemoteOptions co;
  co.address = "localhost:" + std::to_string((*server)->port());
  co.token = "t";
  co.tls = true;
  co.tls_root_pem = so.tls_cert_pem;
  auto good = RemoteRegistry::Connect(co);
  ASSERT_TRUE(good.ok());
  auto listed = (*good)->List();
  ASSERT_TRUE(listed.ok()) << listed.error().ToString();
  EXPECT_FALSE(listed->empty());

  // A client that does not trust the certificate must not talk to the server.
  co.tls_root_pem = "";
  auto distrust = RemoteRegistry::Connect(co);
  ASSERT_TRUE(distrust.ok());
  auto refused = (*distrust)->Invoke("call.list", {}, CallOptions::WithTimeout(5s));
  EXPECT_FALSE(refused.ok());
  // And a plaintext client gets nothing either.
  co.tls = false;
  auto plain = RemoteRegistry::Connect(co);
  auto refused_plain = (*plain)->Invoke("call.list", {}, CallOptions::WithTimeout(5s));
  EXPECT_FALSE(refused_plain.ok());
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace alknet::call
