#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call stacks: recorded with profrun -g, unwound with libdwfl, and shown as
inclusive shares, callers, folded stacks and gprof's call graph
(tests/workloads/stacks.c).

Usage: e2e_stacks.py CASE (exit 0 pass, 1 fail, 77 skip).  Shares are checked
on at least e2e.NEED stacks within 5 standard deviations plus 2 points
(e2e.check_share); "reach the thread's start" checks allow a few stacks cut
short (a sample that lands in a function's first instruction before its frame
is set up unwinds fine; one in the dynamic loader may not)."""

import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, Skip, check_count, check_share, cpu_for, expect,  # noqa: E402
                 gather, one_line_error, report_json, run, samples_of, wl)
import e2e  # noqa: E402

CASES = {}
FREQ = e2e.DEFAULT_FREQ


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def record(tmp, name, *args, extra=(), prog=None):
    out = os.path.join(tmp, name)
    cmd = [PROFRUN, "-g", "-q", "-F", str(FREQ), *extra, "-o", out, "--",
           *(prog or [wl("stacks")]), *args]
    cp = run(cmd, timeout=240)
    expect(cp.returncode == 0, f"{cmd}: exit {cp.returncode}: {cp.stderr.strip()}")
    return out


def folded(out, *extra):
    """The folded stacks of OUT: a list of (frames root first, count)."""
    cp = run([PROFRUN, "report", "--format", "folded", *extra, out])
    expect(cp.returncode == 0, f"report --format folded: {cp.stderr.strip()}")
    stacks = []
    for line in cp.stdout.splitlines():
        m = re.fullmatch(r"(.*) (\d+)", line)
        expect(m is not None, f"folded line {line!r} is not 'a;b;c N'")
        stacks.append((m.group(1).split(";"), int(m.group(2))))
    expect(stacks, "no folded stacks")
    return stacks


def plain(frame):
    """A folded frame without its inlined mark, and without the suffix of a
    compiler's clone (sort_round.constprop.0)."""
    frame = frame[:-4] if frame.endswith("_[i]") else frame
    return re.sub(r"\.(constprop|isra|part|cold)\.\d+$", "", frame)


def with_frame(stacks, name):
    return sum(n for frames, n in stacks if name in map(plain, frames))


def recorded(attempt_args, need, tmp, name, extra=()):
    """Record until the run holds NEED stacks; returns (out, JSON report)."""
    def attempt(seconds):
        out = record(tmp, name, attempt_args[0], seconds, *attempt_args[1:],
                     extra=extra)
        rep = report_json(out)
        return (out, rep), [(rep["stacks"]["with_stack"], need)]
    return gather(attempt, cpu_for(need))


def reached_start(rep, at_least, what):
    st = rep["stacks"]
    done = st["with_stack"] - st["truncated"]
    expect(st["with_stack"] > 0, f"{what}: no stacks")
    expect(done >= at_least * st["with_stack"],
           f"{what}: {done} of {st['with_stack']} stacks reach the thread's start, "
           f"expected at least {at_least:.0%}")


@case
def leaf_through_two_callers_three_to_one(tmp):
    """The 3:1 split of leaf()'s callers, seen the same way by every view."""
    (out, rep) = recorded(["ratio"], NEED, tmp, "ratio.prof")
    st = folded(out)
    a, b = with_frame(st, "caller_a"), with_frame(st, "caller_b")
    check_share(a, a + b, 0.75, "folded: caller_a among leaf's callers")
    for frames, n in st:
        if "leaf" in frames:
            expect(frames[-1] == "leaf", f"leaf is not the leaf of {frames}")
    # JSON: a leaf's inclusive samples are its own
    leaf = [f for f in rep["functions"] if f["name"] == "leaf"]
    expect(len(leaf) == 1 and "inclusive" in leaf[0], f"leaf in JSON: {leaf}")
    expect(leaf[0]["inclusive"] >= leaf[0]["samples"] and
           leaf[0]["inclusive"] <= 1.05 * leaf[0]["samples"] + 5,
           f"leaf's inclusive {leaf[0]['inclusive']} vs self {leaf[0]['samples']}")
    # the callers have no self time, so they are no flat entries: their
    # shares show in the calls views
    cp = run([PROFRUN, "report", "--callers", "leaf", "--format", "json", out])
    expect(cp.returncode == 0, f"--callers leaf: {cp.stderr.strip()}")
    calls = cp.stdout
    expect("caller_a" in calls and "caller_b" in calls,
           f"--callers leaf names both callers: {calls[:400]!r}")
    text = run([PROFRUN, "report", "--callers", "leaf", out])
    expect(text.returncode == 0, f"--callers leaf (text): {text.stderr.strip()}")
    shares = {}
    for line in text.stdout.splitlines():
        m = re.search(r"(\d+\.\d+)%?\s.*\b(caller_[ab])\b", line)
        if m:
            shares[m.group(2)] = float(m.group(1))
    expect(set(shares) == {"caller_a", "caller_b"},
           f"--callers leaf text shows both callers with shares: {text.stdout!r}")
    total = shares["caller_a"] + shares["caller_b"]
    check_share(shares["caller_a"] / total * (a + b), a + b, 0.75,
                "--callers: caller_a's share")
    # gprof -q reads the arcs of the gmon.out export
    if shutil.which("gprof") is None:
        return
    gmon = os.path.join(tmp, "gmon.out")
    cp = run([PROFRUN, "report", "--format", "gmon", "-o", gmon, out])
    expect(cp.returncode == 0, f"gmon export: {cp.stderr.strip()}")
    gp = run(["gprof", "-q", "-b", wl("stacks"), gmon])
    expect(gp.returncode == 0, f"gprof -q: {gp.stderr.strip()}")
    calls = {}
    for line in gp.stdout.splitlines():
        m = re.match(r"\s+[\d.]+\s+[\d.]+\s+(\d+)/(\d+)\s+(caller_[ab])\b", line)
        if m:
            calls[m.group(3)] = int(m.group(1))
    expect(set(calls) == {"caller_a", "caller_b"},
           f"gprof -q shows both callers of leaf: {gp.stdout[:1500]!r}")
    check_share(calls["caller_a"], calls["caller_a"] + calls["caller_b"], 0.75,
                "gprof -q: calls from caller_a")


@case
def stacks_through_qsort_callback(tmp):
    """From a comparison function, through the C library's qsort, to main."""
    (out, rep) = recorded(["qsort"], NEED, tmp, "qsort.prof")
    st = folded(out)
    cmp = [(f, n) for f, n in st if "slow_compare" in map(plain, f)]
    total = sum(n for _, n in cmp)
    expect(total >= NEED // 2, f"only {total} stacks in slow_compare")
    through = sum(n for f, n in cmp
                  if "sort_round" in map(plain, f) and "main" in map(plain, f))
    expect(through >= 0.9 * total,
           f"{through} of {total} stacks in slow_compare reach sort_round and main "
           f"through qsort: {cmp[:3]}")


@case
def stacks_through_a_signal_handler(tmp):
    """From a SIGALRM handler, through the signal frame, to the loop it
    interrupted and main."""
    # A thread that sleeps in pause() and runs only in a handler can lose
    # its CPU timers for good on some kernels (seen on 6.18: a bare program
    # with its own CLOCK_THREAD_CPUTIME_ID or ITIMER_PROF timer gets no
    # signal after that, in about a third of its runs); such a run is
    # short of samples and is tried again from the start.
    got = []
    for attempt in range(8):
        out = record(tmp, f"signal-{attempt}.prof", "signal", cpu_for(NEED))
        total, inh = 0, []
        if report_json(out)["stacks"]["with_stack"] >= NEED // 2:
            inh = [(f, n) for f, n in folded(out) if "in_handler" in map(plain, f)]
            total = sum(n for _, n in inh)
        got.append(total)
        if total >= NEED // 2:
            break
    expect(total >= NEED // 2, f"only {got} stacks in the handler in {len(got)} runs")
    through = sum(n for f, n in inh if "main" in map(plain, f))
    expect(through >= 0.9 * total,
           f"{through} of {total} stacks in the handler reach main: {inh[:3]}")


@case
def stacks_through_the_vdso(tmp):
    """From clock_gettime in the vdso (its image saved by the shim), through
    the C library, to the loop that calls it and main."""
    (out, rep) = recorded(["clock"], NEED, tmp, "clock.prof")
    st = folded(out)
    vdso = [(f, n) for f, n in st if any("vdso" in x for x in f)]
    total = sum(n for _, n in vdso)
    expect(total >= NEED // 2, f"only {total} stacks in the vdso: {st[:3]}")
    through = sum(n for f, n in vdso if "read_clocks" in map(plain, f)
                  and "main" in map(plain, f))
    expect(through >= 0.9 * total,
           f"{through} of {total} stacks in the vdso reach read_clocks and main: {vdso[:2]}")


@case
def stacks_of_threads_reach_their_start(tmp):
    (out, rep) = recorded(["threads"], NEED, tmp, "threads.prof")
    st = folded(out)
    tw = [(f, n) for f, n in st if "thread_work" in map(plain, f)]
    total = sum(n for _, n in tw)
    expect(total >= 0.9 * rep["stacks"]["with_stack"],
           f"{total} of {rep['stacks']['with_stack']} stacks in thread_work")
    started = sum(n for f, n in tw if "start_thread" in map(plain, f))
    expect(started >= 0.9 * total,
           f"{started} of {total} thread stacks reach start_thread: {tw[:2]}")
    reached_start(rep, 0.9, "threads")


@case
def deep_recursion_is_truncated_and_counted(tmp):
    """1000 frames do not fit 8 KiB: cut short, counted, and the report
    says which option helps; 64 KiB holds them."""
    (out, rep) = recorded(["deep"], 100, tmp, "deep.prof")
    st = rep["stacks"]
    expect(st["truncated"] >= 0.9 * st["with_stack"],
           f"{st['truncated']} of {st['with_stack']} 1000-deep stacks marked truncated")
    text = run([PROFRUN, "report", out])
    expect(text.returncode == 0, f"report: {text.stderr.strip()}")
    expect("--stack-size" in text.stdout + text.stderr,
           f"the report names --stack-size for cut-short stacks: {text.stdout[:800]!r}")
    # the loop at the bottom runs leaf() and reads the CPU clock; a few
    # samples land elsewhere (start-up, the recursion on its way down)
    stacks = folded(out)
    kept = sum(n for frames, n in stacks
               if frames[-1] == "leaf" or "clock_gettime" in frames[-1])
    total = sum(n for _, n in stacks)
    expect(total > 0 and kept >= 0.9 * total,
           f"truncated stacks keep their leaf: {kept} of {total}: "
           f"{[f[-3:] for f, _ in stacks[:5]]}")
    (out, rep) = recorded(["deep"], 100, tmp, "deep64.prof",
                          extra=("--stack-size", "65536"))
    reached_start(rep, 0.9, "1000-deep recursion with --stack-size 65536")
    deep = max(len(f) for f, _ in folded(out))
    expect(deep >= 1000, f"the deepest stack has {deep} frames, expected 1000+")


@case
def sigkill_mid_run_keeps_committed_stacks(tmp):
    out = os.path.join(tmp, "k.prof")
    p = subprocess.Popen([PROFRUN, "-g", "-q", "-F", str(FREQ), "-o", out,
                          wl("stacks"), "forever"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        expect(line.strip() == "ready", f"workload said {line!r}")
        # the workload is profrun's child
        kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
                              text=True).stdout.split()
        expect(len(kids) == 1, f"children of profrun: {kids}")
        os.kill(int(kids[0]), signal.SIGKILL)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        p.communicate()
    expect(p.returncode == -signal.SIGKILL, f"profrun ended with {p.returncode}")
    rep = report_json(out)
    expect(rep["complete"] is False, "a SIGKILLed run is marked complete")
    st = folded(out)
    n = sum(c for _, c in st)
    expect(n >= 0.9 * rep["stacks"]["with_stack"] and n > 10,
           f"{n} stacks kept of a killed run ({rep['stacks']})")
    good = sum(c for f, c in st if f[-2:] == ["caller_a", "leaf"])
    expect(good >= 0.9 * n, f"{good} of {n} stacks end caller_a;leaf: {st[:3]}")


SLOTS = 600  # stacks kept by the reservoir case


@case
def reservoir_keeps_flat_counts_exact(tmp):
    """With room for 600 stacks and several times as many samples, the flat
    counts still add up to CPU time x rate, and the kept stacks are a
    uniform sample (the 3:1 split holds among them; a few kept stacks are
    of neither caller, so 600 slots leave at least NEED for the split)."""
    def attempt(seconds):
        out = record(tmp, "res.prof", "ratio", seconds,
                     extra=("--stack-samples", str(SLOTS)))
        rep = report_json(out)
        return (out, rep), [(rep["samples"]["total"], 4 * NEED)]
    out, rep = gather(attempt, cpu_for(4 * NEED))
    expect(rep["samples"]["total"] > 2 * SLOTS, "the reservoir was not exercised")
    st = rep["stacks"]
    kept = sum(n for _, n in folded(out))
    expect(kept <= SLOTS * 2, f"{kept} stack samples kept with room for {SLOTS}")
    expect(st["with_stack"] == kept, f"JSON says {st['with_stack']} stacks, folded {kept}")
    expect(st["samples"] == rep["samples"]["total"],
           f"stacks.samples {st['samples']} != samples.total {rep['samples']['total']}")
    cpu = rep["cpu_seconds"]
    check_count(rep["samples"]["total"], cpu, e2e.sample_rate(FREQ),
                "flat samples with a full reservoir")
    s = folded(out)
    a, b = with_frame(s, "caller_a"), with_frame(s, "caller_b")
    check_share(a, a + b, 0.75, "caller_a among the kept stacks")
    # pprof: one sample per stack, scaled so that the total is exact
    import e2e_ci
    cp = subprocess.run([PROFRUN, "report", "--format", "pprof", out],
                        capture_output=True, timeout=120)
    expect(cp.returncode == 0, f"pprof export: {cp.stderr.decode()}")
    text = e2e_ci.protoc_decode(cp.stdout)
    samples = e2e_ci.proto_blocks(text, "sample")
    total = sum(int(x["value"][0]) for x in samples)
    expect(total == rep["samples"]["total"],
           f"pprof holds {total} samples, the report {rep['samples']['total']}")
    deep = [x for x in samples if len(x.get("location_id", [])) >= 4]
    expect(len(deep) >= 0.9 * len(samples), "pprof samples carry their stacks")


@case
def stacks_of_debian_programs_reach_main(tmp):
    """Debian's own optimised binaries (no frame pointers): python3 and
    xz -T2 (its worker threads), unwound through their CFI."""
    # Debian's, not one a version manager puts first on PATH (a shell
    # script starting a python built elsewhere)
    py, xz = (shutil.which(name, path="/usr/bin:/bin") for name in ("python3", "xz"))
    if not py or not xz:
        raise Skip("python3 or xz missing")
    script = os.path.join(tmp, "w.py")
    with open(script, "w") as f:
        # a second of CPU (about 250 stacks at -F 1000 on a 250 Hz
        # kernel): the interpreter's start-up, whose stacks do not all
        # reach its start, is a few percent of them
        f.write("import json, time\n"
                "def f(n):\n    return sum(i * i for i in range(n))\n"
                "end = time.process_time() + 1\n"
                "while time.process_time() < end:\n    f(100000)\n"
                "    json.dumps([list(range(100))] * 50)\n")
    out = record(tmp, "py.prof", script, prog=[py])
    rep = report_json(out)
    reached_start(rep, 0.9, "python3")
    expect(any("_PyEval_EvalFrameDefault" in map(plain, f) for f, _ in folded(out)),
           "python3's stacks name its interpreter loop")
    data = os.path.join(tmp, "data")
    with open(data, "wb") as f:
        f.write(os.urandom(3 << 20) * 4)
    out = record(tmp, "xz.prof", "-T2", "-6", "-k", "-f", data, prog=[xz])
    rep = report_json(out)
    reached_start(rep, 0.9, "xz -T2")


@case
def exit_of_a_long_g_run_gives_back_in_few_calls(tmp):
    """A -g run of 500 samples or more: at exit the member's zero pages
    are given back in a few calls, not one per slot whose copy left its
    last page zero (each MADV_REMOVE costs up to a millisecond on ext4
    with online discard: a 9-second run spent 1.06 s in 1168 of them)."""
    if not shutil.which("strace"):
        raise Skip("needs strace")
    out, log = os.path.join(tmp, "long.prof"), os.path.join(tmp, "strace.txt")
    cp = run(["strace", "-f", "-e", "trace=madvise", "-o", log, PROFRUN, "-g", "-q",
              "-F", "1000", "-o", out, "--", wl("split"), cpu_for(500, 1000)],
             timeout=120, env=e2e.traced_env())
    if cp.returncode != 0 and "ptrace" in cp.stderr:
        raise Skip(f"strace cannot trace here: {cp.stderr.strip()}")
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
    rep = report_json(out)
    kept = rep["stacks"]["with_stack"]
    removes = sum("MADV_REMOVE" in line for line in open(log))
    expect(kept >= 400, f"only {kept} stacks kept: {rep['stacks']}")
    expect(removes <= 16, f"{removes} MADV_REMOVE calls at the end of a run of {kept} stacks")


@case
def ended_and_execed_images_keep_only_their_stacks(tmp):
    """A shell that forks and execs the workload: the fork child's image
    before its exec, the shell and the workload each keep on disk only the
    stack slots they took (8448 bytes each), not the 17 MB reserved."""
    out = os.path.join(tmp, "fx.prof")
    cp = run([PROFRUN, "-g", "-q", "-o", out, "sh", "-c",
              f"{wl('stacks')} ratio 0.3 & wait"], timeout=120)
    expect(cp.returncode == 0, f"sh under profrun -g: {cp.stderr}")
    rep = report_json(out)
    members = sorted(os.listdir(out))
    expect(len(members) >= 3, f"members {members}")
    for m in members:
        st = os.stat(os.path.join(out, m))
        held = e2e.held_bytes(os.path.join(out, m))
        expect(st.st_size > 16 << 20, f"{m}: {st.st_size} bytes, expected a stack area")
        expect(held < 4 << 20,
               f"{m} holds {held} bytes on disk of {st.st_size} ({rep['stacks']})")
    expect(rep["stacks"]["with_stack"] > 0, f"no stacks: {rep['stacks']}")


@case
def merge_keeps_stacks(tmp):
    """profrun merge of two -g runs (and of a merge with a run): the merged
    folded stacks are the sums of the inputs', frame for frame, through the
    executable and the C library alike."""
    a = record(tmp, "a.prof", "qsort", "0.4")
    b = record(tmp, "b.prof", "ratio", "0.4")
    out = os.path.join(tmp, "m.prof")
    cp = run([PROFRUN, "merge", "-o", out, a, b])
    expect(cp.returncode == 0, f"merge: {cp.stderr}")

    def counts(*profs):
        total = {}
        for p in profs:
            for frames, n in folded(p):
                key = ";".join(frames)
                total[key] = total.get(key, 0) + n
        return total
    want, got = counts(a, b), counts(out)
    expect(got == want, f"merged stacks differ: {len(got)} vs {len(want)} distinct; "
           f"first difference {sorted(set(got.items()) ^ set(want.items()))[:2]}")
    expect(any("qsort" in k for k in got), "stacks through the C library kept")
    rep = report_json(out)
    expect(rep["stacks"]["with_stack"] == sum(want.values()),
           f"merged stacks {rep['stacks']}, inputs {sum(want.values())}")
    again = os.path.join(tmp, "m2.prof")
    cp = run([PROFRUN, "merge", "-o", again, out, a])
    expect(cp.returncode == 0, f"merge of a merge: {cp.stderr}")
    want2 = counts(a, b, a)
    expect(counts(again) == want2, "a merge of a merge keeps the stacks")


@case
def profile_without_stacks_refuses_stack_views(tmp):
    out = os.path.join(tmp, "flat.prof")
    cp = run([PROFRUN, "-q", "-o", out, wl("stacks"), "ratio", "0.2"])
    expect(cp.returncode == 0, f"flat run: {cp.stderr}")
    for args in (["--callers", "leaf"], ["--call-graph"]):
        cp = run([PROFRUN, "report", *args, out])
        line = one_line_error(cp, f"report {args} without stacks")
        expect("-g" in line, f"the error says to record with -g: {line!r}")
    # folded without stacks: each function a stack of its own, and a
    # warning that says how to get stacks
    cp = run([PROFRUN, "report", "--format", "folded", out])
    expect(cp.returncode == 0 and "-g" in cp.stderr and
           re.search(r"^leaf \d+$", cp.stdout, re.M),
           f"folded without stacks: exit {cp.returncode}, {cp.stdout!r}, {cp.stderr!r}")
    rec = record(tmp, "st.prof", "ratio", "0.3")
    cp = run([PROFRUN, "report", "--callers", "no_such_function", rec])
    one_line_error(cp, "--callers of an unknown function")


@case
def stacks_of_another_architecture_are_said(tmp):
    """A stack area whose registers are those of a CPU profrun cannot unwind
    (its arch field says EM_PPC64; x86-64, AArch64 and RISC-V 64 it can):
    the flat profile still reads, and the report says in one line why the
    stacks are missing."""
    out = record(tmp, "arch.prof", "ratio", "0.3")
    (member,) = [os.path.join(out, m) for m in os.listdir(out)]
    with open(member, "r+b") as f:
        b = bytearray(f.read())
        regions_off, nregions = struct.unpack_from("<QI", b, 384)
        areas = [struct.unpack_from("<IHHQQ", b, regions_off + 24 * i)[3]
                 for i in range(nregions)
                 if struct.unpack_from("<I", b, regions_off + 24 * i)[0] == 10]
        expect(len(areas) == 1, f"stack areas {areas}")
        struct.pack_into("<I", b, areas[0] + 12, 21)  # EM_PPC64
        f.seek(0)
        f.write(b)
    cp = run([PROFRUN, "report", out])
    expect(cp.returncode == 0 and re.search(r"^leaf\b|\bleaf\b", cp.stdout + cp.stderr, re.M),
           f"flat report: exit {cp.returncode}: {cp.stderr!r}")
    said = [ln for ln in (cp.stdout + cp.stderr).splitlines() if "another architecture" in ln]
    expect(len(said) == 1, f"the report does not say why stacks are missing: {cp.stdout!r} {cp.stderr!r}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_stacks.py"))
