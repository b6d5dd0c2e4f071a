#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""musl programs under plain profrun: the shim libprofrun-musl.so (built with
musl-gcc, installed beside libprofrun.so) is chosen from the program's
interpreter, at start and at each exec and spawn, so glibc and musl
programs start each other and all are profiled.  The workloads are the
split, threads, stacks and libcs programs built with musl-gcc (NAME-musl)
and, to compare, with the C compiler.

Usage: e2e_musl.py CASE (exit 0 pass, 1 fail, 77 skip: musl-gcc is not
installed, so neither the musl shim nor the musl workloads can be built).  Same sample
counts and tolerances as e2e.py: shares on at least NEED = 400 samples,
within 5 standard deviations plus 2 points; a musl share and the glibc
build's share of the same program must agree within the sum of both
tolerances."""

import math
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, SHIM, Skip, check_share, cpu_for, expect,  # noqa: E402
                 gather, hot_ab, one_line_error, record_split, report_json, run,
                 samples_of, wl)
import e2e  # noqa: E402

CASES = {}
MUSL_SHIM = os.path.join(os.path.dirname(SHIM), "libprofrun-musl.so")


def case(fn):
    def wrapped(tmp):
        if shutil.which("musl-gcc") is None:
            raise Skip("musl-gcc is not installed: no musl shim nor musl workloads")
        expect(os.path.exists(MUSL_SHIM) and os.path.exists(wl("split-musl")),
               f"musl-gcc is installed, yet {MUSL_SHIM} or the musl workloads "
               "were not built (reconfigure with -Dmusl=enabled)")
        fn(tmp)
    CASES[fn.__name__.replace("_", "-")] = wrapped
    return fn


def profrun(tmp, name, *args, status=0, extra=(), env=None):
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, "-q", "-F", str(e2e.DEFAULT_FREQ), *extra, "-o", out, "--",
              *args], env=env, timeout=240)
    expect(cp.returncode == status,
           f"{[os.path.basename(str(a)) for a in args]}: exit {cp.returncode}, expected "
           f"{status}; stdout {cp.stdout!r}, stderr {cp.stderr!r}")
    return out, cp


def gathered(tmp, name, need, args_for, status=0, extra=(), seconds=None):
    def attempt(s):
        out, cp = profrun(tmp, name, *args_for(float(s)), status=status, extra=extra)
        rep = report_json(out)
        return (out, cp, rep), need(out, rep)
    return gather(attempt, seconds or cpu_for(NEED))


def procs_of(rep, exe_name):
    return [p for p in rep["processes"] if os.path.basename(p["exe"]) == exe_name]


def tolerance(p, n):
    return 5 * math.sqrt(p * (1 - p) / n) + 0.02


def is_musl(path):
    cp = run(["readelf", "-l", path])
    return "ld-musl" in cp.stdout


@case
def musl_split_matches_construction_and_the_glibc_build(tmp):
    expect(is_musl(wl("split-musl")) and not is_musl(wl("split")),
           "split-musl must be a musl program and split a glibc one")
    shares = {}
    for exe in ("split-musl", "split"):
        cp, rep = record_split(tmp, wl(exe), "3", "1", name=f"{exe}.prof")
        expect(cp.stdout.startswith("split done:") and cp.stdout.count("\n") == 1,
               f"{exe}: program stdout changed: {cp.stdout!r}")
        procs = rep["processes"]
        expect(len(procs) == 1 and os.path.basename(procs[0]["exe"]) == exe and
               procs[0]["complete"] and procs[0]["exit"] == 0,
               f"{exe}: one complete process that exited 0: {procs}")
        a, b = hot_ab(rep)
        check_share(a, a + b, 0.75, f"{exe}: hot_a vs hot_b (built 3:1)")
        check_share(a + b, rep["samples"]["main"], 0.99, f"{exe}: hot_a+hot_b in main")
        shares[exe] = (a / (a + b), a + b)
    (pm, nm), (pg, ng) = shares["split-musl"], shares["split"]
    tol = tolerance(0.75, nm) + tolerance(0.75, ng)
    expect(abs(pm - pg) <= tol,
           f"hot_a's share: musl {pm:.3f} ({nm} samples), glibc {pg:.3f} ({ng}), "
           f"differ by more than {tol:.3f}")


@case
def musl_threads_split_matches_construction(tmp):
    def need(out, rep):
        return [(sum(hot_ab(rep)), NEED)]
    # four threads, each running for the seconds given: a quarter of the CPU
    out, cp, rep = gathered(tmp, "threads.prof", need,
                            lambda s: (wl("threads-musl"), f"{s / 4:.2f}"))
    expect(cp.stdout.startswith("threads done:"), f"stdout {cp.stdout!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, "musl threads: hot_a (3 threads) vs hot_b (1)")
    threads = rep["processes"][0]["threads"]
    busy = [t for t in threads if t["samples"] > 0]
    expect(len(busy) >= 4, f"samples in {len(busy)} threads, expected the 4 workers: {threads}")


@case
def musl_fork_child_profile_is_separate_with_its_exit(tmp):
    def need(out, rep):
        return [(sum(samples_of(rep, f) for f in ("parent_hot", "child_hot")), NEED)]
    out, cp, rep = gathered(tmp, "fork.prof", need, lambda s: (
        wl("libcs-musl"), "fork", f"{s * 4 / 7:.2f}", f"{s * 3 / 7:.2f}", "7"))
    e2e.check_fork_split(cp, rep, lambda *extra: report_json(out, *extra), "musl")


def check_exec(tmp, name, first, then):
    """FIRST (a libcs build) burns a fifth of the time in before_exec, then
    execs THEN (a split build) for the rest: both images profiled, each by
    the shim of its own C library, and nothing recorded as not profiled."""
    def need(out, rep):
        return [(sum(hot_ab(rep)), NEED), (samples_of(rep, "before_exec"), NEED / 8)]
    out, cp, rep = gathered(tmp, name, need, lambda s: (
        wl(first), "exec", f"{s / 5:.2f}", wl(then), f"{s * 4 / 5:.2f}", "3", "1"))
    expect(cp.stdout.startswith("split done:"), f"{first} -> {then}: stdout {cp.stdout!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, f"{then} exec'd by {first}: hot_a vs hot_b")
    f, t = procs_of(rep, first), procs_of(rep, then)
    expect(len(f) == 1 and len(t) == 1 and f[0]["pid"] == t[0]["pid"],
           f"{first} and the {then} it exec'd, one process: {rep['processes']}")
    expect(t[0]["complete"] and t[0]["exit"] == 0 and f[0]["exit"] is None,
           f"{first} ends as exec'd, {then} exits 0: {rep['processes']}")
    expect(not rep.get("not_profiled") and rep["missing"] == [],
           f"nothing unprofiled or missing: {rep.get('not_profiled')!r} {rep['missing']!r}")
    text = run([PROFRUN, "report", out])
    expect("environment lacking" not in text.stderr + text.stdout,
           f"the shim swapped at exec is not an environment put back: {text.stderr}")


@case
def glibc_program_execs_a_musl_one(tmp):
    check_exec(tmp, "gm.prof", "libcs", "split-musl")
    # --exact-env leaves the environment as the program made it, but for
    # the shim of the image's C library: the musl program must neither die
    # of the glibc shim nor go unprofiled
    out, cp = profrun(tmp, "exact.prof", wl("libcs"), "exec", "0.1", wl("split-musl"),
                      "0.5", extra=("--exact-env",))
    expect(cp.stdout.startswith("split done:") and cp.stderr == "",
           f"--exact-env: {cp.stdout!r} {cp.stderr!r}")
    rep = report_json(out)
    t = procs_of(rep, "split-musl")
    expect(len(t) == 1 and t[0]["samples"] >= 10 and not rep.get("not_profiled"),
           f"--exact-env: split-musl profiled: {rep['processes']} {rep.get('not_profiled')!r}")


@case
def musl_program_execs_a_glibc_one(tmp):
    check_exec(tmp, "mg.prof", "libcs-musl", "split")


@case
def spawn_and_system_cross_the_c_libraries(tmp):
    # glibc posix_spawn of a musl program; musl posix_spawn of a glibc one;
    # musl system() running the (glibc) shell, which runs both
    for first, then in (("libcs", "split-musl"), ("libcs-musl", "split")):
        out, cp = profrun(tmp, f"{first}-spawn.prof", wl(first), "spawn", wl(then), "0.5")
        expect(cp.stdout.endswith("spawn: child exit 0\n") and "split done" in cp.stdout,
               f"{first} spawn {then}: {cp.stdout!r}")
        rep = report_json(out)
        t = procs_of(rep, then)
        expect(len(t) == 1 and t[0]["samples"] >= 10 and t[0]["exit"] == 0,
               f"{then} spawned by {first} is profiled: {rep['processes']}")
        expect(not rep.get("not_profiled") and rep["missing"] == [],
               f"{first} spawn {then}: {rep.get('not_profiled')!r} {rep['missing']!r}")
    cmd = f"{wl('split')} 0.4 && {wl('split-musl')} 0.4"
    out, cp = profrun(tmp, "system.prof", wl("libcs-musl"), "system", "0.1", cmd)
    expect(cp.stdout.count("split done") == 2 and cp.stdout.endswith("system: status 0\n"),
           f"musl system(): {cp.stdout!r}, stderr {cp.stderr!r}")
    expect("preload" not in cp.stderr.lower(), f"a loader refused a preload: {cp.stderr!r}")
    rep = report_json(out)
    for exe in ("split", "split-musl"):
        p = procs_of(rep, exe)
        expect(len(p) == 1 and p[0]["samples"] >= 10,
               f"{exe} run by musl system() through the shell: {rep['processes']}")


@case
def musl_signals_and_exit_are_left_as_bare(tmp):
    bare = run([wl("libcs-musl"), "signals", "0.2"])
    expect(bare.returncode == 3 and bare.stdout == "signals: usr1 100, sigwait SIGPROF\n",
           f"bare run: exit {bare.returncode}, {bare.stdout!r}")

    def need(out, rep):
        return [(samples_of(rep, "parent_hot"), NEED / 2)]
    out, cp, rep = gathered(tmp, "signals.prof", need,
                            lambda s: (wl("libcs-musl"), "signals", f"{s:.2f}"), status=3)
    expect(cp.stdout == bare.stdout and cp.stderr == "",
           f"under profrun: {cp.stdout!r}, stderr {cp.stderr!r}")
    proc = rep["processes"][0]
    expect(proc["exit"] == 3 and proc["complete"], f"recorded exit: {proc}")
    expect(samples_of(rep, "parent_hot") >= 0.9 * rep["samples"]["main"],
           f"parent_hot has {samples_of(rep, 'parent_hot')} of {rep['samples']['main']}")


@case
def musl_stacks_reach_main_three_to_one(tmp):
    def attempt(s):
        out = os.path.join(tmp, "stacks.prof")
        cp = run([PROFRUN, "-g", "-q", "-F", str(e2e.DEFAULT_FREQ), "-o", out, "--",
                  wl("stacks-musl"), "ratio", s], timeout=240)
        expect(cp.returncode == 0, f"stacks-musl ratio: {cp.returncode} {cp.stderr}")
        rep = report_json(out)
        return (out, rep), [(rep["stacks"]["with_stack"], NEED)]
    out, rep = gather(attempt, cpu_for(NEED))
    cp = run([PROFRUN, "report", "--format", "folded", out])
    expect(cp.returncode == 0, f"folded: {cp.stderr}")
    a = b = through_main = total = 0
    for line in cp.stdout.splitlines():
        m = re.fullmatch(r"(.*) (\d+)", line)
        frames, n = [re.sub(r"_\[i\]$", "", f) for f in m.group(1).split(";")], int(m.group(2))
        total += n
        through_main += n if "main" in frames else 0
        if frames[-1] == "leaf":
            a += n if "caller_a" in frames else 0
            b += n if "caller_b" in frames else 0
    check_share(a, a + b, 0.75, "musl -g: caller_a among leaf's callers")
    expect(through_main >= 0.9 * total, f"{through_main} of {total} stacks reach main")


@case
def musl_shim_missing_is_said_and_never_kills(tmp):
    # only the glibc shim installed: profrun refuses a musl program in one
    # line, and a glibc program exec'ing one records it as not profiled
    # (musl) and the musl program runs as without profrun
    alone = os.path.join(tmp, "lib")
    os.mkdir(alone)
    shutil.copy(SHIM, os.path.join(alone, "libprofrun.so"))
    env = dict(os.environ, PROFRUN_SHIM=os.path.join(alone, "libprofrun.so"))
    cp = run([PROFRUN, "-q", "-o", os.path.join(tmp, "no.prof"), wl("split-musl"), "0.1"],
             env=env)
    line = one_line_error(cp, "musl program without the musl shim")
    expect("musl" in line, f"the error names musl: {line!r}")
    out, cp = profrun(tmp, "left.prof", wl("libcs"), "exec", "0.1", wl("split-musl"), "0.2",
                      env=env)
    expect(cp.stdout.startswith("split done:"), f"the musl program ran: {cp.stdout!r} "
           f"{cp.stderr!r}")
    rep = report_json(out)
    got = rep.get("not_profiled")
    expect(got == [{"path": wl("split-musl"), "reason": "musl", "script": False, "count": 1}],
           f"not_profiled: {got!r}")


@case
def installed_tree_profiles_musl_and_glibc_programs(tmp):
    """meson install (staged, then moved): the installed profrun finds the
    musl shim beside its own glibc shim (without it, it would refuse the
    musl program), and a musl program it runs execs a glibc one, both
    profiled."""
    exe, env = e2e.installed_and_moved(tmp)
    out = os.path.join(tmp, "inst.prof")
    cp = run([exe, "-q", "-o", out, wl("libcs-musl"), "exec", "0.3", wl("split"), "0.3"],
             env=env, timeout=120)
    expect(cp.returncode == 0 and cp.stdout.startswith("split done:"),
           f"installed profrun: exit {cp.returncode} {cp.stdout!r} {cp.stderr!r}")
    rep = report_json(out)
    for name in ("libcs-musl", "split"):
        p = procs_of(rep, name)
        expect(len(p) == 1 and p[0]["samples"] >= 5, f"{name}: {rep['processes']}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_musl.py"))
