#!/usr/bin/env python3
"""alknet desktop under Xvfb: what the window presented against independent references.

- triangle: the screenshot against a rasterisation of the same triangle in Python;
- cube, particles: the screenshot against the same scene rendered offscreen (offscreen.js);
- tensor_image: a tensor computed by alknet:compute, drawn from its storage on the same device,
  against numpy's float64 computation colour-mapped by the same rule; compute_device.js checks
  compute.device and Tensor.gpuBuffer (copies, a WebGPU pass writing a tensor, errors, loss);
- interactive: keys and clicks injected with xdotool reach the script (its JSON log), and the
  X server's own screenshot (xwd) shows the colour the script chose;
- errors: a throw inside requestAnimationFrame exits 1 naming the error; no DISPLAY exits 3.
Usage: desktop_test.py ALKNET SOURCE_DIR
"""
import json, os, struct, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pixels import mismatch, read_png, ref_triangle  # noqa: E402

ALKNET, SRC = sys.argv[1], sys.argv[2]
EX = os.path.join(SRC, "examples", "desktop")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def read_xwd(data):
    """The root window's pixels from `xwd -root` (ZPixmap, 24 or 32 bits per pixel): (w, h, getter)."""
    hdr = struct.unpack(">25I", data[:100])
    header_size, w, h, bpp, bpl, ncolors = hdr[0], hdr[4], hdr[5], hdr[11], hdr[12], hdr[19]
    assert bpp in (24, 32), f"xwd: {bpp} bits per pixel"
    little = hdr[7] == 0  # byte_order: LSBFirst
    px, n = data[header_size + ncolors * 12:], bpp // 8
    def get(x, y):
        v = int.from_bytes(px[y * bpl + x * n:y * bpl + x * n + n], "little" if little else "big")
        return ((v >> 16) & 255, (v >> 8) & 255, v & 255)
    return w, h, get


def desktop(args, env=None, timeout=60):
    return subprocess.run([ALKNET, "desktop", *args], capture_output=True, text=True, timeout=timeout, env=env)


tmp = tempfile.mkdtemp(prefix="alknet-desktop-")

# 1. triangle against a Python rasterisation (pixel centres inside the NDC triangle).
png = os.path.join(tmp, "tri.png")
r = desktop(["--frames", "3", "--screenshot", png, os.path.join(EX, "triangle.js")])
check(r.returncode == 0, f"triangle runs 3 frames (exit {r.returncode}: {r.stderr.strip()[:300]})")
if r.returncode == 0:
    w, h, img = read_png(png)
    ref = ref_triangle(w, h)
    bad = mismatch(img, ref, 8)
    check((w, h) == (640, 480) and bad < 0.005, f"triangle matches the rasterisation ({w}x{h}, {bad:.4%} of pixels differ)")

# 2. cube and particles against the same scene rendered offscreen.
for scene, frames in (("cube", 10), ("particles", 20)):
    png = os.path.join(tmp, scene + ".png")
    r = desktop(["--frames", str(frames), "--screenshot", png, os.path.join(EX, scene + ".js")])
    check(r.returncode == 0, f"{scene} runs {frames} frames (exit {r.returncode}: {r.stderr.strip()[:300]})")
    raw = os.path.join(tmp, scene + ".rgba")
    o = subprocess.run([ALKNET, "run", "--allow-read", f"--allow-write={tmp}", os.path.join(SRC, "libs/desktop/tests/offscreen.js"),
                        scene, str(frames), "640", "480", raw], capture_output=True, text=True, timeout=60)
    check(o.returncode == 0, f"{scene} renders offscreen (exit {o.returncode}: {o.stderr.strip()[:300]})")
    if r.returncode == 0 and o.returncode == 0:
        w, h, img = read_png(png)
        ref = open(raw, "rb").read()
        bad = mismatch(img, ref, 2)
        check(len(img) == len(ref) and bad < 0.001, f"{scene}: window frame {frames} equals the offscreen one ({bad:.4%} differ by > 2/255)")

# 2a. a tensor of alknet:compute drawn from its storage on the same device (tensor_image.js)
# against numpy: the same factors in float64, sigmoid(A @ B), the same colour map and pixel rule.
try:
    import numpy as np
except ImportError:
    np = None
if np is None:
    print("skip tensor_image: no numpy for the reference")
else:
    frames = 6
    png = os.path.join(tmp, "tensor_image.png")
    r = desktop(["--frames", str(frames), "--screenshot", png, os.path.join(EX, "tensor_image.js")])
    check(r.returncode == 0, f"tensor_image runs {frames} frames (exit {r.returncode}: {r.stderr.strip()[:300]})")
    if r.returncode == 0:
        rows, cols, t = 120, 160, frames * 0.05
        i, j = np.arange(rows), np.arange(cols)
        a = np.stack([np.cos(2 * np.pi * i / rows), np.sin(3 * np.pi * i / rows), np.ones(rows)], 1).astype(np.float32)
        b = np.stack([2 * np.sin(2 * np.pi * j / cols + t), 2 * np.cos(3 * np.pi * j / cols - t),
                      np.full(cols, -0.2)]).astype(np.float32)
        v = np.clip(1 / (1 + np.exp(-(a.astype(np.float64) @ b.astype(np.float64)))), 0, 1)
        w, h, img = read_png(png)
        ys, xs = np.arange(h) * rows // h, np.arange(w) * cols // w
        pv = v[ys][:, xs]
        ref = np.stack([pv, 4 * pv * (1 - pv), 1 - pv], -1) * 255
        got = np.frombuffer(img, np.uint8).reshape(h, w, 4)[:, :, :3].astype(np.float64)
        diff = np.abs(got - ref).max(-1)
        bad = float((diff > 2).mean())
        check((w, h) == (640, 480) and bad < 0.001,
              f"tensor_image: the window shows numpy's sigmoid(A @ B) colour-mapped ({bad:.4%} of pixels differ by > 2/255, max {diff.max():.1f})")

# 2a'. compute.device and Tensor.gpuBuffer, windowless (compute_device.js prints ok/FAIL lines).
r = subprocess.run([ALKNET, "run", os.path.join(SRC, "libs/desktop/tests/compute_device.js")],
                   capture_output=True, text=True, timeout=60)
for line in r.stdout.splitlines():
    if line.startswith(("ok  ", "FAIL")):
        check(line.startswith("ok"), "compute_device: " + line[5:])
check(r.returncode == 0 and "all passed" in r.stdout,
      f"compute_device.js: exit {r.returncode} ({(r.stderr or r.stdout).strip()[-300:]})")

# 2a''. one canvas configured with devices of two instances in turn (switch_device.js): each
# screenshot shows the clear colour of the device configured at that frame.
for frames, colour in ((4, (0, 255, 0)), (8, (0, 0, 255))):
    png = os.path.join(tmp, f"switch{frames}.png")
    r = desktop(["--frames", str(frames), "--screenshot", png, os.path.join(SRC, "libs/desktop/tests/switch_device.js")])
    ok = r.returncode == 0
    if ok:
        w, h, img = read_png(png)
        ok = all(tuple(img[i:i + 3]) == colour for i in range(0, len(img), 4 * 97))
    check(ok, f"switch_device: frame {frames} presents {colour} through the surface of its device's instance "
              f"(exit {r.returncode}: {r.stderr.strip()[-200:]})")

# 2b. web-style samples (examples/desktop/web/): code written for a browser canvas, one line
# changed. The triangle against the rasterisation; the cube and the boids against loose bounds
# on the share of the window they cover (the cube's projection covers roughly 15-35% of the
# frame; 1,500 boids of ~30 pixels each at most ~15%), and they must change between frames.
def coverage(img, background, tol=8):
    return sum(1 for i in range(0, len(img), 4) if max(abs(img[i + k] - background[k]) for k in range(3)) > tol) / (len(img) // 4)

web = os.path.join(EX, "web")
png = os.path.join(tmp, "web_tri.png")
r = desktop(["--frames", "3", "--screenshot", png, os.path.join(web, "hello_triangle.js")])
check(r.returncode == 0, f"web hello_triangle runs (exit {r.returncode}: {r.stderr.strip()[:300]})")
if r.returncode == 0:
    w, h, img = read_png(png)
    bad = mismatch(img, ref_triangle(w, h), 8)
    check(bad < 0.005, f"web hello_triangle matches the rasterisation ({bad:.4%} of pixels differ)")
for sample, background, lo, hi in (("textured_cube", (128, 128, 128), 0.08, 0.45), ("compute_boids", (0, 0, 0), 0.003, 0.2)):
    shots = []
    for frames in (5, 15):
        png = os.path.join(tmp, f"{sample}_{frames}.png")
        r = desktop(["--frames", str(frames), "--screenshot", png, os.path.join(web, sample + ".js")])
        check(r.returncode == 0, f"web {sample} runs {frames} frames (exit {r.returncode}: {r.stderr.strip()[:300]})")
        if r.returncode == 0:
            shots.append(read_png(png)[2])
    if len(shots) == 2:
        c = coverage(shots[1], background)
        check(lo <= c <= hi, f"web {sample}: {c:.2%} of the window is drawn (expected {lo:.0%}..{hi:.0%})")
        check(mismatch(shots[0], shots[1], 8) > 0.001, f"web {sample}: frame 15 differs from frame 5 (it animates)")

# 3. interactive: xdotool input, the script's log, and the X server's own pixels.
p = subprocess.Popen([ALKNET, "desktop", "--width", "320", "--height", "200", os.path.join(EX, "interactive.js")],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
lines = []
def wait_for(pred, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        line = p.stderr.readline()
        if not line:
            return None
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        lines.append(ev)
        if pred(ev):
            return ev
    return None
def xdo(*a):
    return subprocess.run(["xdotool", *a], capture_output=True, text=True, timeout=20)
def window_pixel(x, y):
    w, h, get = read_xwd(subprocess.run(["xwd", "-root", "-silent"], capture_output=True, timeout=20).stdout)
    return get(x, y)
first = wait_for(lambda e: e["type"] == "first-frame")
check(first is not None and (first["width"], first["height"]) == (320, 200), f"interactive: first frame 320x200 ({first})")
win = xdo("search", "--name", "interactive").stdout.split()
check(len(win) >= 1, "interactive: the X server knows the window by its title")
if win:
    wid = win[0]
    xdo("windowmove", wid, "0", "0")
    xdo("windowfocus", "--sync", wid)
    time.sleep(0.3)
    xdo("key", "--window", wid, "r")
    ev = wait_for(lambda e: e["type"] == "keydown")
    check(ev is not None and ev["key"] == "r" and ev["code"] == "KeyR", f"keydown r reaches the canvas ({ev})")
    time.sleep(0.5)
    c = window_pixel(160, 100)
    check(c[0] > 200 and c[1] < 40 and c[2] < 40, f"the X server shows the red the script drew after 'r' (pixel {c})")
    xdo("mousemove", "--window", wid, "80", "50")
    xdo("click", "1")
    ev = wait_for(lambda e: e["type"] == "pointerdown")
    check(ev is not None and ev["button"] == 0 and abs(ev["x"] - 80) <= 1 and abs(ev["y"] - 50) <= 1, f"pointerdown at (80, 50), button 0 ({ev})")
    time.sleep(0.5)
    c = window_pixel(160, 100)  # colour from the click: (80/320, 50/200, button 0) -> (64, 64, 0)
    check(abs(c[0] - 64) <= 3 and abs(c[1] - 64) <= 3 and c[2] <= 3, f"the window shows the colour from the click position (pixel {c})")
    xdo("windowsize", wid, "200", "100")
    ev = wait_for(lambda e: e["type"] == "resize")
    check(ev is not None and (ev["width"], ev["height"]) == (200, 100), f"resize reaches the canvas with the new size ({ev})")
    xdo("key", "--window", wid, "Escape")
else:
    p.kill()
try:
    code = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill()
    code = None
check(code == 0, f"Escape closes the window and the app exits 0 (exit {code})")

# 4. the window manager's requests: minimise (unmap) and restore (map), close (WM_DELETE_WINDOW).
# Xvfb runs no window manager, so the test does what one does: it unmaps and maps the window
# and sends the WM_DELETE_WINDOW client message a close button sends.
def send_wm_delete(wid):
    """Sends WM_PROTOCOLS/WM_DELETE_WINDOW to window `wid`, as a window manager's close does."""
    import ctypes
    x11 = ctypes.CDLL("libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    class ClientMessage(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                    ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                    ("format", ctypes.c_int), ("l", ctypes.c_long * 5), ("pad", ctypes.c_long * 12)]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(ClientMessage)]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    d = x11.XOpenDisplay(None)
    ev = ClientMessage(type=33, send_event=1, display=d, window=int(wid), format=32,
                       message_type=x11.XInternAtom(d, b"WM_PROTOCOLS", 0))
    ev.l[0] = x11.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
    ev.l[1] = 0  # CurrentTime
    x11.XSendEvent(d, int(wid), 0, 0, ctypes.byref(ev))
    x11.XFlush(d)
    x11.XCloseDisplay(d)

wm_js = os.path.join(tmp, "wm.js")
open(wm_js, "w").write("""import { createWindow } from "alknet:desktop";
const canvas = createWindow({ title: "wm-test", width: 160, height: 120 });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const context = canvas.getContext("webgpu");
context.configure({ device, format: navigator.gpu.getPreferredCanvasFormat() });
const log = (o) => console.error(JSON.stringify(o));
let closes = 0, frames = 0;
canvas.addEventListener("close", (e) => { closes++; log({ type: "close", closes }); if (closes === 1) e.preventDefault(); });
requestAnimationFrame(function draw() {
  const encoder = device.createCommandEncoder();
  encoder.beginRenderPass({ colorAttachments: [{ view: context.getCurrentTexture().createView(),
    loadOp: "clear", storeOp: "store", clearValue: [0, 0, 1, 1] }] }).end();
  device.queue.submit([encoder.finish()]);
  if (++frames % 10 === 0) log({ type: "frames", frames });
  requestAnimationFrame(draw);
});
""")
p = subprocess.Popen([ALKNET, "desktop", wm_js], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
lines = []
ev = wait_for(lambda e: e["type"] == "frames")
win = xdo("search", "--name", "wm-test").stdout.split()
check(ev is not None and len(win) >= 1, f"wm: the window renders and is found by title ({ev})")
if ev is not None and win:
    wid = win[0]
    xdo("windowunmap", "--sync", wid)
    time.sleep(0.5)
    xdo("windowmap", "--sync", wid)
    base = max(e.get("frames", 0) for e in lines)
    ev = wait_for(lambda e: e["type"] == "frames" and e["frames"] >= base + 20)
    check(ev is not None, f"wm: frames go on after the window is unmapped and mapped again ({ev})")
    send_wm_delete(wid)
    ev = wait_for(lambda e: e["type"] == "close")
    check(ev is not None and ev["closes"] == 1, f"wm: WM_DELETE_WINDOW reaches the canvas as 'close' ({ev})")
    base = max(e.get("frames", 0) for e in lines)
    ev = wait_for(lambda e: e["type"] == "frames" and e["frames"] >= base + 10)
    check(ev is not None, "wm: a close whose default is prevented keeps the app running")
    send_wm_delete(wid)
    ev = wait_for(lambda e: e["type"] == "close" and e["closes"] == 2)
    check(ev is not None, "wm: the second close arrives")
else:
    p.kill()
try:
    code = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill()
    code = None
check(code == 0, f"wm: a close left to its default ends the app with exit 0 (exit {code})")

# 5. device loss during a frame: device.lost resolves, the app reacts, nothing hangs.
lost_js = os.path.join(tmp, "lost.js")
open(lost_js, "w").write("""import { createWindow } from "alknet:desktop";
const canvas = createWindow({ width: 160, height: 120 });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const context = canvas.getContext("webgpu");
context.configure({ device, format: navigator.gpu.getPreferredCanvasFormat() });
device.lost.then((info) => { console.error("lost: " + info.reason); canvas.close(); });
let frames = 0;
requestAnimationFrame(function draw() {
  const encoder = device.createCommandEncoder();
  encoder.beginRenderPass({ colorAttachments: [{ view: context.getCurrentTexture().createView(),
    loadOp: "clear", storeOp: "store", clearValue: [1, 1, 0, 1] }] }).end();
  device.queue.submit([encoder.finish()]);
  if (++frames === 5) device.destroy();
  requestAnimationFrame(draw);
});
""")
r = desktop([lost_js], timeout=30)
check(r.returncode == 0 and "lost: destroyed" in r.stderr,
      f"device destroyed inside a frame: device.lost resolves with 'destroyed', the app closes, exit 0 ({r.returncode}: {r.stderr.strip()[:300]})")

# 6. alknet-desktop.d.ts declares every export of alknet:desktop.
exports_js = os.path.join(tmp, "exports.js")
open(exports_js, "w").write('import * as d from "alknet:desktop";\nconsole.log(JSON.stringify(Object.keys(d)));\n')
r = desktop([exports_js], timeout=30)
dts = open(os.path.join(SRC, "libs/desktop/js/alknet-desktop.d.ts")).read()
import re
names = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 and r.stdout.strip() else []
missing = [n for n in names if not re.search(rf"export (function|class|const) {n}\b", dts)]
check(len(names) >= 8 and not missing, f"alknet-desktop.d.ts declares every export ({len(names)} exports, missing {missing})")

# 7. errors.
bad_js = os.path.join(tmp, "throws.js")
open(bad_js, "w").write('import { createWindow } from "alknet:desktop";\ncreateWindow();\nrequestAnimationFrame(() => { throw new Error("boom in a frame"); });\n')
r = desktop([bad_js], timeout=30)
check(r.returncode == 1 and "boom in a frame" in r.stderr and "throws.js:3" in r.stderr,
      f"a throw in requestAnimationFrame exits 1 with the error and its place ({r.returncode}: {r.stderr.strip()[:200]})")
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
r = desktop([os.path.join(EX, "triangle.js")], env=env, timeout=30)
check(r.returncode == 3 and "DISPLAY" in r.stderr, f"no display: exit 3 naming DISPLAY ({r.returncode}: {r.stderr.strip()[:200]})")

print(f"desktop: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
