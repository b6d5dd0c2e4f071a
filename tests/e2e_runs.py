#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whole runs: fork, exec, spawn, daemons, threads, rival users of SIGPROF,
the sampling rate, and bad input.  Each case runs real workloads
(tests/workloads/family.c, threads.c, rival.c, observe.c, split.c built
with -pg) under profrun and checks both the report and the program's own
behaviour (exit status, stdout).

Usage: e2e_runs.py CASE (meson test runs one case per test; exit 0 pass,
1 fail, 77 skip).  Same environment and tolerances as e2e.py: at -F 1000
the kernel's 250 Hz tick gives about 250 samples per CPU-second; a share
is checked on at least 400 samples, within 5 standard deviations plus 2
points."""

import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (PROFRUN, SHIM, Failure, check_share, expect, one_line_error,  # noqa: E402
                 report_json, run, samples_of, wl)
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


def by_pid(path, pid):
    return report_json(path, "--pid", str(pid))


def procs_of(rep, exe_name):
    return [p for p in rep["processes"] if os.path.basename(p["exe"]) == exe_name]


@case
def fork_child_profile_is_separate(tmp):
    out, cp = profrun(tmp, "fork.prof", wl("family"), "fork", "1.2", "0.9", "7")
    expect(cp.stdout == "fork: child exit 7\n", f"program output {cp.stdout!r}")
    rep = report_json(out)
    procs = rep["processes"]
    expect(len(procs) == 2, f"expected parent and child, got {procs}")
    parent, child = procs
    expect(child["ppid"] == parent["pid"], f"child's ppid {child['ppid']} != {parent['pid']}")
    expect(parent["exit"] == 0 and child["exit"] == 7 and rep["complete"],
           f"recorded exits {parent['exit']}, {child['exit']}")
    for who, own, other in ((parent, "parent_hot", "child_hot"),
                            (child, "child_hot", "parent_hot")):
        one = by_pid(out, who["pid"])
        expect(samples_of(one, own) >= 0.9 * one["samples"]["main"] > 100,
               f"pid {who['pid']}: {own} has {samples_of(one, own)} of "
               f"{one['samples']['main']} samples")
        expect(samples_of(one, other) <= 2,
               f"{other} counted in pid {who['pid']}: {samples_of(one, other)} samples")
    # merged: each process counted once, nothing shared
    expect(sum(pr["samples"] for pr in procs) == rep["samples"]["total"],
           "per-process samples do not add up to the run's")
    p, c = samples_of(rep, "parent_hot"), samples_of(rep, "child_hot")
    check_share(p, p + c, 1.2 / 2.1, "parent_hot vs child_hot (built 1.2:0.9 s)")


@case
def fork_then_exec_profiles_both_images(tmp):
    out, cp = profrun(tmp, "fe.prof", wl("family"), "forkexec", "0.3",
                      wl("split"), "2.0", "3", "1")
    expect(cp.stdout.endswith("forkexec: child exit 0\n") and "split done" in cp.stdout,
           f"program output {cp.stdout!r}")
    rep = report_json(out)
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
    # die of "Profiling timer expired" and whose exit status is the run's
    out, cp = profrun(tmp, "chain.prof", wl("family"), "chain", "9", "5",
                      wl("outcome-static"), status=5)
    expect(cp.stdout == "outcome exit:5\n", f"static binary's output {cp.stdout!r}")
    rep = report_json(out)
    procs = rep["processes"]
    expect(len(procs) == 10 and len({p["pid"] for p in procs}) == 1,
           f"expected 10 images of one process: {procs}")
    expect(all(p["complete"] and p["exit"] is None for p in procs),
           f"every image must end as exec'd: {procs}")
    expect(len(os.listdir(out)) == 10, f"members: {sorted(os.listdir(out))}")
    chain = samples_of(rep, "chain_hot")
    expect(chain >= 0.9 * rep["samples"]["main"] and chain >= 300,
           f"{chain} of {rep['samples']['main']} samples in chain_hot over "
           "10 images of 0.2 s CPU each")


@case
def failed_exec_keeps_profiling(tmp):
    out, cp = profrun(tmp, "ef.prof", wl("family"), "execfail", "2.0")
    expect(cp.stdout == "execfail: ENOENT each time\n", f"program output {cp.stdout!r}")
    rep = report_json(out)
    expect(len(rep["processes"]) == 1, f"a failed exec made a new profile: {rep['processes']}")
    p = rep["processes"][0]
    expect(p["complete"] and p["exit"] == 0, f"process recorded as {p}")
    check_share(samples_of(rep, "after_fail"), rep["samples"]["main"], 0.99,
                "after_fail, after three failed execs")
    expect(rep["rate_hz"] >= 150, f"rate after failed execs {rep['rate_hz']} Hz")


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
    out, cp = profrun(tmp, "sp.prof", wl("family"), "spawn", wl("split"), "0.6")
    expect(cp.stdout.count("split done") == 3 and "vfork: exit 0" in cp.stdout and
           "vfork+_exit: exit 5" in cp.stdout and
           "posix_spawn: exit 0" in cp.stdout and "posix_spawnp: exit 0" in cp.stdout,
           f"program output {cp.stdout!r}")
    rep = report_json(out)
    fam, spl = procs_of(rep, "family"), procs_of(rep, "split")
    expect(len(fam) == 1 and fam[0]["exit"] == 0,
           f"the parent's profile was ended by its vfork child: {fam}")
    expect(len(spl) == 3 and all(p["complete"] and p["exit"] == 0 and
                                 p["ppid"] == fam[0]["pid"] for p in spl),
           f"spawned children: {spl}")
    a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
    check_share(a, a + b, 0.75, "three spawned splits: hot_a vs hot_b")


@case
def daemon_closing_descriptors_is_profiled(tmp):
    out, cp = profrun(tmp, "dm.prof", wl("family"), "daemon", "2.0", cwd=tmp)
    expect(cp.stdout == "daemon: started (0)\n", f"program output {cp.stdout!r}")
    deadline = time.time() + 15
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
    check_share(samples_of(one, "daemon_hot"), one["samples"]["main"], 0.99,
                "daemon_hot in the daemon (setsid, chdir /, every fd closed)")


@case
def shell_script_merges_programs_by_module(tmp):
    script = os.path.join(tmp, "several.sh")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\n{wl('split')} 0.7 1 1\n{wl('outcome')} exit:0 0.7\n"
                f"{wl('split')} 0.7 1 1\ntrue\necho script done\n")
    os.chmod(script, 0o755)
    out, cp = profrun(tmp, "sh.prof", script, quiet=False)
    expect(cp.stdout.count("split done") == 2 and "outcome exit:0\n" in cp.stdout and
           cp.stdout.endswith("script done\n"), f"script output {cp.stdout!r}")
    rep = report_json(out)
    ab = samples_of(rep, "hot_a") + samples_of(rep, "hot_b")
    spin = samples_of(rep, "spin")
    check_share(ab, ab + spin, 2.0 / 3.0, "split (2 x 0.7 s) vs outcome (0.7 s) across the script")
    expect(len(procs_of(rep, "split")) == 2 and len(procs_of(rep, "outcome")) == 1,
           f"processes: {[(p['pid'], p['exe']) for p in rep['processes']]}")
    for f in rep["functions"]:
        expect(f.get("module"), f"function without module: {f}")
    expect(" module " in cp.stderr and "outcome" in cp.stderr,
           f"text report does not show modules:\n{cp.stderr}")


@case
def threads_split_matches_construction(tmp):
    out, cp = profrun(tmp, "th.prof", wl("threads"), "350", quiet=False)
    expect(cp.stdout.startswith("threads done"), f"program output {cp.stdout!r}")
    rep = report_json(out)
    a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
    check_share(a, a + b, 0.75, "4 threads: hot_a (3 threads) vs hot_b (1 thread)")
    # the shortfall line appears exactly when the rate falls short
    short = rep["rate_hz"] < 0.75 * 250
    expect(("shortfall:" in cp.stderr) == short,
           f"rate {rep['rate_hz']} Hz but shortfall line {'missing' if short else 'shown'}")


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
    gp = run(["gprof", "-p", "-b", wl("split-pg"), gmon])
    if gp.returncode != 0:
        return
    rows = {l.split()[-1]: float(l.split()[0]) for l in gp.stdout.splitlines()
            if l.strip().endswith(("hot_a", "hot_b"))}
    expect("hot_a" in rows and rows["hot_a"] > 50,
           f"gprof's own profile lost its samples: {gp.stdout[:400]}")


@case
def program_sees_no_difference(tmp):
    plain = run([wl("observe"), "0.5"], cwd=tmp)
    expect(plain.returncode == 0, f"observe alone: {plain.returncode}")
    out, cp = profrun(tmp, "ob.prof", wl("observe"), "0.5", cwd=tmp)
    expect(cp.stdout == plain.stdout,
           "the program sees a difference under profrun:\n" +
           "\n".join(l for l in cp.stdout.splitlines() if l not in plain.stdout.splitlines()))
    rep = report_json(out)
    expect(len(rep["processes"]) == 2 and samples_of(rep, "spin") > 200,
           f"observe was not profiled: {rep['processes']}")


@case
def rate_capped_by_tick_is_reported_once(tmp):
    out, cp = profrun(tmp, "r.prof", wl("family"), "fork", "1.0", "1.0", "0", quiet=False)
    rate_lines = [l for l in cp.stderr.splitlines() if "kernel" in l and "tick" in l]
    expect(len(rate_lines) == 1 and "requested 1000 Hz" in rate_lines[0],
           f"expected one line saying the tick capped 1000 Hz:\n{cp.stderr}")
    rep = report_json(out)
    expect(100 <= rep["rate_hz"] <= 600, f"effective rate {rep['rate_hz']} Hz")
    # the JSON rounds to 0.01 Hz and the text to 0.1 Hz: rounding twice may
    # move the last digit, so compare the numbers, not the strings
    shown = re.search(r"rate: ([0-9.]+) Hz effective", rate_lines[0])
    expect(shown and abs(float(shown.group(1)) - rep["rate_hz"]) <= 0.051,
           f"the effective, measured rate ({rep['rate_hz']} Hz) is not shown: {rate_lines[0]}")
    # a shortfall is measured against the tick, not the 1000 Hz asked for
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
    out, _ = profrun(tmp, "low.prof", wl("split"), "2.0", freq="50")
    rep = report_json(out)
    expect(40 <= rep["rate_hz"] <= 60, f"-F 50 gave {rep['rate_hz']} Hz")


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
    out, _ = profrun(tmp, "pid.prof", wl("family"), "fork", "1.0", "1.0", "0")
    rep = report_json(out)
    parent, child = rep["processes"]
    one = by_pid(out, child["pid"])
    expect([p["pid"] for p in one["processes"]] == [child["pid"]], "--pid did not select")
    expect(samples_of(one, "parent_hot") <= 2 and samples_of(one, "child_hot") > 100,
           f"--pid {child['pid']} shows {one['functions']}")
    text = run([PROFRUN, "report", "--by-process", out]).stdout
    expect(text.count("\n== ") == 2, f"--by-process did not split:\n{text}")
    cp = run([PROFRUN, "report", "--pid", "999999999", out])
    line = one_line_error(cp, "--pid not in the run")
    expect("999999999" in line, f"message does not name the pid: {line}")


@case
def damaged_member_does_not_hide_healthy_ones(tmp):
    out, _ = profrun(tmp, "dmg.prof", wl("family"), "fork", "1.0", "1.0", "0")
    members = sorted(os.listdir(out))
    expect(len(members) == 2, f"members {members}")
    bad = os.path.join(out, members[1])
    with open(bad, "r+b") as f:
        f.truncate(300)
    cp = run([PROFRUN, "report", "--format", "json", out])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    warn = [l for l in cp.stderr.splitlines() if l.strip()]
    expect(len(warn) == 1 and members[1] in warn[0] and "skipped" in warn[0],
           f"expected one line naming the skipped member: {cp.stderr!r}")
    rep = json.loads(cp.stdout)
    expect(len(rep["processes"]) == 1 and samples_of(rep, "parent_hot") > 100,
           f"the healthy member is not reported: {rep['processes']}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_runs.py"))
