#include "window.h"
#include <algorithm>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "alknet/webgpu/procs.h"

namespace alknet::desktop {

namespace {

std::string glfw_error;  // the last message of GLFW's error callback

void OnGlfwError(int code, const char* message) {
  glfw_error = std::string(message ? message : "unknown error") + " (GLFW error " +
               std::to_string(code) + ")";
}

std::string EnvOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string(fallback);
}

// The DOM's KeyboardEvent.code for a GLFW key (UI Events KeyboardEvent code values), and the
// key value for keys that are not printable.
struct KeyNames {
  const char* code;
  const char* key;  // nullptr: printable, taken from the layout (glfwGetKeyName)
};

KeyNames NamesOf(int key) {
  static char letter_code[8], digit_code[8], fkey[8];
  if (key >= GLFW_KEY_A && key <= GLFW_KEY_Z) {
    std::snprintf(letter_code, sizeof letter_code, "Key%c", 'A' + (key - GLFW_KEY_A));
    return {letter_code, nullptr};
  }
  if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) {
    std::snprintf(digit_code, sizeof digit_code, "Digit%c", '0' + (key - GLFW_KEY_0));
    return {digit_code, nullptr};
  }
  if (key >= GLFW_KEY_F1 && key <= GLFW_KEY_F12) {
    std::snprintf(fkey, sizeof fkey, "F%d", 1 + (key - GLFW_KEY_F1));
    return {fkey, fkey};
  }
  switch (key) {
    case GLFW_KEY_SPACE: return {"Space", " "};
    case GLFW_KEY_ENTER: return {"Enter", "Enter"};
    case GLFW_KEY_ESCAPE: return {"Escape", "Escape"};
    case GLFW_KEY_TAB: return {"Tab", "Tab"};
    case GLFW_KEY_BACKSPACE: return {"Backspace", "Backspace"};
    case GLFW_KEY_DELETE: return {"Delete", "Delete"};
    case GLFW_KEY_INSERT: return {"Insert", "Insert"};
    case GLFW_KEY_LEFT: return {"ArrowLeft", "ArrowLeft"};
    case GLFW_KEY_RIGHT: return {"ArrowRight", "ArrowRight"};
    case GLFW_KEY_UP: return {"ArrowUp", "ArrowUp"};
    case GLFW_KEY_DOWN: return {"ArrowDown", "ArrowDown"};
    case GLFW_KEY_HOME: return {"Home", "Home"};
    case GLFW_KEY_END: return {"End", "End"};
    case GLFW_KEY_PAGE_UP: return {"PageUp", "PageUp"};
    case GLFW_KEY_PAGE_DOWN: return {"PageDown", "PageDown"};
    case GLFW_KEY_LEFT_SHIFT: return {"ShiftLeft", "Shift"};
    case GLFW_KEY_RIGHT_SHIFT: return {"ShiftRight", "Shift"};
    case GLFW_KEY_LEFT_CONTROL: return {"ControlLeft", "Control"};
    case GLFW_KEY_RIGHT_CONTROL: return {"ControlRight", "Control"};
    case GLFW_KEY_LEFT_ALT: return {"AltLeft", "Alt"};
    case GLFW_KEY_RIGHT_ALT: return {"AltRight", "Alt"};
    case GLFW_KEY_LEFT_SUPER: return {"MetaLeft", "Meta"};
    case GLFW_KEY_RIGHT_SUPER: return {"MetaRight", "Meta"};
    case GLFW_KEY_MINUS: return {"Minus", nullptr};
    case GLFW_KEY_EQUAL: return {"Equal", nullptr};
    case GLFW_KEY_COMMA: return {"Comma", nullptr};
    case GLFW_KEY_PERIOD: return {"Period", nullptr};
    case GLFW_KEY_SLASH: return {"Slash", nullptr};
    case GLFW_KEY_SEMICOLON: return {"Semicolon", nullptr};
    case GLFW_KEY_APOSTROPHE: return {"Quote", nullptr};
    case GLFW_KEY_LEFT_BRACKET: return {"BracketLeft", nullptr};
    case GLFW_KEY_RIGHT_BRACKET: return {"BracketRight", nullptr};
    case GLFW_KEY_BACKSLASH: return {"Backslash", nullptr};
    case GLFW_KEY_GRAVE_ACCENT: return {"Backquote", nullptr};
    default: return {"Unidentified", "Unidentified"};
  }
}

// PointerEvent.button numbering (0 main, 1 auxiliary, 2 secondary) from GLFW's.
int DomButton(int glfw_button) {
  switch (glfw_button) {
    case GLFW_MOUSE_BUTTON_LEFT: return 0;
    case GLFW_MOUSE_BUTTON_MIDDLE: return 1;
    case GLFW_MOUSE_BUTTON_RIGHT: return 2;
    default: return glfw_button;
  }
}

// GLFW's native accessors (glfw3native.h) exist only for the backends a libglfw was built with.
// Debian ships GLFW 3.3 twice under one soname: libglfw3 (X11) and libglfw3-wayland (Wayland;
// the two packages conflict). We link whichever is installed and look the accessors up at run
// time, so one binary opens X11 windows with the first and native Wayland windows with the
// second. Declaring them by hand would also pull no X11 or Wayland header (nor X11's macros:
// None, Status, Bool) into this file.
struct NativeAccessors {
  void* (*x11_display)() = nullptr;                    // Display*
  unsigned long (*x11_window)(GLFWwindow*) = nullptr;  // the window's XID
  void* (*wayland_display)() = nullptr;                // wl_display*
  void* (*wayland_window)(GLFWwindow*) = nullptr;      // the window's wl_surface*
};

template <typename F>
void Lookup(F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

const NativeAccessors& Native() {
  static const NativeAccessors native = [] {
    NativeAccessors n;
    Lookup(n.x11_display, "glfwGetX11Display");
    Lookup(n.x11_window, "glfwGetX11Window");
    Lookup(n.wayland_display, "glfwGetWaylandDisplay");
    Lookup(n.wayland_window, "glfwGetWaylandWindow");
    return n;
  }();
  return native;
}

}  // namespace

WindowSystem LoadedWindowSystem() {
  const NativeAccessors& n = Native();
  if (n.wayland_display != nullptr && n.wayland_window != nullptr) return WindowSystem::kWayland;
  if (n.x11_display != nullptr && n.x11_window != nullptr) return WindowSystem::kX11;
  return WindowSystem::kNone;
}

Status InitWindowSystem() {
  static std::once_flag once;
  static Status result = runtime::Ok{};
  std::call_once(once, [] {
    glfwSetErrorCallback(OnGlfwError);
    const std::string display = EnvOr("DISPLAY", "");
    const std::string wayland = EnvOr("WAYLAND_DISPLAY", "");
    switch (LoadedWindowSystem()) {
      case WindowSystem::kNone:
        result = runtime::MakeError(
            "the loaded libglfw has neither X11 nor Wayland native accessors (a GLFW 3.3 "
            "build for another platform?): install Debian's libglfw3 or libglfw3-wayland");
        return;
      case WindowSystem::kWayland:
        if (wayland.empty()) {
          result = runtime::MakeError(
              "no Wayland display: WAYLAND_DISPLAY is not set, and the installed libglfw is "
              "GLFW's Wayland build (libglfw3-wayland) (run under a Wayland session, or install "
              "libglfw3 for X11 windows)");
          return;
        }
        if (glfwInit() != GLFW_TRUE) {
          result = runtime::MakeError("cannot open the Wayland display WAYLAND_DISPLAY=" + wayland +
                                      ": " + glfw_error);
        }
        return;
      case WindowSystem::kX11:
        if (display.empty()) {
          result = runtime::MakeError(
              wayland.empty()
                  ? "no display: neither DISPLAY nor WAYLAND_DISPLAY is set (run under a desktop "
                    "session, or a virtual one: xvfb-run -a alknet desktop APP.js)"
                  : "WAYLAND_DISPLAY is set but DISPLAY is not, and the installed libglfw is "
                    "GLFW's X11 build: start Xwayland (set DISPLAY), or install Debian's "
                    "libglfw3-wayland for native Wayland windows");
          return;
        }
        if (glfwInit() != GLFW_TRUE) {
          result = runtime::MakeError("cannot open the X11 display DISPLAY=" + display + ": " +
                                      glfw_error);
        }
        return;
    }
  });
  return result;
}

Window::Window(GLFWwindow* window) : window_(window) {
  glfwSetWindowUserPointer(window, this);
  glfwSetKeyCallback(window, OnKey);
  glfwSetCursorPosCallback(window, OnCursor);
  glfwSetMouseButtonCallback(window, OnButton);
  glfwSetScrollCallback(window, OnScroll);
  glfwSetFramebufferSizeCallback(window, OnFramebufferSize);
  glfwSetWindowFocusCallback(window, OnFocus);
  glfwSetWindowCloseCallback(window, OnClose);
  glfwSetWindowIconifyCallback(window, OnIconify);
  int w = 0, h = 0, ww = 0;
  glfwGetFramebufferSize(window, &w, &h);
  glfwGetWindowSize(window, &ww, nullptr);
  fb_width_ = static_cast<uint32_t>(w);
  fb_height_ = static_cast<uint32_t>(h);
  pixel_ratio_ = ww > 0 ? static_cast<double>(w) / ww : 1.0;
}

Result<std::unique_ptr<Window>> Window::Open(const WindowOptions& o) {
  ALKNET_TRY(InitWindowSystem());
  if (o.width == 0 || o.height == 0 || o.width > 16384 || o.height > 16384) {
    return runtime::MakeError("window size " + std::to_string(o.width) + "x" +
                              std::to_string(o.height) + " is out of range (1..16384)");
  }
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // WebGPU draws, not OpenGL
  glfwWindowHint(GLFW_VISIBLE, o.visible ? GLFW_TRUE : GLFW_FALSE);
  GLFWmonitor* monitor = o.fullscreen ? glfwGetPrimaryMonitor() : nullptr;
  int w = static_cast<int>(o.width), h = static_cast<int>(o.height);
  if (monitor != nullptr) {
    if (const GLFWvidmode* mode = glfwGetVideoMode(monitor)) {
      w = mode->width;
      h = mode->height;
    }
  }
  glfw_error.clear();
  GLFWwindow* raw = glfwCreateWindow(w, h, o.title.c_str(), monitor, nullptr);
  if (raw == nullptr) return runtime::MakeError("cannot create a window: " + glfw_error);
  return std::unique_ptr<Window>(new Window(raw));
}

Window::~Window() { Close(); }

void Window::DropSurface(bool abandon_surface) {
  if (abandon_surface && surface_) {
    new webgpu::Surface(std::move(surface_));  // deliberately never released (see window.h)
  }
  surface_ = {};
}

void Window::Close(bool abandon_surface) {
  DropSurface(abandon_surface);
  if (window_ != nullptr) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
  }
}

void Window::SetTitle(const std::string& title) {
  if (window_ != nullptr) glfwSetWindowTitle(window_, title.c_str());
}

void Window::SetSize(uint32_t width, uint32_t height) {
  if (window_ == nullptr || width == 0 || height == 0) return;
  const double ratio = pixel_ratio_ > 0 ? pixel_ratio_ : 1.0;
  glfwSetWindowSize(window_, std::max(1, static_cast<int>(width / ratio)),
                    std::max(1, static_cast<int>(height / ratio)));
}

Result<WGPUSurface> Window::Surface(WGPUInstance instance) {
  if (window_ == nullptr) return runtime::MakeError("the window is closed");
  if (!surface_) {
    const NativeAccessors& native = Native();
    const bool wayland = LoadedWindowSystem() == WindowSystem::kWayland;
    WGPUSurfaceSourceXlibWindow xlib{};
    WGPUSurfaceSourceWaylandSurface wl{};
    WGPUSurfaceDescriptor desc{};
    if (wayland) {
      wl.chain.sType = WGPUSType_SurfaceSourceWaylandSurface;
      wl.display = native.wayland_display();
      wl.surface = native.wayland_window(window_);
      desc.nextInChain = &wl.chain;
    } else {
      xlib.chain.sType = WGPUSType_SurfaceSourceXlibWindow;
      xlib.display = native.x11_display();
      xlib.window = static_cast<uint64_t>(native.x11_window(window_));
      desc.nextInChain = &xlib.chain;
    }
    desc.label = webgpu::Sv("alknet window");
    surface_ = webgpu::Surface::Adopt(webgpu::P().InstanceCreateSurface(instance, &desc));
    if (!surface_) {
      return runtime::MakeError(std::string("the WebGPU implementation made no surface for the ") +
                                (wayland ? "Wayland" : "X11") + " window");
    }
  }
  return surface_.get();
}

Window* Window::From(GLFWwindow* w) { return static_cast<Window*>(glfwGetWindowUserPointer(w)); }

void Window::ReadModifiers(int mods, WindowEvent& e) {
  e.shift = (mods & GLFW_MOD_SHIFT) != 0;
  e.ctrl = (mods & GLFW_MOD_CONTROL) != 0;
  e.alt = (mods & GLFW_MOD_ALT) != 0;
  e.meta = (mods & GLFW_MOD_SUPER) != 0;
}

void Window::OnKey(GLFWwindow* w, int key, int scancode, int action, int mods) {
  Window* self = From(w);
  WindowEvent e;
  e.type = action == GLFW_RELEASE ? "keyup" : "keydown";
  e.repeat = action == GLFW_REPEAT;
  const KeyNames names = NamesOf(key);
  e.code = names.code;
  if (names.key != nullptr) {
    e.key = names.key;
  } else {
    const char* printable = glfwGetKeyName(key, scancode);
    e.key = printable ? printable : "Unidentified";
    if ((mods & GLFW_MOD_SHIFT) && e.key.size() == 1 && e.key[0] >= 'a' && e.key[0] <= 'z') {
      e.key[0] = static_cast<char>(e.key[0] - 'a' + 'A');
    }
  }
  self->ReadModifiers(mods, e);
  self->Push(std::move(e));
}

void Window::OnCursor(GLFWwindow* w, double x, double y) {
  Window* self = From(w);
  self->cursor_x_ = x;
  self->cursor_y_ = y;
  WindowEvent e;
  e.type = "pointermove";
  e.x = x;
  e.y = y;
  e.button = -1;  // no button changed (UI Events)
  e.buttons = self->buttons_;
  self->Push(std::move(e));
}

void Window::OnButton(GLFWwindow* w, int button, int action, int mods) {
  Window* self = From(w);
  WindowEvent e;
  e.type = action == GLFW_PRESS ? "pointerdown" : "pointerup";
  e.button = DomButton(button);
  // PointerEvent.buttons: 1 main, 2 secondary, 4 auxiliary.
  const uint32_t bit = e.button == 0 ? 1u : e.button == 2 ? 2u : e.button == 1 ? 4u : 0u;
  self->buttons_ = action == GLFW_PRESS ? (self->buttons_ | bit) : (self->buttons_ & ~bit);
  e.buttons = self->buttons_;
  e.x = self->cursor_x_;
  e.y = self->cursor_y_;
  self->ReadModifiers(mods, e);
  self->Push(std::move(e));
}

void Window::OnScroll(GLFWwindow* w, double dx, double dy) {
  Window* self = From(w);
  WindowEvent e;
  e.type = "wheel";
  // GLFW reports lines (a mouse wheel notch is 1.0, positive = up); WheelEvent's
  // DOM_DELTA_PIXEL has positive deltaY = down. 100 px per notch, as Chromium does.
  e.delta_x = -dx * 100.0;
  e.delta_y = -dy * 100.0;
  e.x = self->cursor_x_;
  e.y = self->cursor_y_;
  self->Push(std::move(e));
}

void Window::OnFramebufferSize(GLFWwindow* w, int width, int height) {
  Window* self = From(w);
  self->fb_width_ = static_cast<uint32_t>(std::max(width, 0));
  self->fb_height_ = static_cast<uint32_t>(std::max(height, 0));
  WindowEvent e;
  e.type = "resize";
  e.width = self->fb_width_;
  e.height = self->fb_height_;
  self->Push(std::move(e));
}

void Window::OnFocus(GLFWwindow* w, int focused) {
  WindowEvent e;
  e.type = focused ? "focus" : "blur";
  From(w)->Push(std::move(e));
}

void Window::OnClose(GLFWwindow* w) {
  // The window stays until the script's "close" listeners have run (they may prevent it).
  glfwSetWindowShouldClose(w, GLFW_FALSE);
  WindowEvent e;
  e.type = "close";
  From(w)->Push(std::move(e));
}

void Window::OnIconify(GLFWwindow* w, int iconified) {
  Window* self = From(w);
  self->minimized_ = iconified != 0;
  WindowEvent e;
  e.type = iconified ? "minimize" : "restore";
  self->Push(std::move(e));
}

void PollWindowEvents() { glfwPollEvents(); }

void WaitWindowEvents(std::optional<std::chrono::nanoseconds> timeout) {
  if (!timeout) {
    glfwWaitEvents();
    return;
  }
  const double seconds = std::chrono::duration<double>(*timeout).count();
  if (seconds <= 0) {
    glfwPollEvents();
    return;
  }
  glfwWaitEventsTimeout(seconds);
}

}  // namespace alknet::desktop
