// Reading the ONNX protobuf: models (size-capped), tensors (inline, typed fields or external
// data confined to the model's folder) and attributes (converted to alknet::compute's kinds).
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "alknet/compute/op.h"
#include "alknet/onnx/types.h"

namespace alknet::onnx::detail {

Result<std::unique_ptr<::onnx::ModelProto>> ParseModel(std::span<const std::byte> bytes,
                                                       const std::string& what);
// Reads a whole file, refusing more than `max_bytes`.
Result<std::vector<std::byte>> ReadFileBytes(const std::filesystem::path& path, uint64_t max_bytes);

// A caller's veto on each external-data file (canonical path) before it is opened; empty:
// every file inside the model's folder may be read (SessionOptions::check_read).
using ReadCheck = std::function<Status(const std::filesystem::path&)>;

// Decodes a TensorProto. `base_dir` resolves external data (empty: external data refused);
// `what` names the tensor's origin in messages ("initializer 'w' of model.onnx").
Result<Tensor> DecodeTensor(const ::onnx::TensorProto& tp, const std::filesystem::path& base_dir,
                            const std::string& what, const ReadCheck& check = {});

// An attribute as alknet::compute sees it: TENSOR values become RefTensors in device dtypes.
Result<compute::AttrValue> ConvertAttribute(const ::onnx::AttributeProto& a,
                                            const std::filesystem::path& base_dir, bool shader_f16,
                                            const std::string& what, const ReadCheck& check = {});

}  // namespace alknet::onnx::detail
