#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every CPU-second charged to the thread and process that spent it: per-thread
timers, threads that block signals, short processes, kernel time, thread
records, and the masks and waits the program sees (tests/workloads/percpu.c).

Usage: e2e_threads.py CASE (exit 0 pass, 1 fail, 77 skip).  Each workload's
CPU time is sized from the machine's tick so that a share is checked on at
least 400 samples, within 5 standard deviations plus 2 points
(e2e.check_share); counts against CPU time x rate use 5 standard deviations
of a Poisson count."""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (PROFRUN, check_count, check_share, expect, report_json, run,  # noqa: E402
                 samples_of, wl)
import e2e  # noqa: E402

CASES = {}
FREQ = e2e.DEFAULT_FREQ  # asked for; the tick caps it


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def rate():
    """Samples per CPU-second the kernel delivers at -F FREQ (the tick read
    as the shim reads it: e2e.tick_hz)."""
    return e2e.sample_rate(FREQ)


def cpu_for(samples):
    """CPU seconds that give SAMPLES samples, with a margin."""
    return 1.2 * samples / rate()


def profrun(tmp, name, *args, status=0, freq=FREQ):
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, "-q", "-F", str(freq), "-o", out, "--", wl("percpu"), *args],
             timeout=240)
    expect(cp.returncode == status,
           f"percpu {args}: exit {cp.returncode}, expected {status}; "
           f"stdout {cp.stdout!r}, stderr {cp.stderr!r}")
    return out, cp


def bare(*args):
    return run([wl("percpu"), *args], timeout=240)


def same_output(tmp, mode, seconds, want):
    """MODE prints WANT and exits 0, bare (briefly) and under profrun."""
    ref = bare(mode, "0.3")
    expect(ref.returncode == 0 and ref.stdout == want, f"bare {mode}: {ref.stdout!r}")
    out, cp = profrun(tmp, f"{mode}.prof", mode, f"{seconds:.3f}")
    expect(cp.stdout == want, f"{mode} under profrun: {cp.stdout!r}")
    return out


def threads_of(rep):
    expect(len(rep["processes"]) == 1, f"one process expected: {rep['processes']}")
    return rep["processes"][0]["threads"]


@case
def workers_blocking_every_signal_are_sampled(tmp):
    s = cpu_for(400) / 2
    out, cp = profrun(tmp, "blocked.prof", "blocked", f"{s:.3f}")
    expect(cp.stdout == "blocked: 2 of 2 workers see SIGPROF blocked\n",
           f"the workers must see the mask they asked for: {cp.stdout!r}")
    rep = report_json(out)
    a, b = samples_of(rep, "self_blocked_spin"), samples_of(rep, "inherited_spin")
    total, own = rep["samples"]["total"], rep["samples"]["main"]
    # the spinners' own code, apart from the clock they read (in the vDSO
    # and the kernel: a share that depends on the machine and its load,
    # measured from 1% to 6%); the sleeping main thread is checked below
    expect(a + b >= 0.95 * own, f"the spinners have {a + b} of the executable's {own} samples")
    check_share(a, a + b, 0.5, "worker blocking itself vs worker inheriting a full mask")
    th = threads_of(rep)
    main = [t for t in th if t["main"]]
    workers = [t for t in th if not t["main"]]
    expect(len(main) == 1 and len(workers) == 2, f"threads {th}")
    expect(main[0]["samples"] <= 0.02 * total + 2, f"the sleeping main thread was charged: {main}")
    for w in workers:
        check_count(w["samples"], w["cpu_seconds"], rate(), f"worker {w['tid']}")


@case
def four_threads_on_two_cores_in_known_ratio(tmp):
    u = cpu_for(450) / 10
    out, _ = profrun(tmp, "ratio.prof", "ratio", f"{u:.3f}")
    rep = report_json(out)
    n = [samples_of(rep, f"ratio_{i}") for i in range(1, 5)]
    for i in range(4):
        check_share(n[i], sum(n), (i + 1) / 10, f"ratio_{i + 1} (built {i + 1}:10)")
    sampled = sum(t["cpu_seconds"] for t in threads_of(rep))
    check_count(rep["samples"]["total"], sampled, rate(), "four busy threads (none coalesce)")
    expect(rep["cpu_unsampled_seconds"] is not None and
           rep["cpu_unsampled_seconds"] <= 0.05 * rep["cpu_seconds"] + 0.02,
           f"unsampled CPU {rep['cpu_unsampled_seconds']} of {rep['cpu_seconds']}")


@case
def short_children_are_sampled_in_proportion(tmp):
    # each child uses half a sampling interval: a timer whose first
    # expiration came a full interval after start would never see one
    child = 0.5 / rate()
    n = math.ceil(cpu_for(450) / 2 / child)
    out, cp = profrun(tmp, "short.prof", "short", str(n), f"{child:.5f}")
    expect(cp.stdout == f"short: {n} children, 0 failed\n", f"output {cp.stdout!r}")
    rep = report_json(out)
    procs = rep["processes"]
    expect(len(procs) == n + 1 and rep["complete"], f"{len(procs)} processes for {n} children")
    kids = [p for p in procs if p["ppid"] == procs[0]["pid"]]
    expect(len(kids) == n, f"{len(kids)} children recorded")
    kid_cpu = sum(p["cpu_seconds"] for p in kids)
    k = sum(p["samples"] for p in kids)
    # CPU timers are checked on the tick.  Alone on a CPU, a child starts
    # at a random phase of it and gets CPU x rate samples on average; on a
    # loaded machine the scheduler switches tasks at ticks, and a child
    # shorter than one tick that starts at one ends before the next.  A
    # timer whose first expiration is a whole interval away gives none.
    # Measured with two busy loops beside it: a third of CPU x rate; with
    # the whole suite running beside them as well, 11%.  How many arrive
    # depends on the load, so the bounds are: some (a timer whose first
    # expiration is a whole interval away gives exactly none, for children
    # that all use less than one), and not far above CPU x rate.  Not at
    # most CPU x rate: with two test suites and benchmarks beside it (load
    # 8 on two cores) 360 and 379 samples came for 1.08 s of the children's
    # CPU (271 at the rate; no steal time): a tick that lands when a CPU
    # leaves idle for a new child finds that child.  Half as many again
    # still tells a timer that fires twice as often.
    want = kid_cpu * rate() * 1.5
    # the claim is about children shorter than one interval: a few that a
    # loaded machine made longer (page faults, a slow fork) are left out
    # of the "some samples" check, not allowed to carry it
    short = [p for p in kids if p["cpu_seconds"] < 1 / rate()]
    expect(len(short) >= 0.9 * n,
           f"only {len(short)} of {n} children used less than one sampling interval")
    k_short = sum(p["samples"] for p in short)
    expect(1 <= k_short and k <= want + 5 * math.sqrt(want) + 0.02 * want,
           f"{n} children: {k} samples ({k_short} in the {len(short)} shorter than an "
           f"interval) for {kid_cpu:.3f} s of CPU, expected some, up to {want:.0f}"
           " (1.5 x CPU x rate)")
    # the split by executable is the kernel's own accounting: exact
    parent = procs[0]["cpu_seconds"]
    exes = rep["executables"]
    expect(len(exes) == 1 and exes[0]["processes"] == n + 1 and
           abs(exes[0]["cpu_seconds"] - parent - kid_cpu) <= 0.0005 * (n + 2),  # rounding
           f"executables {exes}")
    expect(samples_of(rep, "short_child") > 0.5 * k, "children's samples are not in short_child")


@case
def named_threads_three_to_one(tmp):
    u = cpu_for(420) / 4
    out, _ = profrun(tmp, "named.prof", "named", f"{u:.3f}")
    rep = report_json(out)
    th = {t["name"]: t for t in threads_of(rep)}
    expect("alpha" in th and "beta" in th, f"thread names {sorted(th)}")
    a, b = th["alpha"]["samples"], th["beta"]["samples"]
    check_share(a, a + b, 0.75, "thread alpha vs beta (built 3:1)")
    check_share(samples_of(rep, "named_alpha"), a + b, 0.75, "named_alpha vs named_beta")
    expect(abs(th["alpha"]["cpu_seconds"] - 3 * u) <= 0.1 * u + 0.02,
           f"alpha's CPU {th['alpha']['cpu_seconds']} s, built {3 * u:.3f} s")
    text = run([PROFRUN, "report", "--by-thread", out]).stdout
    expect("alpha" in text and "beta" in text and "tid" in text, f"--by-thread:\n{text}")
    tid = th["beta"]["tid"]
    cp = run([PROFRUN, "report", "--tid", str(tid), out])
    rows = [l.split() for l in cp.stdout.splitlines() if l.strip().startswith(str(tid))]
    expect(cp.returncode == 0 and len(rows) == 1 and rows[0][1] == "beta"
           and not any(l.split()[1:2] == ["alpha"] for l in cp.stdout.splitlines()),
           f"--tid {tid}:\n{cp.stdout}{cp.stderr}")
    cp = run([PROFRUN, "report", "--tid", "999999999", out])
    expect(cp.returncode == 1 and "no thread 999999999" in cp.stderr, f"unknown tid: {cp.stderr!r}")


@case
def kernel_time_is_told_apart(tmp):
    out, cp = profrun(tmp, "sys.prof", "syscalls", f"{cpu_for(450):.3f}")
    words = cp.stdout.split()
    expect(len(words) == 5 and words[0] == "syscalls:", f"output {cp.stdout!r}")
    user, sys_ = float(words[2]), float(words[4])
    rep = report_json(out)
    s = rep["samples"]
    check_share(s["kernel"], s["total"], sys_ / (user + sys_),
                f"kernel samples against the kernel's own system time ({sys_:.2f} of {user + sys_:.2f} s)")
    loop = [f for f in rep["functions"] if f["name"] == "user_loop"]
    expect(loop and loop[0]["kernel_samples"] == 0, f"the user loop has kernel samples: {loop}")
    expect(sum(f["kernel_samples"] for f in rep["functions"]) == s["kernel"],
           "functions' kernel samples do not add up to samples.kernel")
    text = run([PROFRUN, "report", out]).stdout
    head = [l for l in text.splitlines() if "samples" in l and "seconds" in l]
    expect("\nkernel: " in text and head and "kernel" in head[0], f"text report:\n{text}")


@case
def daemon_waits_never_see_our_signals(tmp):
    out = same_output(tmp, "waiters", cpu_for(200),
                      "waiters: sigtimedwait took 0 signals, signalfd read 0\n")
    rep = report_json(out)
    check_count(samples_of(rep, "waiter_worker"),
                sum(t["cpu_seconds"] for t in threads_of(rep)), rate(),
                "the worker beside a daemon with every signal blocked")


@case
def tight_sigprof_block_unblock_loop_sees_its_own_mask(tmp):
    out = same_output(tmp, "toggle", cpu_for(300), "toggle: views right\n")
    rep = report_json(out)
    check_count(rep["samples"]["total"], rep["cpu_seconds"], rate(),
                "a thread that blocks SIGPROF half the time")


@case
def thousand_threads_each_get_a_record(tmp):
    n = 1000
    each = max(cpu_for(400) / n, 4 / rate())  # several ticks each: see above
    out, cp = profrun(tmp, "many.prof", "many", str(n), f"{each:.5f}")
    expect(cp.stdout == f"many: {n} threads joined\n", f"output {cp.stdout!r}")
    rep = report_json(out)
    th = threads_of(rep)
    expect(len([t for t in th if t["tid"] is not None]) >= n + 1, f"{len(th)} thread records")
    # a thread's count includes its samples in profrun's shim (overhead,
    # left out of the total)
    expect(sum(t["samples"] for t in th) == rep["samples"]["total"] + rep["samples"]["overhead"],
           "thread samples do not add up to the total and the overhead")
    cpu = sum(t["cpu_seconds"] for t in th)
    want = cpu * rate()
    got = rep["samples"]["total"]
    # 16 threads share 2 cores: short threads lose ticks under contention
    # (short-children-are-sampled-in-proportion says why): half of CPU x
    # rate was seen with two busy loops beside the test
    expect(0.25 * want <= got <= 1.02 * want + 5 * math.sqrt(want),
           f"{n} threads: {got} samples for {cpu:.3f} s of CPU, expected about {want:.0f}")


@case
def sigprof_sent_by_the_program_gets_its_own_action(tmp):
    ref = bare("raise", "dfl")
    expect(ref.returncode == -27 or ref.returncode == 155, f"bare run: exit {ref.returncode}")
    # a SIGPROF sent while one of a sample's is pending merges with it, as
    # any two standard signals do (README, Limits): the sent one is then
    # taken as a sample, rarely; three runs all doing so is a bug
    codes = []
    for i in range(3):
        out = os.path.join(tmp, f"dfl-{i}.prof")
        cp = run([PROFRUN, "-q", "-F", str(FREQ), "-o", out, "--", wl("percpu"),
                  "raise", "dfl"], timeout=240)
        codes.append(cp.returncode)
        if cp.returncode == -27:
            break
    expect(codes[-1] == -27, f"raise dfl: exits {codes}, expected -27 (SIGPROF)")
    ref = bare("raise", "ign")
    _, cp = profrun(tmp, "ign.prof", "raise", "ign")
    expect(cp.stdout == ref.stdout == "raise: still running\n", f"output {cp.stdout!r}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_threads.py"))
