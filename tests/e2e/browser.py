# SPDX-License-Identifier: MIT
"""The pages profrun writes, as headless Chromium shows them: the DOM after
their script ran, a screenshot, and the pixels of that screenshot (a PNG
read with zlib alone).  A test that needs Chromium skips (exit 77) when it
is not installed; tools/setup installs it."""

import os
import re
import shutil
import struct
import sys
import zlib

from e2e import expect, run

WINDOW = (1400, 900)  # the same layout for the DOM and the screenshot


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    print("SKIP: chromium not installed (tools/setup installs it)")
    sys.exit(77)


def headless(tmp, url, *flags):
    """Headless Chromium on URL with FLAGS (--dump-dom, --screenshot=...),
    offline and with a profile of its own in TMP: the completed process."""
    cp = run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--no-first-run",
              f"--user-data-dir={os.path.join(tmp, 'chromium')}", *flags, url], timeout=90)
    expect(cp.returncode == 0, f"chromium: {cp.stderr[-2000:]}")
    return cp


def _chromium(tmp, page, fragment, *what):
    return headless(tmp, "file://" + os.path.abspath(page) + fragment,
                    f"--window-size={WINDOW[0]},{WINDOW[1]}", *what).stdout


def dump_dom(tmp, page, fragment="", *flags):
    """The page's DOM after its script ran (FLAGS: more of Chromium's)."""
    return _chromium(tmp, page, fragment, *flags, "--dump-dom")


def screenshot(tmp, page, fragment=""):
    """The page as shown, as a Png."""
    out = os.path.join(tmp, "screenshot.png")
    if os.path.exists(out):
        os.unlink(out)
    _chromium(tmp, page, fragment, f"--screenshot={out}")
    expect(os.path.exists(out), "chromium wrote no screenshot")
    with open(out, "rb") as f:
        return Png(f.read())


def drawn(dom):
    """The names the page drew (its <pre id="drawn">)."""
    m = re.search(r'<pre id="drawn"[^>]*>(.*?)</pre>', dom, re.S)
    expect(m, "the page drew nothing (no #drawn)")
    return set(m.group(1).split("\n"))


def frames(dom):
    """The first frame drawn of each name (<pre id="frames">): name ->
    (x, y, width, height, colour (r, g, b), the page's note)."""
    m = re.search(r'<pre id="frames"[^>]*>(.*?)</pre>', dom, re.S)
    expect(m, "the page lists no frames (no #frames)")
    out = {}
    for line in m.group(1).split("\n"):
        f = line.split("\t")
        if len(f) < 7:
            continue
        rgb = tuple(int(v) for v in re.findall(r"\d+", f[5])[:3])
        out[f[0]] = (int(f[1]), int(f[2]), int(f[3]), int(f[4]), rgb, f[6])
    return out


def attr(dom, name):
    m = re.search(name + r'="(\d+)"', dom)
    expect(m, f"no {name} on the page's body")
    return int(m.group(1))


def reddish(rgb):
    r, g, b = rgb
    return r - g >= 60 and r - b >= 60


def bluish(rgb):
    r, g, b = rgb
    return b - r >= 40 and b - g >= 20


def grey(rgb):
    return max(rgb) - min(rgb) <= 12 and 150 <= rgb[0] <= 230


class Png:
    """An 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""

    def __init__(self, data):
        expect(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
        pos, idat = 8, b""
        while pos < len(data):
            n, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + n]
            if kind == b"IHDR":
                self.width, self.height, depth, color, _, _, lace = struct.unpack(">IIBBBBB", body)
                expect(depth == 8 and color in (2, 6) and lace == 0, "PNG of an unexpected kind")
                self.bpp = 3 if color == 2 else 4
            elif kind == b"IDAT":
                idat += body
            pos += 12 + n
        self.raw, self.stride = zlib.decompress(idat), self.width * self.bpp
        self.rows = []

    def _row(self, y):
        """Rows are unfiltered on demand, top down: each needs the one above."""
        stride, bpp = self.stride, self.bpp
        while len(self.rows) <= y:
            k = len(self.rows)
            prev = self.rows[-1] if self.rows else bytearray(stride)
            kind = self.raw[k * (stride + 1)]
            line = bytearray(self.raw[k * (stride + 1) + 1:(k + 1) * (stride + 1)])
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if kind == 1:
                    line[i] = (line[i] + a) & 255
                elif kind == 2:
                    line[i] = (line[i] + b) & 255
                elif kind == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif kind == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            self.rows.append(line)
        return self.rows[y]

    def pixel(self, x, y):
        expect(0 <= x < self.width and 0 <= y < self.height, f"({x}, {y}) off the screenshot")
        i = x * self.bpp
        return tuple(self._row(y)[i:i + 3])

    def inside(self, frame):
        """The colour inside FRAME (as frames() gives it), right of its
        label: a label never reaches a frame's last 3 pixels."""
        x, y, w, h = frame[:4]
        return self.pixel(x + (w - 3 if w > 6 else w // 2), y + h // 2)
