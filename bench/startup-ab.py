#!/usr/bin/env python3
"""Median wall time of N runs of each command, runs of the commands
alternating.  Usage: bench/startup-ab.py N 'cmd A' 'cmd B' ...
Leading VAR=VALUE words of a command go into its environment only
(e.g. 'LD_PRELOAD=build/preload/libprofrun.so /bin/true')."""
import os, shlex, statistics, sys, time
n = int(sys.argv[1])
def parse(c):
    words, env = shlex.split(c), dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return words, env
cmds = [parse(c) for c in sys.argv[2:]]
times = [[] for _ in cmds]
cpus = [[] for _ in cmds]  # user + system time of the child, from wait4
devnull = os.open(os.devnull, os.O_WRONLY)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
for _ in range(n):
    for i, (c, env) in enumerate(cmds):
        t = time.perf_counter_ns()
        pid = os.posix_spawn(c[0], c, env, file_actions=fa)
        _, _, ru = os.wait4(pid, 0)
        times[i].append((time.perf_counter_ns() - t) / 1e6)
        cpus[i].append((ru.ru_utime + ru.ru_stime) * 1e3)
for c, t, u in zip(sys.argv[2:], times, cpus):
    t.sort()
    print(f"{statistics.median(t):6.3f} ms median  (p10 {t[len(t)//10]:.3f}, p90 {t[len(t)*9//10]:.3f}),"
          f" CPU {statistics.mean(u):.3f} ms mean  {c}")
