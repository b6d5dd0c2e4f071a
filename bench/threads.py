#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-thread sampling, side by side with perf.

    meson setup build-bench && ninja -C build-bench bench   # the script runs ninja itself
    bench/threads.py [--quick] [--only SECTION ...] [--out FILE]

Sections (each runs its profiled variants alternately, A B A B ...):

  xz        xz -6 -T2 on a ~30 MB input: liblzma's share under profrun and
            perf record -e cpu-clock -F 250; samples against CPU x rate
  pigz      pigz -p 2 on the same input: profrun's samples against CPU x rate
            (at 100 Hz and at 250 Hz), perf's for comparison
  build     a clean `ninja -j2` of profrun itself (many short processes):
            each executable's share of the CPU under profrun (kernel CPU
            accounting and samples) and under perf (--sort comm); total CPU
            against a bare build
  blocked   two workers that block every signal while main sleeps in
            pthread_join (tests/workloads/percpu blocked): share of samples in workers
  overhead  bench-loop: callgrind instruction counts bare vs shim (two scales,
            to split a fixed cost from a per-sample one), and wall/CPU in
            rotating bare / shim / profrun -q runs
  threads   bench-threadspawn: N threads created and joined one at a time,
            bare vs shim in pairs; added wall and CPU per thread; callgrind
            instructions per thread
  toplevel  python3 on a CPU-bound script and gcc -O2 -c of a big C file:
            top functions under profrun and perf

The machine is assumed shared: load average is printed at the start and end
of each section, and only medians of alternating runs are reported.  The
input is generated from a fixed seed, so every run compresses the same bytes.
Python 3 standard library only; needs perf (linux-perf), pigz, xz, valgrind.
"""
import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
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

PERF_HZ = 250


# ---------------------------------------------------------------- helpers

def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')} load {loadavg()}] {msg}", file=sys.stderr, flush=True)


def rm(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def iqr_half(values):
    values = sorted(values)
    if len(values) < 4:
        return (values[-1] - values[0]) / 2 if values else 0.0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (q3 - q1) / 2


def fmt(x, nd=2, suffix=""):
    return "–" if x is None else f"{x:.{nd}f}{suffix}"


class Env:
    def __init__(self, args):
        self.build = os.path.abspath(args.builddir)
        self.profrun = os.path.join(self.build, "cli", "profrun")
        self.shim = os.path.join(self.build, "preload", "libprofrun.so")
        self.spawn = os.path.join(self.build, "bench", "bench-spawn")
        self.loop = os.path.join(self.build, "bench", "bench-loop")
        self.threadspawn = os.path.join(self.build, "bench", "bench-threadspawn")
        self.percpu = os.path.join(self.build, "tests", "workloads", "percpu")
        self.tmp = tempfile.mkdtemp(prefix="threads-", dir=args.tmpdir)
        self.quick = args.quick
        self.args = args
        self.tick = None
        self.input = None
        measure.SPAWN = self.spawn

    def path(self, name):
        return os.path.join(self.tmp, name)

    def cap(self, hz):
        """The rate a CPU-time timer can reach: the request, or the tick."""
        return min(hz, self.tick) if self.tick else hz


def profrun_json(env, prof, *extra):
    out = subprocess.run([env.profrun, "report", "--format", "json", *extra, prof],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def perf_table(data, keys):
    """[(samples, key fields...)] from perf report --sort KEYS."""
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", keys,
                          "-F", "sample," + keys, "-t", "\t"],
                         capture_output=True, text=True)
    rows = []
    for line in out.stdout.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        try:
            rows.append((int(fields[0]), *fields[1:]))
        except ValueError:
            continue
    return rows


def spawn_result(path):
    with open(path) as f:
        wall, cpu, rss, status = f.read().split()
    return float(wall), float(cpu)


def run_profrun(env, name, argv, freq=None, cwd=None, before=None):
    """profrun -q [-F freq] -o PROF -- argv; returns (profile path, Run)."""
    prof = env.path(name + ".prof")
    rm(prof)
    if before:
        before()
    rate = ["-F", str(freq)] if freq else []
    run = measure.run_once(Command(name, [env.profrun, "-q", *rate, "-o", prof, "--", *argv],
                                   cwd=cwd or env.tmp))
    return prof, run


def run_perf(env, name, argv, cwd=None, before=None, freq=PERF_HZ):
    """perf record -e cpu-clock -F FREQ -- bench-spawn RES -- argv: returns
    (perf.data path, the workload's own (wall, cpu) from wait4)."""
    data = env.path(name + ".perf")
    res = env.path(name + ".inner")
    rm(data)
    if before:
        before()
    measure.run_once(Command(name, ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq),
                                    "-o", data, "--", env.spawn, res, "--", *argv],
                             cwd=cwd or env.tmp))
    return data, spawn_result(res)


def run_bare(env, name, argv, cwd=None, before=None):
    if before:
        before()
    return measure.run_once(Command(name, argv, cwd=cwd or env.tmp))


def make_input(env):
    """~30 MB of base64 text from a fixed seed (compresses to about 76%)."""
    path = env.path("input.b64")
    if not os.path.exists(path):
        import base64
        rnd = random.Random(13)
        size = 6_000_000 if env.quick else 22_500_000
        with open(path, "wb") as f:
            f.write(base64.encodebytes(rnd.randbytes(size)))
    env.input = path
    return path


def kernel_hz():
    """CONFIG_HZ, from how fast jiffies advance over a second (exact under
    load, unlike a signal count); None if /proc/timer_list is not readable."""
    def jiffies():
        with open("/proc/timer_list") as f:
            m = re.search(r"^jiffies: (\d+)", f.read(), re.M)
        return int(m.group(1))
    try:
        j0, t0 = jiffies(), time.monotonic()
        time.sleep(1)
        hz = (jiffies() - j0) / (time.monotonic() - t0)
    except (OSError, AttributeError):
        return None
    return round(hz / 50) * 50


def verdict_within(diff, bound):
    return "met" if abs(diff) <= bound else "missed"


# ---------------------------------------------------------------- sections

def section_xz(env, out):
    inp = make_input(env)
    reps = 1 if env.quick else env.args.reps_xz
    rows, diffs, diffs_user = [], [], []
    p_ratio, f_ratio = [], []
    out += ["## xz -6 -T2", "",
            f"Input: {os.path.getsize(inp) / 1e6:.1f} MB of base64 text (seeded random bytes). "
            f"Commands, alternating, {reps} time(s) each:", "",
            f"    profrun -q -o xz.prof -- xz -6 -T2 -c input.b64 > /dev/null      # 100 Hz, the default",
            f"    perf record -e cpu-clock -F {PERF_HZ} -o xz.perf -- bench-spawn RES -- xz -6 -T2 -c input.b64 > /dev/null",
            f"    perf report -i xz.perf --sort dso", "",
            f"load average at start: {loadavg()}", ""]
    for i in range(reps):
        log(f"xz {i + 1}/{reps}: profrun")
        prof, run = run_profrun(env, "xz", ["xz", "-6", "-T2", "-c", inp, "-q"])
        j = profrun_json(env, prof)
        total = j["samples"]["total"]
        lz = sum(m["samples"] for m in j["modules"] if "liblzma" in m["module"])
        share = 100 * lz / total if total else 0
        cpu = j["cpu_seconds"]
        pr = total / (cpu * env.cap(100)) if cpu else None
        threads = j["processes"][0].get("threads", [])
        log(f"xz {i + 1}/{reps}: perf")
        data, (pwall, pcpu) = run_perf(env, "xz", ["xz", "-6", "-T2", "-c", inp, "-q"])
        t = perf_table(data, "dso")
        ptotal = sum(r[0] for r in t)
        plz = sum(r[0] for r in t if "liblzma" in r[1])
        pkern = sum(r[0] for r in t if r[1].startswith("[kernel"))
        pshare = 100 * plz / ptotal if ptotal else 0
        puser = 100 * plz / (ptotal - pkern) if ptotal > pkern else 0
        fr = ptotal / (pcpu * PERF_HZ) if pcpu else None
        diffs.append(share - pshare)
        diffs_user.append(share - puser)
        p_ratio.append(pr)
        f_ratio.append(fr)
        rows.append([i + 1, total, f"{share:.2f}%", j["samples"].get("kernel", 0),
                     f"{cpu:.2f} s (+{j.get('cpu_startup_seconds', 0):.3f})",
                     f"{pr:.3f}", len(threads),
                     ptotal, f"{pshare:.2f}%", f"{100 * pkern / ptotal:.2f}%", f"{puser:.2f}%",
                     f"{pcpu:.2f} s", f"{fr:.3f}", f"{share - pshare:+.2f}"])
    out += table(["rep", "profrun samples", "profrun liblzma", "profrun kernel samples",
                  "profrun CPU (startup)", "profrun samples / (CPU×100)", "threads",
                  "perf samples", "perf liblzma", "perf [kernel]", "perf liblzma of user samples",
                  "workload CPU (wait4)", "perf samples / (CPU×250)", "diff (points)"], rows)
    d = med(diffs)
    out += ["", f"- liblzma share, profrun − perf (all samples): median {d:+.2f} points "
            f"(each run: {', '.join(f'{x:+.2f}' for x in diffs)}): **{verdict_within(d, 3)}** (target ±3)",
            f"- against perf's user-mode samples only (perf's [kernel] removed): median "
            f"{med(diffs_user):+.2f} points",
            f"- samples / (CPU × rate): profrun median {med(p_ratio):.3f}, perf median {med(f_ratio):.3f}",
            "", f"load average at end: {loadavg()}", ""]
    return {"xz": (d, med(p_ratio), med(f_ratio))}


def section_pigz(env, out):
    inp = make_input(env)
    reps = 2 if env.quick else env.args.reps_pigz
    argv = ["pigz", "-p", "2", "-c", inp]
    out += ["## pigz -p 2", "",
            f"Same input.  Rotating, {reps} time(s) each (stdout to /dev/null):", "",
            "    profrun -q -o pigz.prof -- pigz -p 2 -c input.b64          # 100 Hz",
            "    profrun -q -F 250 -o pigz.prof -- pigz -p 2 -c input.b64   # the tick",
            f"    perf record -e cpu-clock -F {PERF_HZ} -- bench-spawn RES -- pigz -p 2 -c input.b64", "",
            "Expected samples = CPU × rate, where CPU is profrun's `cpu_seconds` (the kernel's "
            "accounting of the process after the shim started) and rate the requested rate "
            "capped at the tick; for perf the workload's wait4 CPU × 250.", "",
            f"load average at start: {loadavg()}", ""]
    acc = {100: [0, 0.0, []], 250: [0, 0.0, []], "perf": [0, 0.0, []]}
    rows = []
    for i in range(reps):
        for hz in (100, 250):
            log(f"pigz {i + 1}/{reps}: profrun -F {hz}")
            prof, run = run_profrun(env, f"pigz{hz}", argv, freq=hz)
            j = profrun_json(env, prof)
            n, cpu = j["samples"]["total"], j["cpu_seconds"]
            exp = cpu * env.cap(hz)
            acc[hz][0] += n
            acc[hz][1] += exp
            acc[hz][2].append(n / exp)
            rows.append([i + 1, f"profrun -F {hz}", n, f"{cpu:.3f}", f"{exp:.0f}", f"{n / exp:.3f}",
                         j["rate_hz"], fmt(j.get("cpu_unsampled_seconds"), 3)])
        log(f"pigz {i + 1}/{reps}: perf")
        data, (_, pcpu) = run_perf(env, "pigz", argv)
        n = sum(r[0] for r in perf_table(data, "comm"))
        exp = pcpu * PERF_HZ
        acc["perf"][0] += n
        acc["perf"][1] += exp
        acc["perf"][2].append(n / exp)
        rows.append([i + 1, f"perf -F {PERF_HZ}", n, f"{pcpu:.3f}", f"{exp:.0f}", f"{n / exp:.3f}", "", ""])
    out += table(["rep", "profiler", "samples", "CPU s", "CPU × rate", "ratio", "rate_hz (report)",
                  "unsampled CPU s"], rows)
    out += [""]
    res = {}
    for key, (n, exp, ratios) in acc.items():
        label = f"profrun -F {key}" if key != "perf" else f"perf -F {PERF_HZ}"
        sd = (exp ** 0.5) / exp if exp else 0
        target = ""
        if key != "perf":
            ok = n / exp >= 0.90
            target = f": **{'met' if ok else 'missed'}** (target ≥ 0.90)"
        out.append(f"- {label}: {n} samples against {exp:.0f} expected over all runs = "
                   f"{n / exp:.3f} (Poisson sd ±{sd:.3f}); median of runs {med(ratios):.3f}{target}")
        res[key] = n / exp
    out += ["", f"load average at end: {loadavg()}", ""]
    return {"pigz": res}


def comm_key(comm):
    """perf's comm (the exec'd file name, 15 characters at most) as the
    executable profrun names: the basename of the real path."""
    found = shutil.which(comm)
    if found:
        return os.path.basename(os.path.realpath(found))
    return comm


PERF_DEFAULT_HZ = 4000   # perf record's default -F


def section_build(env, out):
    reps = 1 if env.quick else env.args.reps_build
    bdir = env.path("pbuild")
    subprocess.run(["meson", "setup", bdir, ROOT], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ninja = ["ninja", "-C", bdir, "-j2"]

    def clean():
        subprocess.run(["ninja", "-C", bdir, "-t", "clean"], check=True, stdout=subprocess.DEVNULL)

    out += ["## A build of many short processes", "",
            f"A clean `ninja -j2` of profrun itself (`meson setup pbuild {ROOT}`, default "
            "targets), `ninja -t clean` before each build.  Rotating bare / profrun / perf at "
            f"250 Hz / perf at its default 4000 Hz, {reps} time(s) each after one unmeasured "
            "warm-up build:", "",
            "    ninja -C pbuild -j2                                        # bare, CPU from wait4",
            "    profrun -q -o build.prof -- ninja -C pbuild -j2           # 100 Hz",
            f"    perf record -e cpu-clock -F {PERF_HZ} -- bench-spawn RES -- ninja -C pbuild -j2",
            f"    perf record -e cpu-clock -F {PERF_DEFAULT_HZ} -- bench-spawn RES -- ninja -C pbuild -j2",
            "    profrun report --format json build.prof     # executables[]: cpu_percent, percent",
            "    perf report --sort comm", "",
            "perf's comm is mapped to the executable's real file name (`cc` → "
            "`x86_64-linux-gnu-gcc-12`, `as` → `x86_64-linux-gnu-as`, `sh` → `dash`).  "
            "perf's cpu-clock event restarts its period in every new process, so at 250 Hz a "
            "process that uses less than 4 ms of CPU gets no sample at all (section `short`): "
            "the 4000 Hz recording is the reference for the short processes.  profrun's "
            "`cpu_percent` leaves out each process's CPU before the shim's constructor ran "
            "(exec, dynamic loading: `cpu_startup_seconds`), which perf counts; the column "
            "\"with startup\" adds it back from `processes[]`.", "",
            f"load average at start: {loadavg()}", ""]
    log("build: warm-up")
    clean()
    run_bare(env, "warm", ninja)
    per = {}

    def entry(k):
        return per.setdefault(k, {"p250": [0.0] * reps, "p4k": [0.0] * reps, "cpu": [0.0] * reps,
                                  "cpus": [0.0] * reps,
                                  "samp": [0.0] * reps, "n": [0] * reps, "exp": [0.0] * reps,
                                  "procs": [0] * reps, "start": [0.0] * reps, "uns": [0.0] * reps})

    totals = {"bare": [], "profrun": [], "p250": [], "p4k": [], "samples": [], "expected": [],
              "startup": [], "unsampled": [], "procs": []}
    for i in range(reps):
        log(f"build {i + 1}/{reps}: bare")
        bare = run_bare(env, "bare", ninja, before=clean)
        log(f"build {i + 1}/{reps}: profrun")
        prof, prun = run_profrun(env, "build", ninja, before=clean)
        perf_data = {}
        for key, hz in (("p250", PERF_HZ), ("p4k", PERF_DEFAULT_HZ)):
            log(f"build {i + 1}/{reps}: perf -F {hz}")
            data, (_, pcpu) = run_perf(env, "build" + key, ninja, before=clean, freq=hz)
            perf_data[key] = data
            totals[key].append(pcpu)
        totals["bare"].append(bare.cpu)
        totals["profrun"].append(prun.cpu)
        j = profrun_json(env, prof)
        totals["samples"].append(j["samples"]["total"])
        totals["expected"].append(j["cpu_seconds"] * env.cap(100))
        totals["startup"].append(j.get("cpu_startup_seconds"))
        totals["unsampled"].append(j.get("cpu_unsampled_seconds"))
        totals["procs"].append(len(j["processes"]))
        edge = {}
        for p in j["processes"]:
            e = edge.setdefault(os.path.basename(p["exe"]), [0.0, 0.0])
            e[0] += p.get("cpu_startup_seconds") or 0
            e[1] += p.get("cpu_unsampled_seconds") or 0
        for e in j["executables"]:
            k = os.path.basename(e["exe"])
            d = entry(k)
            d["cpu"][i] = e["cpu_percent"]
            d["samp"][i] = e["percent"]
            d["n"][i] = e["samples"]
            d["exp"][i] = e["cpu_seconds"] * env.cap(100)
            d["procs"][i] = e["processes"]
            d["start"][i], d["uns"][i] = edge.get(k, (0, 0))
        # CPU with the loader's share before the shim started, as perf sees it
        whole = sum(e["cpu_seconds"] for e in j["executables"]) + sum(v[0] for v in edge.values())
        for e in j["executables"]:
            k = os.path.basename(e["exe"])
            entry(k)["cpus"][i] = 100 * (e["cpu_seconds"] + edge.get(k, (0, 0))[0]) / whole
        for key, data in perf_data.items():
            t = perf_table(data, "comm")
            ptotal = sum(r[0] for r in t)
            for r in t:
                k = comm_key(r[1])
                if k in ("bench-spawn", "perf"):
                    continue
                entry(k)[key][i] += 100 * r[0] / ptotal
        clean()
    rows = []
    worst = {("cpu", "p4k"): (0, ""), ("samp", "p4k"): (0, ""),
             ("cpu", "p250"): (0, ""), ("samp", "p250"): (0, ""), ("cpus", "p4k"): (0, "")}
    for k, d in sorted(per.items(), key=lambda kv: -med(kv[1]["p4k"])):
        diffs = {}
        for col, ref in worst:
            diffs[col, ref] = med([a - b for a, b in zip(d[col], d[ref])])
            if abs(diffs[col, ref]) > abs(worst[col, ref][0]):
                worst[col, ref] = (diffs[col, ref], k)
        n, exp = sum(d["n"]), sum(d["exp"])
        procs = med(d["procs"])
        start_ms = 1000 * sum(d["start"]) / max(1, sum(d["procs"]))
        uns_ms = 1000 * sum(d["uns"]) / max(1, sum(d["procs"]))
        if max(med(d["p4k"]), med(d["p250"]), med(d["cpu"]), med(d["samp"])) < 0.05 and not n:
            continue
        rows.append([k, f"{procs:.0f}", fmt(med(d["p4k"])), fmt(med(d["p250"])),
                     fmt(med(d["cpu"])), fmt(med(d["cpus"])), fmt(med(d["samp"])),
                     f"{diffs['cpu', 'p4k']:+.2f}", f"{diffs['cpus', 'p4k']:+.2f}",
                     f"{diffs['samp', 'p4k']:+.2f}",
                     f"{diffs['cpu', 'p250']:+.2f}", f"{diffs['samp', 'p250']:+.2f}",
                     f"{n / exp:.2f}" if exp else "–", f"{start_ms:.2f}", f"{uns_ms:.2f}"])
    out += table(["executable", "processes", "perf 4000 Hz %", "perf 250 Hz %",
                  "profrun CPU % (kernel accounting)", "profrun CPU % with startup",
                  "profrun sample %", "CPU % − perf 4000", "CPU with startup − perf 4000",
                  "sample % − perf 4000", "CPU % − perf 250",
                  "sample % − perf 250", "profrun samples / (CPU×100), all runs",
                  "startup CPU per process (ms)", "unsampled CPU per process (ms)"], rows)
    ratio = {k: med([p / b for p, b in zip(totals[k], totals["bare"])])
             for k in ("profrun", "p250", "p4k")}
    out += ["",
            f"Medians over {reps} build(s).  profrun recorded {med(totals['procs']):.0f} processes; "
            f"total samples {med(totals['samples']):.0f} against CPU × 100 = "
            f"{med(totals['expected']):.0f}; CPU before the shim started (loader) "
            f"{fmt(med(totals['startup']), 2)} s, unsampled CPU {fmt(med(totals['unsampled']), 2)} s.",
            "Build CPU (wait4, user+system), per build: bare "
            + ", ".join(f"{x:.2f}" for x in totals["bare"]) + " s; profrun "
            + ", ".join(f"{x:.2f}" for x in totals["profrun"]) + " s; perf 250 Hz workload "
            + ", ".join(f"{x:.2f}" for x in totals["p250"]) + " s; perf 4000 Hz workload "
            + ", ".join(f"{x:.2f}" for x in totals["p4k"]) + " s.  Median ratio to the bare "
            f"build of the same rotation: profrun {ratio['profrun']:.3f}×, perf 250 Hz "
            f"{ratio['p250']:.3f}×, perf 4000 Hz {ratio['p4k']:.3f}×.", ""]
    for (col, ref), (dv, k) in worst.items():
        name = {"cpu": "CPU-accounting share", "samp": "sample share",
                "cpus": "CPU-accounting share with startup CPU"}[col]
        hz = {"p4k": PERF_DEFAULT_HZ, "p250": PERF_HZ}[ref]
        out.append(f"- worst {name} against perf {hz} Hz: {k} {dv:+.2f} points: "
                   f"**{verdict_within(dv, 3)}** (target ±3)")
    out += ["", f"load average at end: {loadavg()}", ""]
    return {"build": worst, "build_cpu": ratio}


def section_short(env, out):
    reps = 1 if env.quick else env.args.reps_short
    n, secs = 300, 0.002
    argv = [env.percpu, "short", str(n), str(secs)]
    out += ["## Short fork children", "",
            f"`tests/workloads/percpu short {n} {secs}`: {n} fork children in turn, each spinning "
            f"{secs * 1000:.0f} ms of its own CPU (half a tick), then the parent spins as long "
            "as they did together: by construction the children hold half of the spinning CPU.  "
            f"Rotating, {reps} time(s) each:", "",
            f"    profrun -q [-F 250] -o short.prof -- build-bench/tests/workloads/percpu short {n} {secs}",
            f"    perf record -e cpu-clock -F 250|4000 -- build-bench/tests/workloads/percpu short {n} {secs}", "",
            "profrun: the children's samples against their CPU (`processes[].cpu_seconds`) × "
            "rate; perf: the children's share of the samples (50% expected).", "",
            f"load average at start: {loadavg()}", ""]
    rows = []
    acc = {}
    for i in range(reps):
        for hz in (100, 250):
            log(f"short {i + 1}/{reps}: profrun -F {hz}")
            prof, _ = run_profrun(env, "short", argv, freq=hz)
            j = profrun_json(env, prof)
            pids = {p["pid"] for p in j["processes"]}
            kids = [p for p in j["processes"] if p["ppid"] in pids]
            root = [p for p in j["processes"] if p["ppid"] not in pids]
            ks = sum(p["samples"] for p in kids)
            kc = sum(p["cpu_seconds"] for p in kids)
            rs = sum(p["samples"] for p in root)
            rc = sum(p["cpu_seconds"] for p in root)
            kr = ks / (kc * env.cap(hz)) if kc else 0
            rr = rs / (rc * env.cap(hz)) if rc else 0
            share = 100 * ks / (ks + rs) if ks + rs else 0
            acc.setdefault(f"profrun -F {hz}", []).append((kr, share))
            rows.append([i + 1, f"profrun -F {hz}", len(kids), ks, f"{kc * env.cap(hz):.0f}",
                         f"{kr:.3f}", f"{rr:.3f}", f"{share:.1f}%"])
        for hz in (PERF_HZ, PERF_DEFAULT_HZ):
            log(f"short {i + 1}/{reps}: perf -F {hz}")
            data = env.path("short.perf")
            rm(data)
            subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(hz), "-o", data,
                            "--", *argv], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            counts = {}
            for line in subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid"],
                                       capture_output=True, text=True).stdout.splitlines():
                f = line.split()
                if len(f) == 2 and f[0] == "percpu":
                    counts[int(f[1])] = counts.get(int(f[1]), 0) + 1
            top = max(counts, key=counts.get) if counts else None
            rs = counts.get(top, 0)
            ks = sum(counts.values()) - rs
            share = 100 * ks / (ks + rs) if ks + rs else 0
            acc.setdefault(f"perf -F {hz}", []).append((None, share))
            rows.append([i + 1, f"perf -F {hz}", len(counts) - 1 if counts else 0, ks, "", "", "",
                         f"{share:.1f}%"])
    out += table(["rep", "profiler", "children with samples (perf) / recorded (profrun)",
                  "children's samples", "their CPU × rate", "children: samples / (CPU × rate)",
                  "parent: samples / (CPU × rate)", "children's share of samples"], rows)
    out += [""]
    for label, vals in acc.items():
        ratios = [r for r, _ in vals if r is not None]
        shares = [sh for _, sh in vals]
        line = f"- {label}: children's share median {med(shares):.1f}% (range {min(shares):.1f}–{max(shares):.1f})"
        if ratios:
            line += (f"; their samples / (CPU × rate) median {med(ratios):.3f} "
                     f"(range {min(ratios):.3f}–{max(ratios):.3f})")
        out.append(line)
    out += ["", f"load average at end: {loadavg()}", ""]
    return {"short": {k: med([sh for _, sh in v]) for k, v in acc.items()}}


def section_blocked(env, out):
    reps = 1 if env.quick else env.args.reps_blocked
    secs = "1" if env.quick else "2"
    argv = [env.percpu, "blocked", secs]
    out += ["## Workers that block every signal", "",
            f"`tests/workloads/percpu blocked {secs}`: two workers spin {secs} s of CPU each with every "
            "signal blocked (one blocks itself, one inherits its creator's full mask) while "
            f"main sleeps in pthread_join.  Alternating, {reps} time(s) each:", "",
            f"    profrun -q -o blocked.prof -- build-bench/tests/workloads/percpu blocked {secs}",
            f"    perf record -e cpu-clock -F {PERF_HZ} -- build-bench/tests/workloads/percpu blocked {secs}", "",
            f"load average at start: {loadavg()}", ""]
    rows, shares = [], []
    for i in range(reps):
        log(f"blocked {i + 1}/{reps}: profrun")
        prof, _ = run_profrun(env, "blocked", argv)
        j = profrun_json(env, prof)
        th = j["processes"][0]["threads"]
        total = j["samples"]["total"]
        workers = sum(t["samples"] for t in th if not t["main"])
        share = 100 * workers / total if total else 0
        shares.append(share)
        log(f"blocked {i + 1}/{reps}: perf")
        data = env.path("blocked.perf")
        rm(data)
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(PERF_HZ), "-o", data,
                        "--", *argv], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        s = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid"],
                           capture_output=True, text=True).stdout.split("\n")
        n = w = 0
        for line in s:
            m = re.match(r"\s*(\S+)\s+(\d+)/(\d+)", line)
            if m and m.group(1) == "percpu":
                n += 1
                w += m.group(2) != m.group(3)
        rows.append([i + 1, total, workers, f"{share:.2f}%", f"{j['cpu_seconds']:.2f}",
                     n, f"{100 * w / n:.2f}%" if n else "–"])
    out += table(["rep", "profrun samples", "in workers", "profrun worker share", "CPU s",
                  "perf samples", "perf worker share"], rows)
    m = med(shares)
    out += ["", f"- profrun: median {m:.2f}% of samples in the workers: "
            f"**{'met' if m >= 95 else 'missed'}** (target ≥ 95%)",
            "", f"load average at end: {loadavg()}", ""]
    return {"blocked": m}


def callgrind_ir(env, argv, shim=False, prof=None):
    """Instructions (callgrind's Ir) of argv, bare or with the shim preloaded."""
    envv = dict(os.environ)
    if shim:
        rm(prof)
        envv.update(LD_PRELOAD=env.shim, PROFRUN_OUTPUT=prof, PROFRUN_QUIET="1")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                       env=envv, capture_output=True, text=True, cwd=env.tmp)
    m = re.search(r"Collected\s*:\s*(\d+)", r.stderr)
    if not m:
        raise RuntimeError("callgrind: " + r.stderr[-400:])
    return int(m.group(1))


def prof_samples(env, prof, exe_base):
    j = profrun_json(env, prof, "--by-process")
    return sum(p["samples"] for p in j["processes"] if os.path.basename(p["exe"]) == exe_base)


def section_overhead(env, out):
    scales = ("0.1", "0.5") if env.quick else ("0.2", "1")
    pairs = 3 if env.quick else env.args.pairs
    out += ["## Overhead on the single-threaded loop", "",
            "Instructions counted by callgrind (deterministic; user-space only: the kernel's "
            "signal delivery is not in them) of `bench-loop SCALE` bare and with the shim "
            "preloaded (`LD_PRELOAD=libprofrun.so valgrind --tool=callgrind bench-loop SCALE`).  "
            "Under valgrind the program uses some 50× the CPU, so it takes some 50× the "
            "samples: the measured excess is an upper bound.  Two scales split it into a fixed "
            "cost and a cost per sample, from which the native excess is estimated at the "
            "native sample count (bare CPU × 100 Hz).", "",
            f"load average at start: {loadavg()}", ""]
    rows, pts = [], []
    for s in scales:
        log(f"overhead: callgrind bench-loop {s}")
        bare = callgrind_ir(env, [env.loop, s])
        prof = env.path("cg.prof")
        sh = callgrind_ir(env, [env.loop, s], shim=True, prof=prof)
        n = prof_samples(env, prof, "bench-loop")
        pts.append((float(s), bare, sh, n))
        rows.append([s, f"{bare:,}", f"{sh:,}", f"{sh - bare:+,}", f"{sh / bare:.5f}×", n])
    out += table(["scale", "Ir bare", "Ir shim", "excess", "ratio (upper bound)", "samples under valgrind"], rows)
    (s0, b0, h0, n0), (s1, b1, h1, n1) = pts
    per_sample = ((h1 - b1) - (h0 - b0)) / (n1 - n0) if n1 != n0 else float("nan")
    fixed = (h0 - b0) - per_sample * n0
    # Native run: bare CPU at the larger scale, samples = CPU x 100 Hz.
    log("overhead: A/B wall and CPU")
    bare_cmd = Command("bare", [env.loop, scales[1]], cwd=env.tmp)
    shim_prof = env.path("ab-shim.prof")
    shim_cmd = Command("shim", [env.loop, scales[1]], cwd=env.tmp,
                       env={"LD_PRELOAD": env.shim, "PROFRUN_OUTPUT": shim_prof},
                       before=lambda: rm(shim_prof))
    pr_prof = env.path("ab-profrun.prof")
    pr_cmd = Command("profrun -q", [env.profrun, "-q", "-o", pr_prof, env.loop, scales[1]],
                     cwd=env.tmp, before=lambda: rm(pr_prof))
    measure.execute(bare_cmd), measure.execute(shim_cmd), measure.execute(pr_cmd)
    runs = {"bare": [], "shim": [], "profrun -q": []}
    for _ in range(pairs):
        for name, c in (("bare", bare_cmd), ("shim", shim_cmd), ("profrun -q", pr_cmd)):
            runs[name].append(measure.execute(c))
    native_cpu = med([r.cpu for r in runs["bare"]])
    native_samples = native_cpu * 100
    est = (fixed + per_sample * native_samples) / b1
    out += ["", f"Fit: fixed {fixed:,.0f} instructions per run + {per_sample:,.0f} per sample.  "
            f"Native: bare CPU {native_cpu:.3f} s → about {native_samples:.0f} samples → "
            f"estimated excess {fixed + per_sample * native_samples:,.0f} instructions = "
            f"**{100 * (est):.4f}%** of {b1:,}.", ""]
    out += [f"Wall and CPU: rotating bare / shim / `profrun -q` (`bench-loop {scales[1]}`), "
            f"{pairs} rotations after one warm-up; each ratio against the bare run of its "
            "rotation, median ± half IQR.", ""]
    rows, res = [], {}
    for name in ("shim", "profrun -q"):
        w = [b.wall / a.wall for a, b in zip(runs["bare"], runs[name])]
        c = [b.cpu / a.cpu for a, b in zip(runs["bare"], runs[name])]
        fastest = min(r.wall for r in runs[name]) / min(r.wall for r in runs["bare"])
        rows.append([name, f"{med(w):.4f}× ±{100 * iqr_half(w):.1f}%",
                     f"{med(c):.4f}× ±{100 * iqr_half(c):.1f}%", f"{fastest:.4f}×",
                     f"{med([r.wall for r in runs['bare']]):.3f} s"])
        res[name] = (med(w), iqr_half(w), med(c), iqr_half(c))
    out += table(["variant", "wall ratio", "CPU ratio", "fastest/fastest", "bare wall (median)"], rows)

    def judge(m, h):
        if m + h <= 1.005:
            return "met"
        return "missed" if m - h > 1.005 else "inconclusive"

    out += ["", f"- instructions: estimated native excess {100 * est:.4f}%, measured upper bound "
            f"{100 * (h1 / b1 - 1):.4f}%: **{'met' if h1 / b1 <= 1.005 else 'missed'}** (target ≤ 1.005×)"]
    for name, (w, wh, c, ch) in res.items():
        out.append(f"- {name}: wall {w:.4f}× ±{100 * wh:.1f}%: **{judge(w, wh)}**; "
                   f"CPU {c:.4f}× ±{100 * ch:.1f}%: **{judge(c, ch)}** (met or missed only when "
                   "median ± half IQR is on one side of 1.005)")
    out += ["", f"load average at end: {loadavg()}", ""]
    return {"overhead": (h1 / b1, est, res)}


def section_threads(env, out):
    n = 2000 if env.quick else env.args.threads
    pairs = 3 if env.quick else env.args.thread_pairs
    out += ["## Cost per thread created", "",
            f"`bench-threadspawn {n}`: {n} threads created and joined one after another, each "
            "returning at once; the program times that loop alone (CLOCK_MONOTONIC and "
            "getrusage), so process start-up and exit are outside it.  Pairs bare / shim "
            f"(`LD_PRELOAD=build-bench/preload/libprofrun.so PROFRUN_OUTPUT=x.prof`), {pairs} "
            "pairs after one warm-up; per-thread difference = (shim − bare) / N per pair.", "",
            f"load average at start: {loadavg()}", ""]

    def once(shim):
        envv = dict(os.environ)
        if shim:
            prof = env.path("ts.prof")
            rm(prof)
            envv.update(LD_PRELOAD=env.shim, PROFRUN_OUTPUT=prof)
        r = subprocess.run([env.threadspawn, str(n)], env=envv, capture_output=True, text=True,
                           check=True, cwd=env.tmp)
        f = r.stdout.split()
        return float(f[3]), float(f[5])

    log("threads: A/B")
    once(False), once(True)
    dw, dc, rows = [], [], []
    bw, bc = [], []
    for i in range(pairs):
        w0, c0 = once(False)
        w1, c1 = once(True)
        dw.append(1e6 * (w1 - w0) / n)
        dc.append(1e6 * (c1 - c0) / n)
        bw.append(1e6 * w0 / n)
        bc.append(1e6 * c0 / n)
    out += table(["measure", "bare per thread (median)", "added per thread (median)",
                  "± half IQR", "pairs"],
                 [["wall", f"{med(bw):.2f} µs", f"{med(dw):+.2f} µs", f"{iqr_half(dw):.2f} µs", pairs],
                  ["CPU (user+sys)", f"{med(bc):.2f} µs", f"{med(dc):+.2f} µs", f"{iqr_half(dc):.2f} µs",
                   pairs]])
    log("threads: callgrind")
    small, big = (200, 1000) if env.quick else (500, 2500)
    prof = env.path("cgts.prof")
    ib = [callgrind_ir(env, [env.threadspawn, str(k)]) for k in (small, big)]
    ish = [callgrind_ir(env, [env.threadspawn, str(k)], shim=True, prof=prof) for k in (small, big)]
    per_thread_ir = ((ish[1] - ib[1]) - (ish[0] - ib[0])) / (big - small)
    bare_ir = (ib[1] - ib[0]) / (big - small)
    out += ["", f"callgrind, `bench-threadspawn {small}` and `{big}`, bare and with the shim: "
            f"user-space instructions per thread {bare_ir:,.0f} bare, **{per_thread_ir:+,.0f}** "
            "added by the shim (the kernel's timer_create / timer_delete are not in this count).",
            "", f"- added wall per thread: median {med(dw):+.2f} µs ± {iqr_half(dw):.2f}: "
            f"**{'met' if med(dw) + iqr_half(dw) <= 20 else ('missed' if med(dw) - iqr_half(dw) > 20 else 'inconclusive')}**"
            " (target ≤ 20 µs)",
            f"- added CPU per thread: median {med(dc):+.2f} µs ± {iqr_half(dc):.2f}",
            "", f"load average at end: {loadavg()}", ""]
    return {"threads": (med(dw), iqr_half(dw), med(dc), per_thread_ir)}


PY_SCRIPT = r"""
import re
def work(n):
    d = {}
    s = 0
    for i in range(n):
        k = "k%d" % (i % 5000)
        d[k] = d.get(k, 0) + i
        s += len(str(i * 7))
    words = re.findall(r"\w+", " ".join(d) * 20)
    return s + len(sorted(words))
for _ in range(SCALE):
    work(200000)
"""


# Two names of one address: each tool may pick either.
ALIASES = {"malloc": "__libc_malloc", "free": "__libc_free", "cfree": "__libc_free",
           "realloc": "__libc_realloc", "calloc": "__libc_calloc"}


def function_key(name):
    name = re.sub(r"\(.*", "", name)
    name = re.sub(r"@GLIBC_[0-9.]+$", "", name)
    return ALIASES.get(name, name)


def top_functions_profrun(env, prof, n=10):
    j = profrun_json(env, prof)
    total = j["samples"]["total"]
    res = {}
    for f in j["functions"]:
        key = function_key(f["name"])
        res[key] = res.get(key, 0) + 100 * f["samples"] / total
    res["[kernel]"] = 100 * j["samples"].get("kernel", 0) / total
    return res, total


def top_functions_perf(data):
    t = perf_table(data, "sym")
    total = sum(r[0] for r in t)
    res = {}
    for r in t:
        name = function_key(re.sub(r"^\[.\]\s*", "", r[1]))
        if r[1].startswith("[k]"):
            name = "[kernel]"
        res[name] = res.get(name, 0) + 100 * r[0] / total
    return res, total


def section_toplevel(env, out):
    script = env.path("cpu.py")
    with open(script, "w") as f:
        f.write(PY_SCRIPT.replace("SCALE", "3" if env.quick else "40"))
    bigc = os.path.join(env.build, "bench", "big.c")
    cases = [("python3", ["python3", script]),
             ("gcc -O2 -c big.c", ["gcc", "-O2", "-w", "-c", bigc, "-o", env.path("big.o")])]
    out += ["## Top functions: python3 and gcc", "",
            "One run each, `profrun -F 250` then `perf record -e cpu-clock -F 250`, of a CPU-bound Python script "
            "(dict, str and re work; bench/threads.py PY_SCRIPT) and of `gcc -O2 -c` of "
            "bench-big's generated 5000-function C file.  Shares are of all samples.  "
            "`[kernel]`: perf's kernel samples; for profrun the samples it marks as taken "
            "in a system call, which are also counted in the user function that made it "
            "(so profrun's rows add up to more than 100%).  Names are compared without "
            "parameter lists and version suffixes, malloc = __libc_malloc, free = cfree = "
            "__libc_free.", "",
            f"load average at start: {loadavg()}", ""]
    res = {}
    for label, argv in cases:
        log(f"toplevel: {label}")
        prof, _ = run_profrun(env, "top", argv, freq=PERF_HZ)
        pr, pn = top_functions_profrun(env, prof)
        data, _ = run_perf(env, "top", argv)
        pf, fn = top_functions_perf(data)
        top = sorted(set(sorted(pr, key=pr.get, reverse=True)[:8]) |
                     set(sorted(pf, key=pf.get, reverse=True)[:8]),
                     key=lambda k: -(pr.get(k, 0) + pf.get(k, 0)))
        rows = [[k[:60], f"{pr.get(k, 0):.2f}", f"{pf.get(k, 0):.2f}",
                 f"{pr.get(k, 0) - pf.get(k, 0):+.2f}"] for k in top]
        worst = max((abs(pr.get(k, 0) - pf.get(k, 0)), k) for k in top if k != "[kernel]")
        out += [f"### {label} (profrun {pn} samples, perf {fn})", ""]
        out += table(["function", "profrun %", "perf %", "diff"], rows)
        out += ["", f"- largest difference outside [kernel]: {worst[1][:60]} {worst[0]:.2f} points", ""]
        res[label] = worst
    out += [f"load average at end: {loadavg()}", ""]
    return {"toplevel": res}


SECTIONS = {
    "xz": section_xz,
    "pigz": section_pigz,
    "build": section_build,
    "short": section_short,
    "blocked": section_blocked,
    "overhead": section_overhead,
    "threads": section_threads,
    "toplevel": section_toplevel,
}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small inputs, one repetition (smoke test)")
    p.add_argument("--only", action="append", choices=list(SECTIONS))
    p.add_argument("--out", default=os.path.join(HERE, "threads-results.md"))
    p.add_argument("--builddir", default=os.path.join(ROOT, "build-bench"))
    p.add_argument("--tmpdir", default=None)
    p.add_argument("--reps-xz", type=int, default=3)
    p.add_argument("--reps-pigz", type=int, default=7)
    p.add_argument("--reps-build", type=int, default=3)
    p.add_argument("--reps-blocked", type=int, default=3)
    p.add_argument("--reps-short", type=int, default=5)
    p.add_argument("--pairs", type=int, default=15, help="rotations for the loop's A/B")
    p.add_argument("--threads", type=int, default=20000)
    p.add_argument("--thread-pairs", type=int, default=11)
    args = p.parse_args(argv)
    for tool in ("perf", "xz", "pigz", "valgrind", "ninja", "meson"):
        if not shutil.which(tool):
            sys.exit(f"threads.py: {tool} is not installed")
    subprocess.run(["ninja", "-C", args.builddir, "bench"], check=True, stdout=subprocess.DEVNULL)
    env = Env(args)
    start = time.time()
    log("tick")
    env.tick = kernel_hz()
    out = ["# Per-thread sampling against perf", "",
           f"- machine: {machine.cpu_model()}, {os.cpu_count()} cores, kernel {platform.release()}",
           f"- kernel tick (jiffies per second, /proc/timer_list): {env.tick} Hz",
           f"- {machine.first_line(['perf', '--version'])}; {machine.first_line(['xz', '--version'])}; "
           f"{machine.first_line(['pigz', '--version'])}; {machine.first_line(['valgrind', '--version'])}",
           f"- commit: {subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}",
           f"- load average at start: {loadavg()}", ""]
    results = {}
    for name in args.only or list(SECTIONS):
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
