// onnx.run: an ONNX model run as a registry call, so that `alknet infer --remote` and batch
// runs go over a pool like every other call (docs/remote.md, "onnx.run"):
//   onnx.run(model: any, inputs: any) -> map
// `model` is the .onnx file's bytes (bytes, or a 1-D u8 tensor: that one travels in the
// tensor payload, so --max-tensor-bytes bounds it instead of --max-message-bytes); `inputs`
// maps each graph input's name to a tensor, or lists the tensors in the model's input order
// (converted to the declared types as alknet infer does). The result maps each output's name to a
// tensor. The call is idempotent: it writes nothing and the same request always gives the same
// outputs, so a pool retries it on another worker. Models with external data are refused (nothing
// on the server is read), and each run is bounded by the SessionOptions defaults (--max-memory's 4
// GiB, 2 GiB of protobuf, a million Loop iterations) besides the server's own limits.
#pragma once

#include <optional>

#include "alknet/call/registry.h"
#include "alknet/onnx/types.h"
#include "alknet/tensor/dtype.h"

namespace alknet::cli {

call::Component OnnxComponent();

// The metatensor dtype of an ONNX element type (nullopt: none, e.g. strings).
std::optional<tensor::DType> MetaTypeOf(onnx::ElemType t);

}  // namespace alknet::cli
