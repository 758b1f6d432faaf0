#!/usr/bin/env python3
"""alknet desktop with GLFW's Wayland build, under a headless Weston (no X server at all).

GLFW's Wayland build (Debian's libglfw3-wayland, unpacked by scripts/setup because it
conflicts with libglfw3) is loaded through LD_LIBRARY_PATH, and DISPLAY is unset, so nothing
can fall back to X11. Checks:
- the binary runs with that libglfw (it looks GLFW's native accessors up at run time, so no
  X11-only symbol is missing): `alknet run` computes, `alknet desktop` opens a window;
- presenting: with a WebGPU library that makes Wayland surfaces, the triangle's frame against
  the Python rasterisation (pixels.py) and the cube's against the same scene rendered
  offscreen; with the pinned Dawn, which is built without Wayland surfaces, a clear error that
  names the way out (Xwayland, or a Dawn built with DAWN_USE_WAYLAND), never a crash;
- the display errors: the Wayland build with no WAYLAND_DISPLAY names it and libglfw3; the X11
  build with only WAYLAND_DISPLAY names libglfw3-wayland. Both exit 3.
Input injection is not checked here (Weston's headless backend has no input devices); the X11
test (desktop_test.py) covers the input path, which is GLFW's for both.
Usage: wayland_test.py ALKNET SOURCE_DIR GLFW_WAYLAND_LIBDIR
Exits 77 (skipped) with the reason when weston or the unpacked library is missing.
"""
import os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pixels import mismatch, read_png, ref_triangle  # noqa: E402

ALKNET, SRC, GLFW_WL = sys.argv[1], sys.argv[2], sys.argv[3]
EX = os.path.join(SRC, "examples", "desktop")

if not shutil.which("weston"):
    print("SKIP: no weston (scripts/setup installs it)")
    sys.exit(77)
if not os.path.exists(os.path.join(GLFW_WL, "libglfw.so.3")):
    print(f"SKIP: no GLFW Wayland build in {GLFW_WL} (scripts/setup unpacks libglfw3-wayland there)")
    sys.exit(77)

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


tmp = tempfile.mkdtemp(prefix="alknet-wayland-")
runtime_dir = os.path.join(tmp, "xdg")
os.mkdir(runtime_dir, 0o700)
socket = "alknet-test"
base_env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
base_env["XDG_RUNTIME_DIR"] = runtime_dir

weston = subprocess.Popen(
    ["weston", "--backend=headless-backend.so", f"--socket={socket}", "--idle-time=0",
     "--width=1024", "--height=768", "--no-config"],
    env=base_env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "weston.log"), "w"))
try:
    deadline = time.monotonic() + 20
    while not os.path.exists(os.path.join(runtime_dir, socket)) and time.monotonic() < deadline:
        if weston.poll() is not None:
            break
        time.sleep(0.1)
    if not os.path.exists(os.path.join(runtime_dir, socket)):
        print(open(os.path.join(tmp, "weston.log")).read()[-2000:])
        check(False, "weston's headless compositor starts")
        sys.exit(1)

    wl_env = dict(base_env, WAYLAND_DISPLAY=socket,
                  LD_LIBRARY_PATH=GLFW_WL + ((":" + os.environ["LD_LIBRARY_PATH"]) if os.environ.get("LD_LIBRARY_PATH") else ""))

    def desktop(args, env):
        return subprocess.run([ALKNET, "desktop", *args], capture_output=True, text=True, timeout=90, env=env)

    # 1. The binary runs with GLFW's Wayland build loaded.
    r = subprocess.run([ALKNET, "eval", "console.log(6 * 7)"], capture_output=True, text=True, timeout=60, env=wl_env)
    check(r.returncode == 0 and r.stdout.strip() == "42",
          f"alknet eval runs with libglfw3-wayland loaded (exit {r.returncode}: {r.stderr.strip()[-200:]})")

    # 2. Presenting through a Wayland surface: pixels where the WebGPU library can, a clear
    # error where it cannot (the pinned Dawn).
    png = os.path.join(tmp, "tri.png")
    r = desktop(["--frames", "3", "--screenshot", png, os.path.join(EX, "triangle.js")], wl_env)
    no_wayland_surfaces = "Unsupported sType (SType::SurfaceSourceWaylandSurface)" in r.stderr
    if no_wayland_surfaces:
        check(r.returncode == 1 and "DAWN_USE_WAYLAND" in r.stderr and "Xwayland" in r.stderr
              and "Segmentation" not in r.stderr,
              f"a Dawn without Wayland surfaces: configure() fails with an error naming Xwayland and "
              f"DAWN_USE_WAYLAND (exit {r.returncode}: {r.stderr.strip()[-300:]})")
        print("skip: the Wayland pixel checks (this WebGPU library makes no Wayland surfaces)")
    else:
        check(r.returncode == 0, f"triangle runs 3 frames in a Wayland window (exit {r.returncode}: {r.stderr.strip()[-300:]})")
        if r.returncode == 0:
            w, h, img = read_png(png)
            bad = mismatch(img, ref_triangle(w, h), 8)
            check((w, h) == (640, 480) and bad < 0.005,
                  f"Wayland triangle matches the rasterisation ({w}x{h}, {bad:.4%} of pixels differ)")
        frames = 10
        png = os.path.join(tmp, "cube.png")
        r = desktop(["--frames", str(frames), "--screenshot", png, os.path.join(EX, "cube.js")], wl_env)
        check(r.returncode == 0, f"cube runs {frames} frames in a Wayland window (exit {r.returncode}: {r.stderr.strip()[-300:]})")
        raw = os.path.join(tmp, "cube.rgba")
        o = subprocess.run([ALKNET, "run", "--allow-read", f"--allow-write={tmp}", os.path.join(SRC, "libs/desktop/tests/offscreen.js"),
                            "cube", str(frames), "640", "480", raw], capture_output=True, text=True, timeout=90, env=base_env)
        check(o.returncode == 0, f"cube renders offscreen (exit {o.returncode}: {o.stderr.strip()[-300:]})")
        if r.returncode == 0 and o.returncode == 0:
            w, h, img = read_png(png)
            ref = open(raw, "rb").read()
            bad = mismatch(img, ref, 2)
            check(len(img) == len(ref) and bad < 0.001,
                  f"Wayland cube: window frame {frames} equals the offscreen one ({bad:.4%} differ by > 2/255)")

    # 3. Errors a person can act on.
    r = desktop(["--frames", "1", os.path.join(EX, "triangle.js")], dict(wl_env, WAYLAND_DISPLAY=""))
    check(r.returncode == 3 and "WAYLAND_DISPLAY" in r.stderr and "libglfw3" in r.stderr,
          f"Wayland build without WAYLAND_DISPLAY: exit 3 naming WAYLAND_DISPLAY and libglfw3 (exit {r.returncode}: {r.stderr.strip()[-200:]})")
    x11_env = dict(base_env, WAYLAND_DISPLAY=socket)  # the installed libglfw3: X11 build
    r = desktop(["--frames", "1", os.path.join(EX, "triangle.js")], x11_env)
    check(r.returncode == 3 and "libglfw3-wayland" in r.stderr and "DISPLAY" in r.stderr,
          f"X11 build with only WAYLAND_DISPLAY: exit 3 naming DISPLAY and libglfw3-wayland (exit {r.returncode}: {r.stderr.strip()[-200:]})")
finally:
    weston.terminate()
    try:
        weston.wait(timeout=10)
    except subprocess.TimeoutExpired:
        weston.kill()
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
