// The registry every CLI command serves or calls: alknet-call's built-ins plus the compute
// ops and SHA-256, so `alknet call`, `alknet calls` and `alknet serve` see the same records.
#pragma once

#include "alknet/call/builtins.h"
#include "alknet/call/registry.h"
#include "alknet/compute/calls.h"

namespace alknet::cli {

inline call::Result<void> RegisterAllCalls(call::CallRegistry& registry) {
  if (auto r = call::RegisterBuiltins(registry); !r) return r;
  return registry.AddComponent(compute::ComputeComponent());
}

}  // namespace alknet::cli
