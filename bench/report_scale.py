#!/usr/bin/env python3
"""Times a flowtrace report page in headless Chromium, driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on file descriptors 3 and 4, so no WebSocket
library is needed). For one page it prints one JSON line:

  interactive_ms  navigation start to the first animation frame after the load event: the page's
                  script (data decoding and every uPlot chart's first draw) has run and painted
  load_ms         navigation start to the end of the load event
  zoom_ms         a real mouse drag across 30-60 % of the first chart: the mouseup to the end of the
                  last chart's redraw (the flow's other charts follow the zoom)
  zoom_frame_ms   the same mouseup to the next animation frame after those redraws
  reset_ms        a double-click (reset zoom) to the end of the last redraw
  heap_mb         the page's JavaScript heap after load
  errors          exceptions and console errors while loading and zooming (must be empty)
  charts, x_before, x_after  what was drawn and zoomed (a functional check that the zoom happened)
  profile         with --profile: the functions with the most self time while loading (V8 sampling
                  profiler), to see where the time goes

usage: report_scale.py PAGE.html [--profile] [--chromium chromium]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Cdp:
    """One browser over --remote-debugging-pipe, one page session (flattened)."""

    def __init__(self, binary, profile_dir, width=1300, height=1600):
        r_child, w_parent = os.pipe()  # we write commands, chromium reads them on fd 3
        r_parent, w_child = os.pipe()  # chromium writes answers on fd 4
        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", f"--user-data-dir={profile_dir}", f"--window-size={width},{height}",
             "--no-first-run", "--no-default-browser-check", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(r_child, 3), os.dup2(w_child, 4)) and None,
            env=dict(os.environ, HOME=profile_dir))
        os.close(r_child)
        os.close(w_child)
        self.w = os.fdopen(w_parent, "wb", buffering=0)
        self.r = os.fdopen(r_parent, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=300):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.w.write(json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)
        raise TimeoutError(method)

    def wait_event(self, method, timeout=300):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read())
        raise TimeoutError(method)

    def attach_page(self):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]

    def eval(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def errors(self):
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                d = e["params"]["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text"))
            elif e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "warning"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in e["params"]["args"]))
        return out

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# After load: when every chart of the page has drawn and the browser has painted.
FIRST_FRAME = """new Promise(function (done) {
  requestAnimationFrame(function () { setTimeout(function () {
    var nav = performance.getEntriesByType("navigation")[0];
    done({ interactive: performance.now(), load: nav.loadEventEnd, responseEnd: nav.responseEnd,
           domInteractive: nav.domInteractive,
           charts: (window.flowtraceCharts || []).length,
           heap: performance.memory ? performance.memory.usedJSHeapSize : null });
  }, 0); });
})"""

# Records the time of every chart redraw and of mouse-up and double-click (capture phase: before uPlot's handlers).
INSTRUMENT = """(function () {
  window.__t = { draws: [] };
  window.flowtraceCharts.forEach(function (u) {
    (u.hooks.draw = u.hooks.draw || []).push(function () { window.__t.draws.push(performance.now()); });
  });
  window.addEventListener("mouseup", function () { window.__t.up = performance.now(); window.__t.draws = []; }, true);
  window.addEventListener("dblclick", function () { window.__t.dbl = performance.now(); window.__t.draws = []; }, true);
  var u = window.flowtraceCharts[0];
  u.over.scrollIntoView();
  var r = u.over.getBoundingClientRect();
  return { left: r.left, top: r.top, width: r.width, height: r.height, x: [u.scales.x.min, u.scales.x.max] };
})()"""

AFTER = """new Promise(function (done) {
  setTimeout(function () { requestAnimationFrame(function () {
    var frame = performance.now(), t = window.__t, u = window.flowtraceCharts[0];
    done({ start: t.dbl != null ? t.dbl : t.up, lastDraw: t.draws.length ? Math.max.apply(null, t.draws) : null,
           draws: t.draws.length, frame: frame, x: [u.scales.x.min, u.scales.x.max] });
    t.dbl = null;
  }); }, 0);
})"""


def mouse(cdp, kind, x, y, buttons, clicks=1):
    cdp.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons,
                                          "clickCount": clicks})


def measure(page, binary, profile):
    tmp = tempfile.mkdtemp(prefix="report-scale-")
    cdp = Cdp(binary, tmp)
    try:
        cdp.attach_page()
        cdp.send("Runtime.enable")
        cdp.send("Page.enable")
        if profile:
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            cdp.send("Profiler.start")
        cdp.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
        cdp.wait_event("Page.loadEventFired")
        first = cdp.eval(FIRST_FRAME)
        hot = None
        if profile:
            hot = hottest(cdp.send("Profiler.stop")["profile"])
        box = cdp.eval(INSTRUMENT)
        if profile:
            cdp.send("Profiler.start")
        y = box["top"] + box["height"] / 2
        x0, x1 = box["left"] + box["width"] * 0.3, box["left"] + box["width"] * 0.6
        mouse(cdp, "mouseMoved", x0, y, 0)
        mouse(cdp, "mousePressed", x0, y, 1)
        for k in range(1, 11):
            mouse(cdp, "mouseMoved", x0 + (x1 - x0) * k / 10, y, 1)
        mouse(cdp, "mouseReleased", x1, y, 0)
        zoom = cdp.eval(AFTER)
        mouse(cdp, "mousePressed", x0, y, 1, clicks=1)
        mouse(cdp, "mouseReleased", x0, y, 0, clicks=1)
        mouse(cdp, "mousePressed", x0, y, 1, clicks=2)
        mouse(cdp, "mouseReleased", x0, y, 0, clicks=2)
        reset = cdp.eval(AFTER)
        if profile:
            hot_zoom = hottest(cdp.send("Profiler.stop")["profile"])
        out = {
            "page": page,
            "bytes": os.path.getsize(page),
            "interactive_ms": round(first["interactive"]),
            "load_ms": round(first["load"]),
            "file_read_ms": round(first["responseEnd"]),
            "parsed_ms": round(first["domInteractive"]),
            "charts": first["charts"],
            "heap_mb": round(first["heap"] / 2**20, 1) if first["heap"] else None,
            "zoom_ms": round(zoom["lastDraw"] - zoom["start"], 1) if zoom["lastDraw"] else None,
            "zoom_frame_ms": round(zoom["frame"] - zoom["start"], 1),
            "zoom_draws": zoom["draws"],
            "reset_ms": round(reset["lastDraw"] - reset["start"], 1) if reset["lastDraw"] else None,
            "x_before": box["x"], "x_after": zoom["x"], "x_reset": reset["x"],
            "errors": cdp.errors(),
        }
        if hot:
            out["profile"] = hot
            out["profile_zoom_and_reset"] = hot_zoom
        return out
    finally:
        cdp.close()
        shutil.rmtree(tmp, ignore_errors=True)


def hottest(profile, n=12):
    """Self time per function (name, url:line) from a V8 CPU profile, the n largest, in ms."""
    by_id = {node["id"]: node for node in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    self_us = {}
    for sample, dt in zip(profile.get("samples", []), deltas):
        f = by_id[sample]["callFrame"]
        key = (f"{f['functionName'] or '(anonymous)'} {os.path.basename(f['url'])}:{f['lineNumber'] + 1}"
               f":{f['columnNumber'] + 1}")
        self_us[key] = self_us.get(key, 0) + dt
    top = sorted(self_us.items(), key=lambda kv: -kv[1])[:n]
    return [[k, round(v / 1000, 1)] for k, v in top]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    a = ap.parse_args()
    print(json.dumps(measure(a.page, a.chromium, a.profile)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
