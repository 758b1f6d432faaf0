// A "test" component shared by the local and remote tests: echo, failure and timing calls.
// It exists only in tests and benchmarks, never in a shipped registry.
#pragma once

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "alknet/call/registry.h"

namespace alknet::call::testing {

// How many test.overlap calls are running now, and the most seen at once.
inline std::atomic<int> g_overlap_now{0};
inline std::atomic<int> g_overlap_peak{0};

inline Component TestComponent() {
  Component c;
  c.name = "test";
  c.calls.push_back(CallDecl{"test.echo", "(...values: any) -> list",
                             [](CallContext&, std::span<const Value> args) -> Result<Value> {
                               return Value(Value::List(args.begin(), args.end()));
                             }});
  c.calls.push_back(CallDecl{"test.add", "(a: int, b: int) -> int",
                             [](CallContext&, std::span<const Value> args) -> Result<Value> {
                               return Value(args[0].as_int() + args[1].as_int());
                             }});
  c.calls.push_back(CallDecl{"test.fail", "(message: string) -> null",
                             [](CallContext&, std::span<const Value> args) -> Result<Value> {
                               return MakeError(ErrorCode::kFailedPrecondition,
                                                args[0].as_string());
                             }});
  c.calls.push_back(CallDecl{"test.throw", "() -> null",
                             [](CallContext&, std::span<const Value>) -> Result<Value> {
                               throw std::runtime_error("boom");
                             }});
  c.calls.push_back(
      CallDecl{"test.wrong_result", "() -> map",
               [](CallContext&, std::span<const Value>) -> Result<Value> { return Value(1); }});
  // Sleeps up to `ms` milliseconds in 1 ms steps, stopping early when asked to.
  c.calls.push_back(CallDecl{"test.sleep",
                             "(ms: int) -> int",
                             [](CallContext& ctx, std::span<const Value> args) -> Result<Value> {
                               const auto until =
                                   Clock::now() + std::chrono::milliseconds(args[0].as_int());
                               while (Clock::now() < until) {
                                 if (ctx.ShouldStop()) return ctx.StopError();
                                 std::this_thread::sleep_for(std::chrono::milliseconds(1));
                               }
                               return args[0];
                             },
                             {Execution::kAsync, false}});
  // Sleeps `ms` milliseconds and never looks at cancellation: the registry must still
  // answer at the deadline.
  c.calls.push_back(CallDecl{"test.stubborn",
                             "(ms: int) -> int",
                             [](CallContext&, std::span<const Value> args) -> Result<Value> {
                               std::this_thread::sleep_for(
                                   std::chrono::milliseconds(args[0].as_int()));
                               return args[0];
                             },
                             {Execution::kAsync, false}});
  // Holds for `ms` milliseconds while counting how many such calls overlap.
  c.calls.push_back(
      CallDecl{"test.overlap",
               "(ms: int, x: int) -> int",
               [](CallContext& ctx, std::span<const Value> args) -> Result<Value> {
                 const int now = g_overlap_now.fetch_add(1) + 1;
                 int peak = g_overlap_peak.load();
                 while (now > peak && !g_overlap_peak.compare_exchange_weak(peak, now)) {
                 }
                 const auto until = Clock::now() + std::chrono::milliseconds(args[0].as_int());
                 while (Clock::now() < until && !ctx.ShouldStop()) {
                   std::this_thread::sleep_for(std::chrono::milliseconds(2));
                 }
                 g_overlap_now.fetch_sub(1);
                 return args[1];
               },
               {Execution::kAsync, false}});
  // The address of a tensor argument's first byte: proves that a local call makes no copy.
  c.calls.push_back(
      CallDecl{"test.address", "(t: tensor) -> int",
               [](CallContext&, std::span<const Value> args) -> Result<Value> {
                 return Value(static_cast<std::int64_t>(
                     reinterpret_cast<std::uintptr_t>(args[0].as_tensor().data.data())));
               }});
  return c;
}

}  // namespace alknet::call::testing
