#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whole runs: fork, exec, spawn, daemons, threads, rival users of SIGPROF,
the sampling rate, and bad input.  Each case runs real workloads
(tests/workloads/family.c, threads.c, rival.c, observe.c, split.c built
with -pg) under profrun and checks both the report and the program's own
behaviour (exit status, stdout).

Usage: e2e_runs.py CASE (meson test runs one case per test; exit 0 pass,
1 fail, 77 skip).  Same environment, sample counts and tolerances as
e2e.py: each workload runs for the CPU time that gives the samples a check
needs at the rate to expect (-F 1000 capped by the kernel's tick), and
longer while it falls short (e2e.gather); a share is checked on at least
NEED = 400 samples, within 5 standard deviations plus 2 points."""

import json
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, SHIM, Failure, Skip, check_count, check_share, cpu_for,  # noqa: E402
                 expect, gather, hot_ab, one_line_error, report_json, run, sample_rate,
                 samples_of, tick_hz, wl)
import e2e  # noqa: E402
import mkprofile  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def profrun(tmp, name, *args, status=0, quiet=True, freq="1000", **kw):
    """Run ARGS under profrun -F FREQ into TMP/NAME; check the exit status."""
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, *(["-q"] if quiet else []), "-F", freq, "-o", out, "--",
              *args], **kw)
    expect(cp.returncode == status,
           f"{os.path.basename(str(args[0]))} {args[1:]}: exit {cp.returncode}, "
           f"expected {status}; stdout {cp.stdout!r}, stderr {cp.stderr!r}")
    return out, cp


def gathered(tmp, name, need, args_for, seconds=None, **kw):
    """profrun(TMP, NAME, *ARGS_FOR(seconds), **KW) with the CPU seconds
    that give the samples NEED(report) asks for ([(got, needed), ...]),
    again for longer while they fall short: (profile path, the completed
    process, the JSON report)."""
    def attempt(secs):
        out, cp = profrun(tmp, name, *args_for(float(secs)), **kw)
        rep = report_json(out)
        return (out, cp, rep), need(out, rep)
    return gather(attempt, seconds or cpu_for(NEED))


def secs(x):
    return f"{x:.2f}"


def by_pid(path, pid):
    return report_json(path, "--pid", str(pid))


def procs_of(rep, exe_name):
    return [p for p in rep["processes"] if os.path.basename(p["exe"]) == exe_name]


def hot_fc(rep):
    return samples_of(rep, "parent_hot"), samples_of(rep, "child_hot")


def record_fork(tmp, name, status=0, **kw):
    """family fork: parent_hot and child_hot burn 4:3 of the CPU seconds,
    until they have NEED samples together and each process NEED / 4; the
    child exits STATUS: (profile path, completed process, JSON report)."""
    def need(out, rep):
        mains = [by_pid(out, p["pid"])["samples"]["main"] for p in rep["processes"]]
        return [(sum(hot_fc(rep)), NEED)] + [(m, NEED / 4) for m in mains]
    out, cp, rep = gathered(tmp, name, need, lambda s: (
        wl("family"), "fork", secs(s * 4 / 7), secs(s * 3 / 7), str(status)), **kw)
    expect(cp.stdout == f"fork: child exit {status}\n", f"program output {cp.stdout!r}")
    expect(len(rep["processes"]) == 2, f"expected parent and child, got {rep['processes']}")
    return out, cp, rep


@case
def fork_child_profile_is_separate(tmp):
    out, cp, rep = record_fork(tmp, "fork.prof", 7)
    procs = rep["processes"]
    expect(len(procs) == 2, f"expected parent and child, got {procs}")
    parent, child = procs
    expect(child["ppid"] == parent["pid"], f"child's ppid {child['ppid']} != {parent['pid']}")
    expect(parent["exit"] == 0 and child["exit"] == 7 and rep["complete"],
           f"recorded exits {parent['exit']}, {child['exit']}")
    for who, own, other in ((parent, "parent_hot", "child_hot"),
                            (child, "child_hot", "parent_hot")):
        one = by_pid(out, who["pid"])
        expect(samples_of(one, own) >= 0.9 * one["samples"]["main"],
               f"pid {who['pid']}: {own} has {samples_of(one, own)} of "
               f"{one['samples']['main']} samples")
        expect(samples_of(one, other) <= 2,
               f"{other} counted in pid {who['pid']}: {samples_of(one, other)} samples")
    # merged: each process counted once, nothing shared
    expect(sum(pr["samples"] for pr in procs) == rep["samples"]["total"],
           "per-process samples do not add up to the run's")
    p, c = hot_fc(rep)
    check_share(p, p + c, 4 / 7, "parent_hot vs child_hot (built 4:3)")


@case
def fork_then_exec_profiles_both_images(tmp):
    out, cp, rep = gathered(tmp, "fe.prof", lambda _, rep: [(sum(hot_ab(rep)), NEED)],
                            lambda s: (wl("family"), "forkexec", "0.3", wl("split"),
                                       secs(s), "3", "1"))
    expect(cp.stdout.endswith("forkexec: child exit 0\n") and "split done" in cp.stdout,
           f"program output {cp.stdout!r}")
    fam, spl = procs_of(rep, "family"), procs_of(rep, "split")
    expect(len(spl) == 1 and len(fam) == 2,
           f"expected family, its fork child and split: {rep['processes']}")
    child = [p for p in fam if p["pid"] == spl[0]["pid"]]
    expect(len(child) == 1 and child[0]["exit"] is None and child[0]["complete"],
           f"the forked image that exec'd is not recorded as exec'd: {fam}")
    expect(spl[0]["complete"] and spl[0]["exit"] == 0, f"split: {spl[0]}")
    a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
    check_share(a, a + b, 0.75, "exec'd split: hot_a vs hot_b")
    # the executables' functions (libraries and the vdso aside)
    mods = {f["module"] for f in report_json(out, "--main-only")["functions"]}
    expect({os.path.basename(m) for m in mods} == {"family", "split"},
           f"functions not keyed by module: {mods}")


@case
def exec_chain_through_every_wrapper_ends_in_static_binary(tmp):
    # 9 execs of itself through execv, execvp, execve, execvpe, execl,
    # execlp, execle, fexecve, execveat, then a static binary that must not
    # die of "Profiling timer expired" and whose exit status is the run's;
    # each of the 10 images burns a tenth of the CPU seconds in chain_hot
    need = NEED * 3 / 4
    out, cp, rep = gathered(tmp, "chain.prof", lambda _, rep: [(samples_of(rep, "chain_hot"), need)],
                            lambda s: (wl("family"), "chain", "9", "5", wl("outcome-static"),
                                       secs(s / 10)), seconds=cpu_for(need), status=5)
    expect(cp.stdout == "outcome exit:5\n", f"static binary's output {cp.stdout!r}")
    procs = rep["processes"]
    expect(len(procs) == 10 and len({p["pid"] for p in procs}) == 1,
           f"expected 10 images of one process: {procs}")
    expect(all(p["complete"] and p["exit"] is None for p in procs),
           f"every image must end as exec'd: {procs}")
    expect(len(os.listdir(out)) == 10, f"members: {sorted(os.listdir(out))}")
    chain = samples_of(rep, "chain_hot")
    expect(chain >= 0.9 * rep["samples"]["main"],
           f"{chain} of {rep['samples']['main']} samples in chain_hot over 10 images")


@case
def failed_exec_keeps_profiling(tmp):
    out, cp, rep = gathered(tmp, "ef.prof", lambda _, rep: [(rep["samples"]["main"], NEED)],
                            lambda s: (wl("family"), "execfail", secs(s)))
    expect(cp.stdout == "execfail: ENOENT each time\n", f"program output {cp.stdout!r}")
    expect(len(rep["processes"]) == 1, f"a failed exec made a new profile: {rep['processes']}")
    p = rep["processes"][0]
    expect(p["complete"] and p["exit"] == 0, f"process recorded as {p}")
    check_share(samples_of(rep, "after_fail"), rep["samples"]["main"], 0.99,
                "after_fail, after three failed execs")
    expect(rep["rate_hz"] >= 0.6 * sample_rate(),
           f"rate after failed execs {rep['rate_hz']} Hz, expected about {sample_rate()}")


@case
def many_forks_all_succeed(tmp):
    out, cp = profrun(tmp, "many.prof", wl("family"), "many", "200", "64")
    expect(cp.stdout == "many: 200 of 200 ok\n", f"program output {cp.stdout!r}")
    rep = report_json(out)
    procs = rep["processes"]
    expect(len(procs) == 201, f"{len(procs)} processes recorded, expected 201")
    parent = procs[0]
    expect(all(p["ppid"] == parent["pid"] for p in procs[1:]), "a child has the wrong ppid")
    text = run([PROFRUN, "report", out]).stdout
    expect(len(text.splitlines()) < 20,
           f"200 sample-less children clutter the report:\n{text[:800]}")
    idle = sum(1 for p in procs if p["samples"] == 0)
    expect(idle == 0 or f"{idle} without samples" in text,
           f"run line does not count the {idle} without samples:\n{text[:400]}")


@case
def vfork_and_posix_spawn_are_profiled(tmp):
    # three children run split for a third of the CPU seconds each
    out, cp, rep = gathered(tmp, "sp.prof", lambda _, rep: [(sum(hot_ab(rep)), NEED)],
                            lambda s: (wl("family"), "spawn", wl("split"), secs(s / 3)))
    expect(cp.stdout.count("split done") == 3 and "vfork: exit 0" in cp.stdout and
           "vfork+_exit: exit 5" in cp.stdout and
           "posix_spawn: exit 0" in cp.stdout and "posix_spawnp: exit 0" in cp.stdout,
           f"program output {cp.stdout!r}")
    fam, spl = procs_of(rep, "family"), procs_of(rep, "split")
    expect(len(fam) == 1 and fam[0]["exit"] == 0,
           f"the parent's profile was ended by its vfork child: {fam}")
    expect(len(spl) == 3 and all(p["complete"] and p["exit"] == 0 and
                                 p["ppid"] == fam[0]["pid"] for p in spl),
           f"spawned children: {spl}")
    a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
    check_share(a, a + b, 0.75, "three spawned splits: hot_a vs hot_b")


@case
def cleared_environments_are_profiled_unless_exact_env(tmp):
    """env -i, execve and posix_spawn with an environment of the program's
    own, clearenv() then execv: each child lacks LD_PRELOAD and PROFRUN_*,
    which the shim puts back, so the child is profiled (its CPU time, at the
    tick's rate, within e2e.check_count's tolerance) and still sees the
    variable it was given; the parent's report notes it.  With --exact-env
    the child runs unprofiled and the report says that too."""
    split_seconds = 0.3
    check = ("test \"$OWNENV\" = 1 && exec " + wl("split") + " " +
             secs(split_seconds) + " 1 1")
    out, cp = profrun(tmp, "envi.prof", "env", "-i", "OWNENV=1", "sh", "-c", check)
    rep = report_json(out)
    spl, env = procs_of(rep, "split"), procs_of(rep, "env")
    expect(len(spl) == 1 and spl[0]["complete"] and spl[0]["exit"] == 0,
           f"env -i: the program is not profiled: {rep['processes']}")
    check_count(spl[0]["samples"], spl[0]["cpu_profiled_seconds"], e2e.sample_rate(1000),
                "env -i: split")
    expect(len(env) == 1 and env[0]["exec_environment"] == "restored",
           f"env -i: not noted as restored: {env}")
    cp = run([PROFRUN, "report", out])
    expect("were put back" in cp.stderr + cp.stdout, f"the report does not say so: {cp.stderr!r}")

    out, cp = profrun(tmp, "own.prof", wl("family"), "ownenv", "/bin/sh", "-c", check)
    rep = report_json(out)
    spl, fam = procs_of(rep, "split"), procs_of(rep, "family")
    expect(cp.stdout.count("split done") == 3 and cp.stdout.count(": exit 0") == 3,
           f"ownenv: program output {cp.stdout!r}")
    expect(len(spl) == 3 and all(p["complete"] and p["exit"] == 0 and p["samples"] > 0
                                 for p in spl),
           f"ownenv: children not all profiled: {rep['processes']}")
    # the parent (vfork+execve, posix_spawn) and its fork child (execv)
    expect(len(fam) == 2 and all(p["exec_environment"] == "restored" for p in fam),
           f"ownenv: the parent and its fork child do not note it: {fam}")

    out = os.path.join(tmp, "exact.prof")
    cp = run([PROFRUN, "--exact-env", "-o", out, "--", "env", "-i", "OWNENV=1", "sh", "-c", check])
    expect(cp.returncode == 0 and "split done" in cp.stdout, f"--exact-env: {cp.stderr!r}")
    rep = report_json(out)
    expect(not procs_of(rep, "split") and
           [p["exec_environment"] for p in procs_of(rep, "env")] == ["left"],
           f"--exact-env: {rep['processes']}")
    expect("not profiled" in cp.stderr, f"--exact-env: the report does not say so: {cp.stderr!r}")


@case
def sanitized_programs_are_profiled(tmp):
    """Programs built with -fsanitize=address (whose runtime refuses to
    start unless it comes first in the library list) and
    -fsanitize=undefined run under profrun as bare: the same output, no
    word from the sanitizer, exit 0, and the 3:1 split of hot_a and hot_b.
    An ASan program that a shell starts through env -i with ASAN_OPTIONS
    of its own is profiled too."""
    for name in ("split-asan", "split-ubsan"):
        if not os.path.exists(wl(name)):
            raise Skip(f"{name} was not built (the compiler lacks the sanitizer)")
        bare = run([wl(name), "0.2", "3", "1"])
        expect(bare.returncode == 0 and bare.stdout.startswith("split done"),
               f"bare {name}: exit {bare.returncode} {bare.stderr!r}")
    out, cp, rep = gathered(tmp, "asan.prof", lambda _, rep: [(sum(hot_ab(rep)), NEED)],
                            lambda s: (wl("split-asan"), secs(s), "3", "1"))
    expect(cp.stdout.startswith("split done") and cp.stderr == "",
           f"split-asan under profrun: {cp.stdout!r} {cp.stderr!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, "split-asan: hot_a vs hot_b")
    for name, how in (("split-ubsan", f"{wl('split-ubsan')} 0.3 1 1"),
                      ("split-asan", f"env -i ASAN_OPTIONS=detect_leaks=1 {wl('split-asan')} 0.3 1 1")):
        out, cp = profrun(tmp, f"{name}-sh.prof", "sh", "-c", f"exec {how}")
        spl = procs_of(report_json(out), name)
        expect(cp.stdout.startswith("split done") and cp.stderr == "" and len(spl) == 1 and
               spl[0]["complete"] and spl[0]["exit"] == 0 and spl[0]["samples"] > 0,
               f"{how}: {spl} {cp.stderr!r}")


@case
def daemon_closing_descriptors_is_profiled(tmp):
    def attempt(seconds):
        out, cp = profrun(tmp, "dm.prof", wl("family"), "daemon", seconds, cwd=tmp)
        expect(cp.stdout == "daemon: started (0)\n", f"program output {cp.stdout!r}")
        # the daemon outlives profrun: wait for it (its CPU seconds at a
        # quarter of a core, and 15 s more)
        deadline = time.time() + 15 + 4 * float(seconds)
        while True:
            rep = report_json(out)
            d = [p for p in rep["processes"] if p["samples"] > 0 and p["pid"] not in
                 (rep["processes"][0]["pid"],)]
            if d and d[0]["complete"] or time.time() > deadline:
                break
            time.sleep(0.2)
        expect(len(rep["processes"]) == 3, f"expected 3 processes: {rep['processes']}")
        expect(d and d[0]["complete"] and d[0]["exit"] == 0, f"daemon never finished: {d}")
        one = by_pid(out, d[0]["pid"])
        return one, [(one["samples"]["main"], NEED)]
    one = gather(attempt, cpu_for(NEED))
    check_share(samples_of(one, "daemon_hot"), one["samples"]["main"], 0.99,
                "daemon_hot in the daemon (setsid, chdir /, every fd closed)")


@case
def shell_script_merges_programs_by_module(tmp):
    script = os.path.join(tmp, "several.sh")

    def script_of(seconds):
        """split, outcome and split again, a third of SECONDS each"""
        third = secs(seconds / 3)
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\n{wl('split')} {third} 1 1\n{wl('outcome')} exit:0 {third}\n"
                    f"{wl('split')} {third} 1 1\ntrue\necho script done\n")
        os.chmod(script, 0o755)
        return (script,)

    def need(_, rep):
        return [(sum(hot_ab(rep)) + samples_of(rep, "spin"), NEED)]
    out, cp, rep = gathered(tmp, "sh.prof", need, script_of, quiet=False)
    expect(cp.stdout.count("split done") == 2 and "outcome exit:0\n" in cp.stdout and
           cp.stdout.endswith("script done\n"), f"script output {cp.stdout!r}")
    ab = sum(hot_ab(rep))
    spin = samples_of(rep, "spin")
    check_share(ab, ab + spin, 2.0 / 3.0, "split (2 x 1/3) vs outcome (1/3) across the script")
    expect(len(procs_of(rep, "split")) == 2 and len(procs_of(rep, "outcome")) == 1,
           f"processes: {[(p['pid'], p['exe']) for p in rep['processes']]}")
    for f in rep["functions"]:
        expect(f.get("module"), f"function without module: {f}")
    expect(" module " in cp.stderr and "outcome" in cp.stderr,
           f"text report does not show modules:\n{cp.stderr}")


@case
def threads_split_matches_construction(tmp):
    # each of the 4 threads runs for a quarter of the CPU seconds; whether
    # their samples fall short of CPU time x rate (one process-wide timer)
    # or not (a timer per thread), gather() runs them until hot_a and hot_b
    # have NEED samples
    out, cp, rep = gathered(tmp, "th.prof", lambda _, rep: [(sum(hot_ab(rep)), NEED)],
                            lambda s: (wl("threads"), secs(s / 4)), quiet=False)
    expect(cp.stdout.startswith("threads done"), f"program output {cp.stdout!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, "4 threads: hot_a (3 threads) vs hot_b (1 thread)")
    # the shortfall line appears exactly when fewer than 75% of the samples
    # CPU time x rate allows arrived (the JSON rounds the rate to 0.01 Hz:
    # within that of the limit, either is right)
    limit = 0.75 * sample_rate()
    shown = "shortfall:" in cp.stderr
    expect(shown or rep["rate_hz"] >= limit - 0.01,
           f"rate {rep['rate_hz']} Hz, below {limit} Hz, but no shortfall line:\n{cp.stderr}")
    expect(not shown or rep["rate_hz"] <= limit + 0.01,
           f"rate {rep['rate_hz']} Hz, not below {limit} Hz, but a shortfall line:\n{cp.stderr}")


@case
def rival_sigprof_handler_keeps_working(tmp):
    for how in ("sigaction", "signal"):
        out, cp = profrun(tmp, f"rv-{how}.prof", wl("rival"), how, "1.0", quiet=False)
        expect(cp.stdout == f"rival {how}: own handler and timer work\n",
               f"{how}: program output {cp.stdout!r}")
        lines = [l for l in cp.stderr.splitlines() if "incomplete" in l]
        expect(len(lines) == 1 and "SIGPROF handler" in lines[0],
               f"{how}: expected one 'incomplete' line with the reason:\n{cp.stderr}")
        expect("shortfall" not in cp.stderr, f"{how}: a rival is not a shortfall")
        p = report_json(out)["processes"][0]
        expect(p["stopped_early"] and "SIGPROF" in p["stopped_early"], f"JSON: {p}")


@case
def pg_program_keeps_its_gmon_out(tmp):
    out, cp = profrun(tmp, "pg.prof", wl("split-pg"), "2.0", "3", "1", quiet=False, cwd=tmp)
    expect(cp.stdout.startswith("split done"), f"program output {cp.stdout!r}")
    gmon = os.path.join(tmp, "gmon.out")
    expect(os.path.exists(gmon), "gmon.out was not written")
    with open(gmon, "rb") as f:
        expect(f.read(4) == b"gmon", "gmon.out is not a gmon file")
    lines = [l for l in cp.stderr.splitlines() if "incomplete" in l]
    expect(len(lines) == 1 and "-pg" in lines[0], f"expected one line naming -pg:\n{cp.stderr}")
    if not shutil.which("gprof"):
        raise Skip("gprof is not installed: gmon.out checked by its header only")
    gp = run(["gprof", "-p", "-b", wl("split-pg"), gmon])
    expect(gp.returncode == 0, f"gprof failed (exit {gp.returncode}): {gp.stderr}")
    rows = {l.split()[-1]: float(l.split()[0]) for l in gp.stdout.splitlines()
            if l.strip().endswith(("hot_a", "hot_b"))}
    expect("hot_a" in rows and rows["hot_a"] > 50,
           f"gprof's own profile lost its samples: {gp.stdout[:400]}")


@case
def program_sees_no_difference(tmp):
    # observe spins three times (twice in the parent, once in its child)
    def attempt(seconds):
        plain = run([wl("observe"), seconds], cwd=tmp)
        expect(plain.returncode == 0, f"observe alone: {plain.returncode}")
        out, cp = profrun(tmp, "ob.prof", wl("observe"), seconds, cwd=tmp)
        expect(cp.stdout == plain.stdout,
               "the program sees a difference under profrun:\n" +
               "\n".join(l for l in cp.stdout.splitlines() if l not in plain.stdout.splitlines()))
        rep = report_json(out)
        expect(len(rep["processes"]) == 2, f"observe was not profiled: {rep['processes']}")
        return rep, [(samples_of(rep, "spin"), NEED / 2)]
    gather(attempt, float(cpu_for(NEED / 2)) / 3)


@case
def rate_capped_by_tick_is_reported_once(tmp):
    tick = tick_hz()
    if not tick:
        raise Skip("the kernel's tick is not known here")
    freq = 4 * tick
    out, cp, rep = record_fork(tmp, "r.prof", freq=str(freq), quiet=False)
    rate_lines = [l for l in cp.stderr.splitlines() if "kernel" in l and "tick" in l]
    expect(len(rate_lines) == 1 and f"requested {freq} Hz" in rate_lines[0] and
           f"kernel's {tick} Hz tick" in rate_lines[0],
           f"expected one line saying the {tick} Hz tick capped {freq} Hz:\n{cp.stderr}")
    expect(0.5 * tick <= rep["rate_hz"] <= 1.5 * tick,
           f"effective rate {rep['rate_hz']} Hz at a {tick} Hz tick")
    # the JSON rounds to 0.01 Hz and the text to 0.1 Hz: rounding twice may
    # move the last digit, so compare the numbers, not the strings
    shown = re.search(r"rate: ([0-9.]+) Hz effective", rate_lines[0])
    expect(shown and abs(float(shown.group(1)) - rep["rate_hz"]) <= 0.051,
           f"the effective, measured rate ({rep['rate_hz']} Hz) is not shown: {rate_lines[0]}")
    # a shortfall is measured against the tick, not the rate asked for
    expect("shortfall" not in cp.stderr, f"false shortfall:\n{cp.stderr}")
    # crafted: half the samples the tick allows -> one shortfall line
    d = os.path.join(tmp, "crafted")
    os.mkdir(d)
    args = dict(exe=wl("split"), recorded_exe=None, text=None, bucket_size=2,
                sample=[], symbol=["hot_a=250"], outside=0, state="exited", exit=0,
                flags=2, note="", cpu_ms=2000, rate=1000, tick_hz=250, pid=10, ppid=1,
                build_id="auto", version=1, min_version=1)
    with open(os.path.join(d, "10.prof"), "wb") as f:
        f.write(mkprofile.build(type("A", (), args)))
    text = run([PROFRUN, "report", d]).stdout
    expect(text.count("shortfall:") == 1 and "500 expected" in text,
           f"no shortfall line for 250 samples in 2 s at a 250 Hz tick:\n{text}")


@case
def rate_below_default_is_honoured(tmp):
    # below every tick (100 Hz and up); CPU time for some 225 samples, so
    # that 5 standard deviations of the count stay well away from the
    # default 100 Hz (the count is not gathered: it is what is checked)
    out, _ = profrun(tmp, "low.prof", wl("split"), cpu_for(150, freq=50), freq="50")
    rep = report_json(out)
    check_count(rep["samples"]["total"], rep["cpu_seconds"], 50, "-F 50")


@case
def bad_rate_refused_before_start(tmp):
    marker = os.path.join(tmp, "ran")
    for args, env in ((["-F", "0"], {}), (["-F", "-5"], {}), (["-F", "1e9"], {}),
                      (["-F", "100001"], {}), ([], {"PROFRUN_FREQ": "0"}),
                      ([], {"PROFRUN_FREQ": "fast"})):
        cp = run([PROFRUN, *args, "-o", os.path.join(tmp, "b.prof"), "sh", "-c",
                  f"touch {marker}"], env=dict(os.environ, **env))
        line = one_line_error(cp, f"{args or env}")
        expect(cp.returncode == 64, f"{args or env}: exit {cp.returncode}")
        expect("rate" in line, f"{args or env}: message does not say what is wrong: {line}")
        expect(not os.path.exists(marker), f"{args or env}: the program ran anyway")
    # the shim alone: one warning line, the program unharmed
    env = dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=os.path.join(tmp, "s.prof"),
               PROFRUN_FREQ="0")
    cp = run([wl("outcome"), "exit:3", "0.1"], env=env)
    expect(cp.returncode == 3 and cp.stdout == "outcome exit:3\n", f"program harmed: {cp}")
    expect(len(cp.stderr.splitlines()) == 1 and "PROFRUN_FREQ" in cp.stderr,
           f"shim: expected one warning, got {cp.stderr!r}")


@case
def pid_selects_and_unknown_pid_refused(tmp):
    out, _, rep = record_fork(tmp, "pid.prof")
    parent, child = rep["processes"]
    one = by_pid(out, child["pid"])
    expect([p["pid"] for p in one["processes"]] == [child["pid"]], "--pid did not select")
    expect(samples_of(one, "parent_hot") <= 2 and samples_of(one, "child_hot") >= NEED / 5,
           f"--pid {child['pid']} shows {one['functions']}")
    text = run([PROFRUN, "report", "--by-process", out]).stdout
    expect(text.count("\n== ") == 2, f"--by-process did not split:\n{text}")
    cp = run([PROFRUN, "report", "--pid", "999999999", out])
    line = one_line_error(cp, "--pid not in the run")
    expect("999999999" in line, f"message does not name the pid: {line}")


@case
def damaged_member_does_not_hide_healthy_ones(tmp):
    out, _, _ = record_fork(tmp, "dmg.prof")
    members = sorted(os.listdir(out))
    expect(len(members) == 2, f"members {members}")
    bad = os.path.join(out, members[1])
    with open(bad, "r+b") as f:
        f.truncate(300)
    cp = run([PROFRUN, "report", "--format", "json", out])
    expect(cp.returncode == 3, f"a partial report exits 3, not {cp.returncode}: {cp.stderr}")
    warn = [l for l in cp.stderr.splitlines() if l.strip()]
    expect(len(warn) == 2 and members[1] in warn[0] and "skipped" in warn[0]
           and "partial report" in warn[1],
           f"expected a line naming the skipped member, one saying partial: {cp.stderr!r}")
    rep = json.loads(cp.stdout)
    expect(len(rep["processes"]) == 1 and samples_of(rep, "parent_hot") >= NEED / 5,
           f"the healthy member is not reported: {rep['processes']}")
    expect(rep["partial"] is True and rep["unreadable"] == 1
           and [os.path.basename(u["path"]) for u in rep["unreadable_members"]] == [members[1]]
           and "truncated" in rep["unreadable_members"][0]["reason"],
           f"the JSON does not name the unreadable member: {rep['unreadable_members']}")
    text = run([PROFRUN, "report", out])
    expect(text.returncode == 3 and "unreadable: 1 member left out" in text.stdout
           and members[1] in text.stdout,
           f"the text header does not name it (exit {text.returncode}):\n{text.stdout}")


def limited_as(limit):
    import resource
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@case
def report_short_of_memory_says_it_is_partial(tmp):
    """Members of an 8 MiB histogram each (read whole, then 512 KiB kept):
    under a series of address-space limits, every report is complete
    (exit 0), partial and says so (exit 3, the JSON naming each member left
    out), or refused in one line (exit 1); never a silent quarter."""
    if os.environ.get("PROFRUN_SANITIZED") == "1":
        # AddressSanitizer reserves terabytes of shadow at start
        raise e2e.Skip("an address-space limit leaves a sanitized CLI no room to start")
    split = wl("split")
    lo = mkprofile.exec_text(split)[0] & ~1
    nb = 4 << 20
    args = dict(exe=split, recorded_exe=None, text=(lo, lo + 2 * nb),
                bucket_size=2, sample=["%d=1" % (lo + 256 * i) for i in range(nb // 128)],
                symbol=[], outside=0, state="exited", exit=0, flags=0, note="",
                cpu_ms=10, rate=1000, pid=100, ppid=1, build_id="auto",
                version=1, min_version=1)
    seed = os.path.join(tmp, "seed.prof")
    with open(seed, "wb") as f:
        f.write(mkprofile.build(type("A", (), args)))
    d = os.path.join(tmp, "many.prof")
    os.mkdir(d)
    n = 60
    for i in range(n):
        os.link(seed, os.path.join(d, "%d.prof" % (1000 + i)))
    seen = {}
    for mib in (4096, 48, 40, 36, 32, 28, 24):
        cp = run([PROFRUN, "report", "--format", "json", d],
                 preexec_fn=limited_as(mib << 20))
        seen[mib] = cp.returncode
        if cp.returncode == 1:
            expect(cp.stdout == "" and "out of memory" in cp.stderr,
                   f"{mib} MiB: exit 1 without saying why: {cp.stderr[-300:]!r}")
            continue
        expect(cp.returncode in (0, 3), f"{mib} MiB: exit {cp.returncode}: {cp.stderr[-300:]!r}")
        rep = json.loads(cp.stdout)
        left = rep["unreadable"]
        expect(len(rep["processes"]) + left == n,
               f"{mib} MiB: {len(rep['processes'])} reported + {left} unreadable != {n}")
        expect((left > 0) == (cp.returncode == 3) == rep["partial"],
               f"{mib} MiB: exit {cp.returncode} with {left} members left out")
        expect(len(rep["unreadable_members"]) == left and all(
            "out of memory" in u["reason"] for u in rep["unreadable_members"]),
            f"{mib} MiB: {rep['unreadable_members'][:3]}")
        expect(rep["samples"]["total"] == len(rep["processes"]) * (nb // 128),
               f"{mib} MiB: total {rep['samples']['total']}")
    expect(seen[4096] == 0, f"the full report failed: {seen}")
    expect(3 in seen.values(), f"no limit gave a partial report: {seen}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_runs.py"))
