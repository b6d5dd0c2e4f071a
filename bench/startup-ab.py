#!/usr/bin/env python3
"""Median wall time of N runs of each command, runs of the commands
alternating.  Usage: bench/startup-ab.py N 'cmd A' 'cmd B' ...
Leading VAR=VALUE words of a command go into its environment only
(e.g. 'LD_PRELOAD=build/preload/libprofrun.so /bin/true').

With --loop A,B each command's word LOOP stands for a shell loop running
/bin/true A times, then B times (e.g. 'perf record -q -o /dev/shm/p.data
-- LOOP'); both sizes alternate with every command, and the cost per
process, (median at B - median at A) / (B - A), leaves out what a tool
costs once per run (its own start, writing its file).

--inner (with --loop): the wall time is the loop's own, taken by a timer
process the tool runs (python3, started before the timed part), not the
tool's whole run.  A tool whose run ends with a fixed wait longer than the
loop (perf record here: about 1 s however short the workload) hides the
loop's time from the outside; from the inside it shows.  CPU is still the
whole command's."""
import os, shlex, statistics, sys, tempfile, time

args = sys.argv[1:]
loop = None
inner = False
if args and args[0] == "--inner":
    inner = True
    args = args[1:]
if args and args[0] == "--loop":
    loop = [int(x) for x in args[1].split(",")]
    args = args[2:]
n = int(args[0])
if inner and not loop:
    sys.exit("--inner times a LOOP: give --loop A,B after it")
stamp = tempfile.NamedTemporaryFile(prefix="startup-ab-", delete=False).name
# the timer: runs the loop's shell and writes its wall time (ms) to STAMP
TIMER = ("import subprocess, sys, time\n"
         "t = time.perf_counter_ns()\n"
         "r = subprocess.run(sys.argv[2:]).returncode\n"
         "open(sys.argv[1], 'w').write(str((time.perf_counter_ns() - t) / 1e6))\n"
         "sys.exit(r)\n")


def parse(c, count=None):
    words, env = shlex.split(c), dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    if count is not None:
        body = f"i=0; while [ $i -lt {count} ]; do /bin/true; i=$((i+1)); done"
        shell = ["/bin/sh", "-c", body]
        if inner:
            shell = [sys.executable, "-c", TIMER, stamp] + shell
        words = [w for x in words for w in (shell if x == "LOOP" else [x])]
    if not words[0].startswith("/"):
        words[0] = next((os.path.join(d, words[0]) for d in os.environ["PATH"].split(":")
                         if os.access(os.path.join(d, words[0]), os.X_OK)), words[0])
    return words, env


labels = args[1:]
sizes = loop if loop else [None]
cmds = [parse(c, s) for c in labels for s in sizes]
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
        if inner:
            with open(stamp) as f:
                times[i][-1] = float(f.read())
        cpus[i].append((ru.ru_utime + ru.ru_stime) * 1e3)
os.unlink(stamp)
if loop:
    a, b = loop
    for k, c in enumerate(labels):
        ta, tb = times[2 * k], times[2 * k + 1]
        ua, ub = cpus[2 * k], cpus[2 * k + 1]
        print(f"{(statistics.median(tb) - statistics.median(ta)) / (b - a):6.3f} ms wall per process,"
              f" CPU {(statistics.mean(ub) - statistics.mean(ua)) / (b - a):.3f} ms"
              f"  ({statistics.median(ta):.1f} ms at {a}, {statistics.median(tb):.1f} ms at {b})  {c}")
    sys.exit(0)
for c, t, u in zip(labels, times, cpus):
    t.sort()
    print(f"{statistics.median(t):6.3f} ms median  (p10 {t[len(t)//10]:.3f}, p90 {t[len(t)*9//10]:.3f}),"
          f" CPU {statistics.mean(u):.3f} ms mean  {c}")
