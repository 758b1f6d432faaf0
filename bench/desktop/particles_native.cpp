// The particle scene of examples/desktop/scenes/particles.js as a plain C++ loop over webgpu.h:
// the peer of frame_bench.js (the cost of JS + alknet's bindings is the difference). The WGSL is
// read from the scene file itself, so both run the same shaders; buffers, pipelines, passes and
// the per-frame work (a 16-byte uniform write, one compute + one render pass, one submit, a wait
// for the queue) are the scene's.
//   particles_native SCENE_JS FRAMES WIDTH HEIGHT  ->  one JSON line, like frame_bench.js
// first_frame_ms: from before the buffers and pipelines are made to the end of the first frame
// (shader compilation included; MESA_SHADER_CACHE_DIR set to an empty directory: the cold one).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "alknet/webgpu/context.h"
#include "alknet/webgpu/procs.h"

namespace wg = alknet::webgpu;

namespace {

// The template literal that follows `const NAME = \`` in the scene's source.
std::string ShaderFrom(const std::string& js, const std::string& name) {
  const std::string start = "const " + name + " = `";
  const size_t a = js.find(start);
  if (a == std::string::npos) return {};
  const size_t b = js.find('`', a + start.size());
  return b == std::string::npos ? std::string() : js.substr(a + start.size(), b - a - start.size());
}

WGPUStringView Str(const char* s) { return {s, WGPU_STRLEN}; }

int Fail(const std::string& what) {
  std::fprintf(stderr, "particles_native: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return Fail("usage: particles_native SCENE_JS FRAMES WIDTH HEIGHT");
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string compute_wgsl = ShaderFrom(ss.str(), "kCompute");
  const std::string render_wgsl = ShaderFrom(ss.str(), "kRender");
  if (compute_wgsl.empty() || render_wgsl.empty())
    return Fail("no kCompute/kRender in " + std::string(argv[1]));
  const int frames = std::atoi(argv[2]);
  const uint32_t width = static_cast<uint32_t>(std::atoi(argv[3]));
  const uint32_t height = static_cast<uint32_t>(std::atoi(argv[4]));
  constexpr uint32_t kCount = 4096;

  auto ctx = wg::Context::Create({});
  if (!ctx) return Fail(ctx.error().message);
  const auto& P = wg::P();
  WGPUDevice device = (*ctx)->device();
  WGPUQueue queue = (*ctx)->queue();
  const auto t_setup = std::chrono::steady_clock::now();

  // The scene's start state: the same xorshift sequence.
  uint32_t s = 0x9e3779b9u;
  auto rand = [&] {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return static_cast<float>(static_cast<double>(s) / 4294967296.0 * 2 - 1);
  };
  std::vector<float> init(kCount * 4);
  for (uint32_t i = 0; i < kCount; ++i) {
    const float x = rand() * 0.9f, y = rand() * 0.9f, vx = rand() * 0.004f, vy = rand() * 0.004f;
    init[i * 4 + 0] = x;
    init[i * 4 + 1] = y;
    init[i * 4 + 2] = vx;
    init[i * 4 + 3] = vy;
  }
  auto particles = (*ctx)->CreateBuffer(
      init.size() * 4, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, "particles");
  auto attractor =
      (*ctx)->CreateBuffer(16, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, "attractor");
  if (!particles || !attractor) return Fail("buffers");
  P.QueueWriteBuffer(queue, particles->handle.get(), 0, init.data(), init.size() * 4);

  auto compute_module = (*ctx)->CompileWgsl(compute_wgsl, "compute");
  auto render_module = (*ctx)->CompileWgsl(render_wgsl, "render");
  if (!compute_module || !render_module) return Fail("WGSL");

  WGPUComputePipelineDescriptor cdesc{};
  cdesc.compute.module = compute_module->get();
  cdesc.compute.entryPoint = Str("step");
  auto compute = wg::ComputePipeline::Adopt(P.DeviceCreateComputePipeline(device, &cdesc));

  WGPUColorTargetState target{};
  target.format = WGPUTextureFormat_BGRA8Unorm;
  target.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fragment{};
  fragment.module = render_module->get();
  fragment.entryPoint = Str("fs");
  fragment.targetCount = 1;
  fragment.targets = &target;
  WGPURenderPipelineDescriptor rdesc{};
  rdesc.vertex.module = render_module->get();
  rdesc.vertex.entryPoint = Str("vs");
  rdesc.primitive.topology = 5;   // triangle-strip
  rdesc.primitive.frontFace = 1;  // ccw
  rdesc.primitive.cullMode = 1;   // none
  rdesc.multisample.count = 1;
  rdesc.multisample.mask = 0xFFFFFFFF;
  rdesc.fragment = &fragment;
  auto render = wg::RenderPipeline::Adopt(P.DeviceCreateRenderPipeline(device, &rdesc));
  if (!compute || !render) return Fail("pipelines");

  WGPUBindGroupEntry centries[2]{};
  centries[0].binding = 0;
  centries[0].buffer = particles->handle.get();
  centries[0].size = WGPU_WHOLE_SIZE;
  centries[1].binding = 1;
  centries[1].buffer = attractor->handle.get();
  centries[1].size = WGPU_WHOLE_SIZE;
  auto clayout = wg::BindGroupLayout::Adopt(P.ComputePipelineGetBindGroupLayout(compute.get(), 0));
  WGPUBindGroupDescriptor cbg{nullptr, Str("compute"), clayout.get(), 2, centries};
  auto compute_group = wg::BindGroup::Adopt(P.DeviceCreateBindGroup(device, &cbg));
  auto rlayout = wg::BindGroupLayout::Adopt(P.RenderPipelineGetBindGroupLayout(render.get(), 0));
  WGPUBindGroupDescriptor rbg{nullptr, Str("render"), rlayout.get(), 1, centries};
  auto render_group = wg::BindGroup::Adopt(P.DeviceCreateBindGroup(device, &rbg));

  WGPUTextureDescriptor tdesc{};
  tdesc.usage = WGPUTextureUsage_RenderAttachment;
  tdesc.dimension = 2;
  tdesc.size = {width, height, 1};
  tdesc.format = WGPUTextureFormat_BGRA8Unorm;
  tdesc.mipLevelCount = 1;
  tdesc.sampleCount = 1;
  auto texture = wg::Texture::Adopt(P.DeviceCreateTexture(device, &tdesc));

  const float target_attractor[4] = {0, 0, 1, 0};
  auto frame = [&] {
    P.QueueWriteBuffer(queue, attractor->handle.get(), 0, target_attractor, 16);
    auto view = wg::TextureView::Adopt(
        P.TextureCreateView(texture.get(), nullptr));  // as the scene: a view per frame
    WGPUCommandEncoderDescriptor edesc{};
    auto encoder = wg::CommandEncoder::Adopt(P.DeviceCreateCommandEncoder(device, &edesc));
    WGPUComputePassDescriptor cpdesc{};
    auto cpass =
        wg::ComputePassEncoder::Adopt(P.CommandEncoderBeginComputePass(encoder.get(), &cpdesc));
    P.ComputePassEncoderSetPipeline(cpass.get(), compute.get());
    P.ComputePassEncoderSetBindGroup(cpass.get(), 0, compute_group.get(), 0, nullptr);
    P.ComputePassEncoderDispatchWorkgroups(cpass.get(), (kCount + 63) / 64, 1, 1);
    P.ComputePassEncoderEnd(cpass.get());
    WGPURenderPassColorAttachment color{};
    color.view = view.get();
    color.depthSlice = WGPU_DEPTH_SLICE_UNDEFINED;
    color.loadOp = 2;   // clear
    color.storeOp = 1;  // store
    color.clearValue = {0.02, 0.02, 0.04, 1};
    WGPURenderPassDescriptor rpdesc{};
    rpdesc.colorAttachmentCount = 1;
    rpdesc.colorAttachments = &color;
    auto rpass =
        wg::RenderPassEncoder::Adopt(P.CommandEncoderBeginRenderPass(encoder.get(), &rpdesc));
    P.RenderPassEncoderSetPipeline(rpass.get(), render.get());
    P.RenderPassEncoderSetBindGroup(rpass.get(), 0, render_group.get(), 0, nullptr);
    P.RenderPassEncoderDraw(rpass.get(), 4, kCount, 0, 0);
    P.RenderPassEncoderEnd(rpass.get());
    WGPUCommandBufferDescriptor bdesc{};
    auto commands = wg::CommandBuffer::Adopt(P.CommandEncoderFinish(encoder.get(), &bdesc));
    WGPUCommandBuffer raw = commands.get();
    P.QueueSubmit(queue, 1, &raw);
    return (*ctx)->WaitIdle();
  };
  if (auto st = frame(); !st) return Fail(st.error().message);
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_setup).count();
  for (int i = 1; i < 10; ++i)
    if (auto st = frame(); !st) return Fail(st.error().message);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < frames; ++i)
    if (auto st = frame(); !st) return Fail(st.error().message);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
      frames;
  std::printf(
      "{\"scene\": \"particles\", \"frames\": %d, \"width\": %u, \"height\": %u, \"ms_per_frame\": "
      "%.3f, \"first_frame_ms\": %.1f, \"runtime\": \"C++ webgpu.h\"}\n",
      frames, width, height, ms, first_ms);
  return 0;
}
