#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""JIT code named by profrun and by perf in the same runs: perf record -e
task-clock runs profrun, which runs node with a flag that makes V8 name
its code (--perf-basic-prof: /tmp/perf-PID.map; --perf-prof: a jitdump);
both profilers sample the same process, and the shares each gives the top
JavaScript functions of tests/workloads/js/fib-sieve.js are compared.

    bench/jit.py [--builddir build] [--runs 3] [--seconds 5] [--flag --perf-basic-prof]

perf reads the perf map itself (it must still be in /tmp when perf report
runs); for --perf-prof it needs perf inject --jit, so this compares the
perf map only unless told otherwise.  Prints one row per run and function:
profrun's share, perf's share, the difference in points."""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JS = os.path.join(ROOT, "tests", "workloads", "js", "fib-sieve.js")
FUNCS = ("fib", "sieve")


def js_name(name):
    """'LazyCompile:*fib /path:1' -> 'fib', or None."""
    m = re.match(r"\w+:[*~^]?(\w+) ", name)
    return m.group(1) if m and m.group(1) in FUNCS else None


def perf_shares(data, pid):
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--pid", str(pid),
                          "--sort", "sym", "-F", "overhead,sym", "--percentage", "relative"],
                         capture_output=True, text=True, check=True).stdout
    shares = dict.fromkeys(FUNCS, 0.0)
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*)", line)
        if m and js_name(m.group(2)):
            shares[js_name(m.group(2))] += float(m.group(1))
    return shares


def profrun_shares(profrun, prof):
    rep = json.loads(subprocess.run([profrun, "report", "--format", "json", prof],
                                    capture_output=True, text=True, check=True).stdout)
    shares = dict.fromkeys(FUNCS, 0.0)
    for f in rep["functions"]:
        if f["module"] == "[JIT]" and js_name(f["name"]):
            shares[js_name(f["name"])] += f["percent"]
    return shares, rep["processes"][0]["pid"], rep["samples"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", default="5")
    ap.add_argument("--flag", default="--perf-basic-prof")
    a = ap.parse_args()
    profrun = os.path.join(a.builddir, "cli", "profrun")
    node = shutil.which("node")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            prof, data = os.path.join(tmp, f"r{i}.prof"), os.path.join(tmp, f"r{i}.data")
            subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-o", data, "--",
                            profrun, "-q", "-F", "1000", "-o", prof, node, a.flag, JS,
                            a.seconds], check=True, capture_output=True, cwd=tmp)
            ours, pid, samples = profrun_shares(profrun, prof)
            theirs = perf_shares(data, pid)
            for f in FUNCS:
                d = ours[f] - theirs[f]
                worst = max(worst, abs(d))
                print(f"run {i} pid {pid} {f:6} profrun {ours[f]:5.1f}%  perf {theirs[f]:5.1f}%"
                      f"  difference {d:+.1f} points  (profrun: {samples['total']} samples)")
            pmap = f"/tmp/perf-{pid}.map"
            if os.path.exists(pmap):
                os.unlink(pmap)
    print(f"largest difference: {worst:.1f} points")


if __name__ == "__main__":
    main()
