// WgslGenerator: renders shaders/<shader>.wgsl.hbs (embedded by CMake) with alknet-hbs.
//
// The template context has three parts:
//   inputs / outputs: per operand {dtype, ty (WGSL storage type), elements, ...};
//   op: whatever the op record's context() returns;
//   workgroup_size / workgroup_x/y/z: chosen here from the device caps.
// Templates under shaders/common/ are partials ({{> common/index}}, ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "alknet/compute/op_table.h"
#include "alknet/compute/shader_generator.h"
#include "alknet/hbs/value.h"

namespace alknet::compute {

class WgslGenerator final : public ShaderGenerator {
 public:
  explicit WgslGenerator(const OpTable& table = OpTable::Default());
  ~WgslGenerator() override;
  const char* language() const override { return "wgsl"; }
  Result<ShaderProgram> Generate(const OpNode& node, const DeviceCaps& caps) const override;

  // Renders any embedded template by id ("crypto/sha256") with a caller-built context; used by
  // kernels outside the op table (SHA-256) so they share partials and error reporting.
  Result<std::string> Render(const std::string& shader, const hbs::Value& context) const;
  // Ids of every embedded template ("unary/abs", "common/index", ...).
  std::vector<std::string> TemplateIds() const;
  // Parse errors of embedded templates ("shaders/x.wgsl.hbs:3:7: ..."); empty when all parse.
  // A broken template fails only the ops that use it, with this message.
  std::vector<std::string> TemplateErrors() const;

 private:
  struct Impl;
  const OpTable& table_;
  std::unique_ptr<Impl> impl_;
};

// The WGSL storage type of a dtype ("f32", "u32" for bool), or nullptr if WGSL has none.
const char* WgslStorageType(DType d);

}  // namespace alknet::compute
