// alknet:compute's native core as other extensions use it: alknet-onnx's Session (libs/ext/onnx)
// runs on the module's one device and hands out its tensors.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "alknet/compute/executor.h"
#include "alknet/compute/tensor.h"

#include "alknet/runtime/native_module.h"

namespace alknet::runtime::sm::modules {

bool DefineComputeCore(JSContext* cx, JS::HandleObject core);

// alknet:compute's one device, opened on first use (compute_core.cpp). nullptr: no device,
// with a JS exception pending.
::alknet::compute::Executor* GetExecutor(JSContext* cx);
::alknet::webgpu::Context* GetContext(JSContext* cx);
// Throws an alknet-compute error as an OperationError; returns false.
bool ThrowCompute(JSContext* cx, const ::alknet::compute::Error& e);
// A device tensor as a JS AlknetTensor object, and back (nullptr + TypeError naming `where`).
JSObject* WrapTensor(JSContext* cx, ::alknet::compute::Tensor t);
const ::alknet::compute::Tensor* TensorOf(JSContext* cx, JS::HandleValue v,
                                          const std::string& where);
// A JS array of non-negative integers as a shape (appended to `out`); TypeError naming `where`.
bool ShapeOf(JSContext* cx, JS::HandleValue v, std::vector<uint64_t>* out,
             const std::string& where);

// An ArrayBuffer holding a copy of `bytes`.
inline JSObject* NewArrayBufferFrom(JSContext* cx, const std::vector<std::byte>& bytes) {
  JS::RootedObject buf(cx, JS::NewArrayBuffer(cx, bytes.size()));
  if (!buf) return nullptr;
  JS::AutoCheckCannotGC nogc;
  bool shared = false;
  if (!bytes.empty())
    std::memcpy(JS::GetArrayBufferData(buf, &shared, nogc), bytes.data(), bytes.size());
  return buf;
}

}  // namespace alknet::runtime::sm::modules
