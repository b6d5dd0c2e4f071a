#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The wall-clock sampler (profrun --wall): its cost per wake at N threads,
and the wall time of programs under it against bare runs, side by side.

    bench/wall.py [--builddir build] [--threads 100] [--rounds 5] [--out FILE]

  wake   bench-blocked N 2: N threads blocked in poll() for 2 s, under
         profrun --wall -q (and --wall -g): the sampler thread's CPU time
         over its wakes, as the member records them (report --format json:
         wall.sampler_cpu_seconds / wall.sampler_wakes), per wake and per
         thread looked at
  wall   the wall time of bench-blocked N 1 0.5 (N threads blocked 1 s, the
         main thread burning 0.5 s of CPU meanwhile) and of a plain sleep
         (bench-blocked 1 1), bare / profrun -q / profrun -q --wall
         / profrun -q --wall -g, rotating A B C D A B C D ...: medians and
         the ratio to bare

The machine is assumed shared: load average is printed, only medians of
alternating runs are reported.  Python 3 standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def timed(cmd):
    t0 = time.monotonic()
    cp = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t = time.monotonic() - t0
    if cp.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {cp.returncode}: {cp.stderr}")
    return t


def wake_cost(profrun, blocked, threads, rounds, tmp):
    rows = []
    for extra in ([], ["-g"]):
        per_wake, per_thread, wakes, blocked_s = [], [], [], []
        for i in range(rounds):
            out = os.path.join(tmp, f"wake{i}.prof")
            timed([profrun, "--wall", "-q", *extra, "-o", out, blocked, str(threads), "2"])
            rep = json.loads(subprocess.run([profrun, "report", "--format", "json", out],
                                            capture_output=True, text=True,
                                            check=True).stdout)
            w = rep["wall"]
            per_wake.append(w["sampler_cpu_seconds"] / max(1, w["sampler_wakes"]))
            per_thread.append(per_wake[-1] / (threads + 1))
            wakes.append(w["sampler_wakes"])
            blocked_s.append(w["blocked_seconds"])
        rows.append((" ".join(["--wall"] + extra), statistics.median(per_wake) * 1e6,
                     statistics.median(per_thread) * 1e6, statistics.median(wakes),
                     statistics.median(blocked_s)))
    return rows


def wall_times(profrun, blocked, threads, rounds, tmp):
    out = os.path.join(tmp, "w.prof")
    variants = [("bare", []), ("profrun -q", [profrun, "-q", "-o", out]),
                ("profrun -q --wall", [profrun, "-q", "--wall", "-o", out]),
                ("profrun -q --wall -g", [profrun, "-q", "--wall", "-g", "-o", out])]
    results = []
    for label, args in ((f"bench-blocked {threads} 1 0.5", [str(threads), "1", "0.5"]),
                        ("bench-blocked 1 1 (a sleep)", ["1", "1"])):
        times = {v: [] for v, _ in variants}
        for _ in range(rounds):
            for v, pre in variants:
                times[v].append(timed(pre + [blocked] + args))
        bare = statistics.median(times["bare"])
        for v, _ in variants:
            m = statistics.median(times[v])
            results.append((label, v, m, m / bare))
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--builddir", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--out")
    args = p.parse_args()
    subprocess.run(["ninja", "-C", args.builddir, "bench/bench-blocked", "cli/profrun",
                    "preload/libprofrun.so"], check=True, stdout=subprocess.DEVNULL)
    profrun = os.path.join(args.builddir, "cli", "profrun")
    blocked = os.path.join(args.builddir, "bench", "bench-blocked")
    lines = [f"load average at start: {loadavg()}", ""]
    with tempfile.TemporaryDirectory(prefix="profrun-bench-wall-") as tmp:
        lines += [f"sampler cost at {args.threads} threads (+ main), median of {args.rounds}:",
                  "", "| run | CPU per wake | per thread looked at | wakes | blocked s |",
                  "|---|---|---|---|---|"]
        for v, wake, thr, n, b in wake_cost(profrun, blocked, args.threads, args.rounds, tmp):
            lines.append(f"| {v} | {wake:.1f} µs | {thr:.2f} µs | {n:.0f} | {b:.1f} |")
        lines += ["", f"wall time, rotating, median of {args.rounds}:", "",
                  "| workload | run | wall s | / bare |", "|---|---|---|---|"]
        for label, v, m, r in wall_times(profrun, blocked, args.threads, args.rounds, tmp):
            lines.append(f"| {label} | {v} | {m:.3f} | {r:.3f}× |")
    lines += ["", f"load average at end: {loadavg()}"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
