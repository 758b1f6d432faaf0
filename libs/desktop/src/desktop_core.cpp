// alknet:desktop's native core: windows (window.h), their GPUCanvasContext surfaces, frame
// pacing and the loop's EventSource that turns window events into calls of the JS module's
// tick(events, frameTime) (js/desktop.js).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "alknet/desktop/desktop.h"
#include "alknet/runtime/event_loop.h"
#include "alknet/runtime/native_module.h"
#include "alknet/runtime/webgpu_interop.h"
#include "alknet/webgpu/procs.h"
#include "png.h"
#include "window.h"

namespace alknet::desktop {

namespace desktop_js {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];  // js/desktop.js, embedded by CMakeLists.txt
}  // namespace desktop_js

namespace {

namespace sm = runtime::sm;
namespace wg = webgpu;
using Clock = std::chrono::steady_clock;

// One window and the surface state its GPUCanvasContext configured.
struct Entry {
  uint32_t id = 0;
  std::unique_ptr<Window> window;
  wg::DeviceHandle device;
  // Whether the configured device was destroyed or lost (its GPUDevice's flag).
  std::shared_ptr<const std::atomic<bool>> device_gone;
  WGPUSurfaceConfiguration config{};
  // The instance of the configured device, which the surface is made on (navigator.gpu's, or
  // alknet:compute's for compute.device).
  WGPUInstance instance = nullptr;
  bool configured = false;
  wg::Texture current;  // the frame's texture, from getCurrentTexture() until present
};

// Closes a window and its surface. A surface configured with a device that has since been
// destroyed or lost is neither unconfigured nor released (Window::Close's abandon_surface).
void CloseEntry(Entry* e) {
  e->current = {};
  if (e->window && e->window->open()) {
    const bool gone = e->device_gone && e->device_gone->load();
    if (e->configured && !gone) {
      if (auto s = e->window->Surface(nullptr); s) wg::P().SurfaceUnconfigure(*s);
    }
    e->window->Close(/*abandon_surface=*/e->configured && gone);
  }
  e->configured = false;
  e->device = {};
  e->device_gone = nullptr;
}

class Desktop final : public runtime::EventSource {
 public:
  DesktopOptions options;
  std::vector<std::unique_ptr<Entry>> windows;
  JSContext* cx = nullptr;
  runtime::EventLoop* loop = nullptr;
  std::unique_ptr<JS::PersistentRootedObject> tick;
  bool frame_requested = false;
  Clock::time_point next_frame{};
  uint32_t next_id = 1;

  Entry* Find(uint32_t id) {
    for (auto& e : windows)
      if (e->id == id && e->window && e->window->open()) return e.get();
    return nullptr;
  }

  bool Alive() const override {
    return std::any_of(windows.begin(), windows.end(),
                       [](const auto& e) { return e->window && e->window->open(); });
  }

  bool FrameDue(Clock::time_point now) const {
    if (!frame_requested || now < next_frame) return false;
    // Minimised windows draw nothing: frames wait for the restore (browsers throttle too).
    return std::any_of(windows.begin(), windows.end(), [](const auto& e) {
      return e->window && e->window->open() && !e->window->minimized();
    });
  }

  runtime::Result<bool> Dispatch() override;

  void Wait(std::optional<Clock::time_point> until) override {
    const auto now = Clock::now();
    std::optional<Clock::time_point> wake = until;
    if (frame_requested) wake = wake ? std::min(*wake, next_frame) : next_frame;
    if (wake) {
      WaitWindowEvents(std::max(std::chrono::nanoseconds(0), *wake - now));
    } else {
      WaitWindowEvents(std::nullopt);
    }
  }

  void Reset() {
    for (auto& e : windows) {
      CloseEntry(e.get());
      e->window.reset();
    }
    windows.clear();
    tick.reset();
    if (loop != nullptr && loop->event_source() == this) loop->SetEventSource(nullptr);
    loop = nullptr;
    cx = nullptr;
    frame_requested = false;
  }
};

Desktop& D() {
  static Desktop* d = new Desktop();  // outlives every runtime; never destroyed at exit
  return *d;
}

bool SetNumber(JSContext* cx, JS::HandleObject o, const char* name, double v) {
  JS::RootedValue val(cx, JS::NumberValue(v));
  return JS_SetProperty(cx, o, name, val);
}
bool SetBool(JSContext* cx, JS::HandleObject o, const char* name, bool v) {
  JS::RootedValue val(cx, JS::BooleanValue(v));
  return JS_SetProperty(cx, o, name, val);
}
bool SetString(JSContext* cx, JS::HandleObject o, const char* name, std::string_view v) {
  JSString* s = sm::NewString(cx, v);
  if (!s) return false;
  JS::RootedValue val(cx, JS::StringValue(s));
  return JS_SetProperty(cx, o, name, val);
}

JSObject* EventObject(JSContext* cx, uint32_t window, const WindowEvent& e) {
  JS::RootedObject o(cx, JS_NewPlainObject(cx));
  if (!o || !SetNumber(cx, o, "window", window) || !SetString(cx, o, "type", e.type))
    return nullptr;
  const std::string& t = e.type;
  bool ok = true;
  if (t == "keydown" || t == "keyup") {
    ok = SetString(cx, o, "key", e.key) && SetString(cx, o, "code", e.code) &&
         SetBool(cx, o, "repeat", e.repeat);
  } else if (t.rfind("pointer", 0) == 0 || t == "wheel") {
    ok = SetNumber(cx, o, "x", e.x) && SetNumber(cx, o, "y", e.y) &&
         SetNumber(cx, o, "button", e.button) && SetNumber(cx, o, "buttons", e.buttons) &&
         SetNumber(cx, o, "deltaX", e.delta_x) && SetNumber(cx, o, "deltaY", e.delta_y);
  } else if (t == "resize") {
    ok = SetNumber(cx, o, "width", e.width) && SetNumber(cx, o, "height", e.height);
  }
  ok = ok && SetBool(cx, o, "shiftKey", e.shift) && SetBool(cx, o, "ctrlKey", e.ctrl) &&
       SetBool(cx, o, "altKey", e.alt) && SetBool(cx, o, "metaKey", e.meta);
  return ok ? o.get() : nullptr;
}

runtime::Result<bool> Desktop::Dispatch() {
  PollWindowEvents();
  const auto now = Clock::now();
  const bool frame = FrameDue(now);
  size_t queued = 0;
  for (auto& e : windows)
    if (e->window) queued += e->window->events().size();
  if (queued == 0 && !frame) return false;
  if (!tick) return false;

  JS::RootedObject events(cx, JS::NewArrayObject(cx, 0));
  if (!events) return sm::TakePendingException(cx).error();
  uint32_t n = 0;
  for (auto& e : windows) {
    if (!e->window) continue;
    auto& q = e->window->events();
    while (!q.empty()) {
      JS::RootedObject ev(cx, EventObject(cx, e->id, q.front()));
      q.pop_front();
      if (!ev || !JS_SetElement(cx, events, n++, ev)) {
        auto s = sm::TakePendingException(cx);
        if (!s) return s.error();
        return true;
      }
    }
  }
  if (frame) {
    frame_requested = false;
    next_frame = options.max_fps == 0
                     ? now
                     : now + std::chrono::nanoseconds(1'000'000'000 / options.max_fps);
  }
  JS::RootedValueArray<2> args(cx);
  args[0].setObject(*events);
  if (frame) {
    args[1].setNumber(std::chrono::duration<double, std::milli>(now.time_since_epoch()).count());
  } else {
    args[1].setUndefined();
  }
  JS::RootedValue fn(cx, JS::ObjectValue(**tick));
  JS::RootedValue rval(cx);
  if (!JS_CallFunctionValue(cx, nullptr, fn, args, &rval)) {
    auto s = sm::TakePendingException(cx);
    if (!s) return s.error();
  }
  return true;
}

// ---- the core's functions ---------------------------------------------------------------------

bool WindowId(JSContext* cx, JS::HandleValue v, Entry** out) {
  double id = 0;
  if (!JS::ToNumber(cx, v, &id)) return false;
  *out = D().Find(static_cast<uint32_t>(id));
  if (*out == nullptr) return sm::ThrowError(cx, "the window is closed", "InvalidStateError");
  return true;
}

bool ReadU32(JSContext* cx, JS::HandleObject o, const char* name, uint32_t fallback,
             uint32_t* out) {
  JS::RootedValue v(cx);
  if (!JS_GetProperty(cx, o, name, &v)) return false;
  if (v.isUndefined()) {
    *out = fallback;
    return true;
  }
  double d = 0;
  if (!JS::ToNumber(cx, v, &d)) return false;
  if (!(d >= 1 && d <= 16384)) {
    return sm::ThrowError(cx, std::string("createWindow: ") + name + " must be 1..16384",
                          "RangeError");
  }
  *out = static_cast<uint32_t>(d);
  return true;
}

// createWindow({width, height, title, fullscreen}) -> window id
bool CreateWindow(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Desktop& d = D();
  WindowOptions o;
  o.width = d.options.width;
  o.height = d.options.height;
  o.title = d.options.title.empty() ? "alknet" : d.options.title;
  o.fullscreen = d.options.fullscreen;
  if (args.get(0).isObject()) {
    JS::RootedObject opts(cx, &args[0].toObject());
    if (!ReadU32(cx, opts, "width", o.width, &o.width) ||
        !ReadU32(cx, opts, "height", o.height, &o.height)) {
      return false;
    }
    JS::RootedValue v(cx);
    if (!JS_GetProperty(cx, opts, "title", &v)) return false;
    if (!v.isUndefined() && !sm::ValueToUtf8(cx, v, &o.title)) return false;
    if (!JS_GetProperty(cx, opts, "fullscreen", &v)) return false;
    if (!v.isUndefined()) o.fullscreen = JS::ToBoolean(v);
  }
  auto window = Window::Open(o);
  if (!window)
    return sm::ThrowError(cx, "createWindow: " + window.error().message, "NotSupportedError");
  auto entry = std::make_unique<Entry>();
  entry->id = d.next_id++;
  entry->window = std::move(*window);
  const uint32_t id = entry->id;
  d.windows.push_back(std::move(entry));
  if (d.cx == nullptr) {
    d.cx = cx;
    d.loop = sm::HostOf(cx).loop;
    d.loop->SetEventSource(&d);
  }
  args.rval().setNumber(id);
  return true;
}

bool WindowInfo(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  if (!WindowId(cx, args.get(0), &e)) return false;
  JS::RootedObject o(cx, JS_NewPlainObject(cx));
  if (!o || !SetNumber(cx, o, "width", e->window->framebuffer_width()) ||
      !SetNumber(cx, o, "height", e->window->framebuffer_height()) ||
      !SetNumber(cx, o, "devicePixelRatio", e->window->device_pixel_ratio()) ||
      !SetBool(cx, o, "minimized", e->window->minimized())) {
    return false;
  }
  args.rval().setObject(*o);
  return true;
}

bool SetTitle(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  std::string title;
  if (!WindowId(cx, args.get(0), &e) || !sm::ValueToUtf8(cx, args.get(1), &title)) return false;
  e->window->SetTitle(title);
  args.rval().setUndefined();
  return true;
}

// setSize(window, width, height): canvas.width/height = ...
bool SetSize(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  double w = 0, h = 0;
  if (!WindowId(cx, args.get(0), &e) || !JS::ToNumber(cx, args.get(1), &w) ||
      !JS::ToNumber(cx, args.get(2), &h)) {
    return false;
  }
  if (!(w >= 1 && w <= 16384 && h >= 1 && h <= 16384)) {
    return sm::ThrowError(cx, "canvas size: width and height must be 1..16384 pixels",
                          "RangeError");
  }
  e->window->SetSize(static_cast<uint32_t>(w), static_cast<uint32_t>(h));
  args.rval().setUndefined();
  return true;
}

bool CloseWindow(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  double id = 0;
  if (!JS::ToNumber(cx, args.get(0), &id)) return false;
  if (Entry* e = D().Find(static_cast<uint32_t>(id))) {
    CloseEntry(e);
  }
  args.rval().setUndefined();
  return true;
}

std::string FormatList(const WGPUSurfaceCapabilities& caps) {
  std::string s;
  for (size_t i = 0; i < caps.formatCount; ++i) {
    if (!s.empty()) s += ", ";
    s += std::to_string(caps.formats[i]);
  }
  return s;
}

bool Reconfigure(JSContext* cx, Entry* e) {
  auto surface = e->window->Surface(e->instance);
  if (!surface) return sm::ThrowError(cx, surface.error().message, "OperationError");
  e->config.width = e->window->framebuffer_width();
  e->config.height = e->window->framebuffer_height();
  wg::P().SurfaceConfigure(*surface, &e->config);
  e->configured = true;
  return true;
}

// configure(window, device, formatNumber, usage, alphaModeNumber)
bool Configure(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  if (!WindowId(cx, args.get(0), &e)) return false;
  WGPUDevice device = sm::UnwrapGpuDevice(cx, args.get(1), "GPUCanvasContext.configure: device");
  if (device == nullptr) return false;
  auto gone = sm::GpuDeviceGone(cx, args.get(1), "GPUCanvasContext.configure: device");
  if (!gone) return false;
  double format = 0, usage = 0, alpha = 0;
  if (!JS::ToNumber(cx, args.get(2), &format) || !JS::ToNumber(cx, args.get(3), &usage) ||
      !JS::ToNumber(cx, args.get(4), &alpha)) {
    return false;
  }
  WGPUInstance instance = sm::GpuDeviceInstance(cx, args.get(1), "GPUCanvasContext.configure");
  if (instance == nullptr) return false;
  if (e->instance != nullptr && e->instance != instance) {
    // A device of another instance: the surface is made again on the device's instance.
    const bool gone = e->device_gone && e->device_gone->load();
    if (e->configured && !gone) {
      if (auto s = e->window->Surface(nullptr); s) wg::P().SurfaceUnconfigure(*s);
    }
    e->window->DropSurface(/*abandon_surface=*/e->configured && gone);
    e->configured = false;
    e->current = {};
  }
  e->instance = instance;
  auto surface = e->window->Surface(instance);
  if (!surface) return sm::ThrowError(cx, surface.error().message, "OperationError");
  wg::Adapter adapter = wg::Adapter::Adopt(wg::P().DeviceGetAdapter(device));
  WGPUSurfaceCapabilities caps{};
  if (wg::P().SurfaceGetCapabilities(*surface, adapter.get(), &caps) != WGPUStatus_Success) {
    std::string message =
        "GPUCanvasContext.configure: the device's adapter cannot present to this window";
    if (LoadedWindowSystem() == WindowSystem::kWayland) {
      // Seen with the pinned Dawn (npm bun-webgpu-linux-x64 0.1.7): built without
      // DAWN_USE_WAYLAND, it refuses the Wayland surface source ("Unsupported sType").
      message +=
          " (a native Wayland window: the WebGPU library must be built with Wayland surfaces, "
          "and the pinned Dawn is not; use Debian's libglfw3 under Xwayland (DISPLAY), or "
          "ALKNET_WEBGPU_LIBRARY=a Dawn built with DAWN_USE_WAYLAND)";
    }
    return sm::ThrowError(cx, message, "OperationError");
  }
  const auto fmt = static_cast<WGPUTextureFormat>(format);
  const bool format_ok = std::find(caps.formats, caps.formats + caps.formatCount, fmt) !=
                         caps.formats + caps.formatCount;
  WGPUTextureUsage want = static_cast<WGPUTextureUsage>(usage);
  if (!D().options.screenshot.empty()) want |= WGPUTextureUsage_CopySrc;
  const bool usage_ok = (want & ~caps.usages) == 0;
  WGPUCompositeAlphaMode alpha_mode = static_cast<WGPUCompositeAlphaMode>(alpha);
  if (std::find(caps.alphaModes, caps.alphaModes + caps.alphaModeCount, alpha_mode) ==
      caps.alphaModes + caps.alphaModeCount) {
    alpha_mode = WGPUCompositeAlphaMode_Auto;  // the surface composites as it can
  }
  const std::string formats = FormatList(caps);
  const WGPUTextureUsage supported = caps.usages;
  wg::P().SurfaceCapabilitiesFreeMembers(caps);
  if (!format_ok) {
    return sm::ThrowTypeError(cx, "GPUCanvasContext.configure: this window cannot present format " +
                                      std::to_string(fmt) + " (supported: " + formats +
                                      "; use navigator.gpu.getPreferredCanvasFormat())");
  }
  if (!usage_ok) {
    return sm::ThrowTypeError(cx, "GPUCanvasContext.configure: usage " + std::to_string(want) +
                                      " is not supported by this window's surface (supported " +
                                      std::to_string(supported) + ")");
  }
  e->current = {};
  e->device = wg::DeviceHandle::Adopt(device);
  wg::P().DeviceAddRef(device);
  e->device_gone = std::move(gone);
  e->config = WGPUSurfaceConfiguration{};
  e->config.device = device;
  e->config.format = fmt;
  e->config.usage = want;
  e->config.alphaMode = alpha_mode;
  e->config.presentMode = WGPUPresentMode_Fifo;  // the one mode every surface has; paces frames
  if (!Reconfigure(cx, e)) return false;
  args.rval().setUndefined();
  return true;
}

bool Unconfigure(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  if (!WindowId(cx, args.get(0), &e)) return false;
  e->current = {};
  if (e->configured) {
    if (auto s = e->window->Surface(nullptr)) wg::P().SurfaceUnconfigure(*s);
  }
  e->configured = false;
  e->device = {};
  args.rval().setUndefined();
  return true;
}

bool GetCurrentTexture(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  if (!WindowId(cx, args.get(0), &e)) return false;
  if (!e->configured) {
    return sm::ThrowError(cx, "GPUCanvasContext.getCurrentTexture: configure() the context first",
                          "InvalidStateError");
  }
  if (!e->current) {
    if (e->window->framebuffer_width() == 0 || e->window->framebuffer_height() == 0) {
      return sm::ThrowError(cx,
                            "GPUCanvasContext.getCurrentTexture: the window has no area "
                            "(minimised)",
                            "InvalidStateError");
    }
    if (e->config.width != e->window->framebuffer_width() ||
        e->config.height != e->window->framebuffer_height()) {
      if (!Reconfigure(cx, e)) return false;  // the canvas was resized
    }
    auto surface = e->window->Surface(nullptr);
    if (!surface) return sm::ThrowError(cx, surface.error().message, "OperationError");
    WGPUSurfaceTexture st{};
    for (int attempt = 0; attempt < 2; ++attempt) {
      st = WGPUSurfaceTexture{};
      wg::P().SurfaceGetCurrentTexture(*surface, &st);
      if (st.status != WGPUSurfaceGetCurrentTextureStatus_Outdated) break;
      if (st.texture) wg::P().TextureRelease(st.texture);
      st.texture = nullptr;
      if (!Reconfigure(cx, e)) return false;
    }
    if (st.status != WGPUSurfaceGetCurrentTextureStatus_SuccessOptimal &&
        st.status != WGPUSurfaceGetCurrentTextureStatus_SuccessSuboptimal) {
      if (st.texture) wg::P().TextureRelease(st.texture);
      return sm::ThrowError(
          cx,
          "GPUCanvasContext.getCurrentTexture: the window's surface gave no "
          "texture (status " +
              std::to_string(st.status) +
              (st.status == WGPUSurfaceGetCurrentTextureStatus_Lost ? ": surface lost"
               : st.status == WGPUSurfaceGetCurrentTextureStatus_Timeout
                   ? ": timeout"
                   : ": device lost or error") +
              ")",
          "OperationError");
    }
    e->current = wg::Texture::Adopt(st.texture);
  }
  JSObject* tex = sm::WrapGpuTexture(cx, e->current.get(), "canvas texture");
  if (!tex) return false;
  args.rval().setObject(*tex);
  return true;
}

bool Present(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  if (!WindowId(cx, args.get(0), &e)) return false;
  if (e->current) {
    if (auto s = e->window->Surface(nullptr)) wg::P().SurfacePresent(*s);
    e->current = {};
  }
  args.rval().setUndefined();
  return true;
}

struct MapResult {
  WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  std::string message;
};
void OnMapped(WGPUMapAsyncStatus status, WGPUStringView message, void* u1, void*) {
  auto* r = static_cast<MapResult*>(u1);
  r->status = status;
  r->message = std::string(wg::FromSv(message));
}

// screenshot(window): the frame's texture as PNG at the host's --screenshot path.
bool Screenshot(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  Entry* e = nullptr;
  if (!WindowId(cx, args.get(0), &e)) return false;
  const std::string& path = D().options.screenshot;
  if (path.empty()) return sm::ThrowError(cx, "screenshot: no --screenshot path was given");
  if (!e->current) return sm::ThrowError(cx, "screenshot: no frame was drawn", "InvalidStateError");
  const WGPUTextureFormat fmt = e->config.format;
  if (fmt != WGPUTextureFormat_BGRA8Unorm && fmt != WGPUTextureFormat_RGBA8Unorm) {
    return sm::ThrowError(cx, "screenshot: only bgra8unorm and rgba8unorm canvases are supported");
  }
  const uint32_t w = wg::P().TextureGetWidth(e->current.get());
  const uint32_t h = wg::P().TextureGetHeight(e->current.get());
  const uint32_t row = (w * 4 + 255) / 256 * 256;
  WGPUBufferDescriptor bd{};
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = uint64_t{row} * h;
  wg::BufferHandle buf = wg::BufferHandle::Adopt(wg::P().DeviceCreateBuffer(e->device.get(), &bd));
  wg::CommandEncoder enc =
      wg::CommandEncoder::Adopt(wg::P().DeviceCreateCommandEncoder(e->device.get(), nullptr));
  WGPUTexelCopyTextureInfo src{};
  src.texture = e->current.get();
  src.aspect = 1;  // all
  WGPUTexelCopyBufferInfo dst{};
  dst.buffer = buf.get();
  dst.layout.bytesPerRow = row;
  dst.layout.rowsPerImage = h;
  WGPUExtent3D size{w, h, 1};
  wg::P().CommandEncoderCopyTextureToBuffer(enc.get(), &src, &dst, &size);
  wg::CommandBuffer cmd =
      wg::CommandBuffer::Adopt(wg::P().CommandEncoderFinish(enc.get(), nullptr));
  wg::Queue queue = wg::Queue::Adopt(wg::P().DeviceGetQueue(e->device.get()));
  WGPUCommandBuffer raw = cmd.get();
  wg::P().QueueSubmit(queue.get(), 1, &raw);
  MapResult mapped;
  WGPUBufferMapCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = OnMapped;
  cb.userdata1 = &mapped;
  WGPUFutureWaitInfo wait{wg::P().BufferMapAsync(buf.get(), WGPUMapMode_Read, 0, bd.size, cb), 0};
  wg::P().InstanceWaitAny(e->instance, 1, &wait, UINT64_MAX);
  if (mapped.status != WGPUMapAsyncStatus_Success) {
    return sm::ThrowError(cx, "screenshot: reading the frame back failed: " + mapped.message);
  }
  const auto* bytes =
      static_cast<const uint8_t*>(wg::P().BufferGetConstMappedRange(buf.get(), 0, bd.size));
  std::vector<uint8_t> rgba(size_t{w} * h * 4);
  for (uint32_t y = 0; y < h; ++y) {
    const uint8_t* in = bytes + size_t{y} * row;
    uint8_t* out = rgba.data() + size_t{y} * w * 4;
    for (uint32_t x = 0; x < w; ++x) {
      const bool bgra = fmt == WGPUTextureFormat_BGRA8Unorm;
      out[4 * x + 0] = in[4 * x + (bgra ? 2 : 0)];
      out[4 * x + 1] = in[4 * x + 1];
      out[4 * x + 2] = in[4 * x + (bgra ? 0 : 2)];
      out[4 * x + 3] = in[4 * x + 3];
    }
  }
  wg::P().BufferUnmap(buf.get());
  const std::vector<uint8_t> png = EncodePng(w, h, rgba);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(png.data(), 1, png.size(), f) != png.size()) {
    if (f) std::fclose(f);
    return sm::ThrowError(cx, "screenshot: cannot write " + path);
  }
  std::fclose(f);
  args.rval().setUndefined();
  return true;
}

bool SetTick(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isObject() || !JS::IsCallable(&args[0].toObject())) {
    return sm::ThrowTypeError(cx, "setTick: expected a function");
  }
  D().tick = std::make_unique<JS::PersistentRootedObject>(cx, &args[0].toObject());
  args.rval().setUndefined();
  return true;
}

bool RequestFrame(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  D().frame_requested = true;
  args.rval().setUndefined();
  return true;
}

bool HostOptions(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  JS::RootedObject o(cx, JS_NewPlainObject(cx));
  if (!o || !SetNumber(cx, o, "frames", static_cast<double>(D().options.frames)) ||
      !SetBool(cx, o, "screenshot", !D().options.screenshot.empty())) {
    return false;
  }
  args.rval().setObject(*o);
  return true;
}

const JSFunctionSpec kDesktopCore[] = {
    JS_FN("createWindow", CreateWindow, 1, 0), JS_FN("windowInfo", WindowInfo, 1, 0),
    JS_FN("setTitle", SetTitle, 2, 0),         JS_FN("setSize", SetSize, 3, 0),
    JS_FN("closeWindow", CloseWindow, 1, 0),   JS_FN("configure", Configure, 5, 0),
    JS_FN("unconfigure", Unconfigure, 1, 0),   JS_FN("getCurrentTexture", GetCurrentTexture, 1, 0),
    JS_FN("present", Present, 1, 0),           JS_FN("screenshot", Screenshot, 1, 0),
    JS_FN("setTick", SetTick, 1, 0),           JS_FN("requestFrame", RequestFrame, 0, 0),
    JS_FN("hostOptions", HostOptions, 0, 0),   JS_FS_END};

bool DefineDesktopCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kDesktopCore);
}

}  // namespace

void InstallDesktopModule(DesktopOptions options) {
  D().options = std::move(options);
  runtime::RegisterNativeModule("desktop", desktop_js::kEmbeddedFiles[0].contents,
                                &DefineDesktopCore);
}

void CloseAllWindows() { D().Reset(); }

runtime::Status CheckDisplay() { return InitWindowSystem(); }

}  // namespace alknet::desktop
