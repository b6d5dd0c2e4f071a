#!/usr/bin/env python3
"""Median wall time of N runs of each command, runs of the commands
alternating.  Usage: bench/startup-ab.py N 'cmd A' 'cmd B' ..."""
import os, shlex, statistics, sys, time
n = int(sys.argv[1])
cmds = [shlex.split(c) for c in sys.argv[2:]]
times = [[] for _ in cmds]
devnull = os.open(os.devnull, os.O_WRONLY)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
for _ in range(n):
    for i, c in enumerate(cmds):
        t = time.perf_counter_ns()
        pid = os.posix_spawn(c[0], c, os.environ, file_actions=fa)
        os.waitpid(pid, 0)
        times[i].append((time.perf_counter_ns() - t) / 1e6)
for c, t in zip(sys.argv[2:], times):
    t.sort()
    print(f"{statistics.median(t):6.3f} ms median  (p10 {t[len(t)//10]:.3f}, p90 {t[len(t)*9//10]:.3f})  {c}")
