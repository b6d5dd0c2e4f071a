#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Profile only what matters: pausing and resuming from the program
(<profrun/profrun.h>), at launch (--start-paused, PROFRUN_START), from
outside (--toggle-signal) and on a CPU-time window (--delay, --duration),
with the workload tests/workloads/pause.c.

Usage: e2e_pause.py CASE (exit 0 pass, 1 fail, 77 skip).  Each measured
phase runs for the CPU time that gives it NEED samples at the rate to
expect, half again to spare (e2e.cpu_for); the phases around it do as much
work.  A share is checked on at least NEED samples: "at least 95% in the
measured part", where a correct profiler puts all but the samples of a
tick or two at the edges there.  Counts against CPU time x rate use 5
standard deviations of a Poisson count plus 2% (e2e.check_count); CPU
times, which the kernel counts exactly, within 5% plus 50 ms."""

import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, SHIM, check_count, expect, one_line_error,  # noqa: E402
                 report_json, run, samples_of, wl)
import e2e  # noqa: E402

CASES = {}
FREQ = e2e.DEFAULT_FREQ
PHASES = ("setup_work", "measured_work", "teardown_work")


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def rate():
    return e2e.sample_rate(FREQ)


def phase_seconds(samples=NEED):
    """CPU seconds of one phase: SAMPLES samples at the rate, and half again."""
    return float(e2e.cpu_for(samples, FREQ))


def profrun(tmp, name, *args, opts=(), env=None, status=0):
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, "-q", "-F", str(FREQ), "-o", out, *opts, "--", wl("pause"), *args],
             timeout=240, env=env)
    expect(cp.returncode == status,
           f"pause {args} {opts}: exit {cp.returncode}, expected {status}; "
           f"stdout {cp.stdout!r}, stderr {cp.stderr!r}")
    return out, cp


def near(got, want, what):
    """A CPU time the kernel counted: within 5% plus 50 ms."""
    expect(abs(got - want) <= 0.05 * want + 0.05, f"{what}: {got:.3f} s, expected {want:.3f} s")


def check_measured(rep, measured="measured_work", others=PHASES):
    """At least 95% of the phases' samples are the measured phase's."""
    n = {f: samples_of(rep, f) for f in set(others) | {measured}}
    whole = sum(n.values())
    expect(whole >= NEED, f"only {whole} samples in the phases {n}, need {NEED}")
    expect(n[measured] >= 0.95 * whole,
           f"{n[measured]} of the phases' {whole} samples in {measured}, expected >= 95%: {n}")
    return n[measured]


def check_profiled(proc, profiled, paused, what):
    """A process's CPU time split into profiled and paused as built, and its
    samples CPU x rate over the profiled part only."""
    near(proc["cpu_profiled_seconds"], profiled, f"{what}: profiled CPU")
    near(proc["cpu_paused_seconds"], paused, f"{what}: paused CPU")
    check_count(proc["samples"], proc["cpu_profiled_seconds"], rate(), f"{what}: samples")


def measured_run(tmp, name, mode, s, opts=()):
    """Run MODE for phases of S CPU seconds; it must say "MODE done", and
    the measured phase have at least 95% of the phases' samples: the
    report."""
    out, cp = profrun(tmp, name, mode, f"{s:.3f}", opts=opts)
    expect(cp.stdout == f"{mode} done\n", f"output {cp.stdout!r}")
    rep = report_json(out)
    check_measured(rep)
    return out, rep


def only_process(rep):
    expect(len(rep["processes"]) == 1, f"one process expected: {len(rep['processes'])}")
    return rep["processes"][0]


@case
def bracketed_part_has_its_samples_and_the_rest_is_paused(tmp):
    s = phase_seconds()
    out, rep = measured_run(tmp, "b.prof", "bracket", s)
    p = only_process(rep)
    check_profiled(p, s, 2 * s, "setup, measured, teardown")
    expect(p["pause"]["pauses"] == 2 and p["pause"]["resumes"] == 1 and
           p["pause"]["paused_at_end"], f"pause record {p['pause']}")
    near(rep["cpu_paused_seconds"], 2 * s, "the run's paused CPU")
    expect(abs(rep["rate_hz"] - rate()) <= 0.1 * rate(),
           f"effective rate {rep['rate_hz']} Hz over the profiled CPU, expected about {rate()}")
    th = p["threads"]
    expect(len(th) == 1, f"threads {th}")
    near(th[0]["paused_cpu_seconds"], 2 * s, "the thread's paused CPU")
    text = run([PROFRUN, "report", out]).stdout
    line = [l for l in text.splitlines() if l.strip().startswith("paused:")]
    expect(len(line) == 1 and "s profiled" in line[0], f"text report:\n{text}")


@case
def pause_from_another_thread_stops_the_worker(tmp):
    s = phase_seconds()
    _, rep = measured_run(tmp, "t.prof", "from-thread", s)
    th = only_process(rep)["threads"]
    workers = [t for t in th if not t["main"]]
    expect(len(workers) == 1, f"threads {th}")
    w = workers[0]
    near(w["paused_cpu_seconds"], 2 * s, "worker's paused CPU")
    check_count(w["samples"], w["cpu_seconds"] - w["paused_cpu_seconds"], rate(),
                "worker's samples over its profiled CPU")


@case
def bare_program_runs_the_same(tmp):
    # built with <profrun/profrun.h> and nothing else to link
    cp = run(["readelf", "-d", wl("pause")])
    if cp.returncode == 0:
        needed = [l for l in cp.stdout.splitlines() if "(NEEDED)" in l]
        expect(not any("profrun" in l or "libdl" in l for l in needed), f"NEEDED {needed}")
    cp = run([wl("pause"), "query"])
    expect(cp.returncode == 0 and
           cp.stdout == "query: paused 0 active 0, then paused 0 active 0\n",
           f"bare query: {cp.returncode} {cp.stdout!r} {cp.stderr!r}")
    _, cp = profrun(tmp, "q.prof", "query")
    expect(cp.stdout == "query: paused 1 active 0, then paused 0 active 1\n",
           f"query under profrun: {cp.stdout!r}")
    for args, want in ((["bracket", "0.2"], "bracket done\n"),
                       (["from-thread", "0.2"], "from-thread done\n"),
                       (["fork", "0.2"], "fork done\n")):
        bare = run([wl("pause"), *args])
        expect(bare.returncode == 0 and bare.stdout == want and bare.stderr == "",
               f"bare {args}: exit {bare.returncode}, {bare.stdout!r}, {bare.stderr!r}")
        _, cp = profrun(tmp, f"{args[0]}.prof", *args)
        expect(cp.stdout == bare.stdout, f"{args} under profrun: {cp.stdout!r}")


@case
def start_paused_samples_only_after_resume_and_exec_starts_paused(tmp):
    s = phase_seconds()
    _, rep = measured_run(tmp, "s.prof", "resume-only", s, opts=["--start-paused"])
    p = only_process(rep)
    expect(p["pause"]["start_paused"], f"pause record {p['pause']}")
    check_profiled(p, s, 2 * s, "--start-paused")
    # the shim alone, told by PROFRUN_START; the exec'd image starts paused
    # again and never resumes
    out = os.path.join(tmp, "e.prof")
    env = dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=out, PROFRUN_FREQ=str(FREQ),
               PROFRUN_START="paused")
    cp = run([wl("pause"), "exec", f"{s:.3f}"], env=env, timeout=240)
    expect(cp.returncode == 0 and cp.stdout == "burn done\n" and cp.stderr == "",
           f"exec under PROFRUN_START=paused: {cp.returncode} {cp.stdout!r} {cp.stderr!r}")
    rep = report_json(out)
    procs = rep["processes"]
    expect(len(procs) == 2, f"{len(procs)} images")
    first, second = procs
    check_profiled(first, s, 0, "the image that resumed")
    expect(second["samples"] == 0 and samples_of(rep, "busy_work") == 0,
           f"the exec'd image was sampled: {second['samples']}")
    expect(second["pause"]["start_paused"] and second["pause"]["resumes"] == 0,
           f"exec'd image's pause record {second['pause']}")
    near(second["cpu_paused_seconds"], s, "the exec'd image's paused CPU")


@case
def fork_child_inherits_the_state(tmp):
    s = phase_seconds()
    out, cp = profrun(tmp, "f.prof", "fork", f"{s:.3f}")
    expect(cp.stdout == "fork done\n", f"output {cp.stdout!r}")
    rep = report_json(out)
    procs = rep["processes"]
    expect(len(procs) == 3, f"{len(procs)} processes")
    kids = {p["pid"]: p for p in procs[1:]}
    paused = [p for p in kids.values() if p["pause"]["paused_at_end"]]
    running = [p for p in kids.values() if not p["pause"]["paused_at_end"]]
    expect(len(paused) == 1 and len(running) == 1,
           f"children's pause records {[p['pause'] for p in kids.values()]}")
    expect(paused[0]["samples"] == 0 and samples_of(rep, "paused_child_work") == 0,
           f"the child forked while paused has {paused[0]['samples']} samples")
    near(paused[0]["cpu_paused_seconds"], s, "paused child's paused CPU")
    check_profiled(running[0], s, 0, "the child forked while sampling")
    expect(samples_of(rep, "running_child_work") >= 0.95 * running[0]["samples"],
           "the running child's samples are not in running_child_work")


def member_pid(out):
    """The pid of the first member in the run directory OUT, once there."""
    for _ in range(2000):
        names = [n for n in os.listdir(out) if n.endswith(".prof")] if os.path.isdir(out) else []
        if names:
            return int(names[0].split(".")[0].split("-")[0])
        time.sleep(0.01)
    raise e2e.Failure(f"no member appeared in {out}")


@case
def toggle_signal_from_outside_pauses_and_resumes(tmp):
    s = phase_seconds()
    out = os.path.join(tmp, "g.prof")
    pr = subprocess.Popen([PROFRUN, "-q", "-F", str(FREQ), "-o", out, "--start-paused",
                           "--toggle-signal", "USR2", wl("pause"), "toggle", f"{s:.3f}"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    try:
        # first through profrun (which passes it on), then to the program
        for target in (pr.pid, None):
            line = pr.stdout.readline()
            expect(line == "toggle: ready\n", f"program said {line!r}")
            os.kill(target or member_pid(out), signal.SIGUSR2)
            pr.stdin.write("go\n")
            pr.stdin.flush()
        rest, err = pr.communicate(timeout=240)
    finally:
        if pr.poll() is None:
            pr.kill()
    expect(pr.returncode == 0 and rest == "toggle done\n" and err == "",
           f"exit {pr.returncode}, stdout {rest!r}, stderr {err!r}")
    rep = report_json(out)
    check_measured(rep)
    p = only_process(rep)
    expect(p["pause"]["toggle_signal"] == signal.SIGUSR2 and p["pause"]["resumes"] == 1 and
           p["pause"]["pauses"] == 2, f"pause record {p['pause']}")
    check_profiled(p, s, 2 * s, "toggled from outside")


@case
def program_handling_the_signal_gets_it_back(tmp):
    s = phase_seconds(NEED / 2)
    bare = run([wl("pause"), "handles", "0.1"])
    expect(bare.stdout == "handles: handler ran 1 times\n", f"bare: {bare.stdout!r}")
    out, cp = profrun(tmp, "h.prof", "handles", f"{s:.3f}", opts=["--toggle-signal", "USR2"])
    expect(cp.stdout == bare.stdout, f"the program's handler did not run: {cp.stdout!r}")
    lines = cp.stderr.splitlines()
    expect(len(lines) == 1 and lines[0].startswith("profrun: ") and
           f"handles the toggle signal (signal {int(signal.SIGUSR2)}) itself" in lines[0],
           f"stderr {cp.stderr!r}")
    rep = report_json(out)
    p = only_process(rep)
    expect(p["pause"]["toggle_given_back"] and p["pause"]["pauses"] == 0,
           f"pause record {p['pause']}")
    # profiling goes on as without the option
    check_profiled(p, p["cpu_seconds"], 0, "after giving the signal back")


@case
def unusable_toggle_signals_refused_up_front(tmp):
    out = os.path.join(tmp, "never.prof")
    for args in (["--toggle-signal", "KILL"], ["--toggle-signal", "PROF"],
                 ["--toggle-signal", "CHLD"], ["--toggle-signal", "SEGV"],
                 ["--toggle-signal", "NOPE"], ["--toggle-signal", "RTMIN+999"],
                 ["--delay", "soon"], ["--duration", "-1"]):
        cp = run([PROFRUN, "-o", out, *args, wl("pause"), "burn", "0.1"])
        one_line_error(cp, f"profrun {' '.join(args)}")
        expect(cp.returncode == 64 and cp.stdout == "", f"{args}: exit {cp.returncode}")
    # ignored where profrun starts: the program would inherit SIG_IGN
    cp = run([PROFRUN, "-o", out, "--toggle-signal", "USR1", wl("pause"), "burn", "0.1"],
             preexec_fn=lambda: signal.signal(signal.SIGUSR1, signal.SIG_IGN))
    line = one_line_error(cp, "an ignored toggle signal")
    expect(cp.returncode == 64 and "ignored" in line and cp.stdout == "",
           f"exit {cp.returncode}: {cp.stderr!r}")
    expect(not os.path.exists(out), "a refused run left a profile")
    # the shim alone: one line, and the program runs
    env = dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=os.path.join(tmp, "s.prof"),
               PROFRUN_TOGGLE_SIGNAL="9")
    cp = run([wl("pause"), "burn", "0.1"], env=env)
    expect(cp.returncode == 0 and cp.stdout == "burn done\n" and
           len(cp.stderr.splitlines()) == 1 and "PROFRUN_TOGGLE_SIGNAL" in cp.stderr,
           f"shim alone with signal 9: {cp.returncode} {cp.stdout!r} {cp.stderr!r}")


@case
def delay_and_duration_window_on_cpu_time(tmp):
    b = phase_seconds()
    a = c = b / 2
    out, cp = profrun(tmp, "w.prof", "window", f"{a:.3f}", f"{b:.3f}", f"{c:.3f}",
                      opts=["--delay", f"{a:.3f}", "--duration", f"{b:.3f}"])
    expect(cp.stdout == "window done\n", f"output {cp.stdout!r}")
    rep = report_json(out)
    check_measured(rep, "middle_work", ("early_work", "middle_work", "late_work"))
    p = only_process(rep)
    expect(p["pause"]["cpu_window"], f"pause record {p['pause']}")
    check_profiled(p, b, a + c, "--delay --duration")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_pause.py"))
