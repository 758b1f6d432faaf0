// A native window from GLFW (X11, or Wayland with Debian's libglfw3-wayland), with the WebGPU
// surface on it and the input events it received, in the DOM's vocabulary (KeyboardEvent.key/code,
// PointerEvent, WheelEvent). No JavaScript here: desktop_core.cpp turns these into events on the
// canvas.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "alknet/runtime/result.h"
#include "alknet/webgpu/handle.h"

struct GLFWwindow;

namespace alknet::desktop {

using runtime::Error;
using runtime::Result;
using runtime::Status;

struct WindowOptions {
  uint32_t width = 640;
  uint32_t height = 480;
  std::string title = "alknet";
  bool fullscreen = false;
  bool visible = true;
};

// One input or window event. `type` is the DOM event name.
struct WindowEvent {
  std::string type;  // keydown keyup pointerdown pointermove pointerup wheel resize focus blur
                     // close minimize restore
  std::string key, code;
  bool repeat = false;
  double x = 0, y = 0;              // pointer position in CSS pixels (window coordinates)
  int button = 0;                   // PointerEvent.button: 0 left, 1 middle, 2 right
  uint32_t buttons = 0;             // PointerEvent.buttons bit mask
  double delta_x = 0, delta_y = 0;  // WheelEvent, in pixels
  uint32_t width = 0, height = 0;   // resize: the new framebuffer size
  bool shift = false, ctrl = false, alt = false, meta = false;
};

// The window system of the libglfw this process loaded (ADR 0007): Debian's libglfw3 is GLFW's
// X11 build, libglfw3-wayland its Wayland build, under one soname.
enum class WindowSystem { kNone, kX11, kWayland };
WindowSystem LoadedWindowSystem();

// Reports why no window can be opened (no display, GLFW failing), naming DISPLAY and
// WAYLAND_DISPLAY; Ok when the window system is usable. Initialises GLFW once.
Status InitWindowSystem();

class Window {
 public:
  static Result<std::unique_ptr<Window>> Open(const WindowOptions& options);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // The WebGPU surface of this window on `instance` (created on first call).
  Result<WGPUSurface> Surface(WGPUInstance instance);
  uint32_t framebuffer_width() const { return fb_width_; }
  uint32_t framebuffer_height() const { return fb_height_; }
  double device_pixel_ratio() const { return pixel_ratio_; }
  bool minimized() const { return minimized_; }
  bool open() const { return window_ != nullptr; }
  void SetTitle(const std::string& title);
  // Asks for a framebuffer of width x height pixels (canvas.width/height = ...): the window is
  // resized by width / devicePixelRatio; the new size arrives as a resize event.
  void SetSize(uint32_t width, uint32_t height);
  // Closes the window now (the surface goes with it). With `abandon_surface` the surface is
  // not released: Dawn (this build) crashes releasing a surface whose swapchain's device was
  // destroyed, so a window whose device is gone leaves its surface behind (one per window).
  void Close(bool abandon_surface = false);
  // Releases the surface (or abandons it, as Close does), so that the next Surface() call makes
  // one on another instance: a canvas configured with a device of another instance
  // (alknet:compute's device) presents through a surface of that instance.
  void DropSurface(bool abandon_surface);

  std::deque<WindowEvent>& events() { return events_; }

 private:
  explicit Window(GLFWwindow* window);
  static Window* From(GLFWwindow* w);
  void Push(WindowEvent e) { events_.push_back(std::move(e)); }
  void ReadModifiers(int mods, WindowEvent& e);
  // GLFW callbacks.
  static void OnKey(GLFWwindow* w, int key, int scancode, int action, int mods);
  static void OnCursor(GLFWwindow* w, double x, double y);
  static void OnButton(GLFWwindow* w, int button, int action, int mods);
  static void OnScroll(GLFWwindow* w, double dx, double dy);
  static void OnFramebufferSize(GLFWwindow* w, int width, int height);
  static void OnFocus(GLFWwindow* w, int focused);
  static void OnClose(GLFWwindow* w);
  static void OnIconify(GLFWwindow* w, int iconified);

  GLFWwindow* window_ = nullptr;
  webgpu::Surface surface_;
  uint32_t fb_width_ = 0, fb_height_ = 0;
  double pixel_ratio_ = 1.0;
  double cursor_x_ = 0, cursor_y_ = 0;
  uint32_t buttons_ = 0;
  bool minimized_ = false;
  std::deque<WindowEvent> events_;
};

// Processes pending window-system events without blocking (callbacks fill each window's queue).
void PollWindowEvents();
// Sleeps until a window-system event arrives or `timeout` passes (nullopt: no limit).
void WaitWindowEvents(std::optional<std::chrono::nanoseconds> timeout);

}  // namespace alknet::desktop
