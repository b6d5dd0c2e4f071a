#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""AArch64 and RISC-V 64 programs profiled under qemu-user and reported on
this machine: the shim and the split, threads, libcs, stacks and guarded
workloads built with the cross compiler (libprofrun-CPU.so, NAME-CPU), run
as `qemu-CPU -L ROOT -E LD_PRELOAD=SHIM -E PROFRUN_...`, as profrun's run
passes its settings, and the run directory reported by this machine's CLI
with --sysroot ROOT (the target's C library lives under ROOT only).

Usage: e2e_arm.py CPU-CASE (CPU aarch64 or riscv64; exit 0 pass, 1 fail,
77 skip: the cross compiler or qemu is not installed; tools/setup
--deps-only installs them).
Same sample counts and tolerances as e2e.py: shares on at least NEED = 400
samples, within 5 standard deviations plus 2 points.  qemu-user delivers
the CPU-time timers' SIGPROF to the guest, and the CPU time the workloads
measure is qemu's, translation included: the shares hold, the times are
qemu's."""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, SHIM, Skip, check_share, cpu_for, expect,  # noqa: E402
                 gather, hot_ab, one_line_error, report_json, run, samples_of, wl)
import e2e  # noqa: E402

CASES = {}
CPUS = ("aarch64", "riscv64")


class Target:
    """What runs CPU's programs here: qemu-CPU, Debian's cross C library as
    its -L root (libc6-dev-arm64-cross, libc6-dev-riscv64-cross), the shim
    and the workloads built for it."""

    def __init__(self, cpu):
        self.cpu = cpu
        self.root = f"/usr/{cpu}-linux-gnu"
        self.qemu = f"qemu-{cpu}"
        self.shim = os.path.join(os.path.dirname(SHIM), f"libprofrun-{cpu}.so")

    def wl(self, name):
        return wl(f"{name}-{self.cpu}")


T = Target("aarch64")  # the target of the case running


def case(fn, cpus=CPUS):
    for cpu in cpus:
        def wrapped(tmp, cpu=cpu):
            global T
            T = Target(cpu)
            missing = [p for p in (T.qemu, f"{cpu}-linux-gnu-gcc")
                       if shutil.which(p) is None]
            if missing or not os.path.isdir(T.root):
                raise Skip(f"not installed: {' '.join(missing) or T.root} "
                           "(tools/setup --deps-only installs them)")
            expect(os.path.exists(T.shim) and os.path.exists(T.wl("split")),
                   f"the cross compiler is installed, yet {T.shim} or the {cpu} "
                   "workloads were not built (reconfigure the build)")
            fn(tmp)
        name = fn.__name__.replace("_", "-")
        CASES[f"{cpu}-{name}" if len(cpus) > 1 else name] = wrapped
    return fn


def qemu_args(out, stacks=False):
    """qemu-CPU and its options: the -L root, the shim preloaded in the
    guest and the settings profrun's run would put in its environment."""
    return [shutil.which(T.qemu), "-L", T.root, "-E", f"LD_PRELOAD={T.shim}",
            "-E", f"PROFRUN_OUTPUT={out}", "-E", f"PROFRUN_FREQ={e2e.DEFAULT_FREQ}",
            "-E", "PROFRUN_QUIET=1", *(["-E", "PROFRUN_STACKS=1"] if stacks else [])]


def report(out, *extra):
    return report_json(out, "--sysroot", T.root, *extra)


def gathered(tmp, name, need, args_for, status=0, stacks=False):
    """Run the guest ARGS_FOR(seconds) under qemu until NEED(rep) holds:
    (out, completed process, JSON report)."""
    out = os.path.join(tmp, name)

    def attempt(s):
        shutil.rmtree(out, ignore_errors=True)
        cp = run([*qemu_args(out, stacks), *args_for(float(s))], timeout=300)
        expect(cp.returncode == status,
               f"{name}: exit {cp.returncode}, expected {status}; stdout "
               f"{cp.stdout!r}, stderr {cp.stderr!r}")
        rep = report(out)
        return (out, cp, rep), need(rep)
    return gather(attempt, cpu_for(NEED))


def procs_of(rep, exe_name):
    return [p for p in rep["processes"] if os.path.basename(p["exe"]) == exe_name]


@case
def split_matches_construction(tmp):
    out, cp, rep = gathered(tmp, "split.prof", lambda r: [(sum(hot_ab(r)), NEED)],
                            lambda s: (T.wl("split"), f"{s:.2f}", "3", "1"))
    expect(cp.stdout.startswith("split done:") and cp.stdout.count("\n") == 1,
           f"program stdout changed: {cp.stdout!r}")
    procs = rep["processes"]
    expect(len(procs) == 1 and os.path.basename(procs[0]["exe"]) == f"split-{T.cpu}" and
           procs[0]["complete"] and procs[0]["exit"] == 0,
           f"one complete process that exited 0: {procs}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, f"{T.cpu}: hot_a vs hot_b (built 3:1)")
    check_share(a + b, rep["samples"]["main"], 0.99, f"{T.cpu}: hot_a+hot_b in split")
    # the C library's functions are named from the sysroot's copy
    text = run([PROFRUN, "report", "--sysroot", T.root, out])
    expect(text.returncode == 0 and "reporting addresses only" not in text.stderr,
           f"report --sysroot: {text.returncode} {text.stderr!r}")


@case
def threads_split_matches_construction(tmp):
    # four threads, each running for the seconds given: a quarter of the CPU
    out, cp, rep = gathered(tmp, "threads.prof", lambda r: [(sum(hot_ab(r)), NEED)],
                            lambda s: (T.wl("threads"), f"{s / 4:.2f}"))
    expect(cp.stdout.startswith("threads done:"), f"stdout {cp.stdout!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, f"{T.cpu} threads: hot_a (3 threads) vs hot_b (1)")
    busy = [t for t in rep["processes"][0]["threads"] if t["samples"] > 0]
    expect(len(busy) >= 4, f"samples in {len(busy)} threads, expected the 4 workers")


@case
def fork_child_profile_is_separate_with_its_exit(tmp):
    def need(rep):
        return [(sum(samples_of(rep, f) for f in ("parent_hot", "child_hot")), NEED)]
    out, cp, rep = gathered(tmp, "fork.prof", need, lambda s: (
        T.wl("libcs"), "fork", f"{s * 4 / 7:.2f}", f"{s * 3 / 7:.2f}", "7"))
    e2e.check_fork_split(cp, rep, lambda *extra: report(out, *extra), T.cpu)


@case
def exec_through_qemu_profiles_both_images(tmp):
    # without binfmt_misc a guest program execs another through qemu
    # itself: the shim goes on in the new image from the environment it
    # puts back (qemu hands its environment to the guest), and records the
    # x86-64 qemu it exec'd as another machine's, not profiled
    def need(rep):
        return [(sum(hot_ab(rep)), NEED), (samples_of(rep, "before_exec"), NEED / 8)]
    out, cp, rep = gathered(tmp, "exec.prof", need, lambda s: (
        T.wl("libcs"), "exec", f"{s / 5:.2f}", shutil.which(T.qemu), "-L", T.root,
        T.wl("split"), f"{s * 4 / 5:.2f}", "3", "1"))
    expect(cp.stdout.startswith("split done:"), f"stdout {cp.stdout!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, f"exec'd split-{T.cpu}: hot_a vs hot_b")
    f, t = procs_of(rep, f"libcs-{T.cpu}"), procs_of(rep, f"split-{T.cpu}")
    expect(len(f) == 1 and len(t) == 1 and f[0]["pid"] == t[0]["pid"],
           f"libcs-{T.cpu} and the split-{T.cpu} it exec'd, one process: {rep['processes']}")
    expect(t[0]["complete"] and t[0]["exit"] == 0 and f[0]["exit"] is None,
           f"libcs-{T.cpu} ends as exec'd, split-{T.cpu} exits 0: {rep['processes']}")
    expect(rep["missing"] == [] and
           [n["path"] for n in rep.get("not_profiled") or []] == [shutil.which(T.qemu)],
           f"only qemu itself unprofiled: {rep.get('not_profiled')!r} {rep['missing']!r}")


def folded(out):
    cp = run([PROFRUN, "report", "--sysroot", T.root, "--format", "folded", out])
    expect(cp.returncode == 0, f"folded: {cp.stderr}")
    stacks = []
    for line in cp.stdout.splitlines():
        m = re.fullmatch(r"(.*) (\d+)", line)
        expect(m is not None, f"folded line {line!r} is not 'a;b;c N'")
        stacks.append(([re.sub(r"_\[i\]$", "", f) for f in m.group(1).split(";")],
                       int(m.group(2))))
    return stacks


@case
def stacks_reach_main_three_to_one(tmp):
    out, cp, rep = gathered(tmp, "stacks.prof",
                            lambda r: [(r["stacks"]["with_stack"], NEED)],
                            lambda s: (T.wl("stacks"), "ratio", f"{s:.2f}"),
                            stacks=True)
    a = b = through_main = total = 0
    for frames, n in folded(out):
        total += n
        through_main += n if "main" in frames else 0
        if frames[-1] == "leaf":
            a += n if "caller_a" in frames else 0
            b += n if "caller_b" in frames else 0
    check_share(a, a + b, 0.75, f"{T.cpu} -g: caller_a among leaf's callers")
    expect(through_main >= 0.9 * total, f"{through_main} of {total} stacks reach main")


@case
def guarded_stacks_copied_without_faulting(tmp):
    # qemu-user has no process_vm_readv: the shim copies a stack only as
    # far as /proc/self/maps shows it readable, never into a guard page
    for where in ("main", "thread", "below"):
        args = [T.wl("guarded"), where, "0.5"]
        want = f"guarded {where}: survived\n"
        out = os.path.join(tmp, f"{where}.prof")
        cp = run([*qemu_args(out, stacks=True), *args], timeout=300)
        expect(cp.returncode == 0 and cp.stdout == want,
               f"{where}: exit {cp.returncode}, {cp.stdout!r}, {cp.stderr.strip()!r}")
        cp = run([PROFRUN, "report", "--sysroot", T.root, "--callers", "guarded_spin", out])
        m = re.search(r"callers of guarded_spin: (\d+) samples", cp.stdout)
        expect(cp.returncode == 0 and m and int(m.group(1)) >= 10 and
               re.search(r"^ +[\d.]+ +\d+ +guarded_coroutine$", cp.stdout, re.M),
               f"{where}: the coroutine is not the spin's caller: {cp.stdout!r}")


@lambda fn: case(fn, cpus=("aarch64",))  # one machine's profile is enough
def sysroot_missing_or_not_a_directory_exits_64(tmp):
    out = os.path.join(tmp, "split.prof")
    cp = run([*qemu_args(out), T.wl("split"), "0.1"], timeout=300)
    expect(cp.returncode == 0, f"split-{T.cpu}: {cp.returncode} {cp.stderr!r}")
    afile = os.path.join(tmp, "a-file")
    open(afile, "w").close()
    for bad in (os.path.join(tmp, "no-such-dir"), afile):
        cp = run([PROFRUN, "report", "--sysroot", bad, out])
        line = one_line_error(cp, f"--sysroot {bad}")
        expect(cp.returncode == 64 and "--sysroot" in line and cp.stdout == "",
               f"--sysroot {bad}: exit {cp.returncode}, {line!r}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_arm.py"))
