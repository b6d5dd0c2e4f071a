#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The musl shim's flat profile against perf's, beside the glibc shim's: the
loop workload (bench/workloads/loop.c, 50:30:15:5 by construction) built
with the C compiler and with musl-gcc, each run under perf record -e
task-clock running profrun -F 1000, so both profilers sample the same
runs.  Shares are taken among the four share_* functions (what lies
outside them, start-up and the C library, differs between the builds).

    bench/musl.py [--builddir build] [--runs 5] [--scale 3]

Prints one row per run and C library: each function's share by profrun and
by perf, then per C library the mean and largest difference from perf and
from the construction, in points."""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCS = ("share_50", "share_30", "share_15", "share_05")
TRUTH = dict(zip(FUNCS, (50.0, 30.0, 15.0, 5.0)))


def among(shares):
    total = sum(shares[f] for f in FUNCS)
    return {f: 100.0 * shares[f] / total for f in FUNCS}


def perf_shares(data, comm):
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--comm", comm,
                          "--sort", "sym", "-F", "overhead,sym", "--percentage", "relative"],
                         capture_output=True, text=True, check=True).stdout
    shares = dict.fromkeys(FUNCS, 0.0)
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if m and m.group(2) in shares:
            shares[m.group(2)] += float(m.group(1))
    return among(shares)


def profrun_shares(profrun, prof):
    rep = json.loads(subprocess.run([profrun, "report", "--format", "json", prof],
                                    capture_output=True, text=True, check=True).stdout)
    shares = dict.fromkeys(FUNCS, 0.0)
    for f in rep["functions"]:
        if f["name"] in shares:
            shares[f["name"]] += f["samples"]
    return among(shares), int(sum(shares.values()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scale", default="3")
    a = ap.parse_args()
    profrun = os.path.join(a.builddir, "cli", "profrun")
    if not shutil.which("musl-gcc") or not shutil.which("perf"):
        sys.exit("bench/musl.py needs musl-gcc (musl-tools) and perf")
    src = os.path.join(ROOT, "bench", "workloads", "loop.c")
    inc = os.path.join(ROOT, "tests", "workloads")
    diffs = {"glibc": [], "musl": []}
    truth = {"glibc": [], "musl": []}
    with tempfile.TemporaryDirectory() as tmp:
        exes = {}
        for libc, cc in (("glibc", "cc"), ("musl", "musl-gcc")):
            exes[libc] = os.path.join(tmp, f"loop-{libc}")
            subprocess.run([cc, "-O2", "-g", "-I", inc, "-o", exes[libc], src], check=True)
        for i in range(a.runs):
            for libc, exe in exes.items():  # alternating
                prof, data = os.path.join(tmp, f"{libc}{i}.prof"), os.path.join(tmp, f"{libc}{i}.data")
                subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-o", data, "--",
                                profrun, "-q", "-F", "1000", "-o", prof, exe, a.scale],
                               check=True, capture_output=True, cwd=tmp)
                ours, n = profrun_shares(profrun, prof)
                theirs = perf_shares(data, os.path.basename(exe))
                row = "  ".join(f"{f} {ours[f]:4.1f}/{theirs[f]:4.1f}" for f in FUNCS)
                print(f"run {i} {libc:5}  profrun/perf %: {row}  ({n} samples)")
                diffs[libc] += [abs(ours[f] - theirs[f]) for f in FUNCS]
                truth[libc] += [abs(ours[f] - TRUTH[f]) for f in FUNCS]
    for libc in ("glibc", "musl"):
        print(f"{libc:5} shim: difference from perf mean {statistics.mean(diffs[libc]):.2f} "
              f"points, largest {max(diffs[libc]):.2f}; from 50:30:15:5 mean "
              f"{statistics.mean(truth[libc]):.2f}, largest {max(truth[libc]):.2f}")


if __name__ == "__main__":
    main()
