// `alknet desktop APP.js`: runs a script whose windows draw with WebGPU (alknet:desktop).
#include <cstdio>
#include <filesystem>
#include <string>

#include "alknet/desktop/desktop.h"
#include "alknet/runtime/cli_flags.h"
#include "alknet/runtime/runtime.h"
#include "command.h"
#include "js_host.h"
#include "options.h"

namespace {

namespace rt = alknet::runtime;

constexpr const char* kHelp =
    "Usage: alknet desktop [options] APP.js [args...]\n\n"
    "Runs APP.js like `alknet run`, with alknet:desktop's windows: createWindow() gives a\n"
    "canvas whose getContext(\"webgpu\") presents to a native window (GLFW),\n"
    "requestAnimationFrame paced by presentation, and DOM-like input events on the canvas.\n"
    "Runs with no GPU (lavapipe presents through software). Closing the last window ends the\n"
    "app. Needs a display: DISPLAY with Debian's libglfw3 (X11; or run under `xvfb-run -a`),\n"
    "or WAYLAND_DISPLAY with libglfw3-wayland (native Wayland: presenting also needs a Dawn\n"
    "built with Wayland surfaces, which the pinned one is not; see docs/desktop.md).\n\n"
    "Window options (defaults for createWindow() members the script leaves out):\n"
    "  --width N, --height N   window size in pixels (default 640x480)\n"
    "  --title TEXT            window title (default: the script's file name)\n"
    "  --fullscreen            full screen on the primary monitor\n"
    "  --max-fps N             requestAnimationFrame at most N times a second (default 60;\n"
    "                          0 = as fast as frames present, for benchmarks)\n\n"
    "Runs for tests and screenshots:\n"
    "  --frames N              exit 0 after N presented frames\n"
    "  --screenshot FILE.png   with --frames: write the last frame's image as PNG before it is\n"
    "                          presented (no --allow-write needed: the path is yours)\n\n"
    "Exit codes: 0 ok (window closed, or --frames reached); 1 uncaught error (in a frame\n"
    "callback too); 2 bad command line; 3 no display or no WebGPU; 4 GPU hang.\n\n";

int Usage(const std::string& message) {
  std::fprintf(stderr, "alknet desktop: %s (see alknet desktop --help)\n", message.c_str());
  return alknet::cli::kExitUsage;
}

int RunDesktop(std::span<const std::string_view> args) {
  rt::RuntimeOptions options;
  alknet::desktop::DesktopOptions desktop;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "-h" || a == "--help") {
      std::printf("%s%s", kHelp, rt::kRuntimeFlagsHelp);
      return alknet::cli::kExitOk;
    }
    auto value = [&](std::string_view name) -> const std::string_view* {
      if (a != name) return nullptr;
      if (i + 1 >= args.size()) return &args[i];  // flagged below as missing
      return &args[++i];
    };
    if (a == "--fullscreen") {
      desktop.fullscreen = true;
      continue;
    }
    if (a == "--width" || a == "--height" || a == "--frames" || a == "--title" ||
        a == "--screenshot" || a == "--max-fps") {
      if (i + 1 >= args.size()) return Usage(std::string(a) + " needs a value");
      const std::string_view v = *value(a);
      if (a == "--title") {
        desktop.title = std::string(v);
      } else if (a == "--screenshot") {
        desktop.screenshot = std::string(v);
      } else if (a == "--max-fps") {
        auto n = alknet::cli::ParseUnsignedOption(a, v, 0, 1000);
        if (!n) return Usage(n.error().message);
        desktop.max_fps = static_cast<uint32_t>(*n);
      } else {
        auto n = alknet::cli::ParseUnsignedOption(a, v, 1, a == "--frames" ? 1'000'000'000 : 16384);
        if (!n) return Usage(n.error().message);
        if (a == "--width") desktop.width = static_cast<uint32_t>(*n);
        if (a == "--height") desktop.height = static_cast<uint32_t>(*n);
        if (a == "--frames") desktop.frames = *n;
      }
      continue;
    }
    auto used = rt::ParseRuntimeFlag(args, i, options);
    if (!used) return Usage(used.error().message);
    if (*used == 0) break;
    i += *used - 1;
  }
  if (i >= args.size()) {
    std::fprintf(stderr, "alknet desktop: missing APP.js\n\n%s", kHelp);
    return alknet::cli::kExitUsage;
  }
  if (args[i].size() > 1 && args[i][0] == '-') {
    return Usage("unknown option '" + std::string(args[i]) + "'");
  }
  if (!desktop.screenshot.empty() && desktop.frames == 0) {
    return Usage("--screenshot needs --frames N (the frame to capture)");
  }
  const std::string file(args[i]);
  for (size_t j = i + 1; j < args.size(); ++j) options.args.emplace_back(args[j]);
  if (desktop.title.empty()) desktop.title = std::filesystem::path(file).filename().string();
  if (auto display = alknet::desktop::CheckDisplay(); !display) {
    std::fprintf(stderr, "alknet desktop: %s\n", display.error().message.c_str());
    return alknet::cli::kExitEnvironment;
  }
  alknet::desktop::InstallDesktopModule(desktop);
  std::unique_ptr<rt::Runtime> runtime;
  if (int code = alknet::cli::CreateJsRuntime("desktop", std::move(options), &runtime); code != 0)
    return code;
  const int code = runtime->RunFile(file);
  alknet::desktop::CloseAllWindows();
  return code;
}

const alknet::cli::Registration kReg{
    {"desktop", "Run a JavaScript app that draws with WebGPU in native windows", &RunDesktop}};

}  // namespace
