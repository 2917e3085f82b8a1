#!/usr/bin/env python3
"""Checks that ptxopt-bench's index.html renders: runs ptxopt-bench on the small kernels of
tests/lit/quality/Inputs (-O0 and -O2), opens the page in headless Chromium, takes a
screenshot and counts the pixels of each pipeline's bar colour. A page whose charts are blank
(no bars drawn, SVG broken) has none. Exits 77 (SKIPPED) when Chromium, ptxas or nvdisasm is
missing (tests/skip.py).
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from skip import skipped  # noqa: E402

# The bar colours of the first two pipelines (src/quality/Report.cpp, kColors).
BAR_COLORS = {"-O0": (0x4E, 0x79, 0xA7), "-O2": (0xF2, 0x8E, 0x2B)}


def _add_bytes(x, y):
    """x + y byte by byte, modulo 256 (no carry between bytes), on equal-length byte strings."""
    n = len(x)
    low = int.from_bytes(b"\x7f" * n, "big")
    a, b = int.from_bytes(x, "big"), int.from_bytes(y, "big")
    return (((a & low) + (b & low)) ^ ((a ^ b) & ~low & ((1 << (8 * n)) - 1))).to_bytes(n, "big")


def read_png(path):
    """(width, height, channels, rows of pixels as bytes) of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError("unexpected PNG format (depth %d, colour type %d)" % (depth, color))
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytes(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 2:  # Up, the filter of most rows of a page: one addition over the whole row
            line = _add_bytes(line, prev)
        elif f != 0:
            line = bytearray(line)
            for x in range(stride):
                a = line[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                if f == 1:
                    line[x] = (line[x] + a) & 255
                elif f == 3:
                    line[x] = (line[x] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            line = bytes(line)
        prev = line
        rows.append(line)
    return width, height, channels, rows


def count_pixels(rows, channels, colors, tolerance):
    """(non-white pixels, {name: pixels within tolerance of colour on every channel})."""
    def mask(row, channel, table):
        return int.from_bytes(row[channel::channels].translate(table), "big")
    not_white = bytes(0 if v == 255 else 1 for v in range(256))
    near = {name: [bytes(1 if abs(v - c[k]) <= tolerance else 0 for v in range(256)) for k in range(3)]
            for name, c in colors.items()}
    nonwhite, counts = 0, {name: 0 for name in colors}
    for row in rows:
        nonwhite += bin(mask(row, 0, not_white) | mask(row, 1, not_white) | mask(row, 2, not_white)).count("1")
        for name, tables in near.items():
            counts[name] += bin(mask(row, 0, tables[0]) & mask(row, 1, tables[1]) & mask(row, 2, tables[2])).count("1")
    return nonwhite, counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = []
    if not chromium:
        missing.append("Chromium not found (scripts/setup.sh installs Debian's chromium): the report is not rendered")
    if not args.ptxas or not os.path.exists(args.ptxas):
        missing.append("ptxas not found: ptxopt-bench has no SASS figures to draw")
    if missing:
        return skipped(missing)
    shutil.rmtree(args.work, ignore_errors=True)
    out = os.path.join(args.work, "report")
    r = subprocess.run([args.bench, "-q", "--pipelines=-O0,-O2", "--ptxas", args.ptxas, args.inputs, "-o", out],
                       capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        print("error: ptxopt-bench failed (exit %d)" % r.returncode)
        return 1
    if "SKIPPED" in r.stderr:
        return skipped(["ptxopt-bench had no SASS figures (nvdisasm missing)"])
    shot = os.path.join(args.work, "report.png")
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--user-data-dir=" + profile, "--window-size=1200,2400", "--screenshot=" + shot,
                            "file://" + os.path.abspath(os.path.join(out, "index.html"))],
                           capture_output=True, text=True, timeout=120)
    if not os.path.exists(shot):
        print("error: Chromium wrote no screenshot (exit %d): %s" % (r.returncode, r.stderr[-2000:]))
        return 1
    width, height, channels, rows = read_png(shot)
    nonwhite, counts = count_pixels(rows, channels, BAR_COLORS, 6)
    print("screenshot %dx%d: %d non-white pixels; bar pixels: %s" % (
        width, height, nonwhite, ", ".join("%s %d" % kv for kv in counts.items())))
    # Five kernels x five charts x a bar of 7 x ~500 pixels per pipeline: far above 2,000 each.
    failures = [name for name, n in counts.items() if n < 2000]
    if failures:
        print("error: the charts of %s are blank in the rendered page (%s)" % (", ".join(failures), shot))
        return 1
    print("ok: the report renders with its charts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
