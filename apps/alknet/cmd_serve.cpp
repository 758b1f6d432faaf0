// alknet serve: exposes the call registry over gRPC (docs/remote.md).
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "alknet/call/json.h"
#include "alknet/compute-calls/calls.h"
#include "command.h"
#include "options.h"
#include "registry_setup.h"

namespace alknet::cli {
namespace {

namespace ac = alknet::call;

constexpr const char* kUsage =
    "Usage: alknet serve --listen HOST:PORT [options]\n\n"
    "Serves every registered call to remote clients (alknet call/calls --remote).\n\n"
    "  --listen HOST:PORT        address to bind; port 0 picks a free one (printed)\n"
    "  --token-file FILE         bearer token clients must send (first line of FILE);\n"
    "                            default: $ALKNET_TOKEN. Required unless HOST is loopback\n"
    "  --tls-cert FILE --tls-key FILE\n"
    "                            serve TLS with this PEM certificate chain and key\n"
    "  --max-message-bytes N     largest gRPC message (default 8388608)\n"
    "  --max-tensor-bytes N      largest total tensor payload of one call (default 4294967296)\n"
    "  --max-total-tensor-bytes N\n"
    "                            tensor payloads of all calls in flight together; a call\n"
    "                            over what is left is refused (default 8589934592)\n"
    "  --small-call-reserve N    bytes of that budget only calls whose tensors take at\n"
    "                            most 1048576 bytes may use, so unfinished large uploads\n"
    "                            cannot lock small calls out (default: the smaller of\n"
    "                            64 MiB and 1/16 of --max-total-tensor-bytes)\n"
    "  --max-concurrent N        calls running at once; more are refused (default 64)\n"
    "  --max-call-time MS        per-call time limit in milliseconds, upload and waiting\n"
    "                            for the GPU included (default 600000)\n"
    "  --idle-timeout MS         reset a call whose client sends or reads nothing for this\n"
    "                            long; drop a connection that never completes the HTTP/2\n"
    "                            handshake (default 30000)\n"
    "  --max-connection-idle MS  close a connection with no call for this long (default\n"
    "                            300000)\n"
    "  --drain-timeout MS        on SIGTERM, how long in-flight calls may take to finish\n"
    "                            before they are cancelled (default 30000)\n"
    "  --json                    print the listening line as JSON, then one JSON line per\n"
    "                            call: call, peer, bytes_in, bytes_out, upload_ms, queue_ms,\n"
    "                            run_ms, send_ms, outcome (ok or the error code), message\n\n"
    "Health: the standard gRPC health service (grpc.health.v1.Health; services \"\" and\n"
    "alknet.call.wire.Calls) answers without a token: SERVING, or NOT_SERVING while draining\n"
    "or after the GPU device was lost. The call server.stats reports calls in flight, calls\n"
    "served and failed, the device's queue depth and state.\n\n"
    "SIGTERM drains: NOT_SERVING at once, in-flight calls finish (--drain-timeout), exit 0.\n"
    "SIGINT stops at once (running calls get 2 seconds). Exit codes: 0 stopped, 2 usage,\n"
    "3 cannot listen.\n";

int Usage(const std::string& why) {
  std::fprintf(stderr, "alknet serve: %s\n\n%s", why.c_str(), kUsage);
  return kExitUsage;
}

int RunServe(std::span<const std::string_view> args) {
  if (WantsHelp(args)) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  ac::ServerOptions options;
  std::string listen, token_file, cert_file, key_file;
  bool json = false;
  std::chrono::milliseconds drain_timeout{30000};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = std::string(args[++i]);
      return true;
    };
    // The value of a numeric option in [min, max], or the usage error that names it.
    std::string count_error;
    auto count = [&](std::uint64_t& out, std::uint64_t min, std::uint64_t max) {
      std::string text;
      if (!value(text)) {
        count_error = std::string(a) + " needs a number";
        return false;
      }
      auto v = ParseUnsignedOption(a, text, min, max);
      if (!v) {
        count_error = v.error().message;
        return false;
      }
      out = *v;
      return true;
    };
    std::uint64_t n = 0;
    if (a == "--json") {
      json = true;
    } else if (a == "--listen") {
      if (!value(listen)) return Usage("--listen needs HOST:PORT");
    } else if (a == "--token-file") {
      if (!value(token_file)) return Usage("--token-file needs a file");
    } else if (a == "--tls-cert") {
      if (!value(cert_file)) return Usage("--tls-cert needs a file");
    } else if (a == "--tls-key") {
      if (!value(key_file)) return Usage("--tls-key needs a file");
    } else if (a == "--max-message-bytes") {
      if (!count(n, 1024, 1u << 30)) return Usage(count_error);
      options.limits.max_message_bytes = n;
    } else if (a == "--max-tensor-bytes") {
      if (!count(n, 0, std::numeric_limits<std::uint64_t>::max())) return Usage(count_error);
      options.limits.max_tensor_bytes = n;
    } else if (a == "--max-total-tensor-bytes") {
      if (!count(n, 0, std::numeric_limits<std::uint64_t>::max())) return Usage(count_error);
      options.limits.max_total_tensor_bytes = n;
    } else if (a == "--small-call-reserve") {
      if (!count(n, 0, std::numeric_limits<std::uint64_t>::max())) return Usage(count_error);
      options.limits.small_call_reserve = n;
    } else if (a == "--idle-timeout") {
      if (!count(n, 1, 999'999'999'999)) return Usage(count_error);
      options.limits.idle_timeout = std::chrono::milliseconds(n);
    } else if (a == "--max-connection-idle") {
      if (!count(n, 1, 999'999'999'999)) return Usage(count_error);
      options.limits.max_connection_idle = std::chrono::milliseconds(n);
    } else if (a == "--max-concurrent") {
      if (!count(n, 1, 100000)) return Usage(count_error);
      options.limits.max_concurrent_calls = static_cast<int>(n);
    } else if (a == "--drain-timeout") {
      if (!count(n, 0, 999'999'999'999)) return Usage(count_error);
      drain_timeout = std::chrono::milliseconds(n);
    } else if (a == "--max-call-time") {
      // Milliseconds, at most ~31 years (a steady_clock deadline must not overflow).
      if (!count(n, 1, 999'999'999'999)) return Usage(count_error);
      options.limits.max_call_time = std::chrono::milliseconds(n);
    } else {
      return Usage("unknown option '" + std::string(a) + "'");
    }
  }
  if (listen.empty()) return Usage("--listen HOST:PORT is required");
  options.listen = listen;
  auto token = ac::LoadToken(token_file);
  if (!token) return Usage(token.error().message);
  options.token = *token;
  if (!cert_file.empty() || !key_file.empty()) {
    if (cert_file.empty() || key_file.empty())
      return Usage("TLS needs both --tls-cert and --tls-key");
    auto cert = ac::ReadTextFile(cert_file);
    if (!cert) return Usage(cert.error().message);
    auto key = ac::ReadTextFile(key_file);
    if (!key) return Usage(key.error().message);
    options.tls_cert_pem = *cert;
    options.tls_key_pem = *key;
  }

  // Signals are taken by one thread with sigwait, so shutdown is ordinary code, not a
  // handler; they are blocked before gRPC starts its threads, which inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // One line per call on stdout (--json), whole lines from any gRPC thread.
  std::mutex log_mutex;
  if (json) {
    options.on_call = [&log_mutex](const ac::CallLogEntry& e) {
      ac::Value::Map m;
      m.emplace("call", e.call);
      m.emplace("peer", e.peer);
      m.emplace("retryable", e.idempotent_method);
      m.emplace("bytes_in", static_cast<std::int64_t>(e.bytes_in));
      m.emplace("bytes_out", static_cast<std::int64_t>(e.bytes_out));
      m.emplace("upload_ms", e.upload_ms);
      m.emplace("queue_ms", e.queue_ms);
      m.emplace("run_ms", e.run_ms);
      m.emplace("send_ms", e.send_ms);
      m.emplace("outcome",
                e.status == 0
                    ? std::string("ok")
                    : std::string(ac::ErrorCodeName(static_cast<ac::ErrorCode>(e.status))));
      if (!e.message.empty()) m.emplace("message", e.message);
      const std::string line = ac::ToJson(ac::Value(std::move(m))) + "\n";
      std::lock_guard lock(log_mutex);
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fflush(stdout);
    };
  }
  options.stats = [] {
    const auto d = compute::DeviceStatusNow();
    ac::Value::Map device;
    device.emplace("opened", d.opened);
    device.emplace("lost", d.lost);
    if (d.lost) device.emplace("lost_message", d.lost_message);
    device.emplace("adapter", d.adapter);
    device.emplace("max_buffer_bytes", static_cast<std::int64_t>(d.max_buffer_bytes));
    device.emplace("queue_depth", static_cast<std::int64_t>(d.queue_depth));
    ac::Value::Map m;
    m.emplace("device", ac::Value(std::move(device)));
    m.emplace("queue_depth", static_cast<std::int64_t>(d.queue_depth));
    return m;
  };

  ac::CallRegistry registry;
  if (auto r = RegisterAllCalls(registry); !r) {
    std::fprintf(stderr, "alknet serve: %s\n", r.error().ToString().c_str());
    return kExitFailure;
  }
  auto server = ac::CallServer::Start(registry, options);
  if (!server) {
    std::fprintf(stderr, "alknet serve: %s\n", server.error().message.c_str());
    return server.error().code == ac::ErrorCode::kUnavailable ? kExitEnvironment : kExitUsage;
  }
  const bool tls = !options.tls_cert_pem.empty();
  const bool auth = !options.token.empty();
  if (!tls && !ac::IsLoopbackAddress(options.listen)) {
    std::fprintf(stderr,
                 "alknet serve: warning: without TLS the bearer token and every tensor cross the "
                 "network in clear text; use --tls-cert/--tls-key, or listen on 127.0.0.1 and "
                 "reach it through an SSH tunnel (docs/remote.md)\n");
  }
  if (json) {
    std::printf("{\"listening\":\"%s\",\"port\":%d,\"tls\":%s,\"token\":%s}\n",
                (*server)->address().c_str(), (*server)->port(), tls ? "true" : "false",
                auth ? "true" : "false");
  } else {
    std::printf("alknet serve: listening on %s (tls %s, token %s)\n", (*server)->address().c_str(),
                tls ? "on" : "off", auth ? "required" : "not required: loopback only");
  }
  std::fflush(stdout);

  // A lost device fails every call: stop taking calls from pools (NOT_SERVING).
  std::mutex monitor_mutex;
  std::condition_variable monitor_wake;
  bool stopping = false;
  std::thread monitor([&] {
    std::unique_lock lock(monitor_mutex);
    bool reported = false;
    while (!monitor_wake.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopping; })) {
      const auto d = compute::DeviceStatusNow();
      if (d.lost && !reported) {
        reported = true;
        (*server)->SetServing(false);
        std::fprintf(stderr, "alknet serve: the GPU device was lost (%s); health is NOT_SERVING\n",
                     d.lost_message.c_str());
      }
    }
  });
  int still_running = 0;
  bool drained = false;
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGTERM) {
      drained = true;
      std::fprintf(stderr, "alknet serve: SIGTERM: draining (NOT_SERVING; %d calls in flight)\n",
                   (*server)->in_flight());
      still_running = (*server)->Drain(drain_timeout);
    } else {
      (*server)->Shutdown();
    }
  });
  (*server)->Wait();
  waiter.join();
  {
    std::lock_guard lock(monitor_mutex);
    stopping = true;
  }
  monitor_wake.notify_all();
  monitor.join();
  if (drained) {
    std::fprintf(stderr,
                 still_running ? "alknet serve: drained; %d calls were still running after "
                                 "--drain-timeout and were cancelled\n"
                               : "alknet serve: drained (%d calls cut off)\n",
                 still_running);
  }
  std::fprintf(stderr,
               "alknet serve: stopped (%llu calls refused: bad token or over a limit; %llu "
               "streams reset: silent past --idle-timeout or over --max-call-time)\n",
               static_cast<unsigned long long>((*server)->refused_calls()),
               static_cast<unsigned long long>((*server)->timed_out_streams()));
  return kExitOk;
}

const Registration kReg{{"serve", "Serve the call registry to remote clients (gRPC)", &RunServe}};

}  // namespace
}  // namespace alknet::cli
