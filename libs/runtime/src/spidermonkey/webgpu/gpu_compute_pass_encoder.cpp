// GPUComputePassEncoder: setPipeline, setBindGroup, dispatchWorkgroups(Indirect), end.
// https://www.w3.org/TR/webgpu/#gpucomputepassencoder
#include "spidermonkey/webgpu/gpu_common.h"
#include "spidermonkey/webgpu/gpu_render_commands.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUComputePassEncoder, 0);

namespace {

bool SetPipeline(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUComputePassEncoder, "GPUComputePassEncoder.setPipeline");
  auto* pipeline =
      UnwrapValue<GPUComputePipeline>(cx, args.get(0), "GPUComputePassEncoder.setPipeline");
  if (!pipeline) return false;
  wg::P().ComputePassEncoderSetPipeline(self->pass.get(), pipeline->pipeline.get());
  args.rval().setUndefined();
  return true;
}

// setBindGroup(index, bindGroup, dynamicOffsets = [])
bool SetBindGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUComputePassEncoder, "GPUComputePassEncoder.setBindGroup");
  uint32_t index = 0;
  if (!ToU32(cx, args.get(0), "GPUComputePassEncoder.setBindGroup index", &index)) return false;
  WGPUBindGroup group = nullptr;
  if (!args.get(1).isNull()) {
    auto* g =
        UnwrapValue<GPUBindGroup>(cx, args.get(1), "GPUComputePassEncoder.setBindGroup bindGroup");
    if (!g) return false;
    group = g->group.get();
  }
  std::vector<uint32_t> offsets;
  if (!ReadDynamicOffsets(cx, args, 2, "GPUComputePassEncoder.setBindGroup", &offsets))
    return false;
  wg::P().ComputePassEncoderSetBindGroup(self->pass.get(), index, group, offsets.size(),
                                         offsets.data());
  args.rval().setUndefined();
  return true;
}

bool DispatchWorkgroups(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUComputePassEncoder, "GPUComputePassEncoder.dispatchWorkgroups");
  uint32_t x = 0, y = 1, z = 1;
  if (!ToU32(cx, args.get(0), "dispatchWorkgroups workgroupCountX", &x)) return false;
  if (!args.get(1).isUndefined() &&
      !ToU32(cx, args.get(1), "dispatchWorkgroups workgroupCountY", &y))
    return false;
  if (!args.get(2).isUndefined() &&
      !ToU32(cx, args.get(2), "dispatchWorkgroups workgroupCountZ", &z))
    return false;
  wg::P().ComputePassEncoderDispatchWorkgroups(self->pass.get(), x, y, z);
  args.rval().setUndefined();
  return true;
}

bool DispatchWorkgroupsIndirect(JSContext* cx, unsigned argc, JS::Value* vp) {
  const char* what = "GPUComputePassEncoder.dispatchWorkgroupsIndirect";
  ALKNET_GPU_THIS(GPUComputePassEncoder, what);
  auto* buffer = UnwrapValue<GPUBuffer>(cx, args.get(0), std::string(what) + " indirectBuffer");
  uint64_t offset = 0;
  if (!buffer || !ToU64(cx, args.get(1), std::string(what) + " indirectOffset", &offset))
    return false;
  wg::P().ComputePassEncoderDispatchWorkgroupsIndirect(self->pass.get(), buffer->buffer.get(),
                                                       offset);
  args.rval().setUndefined();
  return true;
}

bool End(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUComputePassEncoder, "GPUComputePassEncoder.end");
  wg::P().ComputePassEncoderEnd(self->pass.get());
  args.rval().setUndefined();
  return true;
}

const JSFunctionSpec kMethods[] = {
    JS_FN("setPipeline", SetPipeline, 1, JSPROP_ENUMERATE),
    JS_FN("setBindGroup", SetBindGroup, 2, JSPROP_ENUMERATE),
    JS_FN("dispatchWorkgroups", DispatchWorkgroups, 1, JSPROP_ENUMERATE),
    JS_FN("dispatchWorkgroupsIndirect", DispatchWorkgroupsIndirect, 2, JSPROP_ENUMERATE),
    JS_FN("end", End, 0, JSPROP_ENUMERATE),
    ALKNET_GPU_DEBUG_COMMANDS(GPUComputePassEncoder),
    JS_FS_END};

}  // namespace

bool DefineGPUComputePassEncoder(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUComputePassEncoder::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
