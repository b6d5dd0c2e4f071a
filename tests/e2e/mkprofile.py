#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a profrun member file (include/profrun/format.h, version 1).

For testing the reader and the report without running the shim:

  mkprofile.py OUT --exe /path/prog [--sample ADDR=COUNT ...]
               [--symbol NAME=COUNT ...] [--outside N] [--state exited]
               [--cpu-ms N] [--rate 1000] [--pid N] [--build-id HEX|auto]

The text range defaults to the executable's PF_X PT_LOAD segments, and the
build-id to the one in its notes (readelf).  --symbol puts COUNT samples at
the entry of symbol NAME (nm).
"""
import argparse
import re
import struct
import subprocess
import sys

HEADER_SIZE = 512
WRAP_SLOTS = 4096
STATES = {"running": 0, "exited": 1, "execed": 2}

# struct profrun_header, field by field (format.h)
HEADER_FMT = ("<8sHHI" "QQII" "QQQ" "QQQII" "iiIIII64s" "IIqqQQQQ" "QQQ"
              "IIiI"
              # outside the main executable: none (as files of older
              # versions): pcs_off pc_slots pc_probe pcs_lost modules_off
              # module_slots module_count modstr_off modstr_size
              # modules_lost mod_generation vdso_size vdso_off pcs_unmapped
              "QIIQQIIQIIIIQQ")


def exec_text(exe):
    out = subprocess.run(["readelf", "-lW", exe], capture_output=True,
                         text=True, check=True).stdout
    lo, hi = None, None
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "LOAD" and "E" in "".join(f[6:-1]):
            start, size = int(f[2], 16), int(f[5], 16)
            lo = start if lo is None else min(lo, start)
            hi = start + size if hi is None else max(hi, start + size)
    if lo is None:
        sys.exit("mkprofile: %s: no executable segment" % exe)
    return lo, hi


def build_id(exe):
    out = subprocess.run(["readelf", "-n", exe], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return bytes.fromhex(m.group(1)) if m else b""


def symbol_addr(exe, name):
    out = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    sys.exit("mkprofile: %s: no symbol %s" % (exe, name))


def geometry(lo, hi, bucket_size):
    start = lo & ~(bucket_size - 1)
    n = (hi - start + bucket_size - 1) // bucket_size
    return start, start + n * bucket_size, n


def build(a):
    lo, hi = (a.text if a.text else exec_text(a.exe))
    start, end, n = geometry(lo, hi, a.bucket_size)
    counts = {}
    for spec in a.sample:
        addr, count = spec.split("=")
        i = (int(addr, 0) - start) // a.bucket_size
        counts[i] = counts.get(i, 0) + int(count)
    for spec in a.symbol:
        name, count = spec.split("=")
        i = (symbol_addr(a.exe, name) - start) // a.bucket_size
        counts[i] = counts.get(i, 0) + int(count)
    hist = [0] * n
    wraps = []
    for i, c in counts.items():
        hist[i] = c & 0xffff
        if c >> 16:
            wraps.append((i + 1, c >> 16))
    bid = build_id(a.exe) if a.build_id == "auto" else bytes.fromhex(a.build_id)
    exe = (a.recorded_exe or a.exe).encode() + b"\0"
    note = a.note.encode() + b"\0" if a.note else b""
    strings = exe + note
    strings_size = (len(strings) + 7) & ~7
    strings_off = HEADER_SIZE
    wraps_off = (strings_off + strings_size + 63) & ~63
    hist_off = wraps_off + WRAP_SLOTS * 16
    file_size = hist_off + 2 * n
    main = sum(counts.values())
    cpu_ns = a.cpu_ms * 1000000
    state = STATES[a.state]
    hdr = struct.pack(
        HEADER_FMT, b"PROFRUN\0", a.version, a.min_version, HEADER_SIZE,
        file_size, strings_off, strings_size, WRAP_SLOTS,
        wraps_off, hist_off, n,
        start, end, 0, a.bucket_size, 131072 // a.bucket_size,
        a.pid, a.ppid, strings_off,
        strings_off + len(exe) if note else 0, len(bid), getattr(a, "tick_hz", 0), bid,
        a.rate, 1000000 // a.rate if a.rate else 0, 1, 2 if state else 0,
        cpu_ns, 0, 0, 0,
        main + a.outside, a.outside, 0,
        state, a.flags, a.exit if state == 1 else -1, 0,
        *([0] * 14))
    assert len(hdr) <= HEADER_SIZE
    buf = bytearray(file_size)
    buf[:len(hdr)] = hdr
    buf[strings_off:strings_off + len(strings)] = strings
    for k, (key, w) in enumerate(wraps):
        struct.pack_into("<QQ", buf, wraps_off + 16 * k, key, w)
    struct.pack_into("<%dH" % n, buf, hist_off, *hist)
    return bytes(buf)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--exe", required=True)
    p.add_argument("--recorded-exe", help="path written instead of --exe")
    p.add_argument("--text", type=lambda s: tuple(int(x, 0) for x in s.split("-")))
    p.add_argument("--bucket-size", type=int, default=2)
    p.add_argument("--sample", action="append", default=[])
    p.add_argument("--symbol", action="append", default=[])
    p.add_argument("--outside", type=int, default=0)
    p.add_argument("--state", choices=STATES, default="exited")
    p.add_argument("--exit", type=int, default=0)
    p.add_argument("--flags", type=int, default=0)
    p.add_argument("--note", default="")
    p.add_argument("--cpu-ms", type=int, default=0)
    p.add_argument("--rate", type=int, default=1000)
    p.add_argument("--tick-hz", type=int, default=0)
    p.add_argument("--pid", type=int, default=4242)
    p.add_argument("--ppid", type=int, default=1)
    p.add_argument("--build-id", default="auto")
    p.add_argument("--version", type=int, default=1)
    p.add_argument("--min-version", type=int, default=1)
    a = p.parse_args()
    with open(a.out, "wb") as f:
        f.write(build(a))


if __name__ == "__main__":
    main()
