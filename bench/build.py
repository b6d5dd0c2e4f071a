#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A whole build under profrun and under perf record, the same work: a
generated C project (tests/e2e/genbuild.py) built with make -j2, bare,
under `profrun -q` and under `perf record -e cpu-clock`, alternating
(bare, profrun, perf, bare, ...).  Measures the wall time of each build,
the disk the profile takes (allocated blocks), and the time and peak
memory of `profrun report` against `perf report --stdio` on it.

    bench/build.py --builddir build [--files 48] [--funcs 40] [--pairs 5]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import genbuild  # noqa: E402


def du(path):
    if os.path.isfile(path):
        return os.stat(path).st_blocks * 512
    return sum(os.stat(os.path.join(d, f)).st_blocks * 512
               for d, _, fs in os.walk(path) for f in fs)


def timed(cmd, **kw):
    """Wall seconds and peak RSS (KiB) of CMD, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}")
    return wall, ru.ru_maxrss, before


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default="build")
    ap.add_argument("--files", type=int, default=48)
    ap.add_argument("--funcs", type=int, default=40)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--freq", default="100", help="rate of both profilers (Hz)")
    a = ap.parse_args()
    profrun = os.path.abspath(os.path.join(a.builddir, "cli", "profrun"))
    tmp = tempfile.mkdtemp(prefix="profrun-bench-build-")
    src = genbuild.generate(os.path.join(tmp, "proj"), a.files, a.funcs)
    make = ["make", "-s", "-j2", "-C", src]
    prof, perfdata = os.path.join(tmp, "build.prof"), os.path.join(tmp, "perf.data")
    sides = {
        "bare": make,
        "profrun": [profrun, "-q", "-F", a.freq, "-o", prof, "--", *make],
        "perf": ["perf", "record", "-q", "-e", "cpu-clock", "-F", a.freq, "-o", perfdata,
                 "--", *make],
    }
    walls = {k: [] for k in sides}
    for _ in range(a.pairs):
        for k, cmd in sides.items():
            subprocess.run(["make", "-s", "-C", src, "clean"], check=True)
            walls[k].append(timed(cmd)[0])
    bare = statistics.median(walls["bare"])
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{a.files} files x {a.funcs} functions, 3 programs, make -j2, {a.freq} Hz, "
          f"{a.pairs} rotations")
    for k in sides:
        ratios = [w / b for w, b in zip(walls[k], walls["bare"])]
        print(f"wall {k:8s} median {statistics.median(walls[k]):7.3f} s  "
              f"ratio to bare {statistics.median(ratios):.3f}x "
              f"(min {min(walls[k]) / min(walls['bare']):.3f}x fastest/fastest)")
    members = len(os.listdir(prof))
    print(f"disk: profrun {du(prof) / 1024:.0f} KiB ({members} members, "
          f"{du(prof) / members / 1024:.1f} KiB each), perf.data {du(perfdata) / 1024:.0f} KiB: "
          f"{du(prof) / du(perfdata):.2f}x")
    reports = {
        "profrun report": [profrun, "report", prof],
        "profrun report --by-process": [profrun, "report", "--by-process", prof],
        "perf report": ["perf", "report", "--stdio", "-i", perfdata, "--sort", "comm,dso,sym"],
    }
    for k, cmd in reports.items():
        runs = [timed(["/usr/bin/time", "-f", "%M", "-o", os.path.join(tmp, "rss"), *cmd])[0]
                for _ in range(3)]
        with open(os.path.join(tmp, "rss")) as f:
            rss = int(f.read().split()[-1])
        print(f"report: {k:28s} {statistics.median(runs):6.3f} s  {rss / 1024:6.1f} MiB peak")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
