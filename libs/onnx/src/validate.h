// ONNX shape inference (libonnx) made safe for hostile models: its inference functions trust
// what they read (attribute presence, axis ranges, non-negative dimensions, ranks), so a
// malformed node can make them index out of bounds. validate.cpp checks those assumptions
// first, node by node, and turns a violation into an error naming the node.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "alknet/onnx/types.h"

namespace alknet::onnx::detail {

// Checks every node (subgraphs included) against its ONNX schema (input and output counts,
// required attributes and their kinds), then runs ONNX's shape inference on `m`, which adds
// the value_info the loader reads element types from. Each inference function runs behind a
// guard that checks the preconditions it relies on (dimensions >= 0, axes in range, ranks of
// the recurrent ops, Scan's counts). A violation is an error naming the node and `model`;
// any other inference failure is ignored (alknet's own propagation is what plans rely on).
// Before that, the tensors the model stores (initializers and TENSOR attributes, external
// data included) are summed from their declared shapes: more than `max_memory` bytes is an
// error naming the tensor that crosses it, before anything is read.
Status ValidateModel(::onnx::ModelProto& m, const std::string& model, uint64_t max_memory);

}  // namespace alknet::onnx::detail
