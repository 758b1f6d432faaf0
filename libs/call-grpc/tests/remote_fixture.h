// A server on 127.0.0.1 (free port) serving the builtins and the test component.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "test_component.h"

namespace alknet::call::testing {

inline constexpr char kToken[] = "correct-horse-battery-staple";

class RemoteFixture : public ::testing::Test {
 protected:
  void StartServer(ServerLimits limits = {}) {
    ASSERT_TRUE(RegisterBuiltins(registry_).ok());
    ASSERT_TRUE(registry_.AddComponent(TestComponent()).ok());
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.token = kToken;
    options.limits = limits;
    auto server = CallServer::Start(registry_, options);
    ASSERT_TRUE(server.ok()) << server.error().ToString();
    server_ = std::move(*server);
  }
  void SetUp() override { StartServer(); }

  std::unique_ptr<RemoteRegistry> Client(std::string token = kToken, unsigned threads = 8) {
    RemoteOptions o;
    o.address = server_->address();
    o.token = std::move(token);
    o.async_threads = threads;
    auto c = RemoteRegistry::Connect(o);
    EXPECT_TRUE(c.ok());
    return std::move(*c);
  }

  // The server is healthy when a fresh client can list and call.
  void ExpectServerAnswers() {
    auto c = Client();
    std::vector<Value> args{Value(20), Value(22)};
    auto r = c->Invoke("test.add", args, CallOptions::WithTimeout(std::chrono::seconds(10)));
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_EQ(r->as_int(), 42);
  }

  CallRegistry registry_;
  std::unique_ptr<CallServer> server_;
};

// Random bytes for a tensor, including NaN payloads and denormals when read as floats.
inline Tensor RandomTensor(std::string dtype, std::vector<std::int64_t> shape, unsigned seed) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<std::byte> bytes(static_cast<std::size_t>(n) * DTypeSize(dtype));
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t r = rng();
    for (std::size_t k = 0; k < 8 && i + k < bytes.size(); ++k) {
      bytes[i + k] = static_cast<std::byte>(r >> (8 * k));
    }
  }
  return Tensor::Adopt(std::move(dtype), std::move(shape), std::move(bytes));
}

}  // namespace alknet::call::testing
