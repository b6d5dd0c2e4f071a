#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whole builds and many short processes: a generated C project built
with make -j2 under profrun (every program the build ran is in the table
by executable, the shares add up, the run directory stays small), and a
run of 1000 short processes (one member each, each small on disk).

Usage: e2e_build.py CASE (exit 0 pass, 1 fail, 77 skip)."""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import PROFRUN, Skip, expect, report_json, run  # noqa: E402
import e2e  # noqa: E402
import genbuild  # noqa: E402

CASES = {}

# The disk an ended process keeps at most: the two pages every process
# writes (docs/format.md) and the first page of its sample log (its first
# samples, 8 bytes each).
ENDED_MAX = 12 * 1024
# ... and a process that started others, the first page of its records of
# them (docs/format.md, Offspring).
STARTER_MAX = ENDED_MAX + 4096


def vdso_bytes():
    """The size of the vdso image, which a member copies once a sample
    falls in it (a short process can be sampled in clock_gettime)."""
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith("[vdso]"):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                return hi - lo
    return 0


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def allocated(path):
    """Bytes the members of the run directory PATH hold on disk for their
    data (e2e.held_bytes: not the file system's own blocks)."""
    return {m: e2e.held_bytes(os.path.join(path, m)) for m in os.listdir(path)}


@case
def generated_build_under_make_has_every_program(tmp):
    if not shutil.which("make") or not shutil.which("cc"):
        raise Skip("make or cc missing")
    src = genbuild.generate(os.path.join(tmp, "proj"), files=12, funcs=20)
    out = os.path.join(tmp, "build.prof")
    cp = run([PROFRUN, "-q", "-o", out, "--", "make", "-s", "-j2", "-C", src], timeout=300)
    expect(cp.returncode == 0, f"make under profrun: exit {cp.returncode}: {cp.stderr}")
    for p in range(3):
        expect(os.access(os.path.join(src, f"prog{p}"), os.X_OK), f"prog{p} was not built")
    rep = report_json(out)
    exes = {os.path.basename(x["exe"]): x for x in rep["executables"]}
    # the programs a gcc build runs, by the names their files have here
    # (x86_64-linux-gnu-as, ld.bfd, x86_64-linux-gnu-gcc-12, ...)
    for what, match in (("make", lambda n: n == "make"), ("cc1", lambda n: n == "cc1"),
                        ("the assembler", lambda n: n == "as" or n.endswith("-as")),
                        ("collect2", lambda n: n == "collect2"),
                        ("the linker", lambda n: n.startswith("ld") or "-ld" in n),
                        ("the driver", lambda n: "gcc" in n or n in ("cc", "c99"))):
        expect(any(match(n) for n in exes), f"{what} missing from the executables: {sorted(exes)}")
    cc1 = exes["cc1"]
    expect(cc1["processes"] == 12 + 3, f"cc1 ran {cc1['processes']} times, 15 files")
    total = rep["samples"]["total"]
    expect(total > 0 and sum(x["samples"] for x in exes.values()) == total,
           f"executables' samples {sum(x['samples'] for x in exes.values())} vs total {total}")
    expect(abs(sum(x["percent"] for x in exes.values()) - 100) < 0.5,
           "sample shares add up to 100%")
    expect(abs(sum(x["cpu_percent"] for x in exes.values()) - 100) < 0.5,
           "CPU shares add up to 100%")
    expect(max(exes.values(), key=lambda x: x["cpu_seconds"]) is cc1,
           f"cc1 is not where the CPU time went: {exes}")
    # each process has its command line: the file cc1 compiled is in it
    compiled = {a for p in rep["processes"] if p["exe"].endswith("/cc1")
                for a in (p["argv"] or []) if a.endswith(".c") and a != ".c"}
    expect(compiled == {f"src{i}.c" for i in range(12)} | {f"main{p}.c" for p in range(3)},
           f"files named by cc1's command lines: {sorted(compiled)}")
    held = allocated(out)
    samples = {p["pid"]: p["samples"] for p in rep["processes"]}
    budget = len(held) * ENDED_MAX + total * 256
    expect(sum(held.values()) <= budget,
           f"{len(held)} members hold {sum(held.values())} bytes, more than {budget}")
    cp = run([PROFRUN, "report", "--by-process", out])
    shown = cp.stdout.count("\n== ")
    with_samples = sum(1 for n in samples.values() if n > 0)
    expect(cp.returncode == 0 and shown == with_samples and
           f"{len(samples) - with_samples} processes without samples not shown" in cp.stdout,
           f"--by-process shows {shown} sections for {with_samples} processes with samples")
    expect("command: " in cp.stdout, "--by-process shows command lines")


def shell_loop(tmp, name, n, body):
    """The run directory of `sh -c` running BODY N times under profrun."""
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, "-q", "-o", out, "--", "sh", "-c",
              f"i=0; while [ $i -lt {n} ]; do {body}; i=$((i+1)); done"], timeout=300)
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
    return out


@case
def thousand_short_processes_each_keep_little(tmp):
    n = 1000
    out = shell_loop(tmp, "many.prof", n, "/bin/true")
    held = allocated(out)
    expect(len(held) == n + 1, f"{len(held)} members, expected {n + 1} (the shell and {n} trues)")
    rep = report_json(out)
    trues = [p for p in rep["processes"] if p["exe"].endswith("/true")]
    expect(rep["complete"] and len(trues) == n and all(p["complete"] for p in trues),
           f"{len(trues)} complete /bin/true processes, expected {n}")
    pids = {str(p["pid"]): p for p in trues}
    of_true = {m: b for m, b in held.items() if m.split(".")[0].split("-")[0] in pids}
    # a sampled process may keep a copy of the vdso as well (a sample in
    # clock_gettime); one without samples is bounded below
    sampled = {m for m in of_true if pids[m.split(".")[0].split("-")[0]]["samples"] > 0}
    worst = max(b - (vdso_bytes() if m in sampled else 0) for m, b in of_true.items())
    size = max(os.path.getsize(os.path.join(out, m)) for m in of_true)
    expect(len(of_true) == n and worst <= ENDED_MAX < size,
           f"the largest member of /bin/true holds {worst} of its {size} bytes on disk"
           " (a copy of the vdso aside)")
    idle = [b for m, b in of_true.items()
            if pids[m.split(".")[0].split("-")[0]]["samples"] == 0]
    expect(idle and max(idle) <= ENDED_MAX,
           f"an ended process without samples keeps {max(idle or [0])} bytes (at most {ENDED_MAX})")
    expect(sum(held.values()) <= (n + 1) * ENDED_MAX + (1 << 20),
           f"{sum(held.values())} bytes for {n + 1} members")


@case
def images_replaced_by_exec_keep_little(tmp):
    # a shell that runs its last command by exec (as sh -c does), and a
    # fork child that execs: each image ends at the exec, and keeps what
    # it wrote, as an exited one does
    n = 40
    out = shell_loop(tmp, "exec.prof", n, "sh -c 'exec /bin/true'; (exec /bin/true)")
    rep = report_json(out)
    execed = [p for p in rep["processes"] if p["complete"] and p["exit"] is None]
    expect(len(execed) >= 2 * n, f"{len(execed)} images ended by exec, expected {2 * n}")
    held = allocated(out)
    starters = {str(p["ppid"]) for p in rep["processes"]}
    worst = max(b - (STARTER_MAX - ENDED_MAX if m.split(".")[0].split("-")[0] in starters else 0)
                for m, b in held.items())
    expect(worst <= ENDED_MAX, f"a member holds {worst} bytes on disk (at most {ENDED_MAX},"
           f" {STARTER_MAX} for a process that started others)")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_build.py"))
