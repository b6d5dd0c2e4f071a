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

# The disk an ended process that took no sample keeps at most: the two
# pages every process writes (docs/format.md).
ENDED_MAX = 8 * 1024
# ... one that took samples, the page of its first ones as well (the log's
# and the timeline's heads and first entries, reserved by the first sample)
SAMPLED_MAX = ENDED_MAX + 4096
# ... and a process that started others, the first page of its records of
# them (docs/format.md, Offspring).
STARTER_EXTRA = 4096


def vdso_bytes():
    """The size of the vdso image, which a member copies once a sample
    falls in it (a short process can be sampled in clock_gettime)."""
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith("[vdso]"):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                return hi - lo
    return 0


def took(p):
    """Whether the process P (of a JSON report) took a sample: of the
    program, or in profrun's shim (its start-up, which a short process's
    first sample often finds: overhead, not in its samples)."""
    return p["samples"] + p["overhead"] > 0


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
    budget = len(held) * SAMPLED_MAX + total * 256
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
    sampled = {m for m in of_true if took(pids[m.split(".")[0].split("-")[0]])}
    worst = max(b - (vdso_bytes() if m in sampled else 0) for m, b in of_true.items())
    size = max(os.path.getsize(os.path.join(out, m)) for m in of_true)
    expect(len(of_true) == n and worst <= SAMPLED_MAX < size,
           f"the largest member of /bin/true holds {worst} of its {size} bytes on disk"
           " (a copy of the vdso aside)")
    idle = [b for m, b in of_true.items() if not took(pids[m.split(".")[0].split("-")[0]])]
    expect(idle and max(idle) <= ENDED_MAX,
           f"an ended process without samples keeps {max(idle or [0])} bytes (at most {ENDED_MAX})")
    expect(sum(held.values()) <= (n + 1) * SAMPLED_MAX + (1 << 20),
           f"{sum(held.values())} bytes for {n + 1} members")


def traced_calls(log, exe):
    """The system calls strace -f wrote to LOG for the process that
    exec'd EXE, from that execve on (the process's own lines, resumed
    halves of interrupted calls and signals left out)."""
    lines = [l.split(None, 1) for l in open(log).read().splitlines() if " " in l]
    at = next((i for i, (_, c) in enumerate(lines) if c.startswith(f'execve("{exe}"')), None)
    if at is None:
        return []
    pid = lines[at][0]
    return [c for p, c in lines[at:]
            if p == pid and not c.startswith(("<...", "---", "+++"))]


@case
def process_without_samples_makes_few_system_calls(tmp):
    """A short process that takes no sample pays for few system calls:
    no /proc/self/maps read, no ELF file opened, no profil() timer set up
    and undone, no page of the member reserved for samples it never took
    nor given back at exit, no thread names or JIT maps looked for."""
    if not shutil.which("strace"):
        raise Skip("needs strace")
    bare_log = os.path.join(tmp, "bare.txt")
    cp = run(["strace", "-f", "-o", bare_log, "/bin/true"])
    if cp.returncode != 0:
        raise Skip(f"strace cannot trace here: {cp.stderr.strip()}")
    bare = len(traced_calls(bare_log, "/bin/true"))
    for attempt in range(8):
        out, log = os.path.join(tmp, f"t{attempt}.prof"), os.path.join(tmp, f"t{attempt}.txt")
        cp = run(["strace", "-f", "-o", log, PROFRUN, "-q", "-o", out, "--", "/bin/true"],
                 env=e2e.traced_env())
        expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
        if not took(report_json(out)["processes"][0]):
            break
    else:
        raise Skip("every /bin/true took a sample under strace")
    calls = traced_calls(log, "/bin/true")
    text = "\n".join(calls)
    for what in ("/proc/self/maps", "/proc/self/comm", "/usr/bin/true\", O_RDONLY",
                 "/perf-", "setitimer(", "libprofrun-musl", "MADV_REMOVE"):
        expect(what not in text, f"{what!r} in the calls of a process without samples:\n{text}")
    fallocs = sum(c.startswith("fallocate(") for c in calls)
    expect(fallocs <= 2, f"{fallocs} fallocate calls: the header's and the records' page only")
    # the exit looks at the pages it reserved (two), not the whole member
    looked = sum(int(c.split(", ")[1]) for c in calls if c.startswith("mincore("))
    expect(looked <= 2 * os.sysconf("SC_PAGE_SIZE"),
           f"mincore over {looked} bytes at exit: only the reserved pages hold blocks")
    # 48 beyond the bare run's 30 here (Debian 12, x86-64), 100 before
    # the start-up was cut
    expect(len(calls) - bare <= 56,
           f"{len(calls)} system calls against {bare} bare:\n{text}")


@case
def exec_without_samples_reads_no_maps(tmp):
    """An image that execs before its first sample (a shell's `exec`, a
    fork child's exec) has no PC to name: it reads no /proc/self/maps and
    copies no JIT map at the exec, as at exit."""
    if not shutil.which("strace"):
        raise Skip("needs strace")
    for attempt in range(8):
        out, log = os.path.join(tmp, f"x{attempt}.prof"), os.path.join(tmp, f"x{attempt}.txt")
        cp = run(["strace", "-f", "-o", log, PROFRUN, "-q", "-o", out, "--",
                  "/bin/sh", "-c", "exec /bin/true"], env=e2e.traced_env())
        if cp.returncode != 0 and attempt == 0 and not os.path.exists(out):
            raise Skip(f"strace cannot trace here: {cp.stderr.strip()}")
        expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
        shell = [p for p in report_json(out)["processes"] if p["exit"] is None]
        expect(len(shell) == 1, f"one image ended by its exec: {shell}")
        if not took(shell[0]):
            break
    else:
        raise Skip("every shell took a sample under strace")
    calls = traced_calls(log, "/bin/sh")
    end = next((i for i, c in enumerate(calls) if c.startswith('execve("/bin/true"')), None)
    expect(end is not None, "the shell's exec of /bin/true is not in the trace")
    text = "\n".join(calls[:end])
    for what in ("/proc/self/maps", "/perf-", "jit-"):
        expect(what not in text, f"{what!r} in the calls of an image that took no sample:\n{text}")


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
    sampled = {str(p["pid"]) for p in rep["processes"] if took(p)}

    def bound(m):
        pid = m.split(".")[0].split("-")[0]
        # (a sampled one may keep a copy of the vdso as well)
        return ((SAMPLED_MAX + vdso_bytes() if pid in sampled else ENDED_MAX) +
                (STARTER_EXTRA if pid in starters else 0))
    over = {m: (b, bound(m)) for m, b in held.items() if b > bound(m)}
    expect(not over, f"members over their bound (bytes held, bound): {over} ({ENDED_MAX}"
           f" without samples, {SAMPLED_MAX} with, {STARTER_EXTRA} more for a process that"
           " started others)")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_build.py"))
