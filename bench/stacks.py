#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call stacks (profrun -g), side by side with perf --call-graph dwarf.

    meson setup build-bench && ninja -C build-bench bench   # the script runs ninja itself
    bench/stacks.py [--quick] [--only SECTION ...] [--out FILE]

Sections (each runs its variants alternately, A B A B ...):

  handler   the cost of one sample: bench-sigprof sends itself SIGPROFs that
            look like the shim's timer's, 16 KiB down the stack, with a do-
            nothing handler of its own, the shim, the shim with stacks (each
            sample in a fresh slot), the shim with stacks at the default 2048
            slots (past them, the reservoir); the same with the run directory
            on tmpfs; then CPU and wall time of bench-loop bare / profrun -q
            -F 1000 / profrun -q -g -F 1000 (the tick is the highest rate):
            added CPU per sample, and the wall ratio
  unwind    a run of two bench-calls processes (naive Fibonacci, some 30
            frames deep) with --stack-samples 100000 at the tick; the report
            (json, folded) of that profile given 4 times (100,000 stacks):
            time, stacks per second, and where the time goes (perf record of
            the report, by shared object)
  complete  xz -6 -T2 and python3 (Debian's own optimised builds): share of
            stacks that reach the thread's start, profrun -g against perf
            record --call-graph dwarf, both at 250 Hz with 8 KiB of stack
  disk      (from the runs above) du of the run directory per stack kept

The machine is assumed shared: load average is printed at the start and end
of each section, and only medians of alternating runs are reported.  Python 3
standard library only; needs perf (linux-perf) and xz.
"""
import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from benchlib import machine, measure  # noqa: E402
from benchlib.measure import Command  # noqa: E402
from benchlib.table import table  # noqa: E402
from threads import PY_SCRIPT, iqr_half, kernel_hz, loadavg, log, med, rm  # noqa: E402

RATE = 1000        # asked for; the CPU timers run at the tick at most
PERF_HZ = 250
THREAD_STARTS = ("start", "clone", "clone3", "start_thread", "libc_start_main",
                 "libc_start_call_main", "libc_start_main_impl")


class Env:
    def __init__(self, args):
        self.build = os.path.abspath(args.builddir)
        self.profrun = os.path.join(self.build, "cli", "profrun")
        self.shim = os.path.join(self.build, "preload", "libprofrun.so")
        self.spawn = os.path.join(self.build, "bench", "bench-spawn")
        self.loop = os.path.join(self.build, "bench", "bench-loop")
        self.calls = os.path.join(self.build, "bench", "bench-calls")
        self.sigprof = os.path.join(self.build, "bench", "bench-sigprof")
        self.tmp = tempfile.mkdtemp(prefix="stacks-", dir=args.tmpdir)
        self.quick = args.quick
        self.args = args
        self.tick = None
        self.disk = []     # (what, du bytes, stacks kept, stack bytes copied)
        measure.SPAWN = self.spawn

    def path(self, name):
        return os.path.join(self.tmp, name)


def du(path):
    out = subprocess.run(["du", "-s", "-B1", path], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def profrun_json(env, *args):
    out = subprocess.run([env.profrun, "report", "--format", "json", *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def spread_text(values, nd=0, unit=""):
    """'median (min–max)'."""
    return f"{med(values):.{nd}f}{unit} ({min(values):.{nd}f}–{max(values):.{nd}f})"


def verdict(value, limit, spread=0.0):
    if value + spread <= limit:
        return "met"
    return "missed" if value - spread > limit else "inconclusive"


def note_disk(env, what, prof, j):
    st = j.get("stacks", {})
    if st.get("with_stack"):
        env.disk.append((what, du(prof), st["with_stack"]))


# ---------------------------------------------------------------- handler

def sigprof_once(env, mode, n, where, stacks=False, slots=None):
    """bench-sigprof MODE N: ns of thread CPU per signal."""
    e = dict(os.environ)
    prof = os.path.join(where, "sigprof.prof")
    rm(prof)
    if mode == "shim":
        e.update(LD_PRELOAD=env.shim, PROFRUN_OUTPUT=prof, PROFRUN_FREQ=str(RATE),
                 PROFRUN_QUIET="1")
        if stacks:
            e["PROFRUN_STACKS"] = "1"
        if slots:
            e["PROFRUN_STACK_SAMPLES"] = str(slots)
    r = subprocess.run([env.sigprof, mode, str(n)], env=e, capture_output=True, text=True,
                       check=True, cwd=env.tmp)
    rm(prof)
    return float(re.search(r"([\d.]+) ns each", r.stdout).group(1))


def section_handler(env, out):
    n = 20000 if env.quick else env.args.signals
    reps = 3 if env.quick else env.args.reps_handler
    shm = tempfile.mkdtemp(prefix="stacks-", dir="/dev/shm") if os.path.isdir("/dev/shm") else None
    variants = [("own handler (baseline)", "own", env.tmp, False, None, n),
                ("shim, no stacks", "shim", env.tmp, False, None, n),
                (f"shim -g, {n} samples, each a fresh slot ({n} slots)", "shim", env.tmp, True, n, n),
                (f"shim -g, 2048 samples into the default 2048 slots (each fresh)", "shim",
                 env.tmp, True, None, 2048),
                (f"shim -g, {n} samples, default 2048 slots (then the reservoir)", "shim",
                 env.tmp, True, None, n)]
    if shm:
        variants.append((f"shim -g, {n} samples, fresh slots, run directory on tmpfs", "shim",
                         shm, True, n, n))
    out += ["## 1. Handler cost per sample", "",
            f"`bench-sigprof MODE {n}` sends itself {n} SIGPROFs with `rt_tgsigqueueinfo` "
            "(SI_TIMER and the shim's timer value, so the shim takes them as its own "
            "samples), 16 KiB down the stack so that the 8 KiB copy is full, and prints its "
            "thread CPU time per signal (delivery, handler, return).  Rotating, "
            f"{reps} times each; the run directory is in the benchmark's directory "
            f"({env.tmp}, on the same file system as a user's profile) unless said:", "",
            f"    bench-sigprof own {n}",
            f"    LD_PRELOAD=libprofrun.so PROFRUN_FREQ={RATE} bench-sigprof shim {n}",
            f"    LD_PRELOAD=libprofrun.so PROFRUN_FREQ={RATE} PROFRUN_STACKS=1 PROFRUN_STACK_SAMPLES={n} bench-sigprof shim {n}",
            f"    LD_PRELOAD=libprofrun.so PROFRUN_FREQ={RATE} PROFRUN_STACKS=1 bench-sigprof shim {n}",
            "", f"load average at start: {loadavg()}", ""]
    res = {v[0]: [] for v in variants}
    for i in range(reps):
        for label, mode, where, stacks, slots, count in variants:
            log(f"handler {i + 1}/{reps}: {label}")
            res[label].append(sigprof_once(env, mode, count, where, stacks, slots))
    if shm:
        shutil.rmtree(shm, ignore_errors=True)
    base = med(res[variants[0][0]])
    nog = med(res[variants[1][0]])
    rows = []
    for label, *_ in variants:
        v = res[label]
        rows.append([label, spread_text(v, 0, " ns"), f"{med(v) - base:+.0f} ns",
                     f"{med(v) - nog:+.0f} ns" if label != variants[0][0] else ""])
    out += table(["variant", "CPU per signal, median (min–max)", "handler (− baseline)",
                  "stacks' part (− shim without -g)"], rows)
    fresh = med(res[variants[2][0]]) - base
    first = med(res[variants[3][0]]) - base
    steady = med(res[variants[4][0]]) - base
    out += ["", f"- handler cost with -g, the first 2048 samples of a process (each in a fresh "
            f"slot, default settings): **{first / 1000:.2f} µs**: **{verdict(first, 2000)}** "
            "(target ≤ 2 µs)",
            f"- {n} samples, each in a fresh slot (`--stack-samples {n}`): "
            f"**{fresh / 1000:.2f} µs**: **{verdict(fresh, 2000)}**",
            f"- {n} samples with the default 2048 slots (past them most samples are not drawn "
            f"by the reservoir, as in any run longer than 2048 samples): **{steady / 1000:.2f} µs**: "
            f"**{verdict(steady, 2000)}**"]
    if shm:
        t = med(res[variants[5][0]]) - base
        out.append(f"- fresh slots with the run directory on tmpfs: {t / 1000:.2f} µs (the "
                   "difference from the first line is the file system's cost of a first "
                   "write to each page of the member file)")
    res_loop = loop_rotation(env, out)
    out += ["", f"load average at end: {loadavg()}", ""]
    return {"handler": (first, fresh, steady, res_loop)}


def loop_rotation(env, out):
    scale = "0.5" if env.quick else env.args.loop_scale
    reps = 3 if env.quick else env.args.reps_loop
    prof_g, prof_f = env.path("loop-g.prof"), env.path("loop-f.prof")
    cmds = [("bare", Command("bare", [env.loop, scale], cwd=env.tmp)),
            ("profrun -q", Command("profrun -q", [env.profrun, "-q", "-F", str(RATE), "-o", prof_f,
                                                  "--", env.loop, scale],
                                   cwd=env.tmp, before=lambda: rm(prof_f))),
            ("profrun -q -g", Command("profrun -q -g", [env.profrun, "-q", "-g", "-F", str(RATE),
                                                        "-o", prof_g, "--", env.loop, scale],
                                      cwd=env.tmp, before=lambda: rm(prof_g)))]
    out += ["", f"`bench-loop {scale}` (single-threaded, CPU-bound), rotating bare / "
            f"`profrun -q -F {RATE}` / `profrun -q -g -F {RATE}` ({RATE} Hz is clipped to the "
            f"tick, {env.tick} Hz: the highest rate), {reps} rotations after one warm-up; "
            "CPU and wall from wait4 (bench-spawn), samples from the report.  Each ratio is "
            "against the bare run of its rotation.", ""]
    for _, c in cmds:
        measure.execute(c)
    runs = {k: [] for k, _ in cmds}
    samples = {"profrun -q": [], "profrun -q -g": []}
    for i in range(reps):
        log(f"loop {i + 1}/{reps}")
        for k, c in cmds:
            runs[k].append(measure.execute(c))
            if k != "bare":
                j = profrun_json(env, prof_g if k.endswith("-g") else prof_f)
                samples[k].append(j["samples"]["total"])
                if k.endswith("-g") and i == reps - 1:
                    note_disk(env, f"bench-loop {scale} -g", prof_g, j)
                    env.disk_flat = du(prof_f)
    rows, res = [], {}
    for k in ("profrun -q", "profrun -q -g"):
        w = [b.wall / a.wall for a, b in zip(runs["bare"], runs[k])]
        c = [b.cpu / a.cpu for a, b in zip(runs["bare"], runs[k])]
        per = [1e6 * (b.cpu - a.cpu) / s for a, b, s in zip(runs["bare"], runs[k], samples[k])]
        rows.append([k, f"{med(w):.4f}× ±{100 * iqr_half(w):.1f}% ({min(w):.3f}–{max(w):.3f})",
                     f"{med(c):.4f}× ±{100 * iqr_half(c):.1f}%", f"{med(samples[k]):.0f}",
                     f"{med(per):+.1f} µs ±{iqr_half(per):.1f}"])
        res[k] = (med(w), iqr_half(w), med(c), iqr_half(c), med(per), iqr_half(per))
    dg = [1e6 * (g.cpu - f.cpu) / s for f, g, s in
          zip(runs["profrun -q"], runs["profrun -q -g"], samples["profrun -q -g"])]
    out += table(["variant", "wall ratio (min–max)", "CPU ratio", "samples (median)",
                  "added CPU per sample"], rows)
    w, wh = res["profrun -q -g"][:2]
    out += ["", f"bare: wall {med([r.wall for r in runs['bare']]):.3f} s, CPU "
            f"{med([r.cpu for r in runs['bare']]):.3f} s (medians).  -g against no -g, per "
            f"sample: {med(dg):+.1f} µs ±{iqr_half(dg):.1f} (this CPU-time measure includes "
            "profrun's start-up and exit, and its noise is some 1000× the handler's cost: "
            "the microbenchmark above is the measure of the handler).", "",
            f"- wall overhead with -g at the highest rate: **{w:.4f}× ±{100 * wh:.1f}%**: "
            f"**{verdict(w, 1.01, wh)}** (target ≤ 1.01×; met or missed only when median ± "
            "half IQR is on one side)"]
    return res


# ---------------------------------------------------------------- unwind

def timed(argv, cwd):
    t0 = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    return time.monotonic() - t0


def perf_dso_shares(env, argv):
    data = env.path("report.perf")
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o", data,
                    "--", *argv], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=env.tmp)

    def rows(keys):
        r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                            "--sort", keys, "-g", "none", "--percent-limit", "2"],
                           capture_output=True, text=True)
        got = []
        for line in r.stdout.splitlines():
            m = re.match(r"\s*([\d.]+)%\s+(.*\S)", line)
            if m:
                got.append((float(m.group(1)), re.sub(r"\s+", " ", m.group(2))))
        return got

    return rows("dso"), rows("dso,sym")[:12]


def record_calls(env, name, scale, slots):
    prof = env.path(name + ".prof")
    rm(prof)
    return prof, subprocess.Popen([env.profrun, "-q", "-g", "-F", str(RATE), "--stack-samples",
                                   str(slots), "-o", prof, "--", env.calls, scale],
                                  stdout=subprocess.DEVNULL, cwd=env.tmp)


def section_unwind(env, out):
    scale = "3" if env.quick else env.args.calls_scale
    slots = 2000 if env.quick else env.args.calls_slots
    copies = 1 if env.quick else env.args.copies
    out += ["## 3. Unwinding speed", "",
            "Two recordings at once, each of one `bench-calls` process (naive Fibonacci: "
            "stacks some 30 frames deep, the recursion plus main and libc's start), with "
            "slots for every sample:", "",
            f"    profrun -q -g -F {RATE} --stack-samples {slots} -o callsN.prof -- bench-calls {scale}   # N = 1, 2", "",
            f"then their report with the pair given {copies} times (`profrun report` adds its "
            f"PROFILEs up, so every stack is unwound {copies} times), timed (wall) in rotation "
            "json / folded / json of one profile:", "",
            f"    profrun report --format json calls1.prof calls2.prof ... ({2 * copies} profiles)",
            f"    profrun report --format folded calls1.prof calls2.prof ...", "",
            f"load average at start: {loadavg()}", ""]
    log("unwind: recording")
    t0 = time.monotonic()
    recs = [record_calls(env, f"calls{i}", scale, slots) for i in (1, 2)]
    for _, proc in recs:
        if proc.wait() != 0:
            raise RuntimeError("bench-calls recording failed")
    rec = time.monotonic() - t0
    profs = [p for p, _ in recs]
    kept = []
    for p in profs:
        j = profrun_json(env, p)
        kept.append(j["stacks"]["with_stack"])
        note_disk(env, f"bench-calls {scale} -g --stack-samples {slots}", p, j)
    argv_json = [env.profrun, "report", "--format", "json", *profs * copies]
    argv_fold = [env.profrun, "report", "--format", "folded", *profs * copies]
    argv_one = [env.profrun, "report", "--format", "json", profs[0]]
    jj = json.loads(subprocess.run(argv_json, capture_output=True, text=True, check=True).stdout)
    total, one = jj["stacks"]["with_stack"], kept[0]
    out += [f"Recorded in {rec:.0f} s: {kept} stacks kept, {jj['stacks']['truncated']} of the "
            f"report's {total} truncated.", ""]
    reps = 2 if env.quick else env.args.reps_report
    times = {"json": [], "folded": [], "json, one profile": []}
    for i in range(reps):
        log(f"unwind: report {i + 1}/{reps}")
        times["json"].append(timed(argv_json, env.tmp))
        times["folded"].append(timed(argv_fold, env.tmp))
        times["json, one profile"].append(timed(argv_one, env.tmp))
    rows = []
    for k, v in times.items():
        n = one if k.endswith("profile") else total
        rows.append([k, n, spread_text(v, 3, " s"), f"{n / med(v):,.0f}"])
    out += table(["report", "stacks", "wall, median (min–max)", "stacks / s (whole report)"], rows)
    log("unwind: perf record of the report")
    dsos, syms = perf_dso_shares(env, argv_json)
    unwind_share = sum(p for p, d in dsos if re.search(r"libdw|libelf|libz|liblzma|libzstd", d))
    out += ["", f"Where the json report's time goes (`perf record -e cpu-clock -g` of it, "
            "self time by shared object, ≥ 2 %):", ""]
    out += table(["share", "object"], [[f"{p:.1f}%", d] for p, d in dsos])
    out += ["", "and by function:", ""]
    out += table(["share", "object, function"], [[f"{p:.1f}%", d] for p, d in syms])
    t = med(times["json"])
    rate = total / t
    unwind_rate = total / (t * unwind_share / 100) if unwind_share else None
    big = empty_slots(env, out)
    out += ["", f"- report of {total:,} stacks: json **{t:.2f} s**, folded "
            f"{med(times['folded']):.2f} s: **{verdict(t, 3.0)}** (target < 3 s)",
            f"- stacks per second over the whole report (symbols, output and all): "
            f"**{rate:,.0f}**: **{verdict(-rate, -50000)}** (target ≥ 50,000)",
            (f"- elfutils (libdw, libelf and their decompressors) take {unwind_share:.0f} % of "
             f"the report's CPU: unwinding alone runs at about {unwind_rate:,.0f} stacks/s")
            if unwind_rate else "- no elfutils share found",
            f"- a profile with 100,000 slots per process: {big}",
            "", f"load average at end: {loadavg()}", ""]
    return {"unwind": (total, t, med(times["folded"]), rate, unwind_rate, big)}


def empty_slots(env, out):
    """The report of the same small run with the default slots and with
    --stack-samples 100000: the cost of slots that were never written."""
    scale = "1" if env.quick else "3"
    times = {}
    for slots in (2048, 100000):
        p, proc = record_calls(env, f"slots{slots}", scale, slots)
        proc.wait()
        times[slots] = (med([timed([env.profrun, "report", "--format", "json", p], env.tmp)
                             for _ in range(3)]), os.path.getsize(os.path.join(p, os.listdir(p)[0])),
                        profrun_json(env, p)["stacks"]["with_stack"])
    out += ["", f"The cost of slots never written: `bench-calls {scale}` recorded with the "
            "default 2048 slots and with `--stack-samples 100000`, each report timed 3 times:", ""]
    out += table(["slots", "member file size", "stacks kept", "report json (median)"],
                 [[k, f"{v[1]:,}", v[2], f"{v[0]:.3f} s"] for k, v in times.items()])
    return (f"{times[100000][0]:.2f} s against {times[2048][0]:.2f} s with 2048 slots for the "
            f"same {times[2048][2]} stacks")


# ---------------------------------------------------------------- complete

def make_input(env):
    path = env.path("input.b64")
    if not os.path.exists(path):
        import base64
        rnd = random.Random(17)
        with open(path, "wb") as f:
            f.write(base64.encodebytes(rnd.randbytes(1_500_000 if env.quick else 4_500_000)))
    return path


def frame_name(line):
    """perf script's '\\t  addr sym+0x1f (dso)' → 'sym'."""
    m = re.match(r"\s*[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)\s*$", line)
    return m.group(1) if m else line.strip()


def is_thread_start(sym):
    sym = sym.split("@")[0]
    if sym.startswith("__GI_"):
        sym = sym[5:]
    return sym.lstrip("_") in THREAD_STARTS


def perf_complete(data):
    """(stacks, complete) from perf script: a stack is complete when its
    outermost frame is a thread's start."""
    r = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"],
                       capture_output=True, text=True)
    stacks = complete = 0
    last = None
    for line in r.stdout.splitlines() + [""]:
        if not line.strip():
            if last is not None:
                stacks += 1
                complete += is_thread_start(frame_name(last))
            last = None
        else:
            last = line
    return stacks, complete


def section_complete(env, out):
    inp = make_input(env)
    script = env.path("work.py")
    with open(script, "w") as f:
        f.write(PY_SCRIPT.replace("SCALE", "2" if env.quick else "6"))
    reps = 1 if env.quick else env.args.reps_complete
    cases = [("xz -6 -T2", ["xz", "-6", "-T2", "--block-size=1MiB", "-c", "-q", inp]),
             ("python3", ["python3", script])]
    out += ["## 5. Stacks that reach the thread's start, on Debian's binaries", "",
            f"xz on {os.path.getsize(inp) / 1e6:.1f} MB of base64 text (seeded random bytes; "
            "1 MiB blocks so that both threads compress) and python3 on a pure-Python script "
            "(dict, str and re work; bench/threads.py PY_SCRIPT), Debian's packages without "
            f"debug symbols installed.  Alternating, {reps} time(s) each, both at {PERF_HZ} Hz with 8 KiB of "
            "stack per sample:", "",
            f"    profrun -q -g -F {PERF_HZ} -o x.prof -- CMD             # stacks.truncated of the json report",
            f"    perf record -e cpu-clock -F {PERF_HZ} --call-graph dwarf -o x.perf -- CMD",
            "    perf script -F ip,sym,dso                 # the outermost frame of each sample", "",
            "A stack is complete when its outermost frame is `_start`, `__libc_start_main` "
            "(`_impl`), `__libc_start_call_main`, `clone3`/`clone` or `start_thread` (profrun "
            "applies the same rule).  perf's samples include kernel-mode ones (their user "
            "stack follows the kernel frames).", "",
            f"load average at start: {loadavg()}", ""]
    res, rows = {}, []
    for label, argv in cases:
        pr, pf = [], []
        for i in range(reps):
            log(f"complete: {label} {i + 1}/{reps}: profrun")
            prof = env.path("c.prof")
            rm(prof)
            subprocess.run([env.profrun, "-q", "-g", "-F", str(PERF_HZ), "-o", prof, "--", *argv],
                           check=True, stdout=subprocess.DEVNULL, cwd=env.tmp)
            j = profrun_json(env, prof)
            st = j["stacks"]
            if i == 0:
                note_disk(env, f"{label} -g", prof, j)
            pr.append(100 * (1 - st["truncated"] / st["with_stack"]) if st["with_stack"] else 0)
            log(f"complete: {label} {i + 1}/{reps}: perf")
            data = env.path("c.perf")
            rm(data)
            subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(PERF_HZ),
                            "--call-graph", "dwarf", "-o", data, "--", *argv],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           cwd=env.tmp)
            n, c = perf_complete(data)
            pf.append(100 * c / n if n else 0)
            rows.append([label, i + 1, st["with_stack"], f"{pr[-1]:.1f}%", n, f"{pf[-1]:.1f}%",
                         f"{pr[-1] - pf[-1]:+.1f}"])
        res[label] = (med(pr), med(pf), min(pr), max(pr), min(pf), max(pf))
    out += table(["workload", "rep", "profrun stacks", "profrun complete", "perf stacks",
                  "perf complete", "difference (points)"], rows)
    out += [""]
    for label, (a, b, a0, a1, b0, b1) in res.items():
        out.append(f"- {label}: profrun **{a:.1f} %** ({a0:.1f}–{a1:.1f}), perf **{b:.1f} %** "
                   f"({b0:.1f}–{b1:.1f}): **{'met' if a >= b - 1 else 'missed'}** (target: as "
                   "often as perf, within a point)")
    out += ["", f"load average at end: {loadavg()}", ""]
    return {"complete": res}


# ---------------------------------------------------------------- disk

def section_disk(env, out):
    out += ["## 4. Disk per stack kept", "",
            "`du -B1` of each run directory recorded above (the member files are sparse: "
            "du counts the blocks written) over the stacks it keeps (`stacks.with_stack`).  "
            "A slot is 8448 bytes at the default 8 KiB (a 200-byte head, the copy, rounded "
            "to 64); a copy stops at the top of the thread's stack, so shallow programs "
            "write less.", ""]
    rows, worst = [], 0
    for what, size, kept in env.disk:
        rows.append([what, f"{size:,}", kept, f"{size / kept / 1000:.2f} KB"])
        worst = max(worst, size / kept)
    out += table(["run", "du (bytes)", "stacks kept", "per stack"], rows)
    flat = getattr(env, "disk_flat", None)
    if flat is not None and env.disk:
        what, size, kept = env.disk[0]
        out += ["", f"{what}: the same run without -g takes {flat:,} bytes, so the stacks "
                f"add {(size - flat) / kept / 1000:.2f} KB each."]
    out += ["", "A member whose process execs (a shell's background child, forked and not vforked, "
            "before it execs the command) keeps its whole stack area allocated:", ""]
    prof = env.path("sh.prof")
    rm(prof)
    subprocess.run([env.profrun, "-q", "-g", "-o", prof, "--", "sh", "-c", f"{env.loop} 0.2 & wait"],
                   check=True, stdout=subprocess.DEVNULL, cwd=env.tmp)
    rows = []
    for name in sorted(os.listdir(prof)):
        f = os.path.join(prof, name)
        rows.append([name, f"{os.path.getsize(f):,}", f"{os.stat(f).st_blocks * 512:,}"])
    out += [f"    profrun -q -g -o sh.prof -- sh -c 'bench-loop 0.2 & wait'", ""]
    out += table(["member", "size", "allocated (st_blocks)"], rows)
    out += ["", f"- largest: **{worst / 1000:.2f} KB** per stack: **{verdict(worst, 8500)}** "
            "(target ≤ 8.5 KB)", ""]
    return {"disk": worst}


SECTIONS = {"handler": section_handler, "unwind": section_unwind,
            "complete": section_complete, "disk": section_disk}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small inputs, few repetitions (smoke test)")
    p.add_argument("--only", action="append", choices=list(SECTIONS))
    p.add_argument("--out", default=os.path.join(HERE, "stacks-results.md"))
    p.add_argument("--builddir", default=os.path.join(ROOT, "build-bench"))
    p.add_argument("--tmpdir", default=None)
    p.add_argument("--signals", type=int, default=20000, help="SIGPROFs per bench-sigprof run")
    p.add_argument("--reps-handler", type=int, default=7)
    p.add_argument("--loop-scale", default="2")
    p.add_argument("--reps-loop", type=int, default=9)
    p.add_argument("--calls-scale", default="40")
    p.add_argument("--calls-slots", type=int, default=10000)
    p.add_argument("--copies", type=int, default=6, help="times the pair of profiles is reported")
    p.add_argument("--reps-report", type=int, default=5)
    p.add_argument("--reps-complete", type=int, default=3)
    args = p.parse_args(argv)
    for tool in ("perf", "xz", "ninja"):
        if not shutil.which(tool):
            sys.exit(f"stacks.py: {tool} is not installed")
    subprocess.run(["ninja", "-C", args.builddir, "bench"], check=True, stdout=subprocess.DEVNULL)
    env = Env(args)
    start = time.time()
    env.tick = kernel_hz()
    out = ["# Call stacks against perf --call-graph dwarf", "",
           f"- machine: {machine.cpu_model()}, {os.cpu_count()} cores, kernel {platform.release()}",
           f"- kernel tick (jiffies per second, /proc/timer_list): {env.tick} Hz",
           f"- {machine.first_line(['perf', '--version'])}; {machine.first_line(['xz', '--version'])}; "
           f"{machine.first_line(['python3', '--version'])}",
           f"- commit: {subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}",
           f"- load average at start: {loadavg()}", ""]
    results = {}
    names = args.only or list(SECTIONS)
    for name in [n for n in SECTIONS if n in names]:
        try:
            results.update(SECTIONS[name](env, out))
        except Exception as e:  # one section failing must not lose the rest
            out += [f"## {name}: failed", "", f"    {e!r}", ""]
            log(f"{name} failed: {e!r}")
    out += [f"Total time {time.time() - start:.0f} s; load average at end: {loadavg()}."]
    text = "\n".join(out) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    shutil.rmtree(env.tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
