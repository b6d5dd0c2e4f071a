#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Wall and CPU time of a workload under the shim alone, over bare, as
medians of alternating pairs (bare, then each shim), the shim's profile
going to DIR.  Usage:

    bench/shim-ratio.py [--no-stacks] N SECONDS DIR SHIM.so ...

runs `tests/workloads/split SECONDS` (from build/) N times per shim,
each run beside a bare one, with PROFRUN_STACKS=1 (unless --no-stacks)
at PROFRUN_FREQ=1000 (clipped to the kernel's tick: the highest rate)."""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
stacks = "--no-stacks" not in args
args = [a for a in args if a != "--no-stacks"]
n, secs, out, shims = int(args[0]), args[1], args[2], args[3:]
wl = os.path.join(HERE, "..", "build", "tests", "workloads", "split")
quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]


def once(extra):
    env = dict(os.environ, **extra)
    t = time.perf_counter()
    pid = os.posix_spawn(wl, [wl, secs], env, file_actions=quiet)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"{wl} {secs}: status {status}")
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


walls = {s: [] for s in shims}
cpus = {s: [] for s in shims}
for _ in range(n):
    for s in shims:
        bw, bc = once({})
        env = {"LD_PRELOAD": os.path.abspath(s), "PROFRUN_FREQ": "1000", "PROFRUN_QUIET": "1",
               "PROFRUN_OUTPUT": os.path.join(out, f"{len(walls[s])}-{os.path.basename(s)}")}
        if stacks:
            env["PROFRUN_STACKS"] = "1"
        w, c = once(env)
        walls[s].append(w / bw)
        cpus[s].append(c / bc)
for s in shims:
    print(f"{s}: wall {statistics.median(walls[s]):.4f}x (pairs {min(walls[s]):.3f}-"
          f"{max(walls[s]):.3f}), CPU {statistics.median(cpus[s]):.4f}x, {n} pairs")
