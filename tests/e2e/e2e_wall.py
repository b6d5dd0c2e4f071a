#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Wall-clock profiles (profrun --wall): threads blocked in a system call
are sampled by a sampler thread reading /proc, never signalled.

The workload (tests/workloads/wall.c) checks its own blocking calls: any
early return or EINTR makes it print what happened and exit 1, so the
program's stdout and exit status under --wall being those of a bare run
is the proof that nothing interrupted it.

Shares are judged within 5 points of what the program's construction
gives: burn() 1 s of CPU, sleep_phase() 1 s in nanosleep, pipe_phase()
0.5 s reading a pipe, cond_phase() 0.5 s in pthread_cond_timedwait, that
is 33/33/17/17% of the main process's wall time on an idle machine.  The
workload says on stderr how long each phase and call really took (longer
on a loaded machine), and seconds are judged against that.

Usage: e2e_wall.py CASE (exit 0 pass, 1 fail, 77 skip)."""

import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import PROFRUN, expect, report_json, run, wl  # noqa: E402
import e2e  # noqa: E402

CASES = {}
POINTS = 5.0  # tolerance of a share, in percentage points


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def bare_and_wall(tmp, name, args, *opts):
    """Run the workload with ARGS bare, then under profrun --wall OPTS:
    both must print the same and end with the same status, 0.  Returns
    the run directory and the profrun process."""
    bare = run([wl("wall"), *args], timeout=60)
    expect(bare.returncode == 0, f"bare run: exit {bare.returncode}: {bare.stdout}")
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, "--wall", "-q", *opts, "-o", out, wl("wall"), *args],
             timeout=120)
    expect(cp.returncode == bare.returncode,
           f"--wall: exit {cp.returncode}, bare {bare.returncode}: {cp.stdout} {cp.stderr}")
    expect(cp.stdout == bare.stdout,
           f"--wall changed the program's output: {cp.stdout!r}, bare {bare.stdout!r}")
    return out, cp


def main_pid(rep):
    """The pid of the run's first process (the one profrun started)."""
    pids = {p["pid"] for p in rep["processes"]}
    first = [p for p in rep["processes"] if p.get("ppid") not in pids]
    expect(len(first) == 1, f"first process of {sorted(pids)}")
    return first[0]["pid"]


def blocked(rep, pid, tid=None):
    """Seconds blocked by system call name, of PID (thread TID only)."""
    got = {}
    for row in rep["wall"]["blocked"]:
        if row["pid"] == pid and (tid is None or row["tid"] == tid):
            name = row["syscall_name"] or str(row["syscall"])
            got[name] = got.get(name, 0) + row["seconds"]
    return got


def took(cp):
    """{name: seconds} the workload said each phase and blocking call took
    (its stderr): on a loaded machine longer than asked."""
    got = {}
    for line in cp.stderr.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "took":
            got[f[1]] = got.get(f[1], 0) + float(f[2])
    return got


def check_near(got, want, slack, what):
    expect(abs(got - want) <= slack, f"{what}: {got:.3f}, expected {want:.3f} ± {slack}")


@case
def wall_gives_cpu_sleep_pipe_and_cond_their_share(tmp):
    out, cp = bare_and_wall(tmp, "w.prof", ["phases", "1"], "-g")
    t = took(cp)
    expect({"burn", "sleep_phase", "pipe_phase", "cond_phase", "nanosleep", "read",
            "pthread_cond_timedwait"} <= set(t), f"the workload's times: {cp.stderr}")
    # what each phase stands for: burn its CPU time (1 s; a thread waiting
    # for a CPU is on no clock), the others the wall time they took
    t["burn"] = 1.0
    phases = sum(t[fn] for fn in ("burn", "sleep_phase", "pipe_phase", "cond_phase"))
    rep = report_json(out)
    expect(rep.get("clock") == "wall", f"clock {rep.get('clock')!r}, expected 'wall'")
    pid = main_pid(rep)
    one = report_json(out, "--pid", str(pid), "--sort", "total")
    total = one["samples"]["total"]
    expect(total >= 250, f"only {total} samples in 3 s of wall time")
    incl = {f["name"]: f["inclusive"] for f in one["functions"]}
    for fn in ("burn", "sleep_phase", "pipe_phase", "cond_phase"):
        share, want = 100.0 * incl.get(fn, 0) / total, 100.0 * t[fn] / phases
        check_near(share, want, POINTS, f"{fn}'s share of the wall time (%)")
    # the leaf of each blocked stack is the blocking call, named
    calls = blocked(rep, pid, pid)
    check_near(calls.get("clock_nanosleep", 0), t["nanosleep"], 0.15,
               "blocked in clock_nanosleep (s)")
    check_near(calls.get("read", 0), t["read"], 0.1, "blocked in read (s)")
    check_near(calls.get("futex", 0), t["pthread_cond_timedwait"], 0.1, "blocked in futex (s)")
    flat = {f["name"]: f for f in one["functions"]}
    expect(flat["burn"]["offcpu_samples"] == 0 and flat["burn"]["samples"] > 50,
           f"burn: {flat['burn']['samples']} samples, {flat['burn']['offcpu_samples']} off the CPU")
    for leaf in ("clock_nanosleep", "read"):
        f = flat.get(leaf)
        expect(f and f["offcpu_samples"] >= 0.95 * f["samples"] > 30,
               f"{leaf}: {f and (f['samples'], f['offcpu_samples'])}: expected off the CPU")
    # the time-ordered views have the blocked samples, with their stacks
    cp = run([PROFRUN, "report", "--format", "speedscope", "--pid", str(pid), out])
    expect(cp.returncode == 0, f"report --format speedscope: {cp.stderr}")
    d = json.loads(cp.stdout)
    frames = d["shared"]["frames"]
    main = [p for p in d["profiles"] if p["name"].endswith(f"(tid {pid})")]
    expect(len(main) == 1, f"speedscope profiles {[p['name'] for p in d['profiles']]}")
    secs = {}
    for smp, w in zip(main[0]["samples"], main[0]["weights"]):
        for fn in {frames[i]["name"] for i in smp}:
            secs[fn] = secs.get(fn, 0) + w
    for fn in ("sleep_phase", "pipe_phase", "cond_phase"):
        check_near(secs.get(fn, 0), t[fn], 0.15, f"speedscope: seconds under {fn}")
    cp = run([PROFRUN, "report", "--format", "trace", "--pid", str(pid), out])
    slices = {e["name"] for e in json.loads(cp.stdout)["traceEvents"] if e["ph"] == "X"}
    expect({"sleep_phase", "read", "cond_phase"} <= slices,
           f"trace: no slices of the blocked phases in {sorted(slices)}")
    text = run([PROFRUN, "report", out]).stdout
    expect("clock: wall" in text and "off-CPU" in text and "clock_nanosleep" in text,
           f"the text report does not say it is a wall profile:\n{text}")
    # a function's seconds: its blocked samples at the sampler's interval,
    # the others at the rate of samples per CPU second (which counts the
    # CPU samples alone)
    cp = run([PROFRUN, "report", "--format", "csv", "--pid", str(pid), out])
    secs = {r["name"]: float(r["seconds"]) for r in csv.DictReader(io.StringIO(cp.stdout))}
    check_near(secs.get("clock_nanosleep", 0), t["nanosleep"], 0.15,
               "csv: clock_nanosleep's seconds")
    check_near(secs.get("read", 0), t["read"], 0.1, "csv: read's seconds")


@case
def wall_charges_each_thread_its_blocking_call(tmp):
    out, cp = bare_and_wall(tmp, "t.prof", ["threads", "1"])
    t = took(cp)
    expect("poll" in t, f"the workload's times: {cp.stderr}")
    rep = report_json(out, "--by-thread")
    pid = main_pid(rep)
    threads = [t for p in rep["processes"] if p["pid"] == pid for t in p["threads"]]
    expect(len(threads) == 3, f"threads {threads}")
    by_tid = {t["tid"]: blocked(rep, pid, t["tid"]) for t in threads}
    main = by_tid.get(pid, {})
    pollers = [calls for tid, calls in by_tid.items() if "poll" in calls]
    expect(len(pollers) == 1, f"one thread blocked in poll, got {by_tid}")
    check_near(pollers[0]["poll"], t["poll"], 0.15, "sleeper blocked in poll (s)")
    # pthread_join waits for both: as long as the poll at least (the
    # burner's 1 s of CPU takes longer than that on a loaded machine)
    expect(main.get("futex", 0) >= pollers[0]["poll"] - 0.15,
           f"main thread blocked in pthread_join (futex) {main}, less than the poll")
    burner = [tid for tid, calls in by_tid.items() if tid != pid and "poll" not in calls]
    expect(len(burner) == 1 and sum(by_tid[burner[0]].values()) < 0.1,
           f"the burner thread was blocked: {by_tid}")
    flat = {f["name"]: f for f in rep["functions"]}
    expect(flat["burn"]["offcpu_samples"] == 0 and flat["burn"]["samples"] > 50,
           f"burn: {flat['burn']}")
    # the sampler is none of the program's threads in the report
    tids = {t["tid"] for t in threads}
    expect(all(row["tid"] in tids for row in rep["wall"]["blocked"]),
           f"blocked rows of unknown threads: {rep['wall']['blocked']}")


@case
def wall_follows_fork_and_exec(tmp):
    # the child runs the phases at half scale, then execs the workload
    # again: each image samples its blocked threads with its own sampler
    out, cp = bare_and_wall(tmp, "x.prof", ["exec", wl("wall"), "phases", "0.4"])
    t = took(cp)
    expect({"nanosleep", "read"} <= set(t), f"the workload's times: {cp.stderr}")
    rep = report_json(out)
    pid = main_pid(rep)
    parent = blocked(rep, pid)
    expect(sum(parent.values()) >= 1.5,
           f"the parent, waiting for its child, was blocked {parent}")
    kids = [p for p in rep["processes"] if p.get("ppid") == pid]
    expect(kids, "no member of the forked child")
    child = kids[0]["pid"]
    images = [p for p in rep["processes"] if p["pid"] == child]
    expect(len(images) == 2, f"{len(images)} images of the child, expected 2 (fork, exec)")
    calls = blocked(rep, child)
    # nanosleep: 0.5 s before the exec, 0.4 s after it (as they took)
    check_near(calls.get("clock_nanosleep", 0), t["nanosleep"], 0.15,
               "the child's images blocked in clock_nanosleep (s)")
    check_near(calls.get("read", 0), t["read"], 0.1, "the child's images blocked in read (s)")


@case
def wall_is_off_without_the_option(tmp):
    out = os.path.join(tmp, "c.prof")
    cp = run([PROFRUN, "-q", "-o", out, wl("wall"), "phases", "0.3"])
    expect(cp.returncode == 0, f"exit {cp.returncode}")
    rep = report_json(out)
    expect(rep.get("clock") == "cpu" and "wall" not in rep,
           f"a profile without --wall says clock {rep.get('clock')!r}")
    flat = {f["name"]: f["samples"] for f in rep["functions"]}
    expect(flat.get("clock_nanosleep", 0) <= 2,
           f"without --wall, sleeping took {flat.get('clock_nanosleep')} samples")


if __name__ == "__main__":
    try:
        sys.exit(e2e.main(CASES, "e2e_wall.py"))
    except subprocess.TimeoutExpired as e:
        print(f"FAIL: timed out: {e}", file=sys.stderr)
        sys.exit(1)
