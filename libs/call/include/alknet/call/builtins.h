// The calls every alknet registry carries: introspection ("call.*") and tensor helpers
// ("tensor.*") that work on any metatensor view without a GPU.
#pragma once

#include "alknet/call/registry.h"

namespace alknet::call {

Component CallComponent();    // call.list, call.describe
Component TensorComponent();  // tensor.info, tensor.stats, tensor.cast

// Both components, in dependency order.
Status RegisterBuiltins(CallRegistry& registry);

}  // namespace alknet::call
