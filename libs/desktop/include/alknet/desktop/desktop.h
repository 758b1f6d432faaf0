// alknet-desktop: JavaScript + WebGPU in native windows. `alknet:desktop`'s createWindow()
// returns a canvas-like object whose getContext("webgpu") is a GPUCanvasContext presenting to
// the window; requestAnimationFrame is paced by presentation; input arrives as DOM-like events
// on the canvas. Window system: GLFW on X11 (docs/adr/0007-desktop-window-system.md).
#pragma once

#include <cstdint>
#include <string>

#include "alknet/runtime/result.h"

namespace alknet::desktop {

// What the host (`alknet desktop`) sets for the script's windows.
struct DesktopOptions {
  // Defaults for createWindow() members the script leaves out.
  uint32_t width = 640;
  uint32_t height = 480;
  std::string title;  // empty: the script's file name
  bool fullscreen = false;
  // Stop after this many presented frames (exit code 0); 0 = run until the window closes.
  uint64_t frames = 0;
  // With `frames`: the last frame's image is written here as PNG before it is presented. The
  // host's choice, so no --allow-write is needed; the script cannot pick another path.
  std::string screenshot;
  // Frames per second requestAnimationFrame runs at most; 0 = as fast as frames are presented
  // (for benchmarks: FIFO presentation still blocks where the display has a vertical blank).
  uint32_t max_fps = 60;
};

// Registers alknet:desktop with the runtime (alknet/runtime/native_module.h). Call before the
// first Runtime is created; a second call replaces the options.
void InstallDesktopModule(DesktopOptions options = {});
// Ok when windows can be opened; otherwise why not (no DISPLAY, the X server refusing),
// naming DISPLAY and WAYLAND_DISPLAY.
runtime::Status CheckDisplay();
// Closes every window and releases their surfaces, devices and the script's callbacks. The
// host calls it when the script's loop has ended, before the Runtime is destroyed.
void CloseAllWindows();

}  // namespace alknet::desktop
