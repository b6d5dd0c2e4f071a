#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Flat-profile accuracy on AArch64 under qemu-user beside x86-64 natively:
the split workload (hot_a:hot_b built 3:1) recorded ROUNDS times each way,
alternating, and hot_a's share of hot_a + hot_b reported (mean, standard
deviation, the binomial spread to expect at that many samples).  Under
qemu the times are qemu's (translation included); only shares compare.

    bench/arm.py [--builddir build] [--rounds 10] [--seconds 3]

  native  build/cli/profrun -q -F 1000 -o OUT -- split SECONDS 3 1
  qemu    qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_PRELOAD=libprofrun-aarch64.so
          -E PROFRUN_OUTPUT=OUT -E PROFRUN_FREQ=1000 split-aarch64 SECONDS 3 1,
          reported with --sysroot /usr/aarch64-linux-gnu

Needs the build's arm suite targets (the cross compiler and qemu-user,
which tools/setup installs).  Python 3 standard library only.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = "/usr/aarch64-linux-gnu"


def shares(rep):
    f = {x["name"]: x["samples"] for x in rep["functions"]}
    a, b = f.get("hot_a", 0), f.get("hot_b", 0)
    return a / (a + b), a + b


def report(profrun, out, *extra):
    cp = subprocess.run([profrun, "report", "--format", "json", *extra, out],
                        capture_output=True, text=True, check=True)
    return json.loads(cp.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", default="3")
    args = ap.parse_args()
    b = os.path.abspath(args.builddir)
    profrun = os.path.join(b, "cli", "profrun")
    wl = os.path.join(b, "tests", "workloads")
    shim = os.path.join(b, "preload", "libprofrun-aarch64.so")
    if not (os.path.exists(shim) and shutil.which("qemu-aarch64")):
        sys.exit("needs the aarch64 shim and workloads, and qemu-aarch64")
    got = {"native": [], "qemu": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            out = os.path.join(tmp, f"n{i}.prof")
            subprocess.run([profrun, "-q", "-F", "1000", "-o", out, "--",
                            os.path.join(wl, "split"), args.seconds, "3", "1"],
                           check=True, capture_output=True)
            got["native"].append(shares(report(profrun, out)))
            out = os.path.join(tmp, f"q{i}.prof")
            subprocess.run(["qemu-aarch64", "-L", ROOT, "-E", f"LD_PRELOAD={shim}",
                            "-E", f"PROFRUN_OUTPUT={out}", "-E", "PROFRUN_FREQ=1000",
                            "-E", "PROFRUN_QUIET=1", os.path.join(wl, "split-aarch64"),
                            args.seconds, "3", "1"], check=True, capture_output=True)
            got["qemu"].append(shares(report(profrun, out, "--sysroot", ROOT)))
    print(f"split {args.seconds} s, hot_a:hot_b built 3:1 (0.750), {args.rounds} runs each, "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| run | hot_a's share, mean | sd between runs | samples a run | binomial sd |")
    print("|---|---|---|---|---|")
    for k, v in got.items():
        s = [x for x, _ in v]
        n = statistics.mean(n for _, n in v)
        print(f"| {k} | {statistics.mean(s):.3f} | {statistics.stdev(s):.3f} | "
              f"{n:.0f} | {math.sqrt(0.75 * 0.25 / n):.3f} |")


if __name__ == "__main__":
    main()
