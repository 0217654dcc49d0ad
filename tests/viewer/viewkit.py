"""Helpers for the viewer's tests: a page on a viewer, waiting on its
``window.navcoreViewer`` state, reading its canvas."""
from __future__ import annotations

import base64
import io
import time

import numpy as np


class Page:
    """A browser page on ``viewer``; console errors are collected."""

    def __init__(self, browser, viewer, width=1400, height=1000):
        # bypass_csp: the page forbids eval, which playwright's wait_for_function uses
        self.page = browser.new_page(viewport={"width": width, "height": height},
                                     bypass_csp=True)
        self.errors = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(viewer.url)
        self.wait("V.ready && V.hello !== null")

    def js(self, expr):
        return self.page.evaluate(f"(() => {{ const V = window.navcoreViewer; return ({expr}); }})()")

    def wait(self, expr, timeout=20.0):
        self.page.wait_for_function(
            f"(() => {{ const V = window.navcoreViewer; return V && ({expr}); }})()",
            timeout=timeout * 1000)

    def pause(self):
        if self.js("V.playing"):
            self.page.click("#play")
        self.wait("!V.playing")
        time.sleep(0.15)                 # a frame already on its way lands

    def play(self, speed="8"):
        # fast: a road scene's frames are half a second of traffic
        self.page.select_option("#speed", speed)
        if not self.js("V.playing"):
            self.page.click("#play")
        self.wait("V.playing")

    def shot(self) -> np.ndarray:
        """The map canvas as shown, ``(H, W, 3)`` uint8."""
        from PIL import Image
        self.wait("V.drawn === V.frame")
        time.sleep(0.05)
        box = self.page.locator("#map").bounding_box()
        png = self.page.screenshot(clip=box)
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    def canvas(self) -> np.ndarray:
        """The map canvas's own pixels (not scaled to the page), RGB."""
        data = self.js("""(() => { const c = document.getElementById('map');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let s = ''; const step = 0x8000;
            for (let i = 0; i < d.length; i += step)
              s += String.fromCharCode.apply(null, d.subarray(i, i + step));
            return [c.width, c.height, btoa(s)]; })()""")
        w, h, b64 = data
        return np.frombuffer(base64.b64decode(b64), np.uint8).reshape(h, w, 4)[..., :3]

    def click_world(self, x, y):
        p = self.js(f"V.clientPoint({float(x)}, {float(y)})")
        self.page.mouse.click(p["x"], p["y"])

    def layer(self, name, on: bool, session=None):
        """Set a layer's box; with ``session``, for a layer the server
        draws (areas, borders), wait until the page holds the new map."""
        box = self.page.locator(f"#layer-{name}")
        if box.is_checked() == on:
            return
        replies = self.js("V.optionsReplies || 0")
        box.click()
        if session is not None:
            self.wait(f"(V.optionsReplies || 0) > {replies}")
            self.wait(f"V.serial === {session.serial}")
            time.sleep(0.1)

    def close(self):
        self.page.close()
