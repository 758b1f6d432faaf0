// The textured cube of examples/desktop/scenes/cube.js as a plain C++ loop over webgpu.h: the
// peer of frame_bench.js's cube (the cost of JS + alknet's bindings is the difference). The WGSL
// is read from the scene file itself, so both run the same shader; the vertex data, the 8x8
// checkerboard, the pipeline (cull back, depth24plus "less"), the per-frame matrix and the
// per-frame work (a 64-byte uniform write, views of the colour and depth textures, one render
// pass of 36 vertices, one submit, a wait for the queue) are the scene's.
//   cube_native SCENE_JS FRAMES WIDTH HEIGHT [OUT.rgba]  ->  one JSON line, like frame_bench.js
// OUT.rgba: the last frame (number 10 + FRAMES - 1) as raw RGBA, which the smoke test compares
// with the JS scene's frame of the same number (libs/desktop/tests/offscreen.js).
// first_frame_ms: from before the shader module is made to the end of the first frame (the
// pipeline's compilation included: run with MESA_SHADER_CACHE_DIR set to an empty directory for
// the cold figure).
#include <array>
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

using Mat = std::array<double, 16>;  // column-major, as WGSL's mat4x4f reads it

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
  std::fprintf(stderr, "cube_native: %s\n", what.c_str());
  return 1;
}

// The scene's matrix helpers, in doubles as JS computes them.
Mat Perspective(double fovy, double aspect, double near, double far) {
  const double f = 1 / std::tan(fovy / 2), nf = 1 / (near - far);
  return {f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, far * nf, -1, 0, 0, far * near * nf, 0};
}
Mat Multiply(const Mat& a, const Mat& b) {
  Mat out{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}
Mat Rotation(double ax, double ay) {
  const double cx = std::cos(ax), sx = std::sin(ax), cy = std::cos(ay), sy = std::sin(ay);
  const Mat rx = {1, 0, 0, 0, 0, cx, sx, 0, 0, -sx, cx, 0, 0, 0, 0, 1};
  const Mat ry = {cy, 0, -sy, 0, 0, 1, 0, 0, sy, 0, cy, 0, 0, 0, 0, 1};
  return Multiply(rx, ry);
}
Mat Translation(double x, double y, double z) {
  return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1};
}

// 6 faces x 2 triangles x 3 vertices: position (xyz), uv; the scene's order.
std::vector<float> CubeVertices() {
  const int faces[6][3][3] = {
      {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},  {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}},
      {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},  {{0, -1, 0}, {0, 0, -1}, {1, 0, 0}},
      {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}}, {{0, 0, -1}, {0, 1, 0}, {1, 0, 0}},
  };
  std::vector<float> v;
  for (const auto& f : faces) {
    const auto& n = f[0];
    const auto& u = f[1];
    const auto& w = f[2];
    auto corner = [&](int a, int b) {
      return std::array<float, 5>{static_cast<float>(n[0] + a * u[0] + b * w[0]),
                                  static_cast<float>(n[1] + a * u[1] + b * w[1]),
                                  static_cast<float>(n[2] + a * u[2] + b * w[2]), (a + 1) / 2.0f,
                                  (b + 1) / 2.0f};
    };
    const std::array<std::array<float, 5>, 4> q = {corner(-1, -1), corner(1, -1), corner(1, 1),
                                                   corner(-1, 1)};
    for (int i : {0, 1, 2, 0, 2, 3}) v.insert(v.end(), q[i].begin(), q[i].end());
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return Fail("usage: cube_native SCENE_JS FRAMES WIDTH HEIGHT [OUT.rgba]");
  const char* out_path = argc > 5 ? argv[5] : nullptr;
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string wgsl = ShaderFrom(ss.str(), "kShader");
  if (wgsl.empty()) return Fail("no kShader in " + std::string(argv[1]));
  const int frames = std::atoi(argv[2]);
  const uint32_t width = static_cast<uint32_t>(std::atoi(argv[3]));
  const uint32_t height = static_cast<uint32_t>(std::atoi(argv[4]));
  if (frames <= 0 || width == 0 || height == 0) return Fail("FRAMES, WIDTH, HEIGHT must be > 0");

  auto ctx = wg::Context::Create({});
  if (!ctx) return Fail(ctx.error().message);
  const auto& P = wg::P();
  WGPUDevice device = (*ctx)->device();
  WGPUQueue queue = (*ctx)->queue();
  const auto t_setup = std::chrono::steady_clock::now();

  const std::vector<float> vertices = CubeVertices();
  auto vbuf = (*ctx)->CreateBuffer(vertices.size() * 4,
                                   WGPUBufferUsage_Vertex | WGPUBufferUsage_CopyDst, "vertices");
  auto ubuf = (*ctx)->CreateBuffer(64, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, "mvp");
  if (!vbuf || !ubuf) return Fail("buffers");
  P.QueueWriteBuffer(queue, vbuf->handle.get(), 0, vertices.data(), vertices.size() * 4);

  // The 8x8 checkerboard in two colours, sampled with nearest filtering.
  std::vector<uint8_t> texels(8 * 8 * 4);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      const bool odd = (x + y) % 2 != 0;
      const uint8_t px[4] = {static_cast<uint8_t>(odd ? 230 : 30),
                             static_cast<uint8_t>(odd ? 120 : 90),
                             static_cast<uint8_t>(odd ? 30 : 200), 255};
      std::copy(px, px + 4, texels.begin() + (y * 8 + x) * 4);
    }
  WGPUTextureDescriptor xdesc{};
  xdesc.usage = WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst;
  xdesc.dimension = 2;
  xdesc.size = {8, 8, 1};
  xdesc.format = WGPUTextureFormat_RGBA8Unorm;
  xdesc.mipLevelCount = 1;
  xdesc.sampleCount = 1;
  auto checker = wg::Texture::Adopt(P.DeviceCreateTexture(device, &xdesc));
  WGPUTexelCopyTextureInfo dst{};
  dst.texture = checker.get();
  dst.aspect = 1;  // all
  WGPUTexelCopyBufferLayout layout{0, 32, 8};
  WGPUExtent3D extent{8, 8, 1};
  P.QueueWriteTexture(queue, &dst, texels.data(), texels.size(), &layout, &extent);
  auto checker_view = wg::TextureView::Adopt(P.TextureCreateView(checker.get(), nullptr));
  WGPUSamplerDescriptor sdesc{};
  sdesc.addressModeU = sdesc.addressModeV = sdesc.addressModeW = 1;  // clamp-to-edge
  sdesc.magFilter = sdesc.minFilter = 1;                             // nearest
  sdesc.mipmapFilter = 1;
  sdesc.lodMaxClamp = 32;
  sdesc.maxAnisotropy = 1;
  auto sampler = wg::Sampler::Adopt(P.DeviceCreateSampler(device, &sdesc));

  auto module = (*ctx)->CompileWgsl(wgsl, "cube");
  if (!module) return Fail("WGSL: " + module.error().message);
  constexpr WGPUTextureFormat kBGRA8Unorm = 0x17, kDepth24Plus = 0x28;
  WGPUVertexAttribute attributes[2]{};
  attributes[0].format = 0x1E;  // float32x3
  attributes[0].offset = 0;
  attributes[0].shaderLocation = 0;
  attributes[1].format = 0x1D;  // float32x2
  attributes[1].offset = 12;
  attributes[1].shaderLocation = 1;
  WGPUVertexBufferLayout vlayout{};
  vlayout.stepMode = 1;  // vertex
  vlayout.arrayStride = 20;
  vlayout.attributeCount = 2;
  vlayout.attributes = attributes;
  WGPUColorTargetState target{};
  target.format = kBGRA8Unorm;
  target.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fragment{};
  fragment.module = module->get();
  fragment.entryPoint = Str("fs");
  fragment.targetCount = 1;
  fragment.targets = &target;
  WGPUDepthStencilState depth_state{};
  depth_state.format = kDepth24Plus;
  depth_state.depthWriteEnabled = WGPUOptionalBool_True;
  depth_state.depthCompare = 2;                                       // less
  depth_state.stencilFront = depth_state.stencilBack = {8, 1, 1, 1};  // always, keep
  depth_state.stencilReadMask = depth_state.stencilWriteMask = 0xFFFFFFFF;
  WGPURenderPipelineDescriptor rdesc{};
  rdesc.vertex.module = module->get();
  rdesc.vertex.entryPoint = Str("vs");
  rdesc.vertex.bufferCount = 1;
  rdesc.vertex.buffers = &vlayout;
  rdesc.primitive.topology = 4;   // triangle-list
  rdesc.primitive.frontFace = 1;  // ccw
  rdesc.primitive.cullMode = 3;   // back
  rdesc.depthStencil = &depth_state;
  rdesc.multisample.count = 1;
  rdesc.multisample.mask = 0xFFFFFFFF;
  rdesc.fragment = &fragment;
  (*ctx)->PushErrorScopes();
  auto pipeline = wg::RenderPipeline::Adopt(P.DeviceCreateRenderPipeline(device, &rdesc));
  if (auto st = (*ctx)->PopErrorScopes("the cube's render pipeline"); !st)
    return Fail(st.error().message);

  WGPUBindGroupEntry entries[3]{};
  entries[0].binding = 0;
  entries[0].buffer = ubuf->handle.get();
  entries[0].size = WGPU_WHOLE_SIZE;
  entries[1].binding = 1;
  entries[1].textureView = checker_view.get();
  entries[2].binding = 2;
  entries[2].sampler = sampler.get();
  auto bgl = wg::BindGroupLayout::Adopt(P.RenderPipelineGetBindGroupLayout(pipeline.get(), 0));
  WGPUBindGroupDescriptor bdesc{nullptr, Str("cube"), bgl.get(), 3, entries};
  auto group = wg::BindGroup::Adopt(P.DeviceCreateBindGroup(device, &bdesc));

  WGPUTextureDescriptor tdesc{};
  tdesc.usage = WGPUTextureUsage_RenderAttachment;
  if (out_path != nullptr) tdesc.usage |= WGPUTextureUsage_CopySrc;
  tdesc.dimension = 2;
  tdesc.size = {width, height, 1};
  tdesc.format = kBGRA8Unorm;
  tdesc.mipLevelCount = 1;
  tdesc.sampleCount = 1;
  auto color = wg::Texture::Adopt(P.DeviceCreateTexture(device, &tdesc));
  tdesc.usage = WGPUTextureUsage_RenderAttachment;
  tdesc.format = kDepth24Plus;
  auto depth = wg::Texture::Adopt(P.DeviceCreateTexture(device, &tdesc));
  if (!pipeline || !group || !color || !depth) return Fail("pipeline, bind group or textures");

  auto frame = [&](int n) {
    const Mat mvp = Multiply(Perspective(M_PI / 4, static_cast<double>(width) / height, 0.1, 100),
                             Multiply(Translation(0, 0, -5), Rotation(0.5 + n * 0.03, n * 0.02)));
    float mvp32[16];
    for (int i = 0; i < 16; ++i) mvp32[i] = static_cast<float>(mvp[i]);
    P.QueueWriteBuffer(queue, ubuf->handle.get(), 0, mvp32, sizeof mvp32);
    // As the scene: views of both attachments made each frame.
    auto view = wg::TextureView::Adopt(P.TextureCreateView(color.get(), nullptr));
    auto depth_view = wg::TextureView::Adopt(P.TextureCreateView(depth.get(), nullptr));
    WGPUCommandEncoderDescriptor edesc{};
    auto encoder = wg::CommandEncoder::Adopt(P.DeviceCreateCommandEncoder(device, &edesc));
    WGPURenderPassColorAttachment ca{};
    ca.view = view.get();
    ca.depthSlice = WGPU_DEPTH_SLICE_UNDEFINED;
    ca.loadOp = 2;   // clear
    ca.storeOp = 1;  // store
    ca.clearValue = {0.08, 0.08, 0.1, 1};
    WGPURenderPassDepthStencilAttachment da{};
    da.view = depth_view.get();
    da.depthLoadOp = 2;
    da.depthStoreOp = 1;
    da.depthClearValue = 1;
    WGPURenderPassDescriptor rpdesc{};
    rpdesc.colorAttachmentCount = 1;
    rpdesc.colorAttachments = &ca;
    rpdesc.depthStencilAttachment = &da;
    auto pass =
        wg::RenderPassEncoder::Adopt(P.CommandEncoderBeginRenderPass(encoder.get(), &rpdesc));
    P.RenderPassEncoderSetPipeline(pass.get(), pipeline.get());
    P.RenderPassEncoderSetBindGroup(pass.get(), 0, group.get(), 0, nullptr);
    P.RenderPassEncoderSetVertexBuffer(pass.get(), 0, vbuf->handle.get(), 0, WGPU_WHOLE_SIZE);
    P.RenderPassEncoderDraw(pass.get(), 36, 1, 0, 0);
    P.RenderPassEncoderEnd(pass.get());
    WGPUCommandBufferDescriptor cbdesc{};
    auto commands = wg::CommandBuffer::Adopt(P.CommandEncoderFinish(encoder.get(), &cbdesc));
    WGPUCommandBuffer raw = commands.get();
    P.QueueSubmit(queue, 1, &raw);
    return (*ctx)->WaitIdle();
  };
  if (auto st = frame(0); !st) return Fail(st.error().message);
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_setup).count();
  if (auto errors = (*ctx)->TakeUncapturedErrors(); !errors.empty())
    return Fail("WebGPU error: " + errors.front().message);
  const int warm = 10;
  for (int n = 1; n < warm; ++n)
    if (auto st = frame(n); !st) return Fail(st.error().message);
  const auto t0 = std::chrono::steady_clock::now();
  for (int n = warm; n < warm + frames; ++n)
    if (auto st = frame(n); !st) return Fail(st.error().message);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
      frames;
  if (auto errors = (*ctx)->TakeUncapturedErrors(); !errors.empty())
    return Fail("WebGPU error: " + errors.front().message);
  if (out_path != nullptr) {
    const uint32_t row = (width * 4 + 255) / 256 * 256;
    auto staging = (*ctx)->CreateBuffer(uint64_t{row} * height,
                                        WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc, "frame");
    if (!staging) return Fail(staging.error().message);
    WGPUTexelCopyTextureInfo src{};
    src.texture = color.get();
    src.aspect = 1;
    WGPUTexelCopyBufferInfo to{};
    to.buffer = staging->handle.get();
    to.layout.bytesPerRow = row;
    to.layout.rowsPerImage = height;
    WGPUExtent3D size{width, height, 1};
    auto encoder = wg::CommandEncoder::Adopt(P.DeviceCreateCommandEncoder(device, nullptr));
    P.CommandEncoderCopyTextureToBuffer(encoder.get(), &src, &to, &size);
    auto commands = wg::CommandBuffer::Adopt(P.CommandEncoderFinish(encoder.get(), nullptr));
    WGPUCommandBuffer raw = commands.get();
    P.QueueSubmit(queue, 1, &raw);
    std::vector<std::byte> bytes(staging->size);
    if (auto st = (*ctx)->Read(*staging, 0, bytes); !st) return Fail(st.error().message);
    std::vector<uint8_t> rgba(size_t{width} * height * 4);
    for (uint32_t y = 0; y < height; ++y)
      for (uint32_t x = 0; x < width; ++x) {
        const auto* p = reinterpret_cast<const uint8_t*>(bytes.data()) + size_t{y} * row + x * 4;
        uint8_t* q = rgba.data() + (size_t{y} * width + x) * 4;
        q[0] = p[2];
        q[1] = p[1];
        q[2] = p[0];
        q[3] = p[3];
      }
    std::ofstream out(out_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(rgba.data()),
              static_cast<std::streamsize>(rgba.size()));
    if (!out) return Fail(std::string("cannot write ") + out_path);
  }
  std::printf(
      "{\"scene\": \"cube\", \"frames\": %d, \"width\": %u, \"height\": %u, \"ms_per_frame\": "
      "%.3f, \"first_frame_ms\": %.1f, \"runtime\": \"C++ webgpu.h\"}\n",
      frames, width, height, ms, first_ms);
  return 0;
}
