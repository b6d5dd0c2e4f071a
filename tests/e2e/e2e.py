#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests: real workloads run under profrun, and the report
checked against what each workload does by construction.

Usage: e2e.py CASE   (meson test runs one case per test; exit 0 pass,
1 fail, 77 skip).  Environment: PROFRUN (the CLI), WORKLOADS (the built
workloads), PROFRUN_SHIM_BUILT (the built shim).

Samples: every sampling case runs its workload for the CPU time that
gives the samples it needs at the rate to expect (the rate asked for,
capped by the kernel's tick, read from the machine as the shim reads it),
with half again to spare, and runs it again for longer while it has fewer
(gather()), up to CPU_CAP CPU seconds in all: so it passes on a slow or
loaded machine and on a fast one, at any tick rate, and whether or not
the samples of concurrent threads fall short of CPU time x rate.

Tolerances: a share measured from n independent samples has standard
deviation sqrt(p(1-p)/n); shares are checked on at least NEED = 400
samples and accepted within 5 standard deviations plus 2 points of
systematic slack (loop overhead in main), so a correct profiler fails
such a check far less than once in a million runs.  The workloads
interleave their functions at random phases (tests/workloads/common.h),
so that the samples are independent, as this assumes."""

import fcntl
import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

PROFRUN = os.environ.get("PROFRUN", "profrun")
WORKLOADS = os.environ.get("WORKLOADS", ".")
SHIM = os.environ.get("PROFRUN_SHIM_BUILT", "")
CASES = {}


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def expect(cond, what):
    if not cond:
        raise Failure(what)


FS_IOC_FIEMAP = 0xC020660B  # _IOWR('f', 11, struct fiemap)


def held_bytes(path):
    """Bytes of disk the file PATH holds for its data: the sum of its
    extents (FIEMAP), reserved or written. st_blocks also counts the file
    system's own blocks (ext4 keeps an extent-tree block once a file had
    more than four ranges, even after they are given back), which no
    writer controls; where FIEMAP is missing (tmpfs) st_blocks is exact."""
    fd = os.open(path, os.O_RDONLY)
    try:
        total, start, count = 0, 0, 64
        while True:
            head = struct.pack("QQIIII", start, (1 << 64) - 1 - start, 0, 0, count, 0)
            buf = bytearray(head + bytes(56 * count))
            try:
                fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
            except OSError:
                return os.fstat(fd).st_blocks * 512
            mapped = struct.unpack_from("I", buf, 20)[0]
            last = False
            for i in range(mapped):
                logical, _, length, _, _, flags = struct.unpack_from("QQQQQI", buf, 32 + 56 * i)
                total += length
                start = logical + length
                last = last or bool(flags & 1)  # FIEMAP_EXTENT_LAST
            if last or mapped < count:
                return total
    finally:
        os.close(fd)


def wl(name):
    return os.path.join(WORKLOADS, name)


def run(args, timeout=120, env=None, **kw):
    cp = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                        timeout=timeout, env=env, **kw)
    return cp


def traced_env():
    """The environment for running PROFRUN under strace: LeakSanitizer
    (in the sanitized build's CLI) refuses to work under ptrace, so its
    leak check is left off there; the profiled program is not built with
    it."""
    env = dict(os.environ)
    opts = env.get("ASAN_OPTIONS")
    if opts is not None:
        env["ASAN_OPTIONS"] = opts + ":detect_leaks=0"
    return env


def report_json(path, *extra):
    cp = run([PROFRUN, "report", "--format", "json", *extra, path])
    expect(cp.returncode == 0,
           f"report --format json {path} exited {cp.returncode}: {cp.stderr.strip()}")
    try:
        return json.loads(cp.stdout)
    except json.JSONDecodeError as e:
        raise Failure(f"report is not JSON ({e}): {cp.stdout[:200]!r}")


NEED = 400        # samples a share is checked on
CPU_CAP = 60.0    # CPU seconds a case may spend gathering them
DEFAULT_FREQ = 1000  # the -F the cases ask for


def tick_hz():
    """The kernel's tick (CONFIG_HZ), as the shim reads it: one second over
    the resolution of CLOCK_MONOTONIC_COARSE; 0 if that is not known."""
    res = time.clock_getres(getattr(time, "CLOCK_MONOTONIC_COARSE", 6))
    ns = round(res * 1e9)
    return 1000000000 // ns if 0 < ns < 1000000000 else 0


def sample_rate(freq=DEFAULT_FREQ):
    """Samples to expect per CPU-second at -F FREQ: FREQ, capped by the tick."""
    tick = tick_hz()
    return min(freq, tick) if tick else freq


def cpu_for(samples, freq=DEFAULT_FREQ):
    """CPU seconds that give SAMPLES at -F FREQ, half again to spare (at
    least 0.3 s), as a string for a workload's command line."""
    return f"{max(0.3, 1.5 * samples / sample_rate(freq)):.2f}"


def gather(attempt, seconds):
    """Call ATTEMPT(SECONDS), which runs a workload for SECONDS of CPU and
    returns (result, [(samples got, samples needed), ...]); call it again
    with more CPU time while a count falls short, and fail when it still
    does after CPU_CAP CPU seconds in all.  Returns the last result.  The
    counts a share is checked on do not depend on the share, so trying
    again does not bias the check."""
    seconds, spent, runs = float(seconds), 0.0, 0
    while True:
        result, counts = attempt(f"{seconds:.2f}")
        spent, runs = spent + seconds, runs + 1
        fill = min(got / need for got, need in counts)
        if fill >= 1:
            return result
        more = seconds * min(4.0, 1.3 / max(fill, 0.05))
        if spent + more > CPU_CAP:
            raise Failure(f"samples (got, needed) {counts} after {runs} runs, "
                          f"{spent:.1f} CPU seconds in all (expected "
                          f"{sample_rate()} per CPU-second)")
        seconds = more


def samples_of(rep, name):
    return sum(f["samples"] for f in rep["functions"] if f["name"] == name)


def check_fork_split(cp, rep, report, what):
    """The libcs workload's fork case (parent_hot 4 parts in the parent,
    child_hot 3 in a child exiting 7), run as CP with its JSON report REP:
    two processes with their exits, each its own function's, the split
    4:3.  REPORT(*extra) gives the run's JSON report with EXTRA options."""
    expect(cp.stdout == "fork: child exit 7\n", f"program output {cp.stdout!r}")
    procs = rep["processes"]
    expect(len(procs) == 2, f"expected parent and child: {procs}")
    parent, child = procs
    expect(child["ppid"] == parent["pid"] and parent["exit"] == 0 and child["exit"] == 7,
           f"recorded pids and exits: {procs}")
    for who, own in ((parent, "parent_hot"), (child, "child_hot")):
        one = report("--pid", str(who["pid"]))
        expect(samples_of(one, own) >= 0.9 * one["samples"]["main"],
               f"pid {who['pid']}: {own} has {samples_of(one, own)} of "
               f"{one['samples']['main']} samples")
    p, c = samples_of(rep, "parent_hot"), samples_of(rep, "child_hot")
    check_share(p, p + c, 4 / 7, f"{what} fork: parent_hot vs child_hot (built 4:3)")


def check_share(part, whole, expected, what):
    """PART/WHOLE must be EXPECTED within 5 sigma + 2 points."""
    expect(whole >= NEED, f"{what}: only {whole} samples, need at least {NEED}")
    p = part / whole
    tol = 5 * math.sqrt(expected * (1 - expected) / whole) + 0.02
    expect(abs(p - expected) <= tol,
           f"{what}: share {p:.3f} of {whole} samples, expected {expected:.3f} ± {tol:.3f}")


def check_count(got, cpu, hz, what):
    """GOT samples for CPU seconds at HZ: within 5 sigma of CPU x HZ (a
    Poisson count's, which bounds the binomial spread of a timer that keeps
    each tick's expiration with probability HZ / tick), plus 2% slack."""
    want = cpu * hz
    tol = 5 * math.sqrt(want) + 0.02 * want + 2
    expect(abs(got - want) <= tol,
           f"{what}: {got} samples for {cpu:.3f} s of CPU at {hz} Hz, expected {want:.0f} ± {tol:.0f}")


def one_line_error(cp, what):
    """A clean refusal: non-zero exit, no crash, one line naming profrun."""
    expect(cp.returncode > 0, f"{what}: exit {cp.returncode}, expected a non-zero exit")
    expect(cp.returncode < 128, f"{what}: profrun crashed (exit {cp.returncode})")
    lines = [l for l in cp.stderr.splitlines() if l.strip()]
    expect(len(lines) >= 1 and lines[0].startswith("profrun: "),
           f"{what}: expected 'profrun: ...' on stderr, got {cp.stderr!r}")
    expect(len(lines) <= 2, f"{what}: expected one error line, got {cp.stderr!r}")
    return lines[0]


def hot_ab(rep):
    """Samples of hot_a and of hot_b (the split workload's functions)."""
    return samples_of(rep, "hot_a"), samples_of(rep, "hot_b")


def record_split(tmp, exe, *ab, name="split.prof", quiet=True, shim_alone=False):
    """Run the split workload EXE (hot_a:hot_b in the ratio AB, default 3:1)
    under profrun -F 1000, or under the shim alone, until hot_a and hot_b
    have NEED samples: (the completed process, the JSON report)."""
    out = os.path.join(tmp, name)
    cmd, env = [PROFRUN, *(["-q"] if quiet else []), "-F", str(DEFAULT_FREQ),
                "-o", out, "--"], None
    if shim_alone:
        cmd, env = [], dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=out,
                            PROFRUN_FREQ=str(DEFAULT_FREQ))

    def attempt(seconds):
        cp = run([*cmd, exe, seconds, *ab], env=env)
        expect(cp.returncode == 0 and cp.stdout.startswith("split done:"),
               f"exit {cp.returncode}, stdout {cp.stdout!r}, stderr {cp.stderr!r}")
        rep = report_json(out)
        return (cp, rep), [(sum(hot_ab(rep)), NEED)]
    return gather(attempt, cpu_for(NEED))


def record_outcome(out, mode, need, status=0, profrun=PROFRUN, env=None):
    """Run outcome MODE under PROFRUN -F 1000 -o OUT until spin() has NEED
    samples; the program must end with STATUS and print its one line:
    (the completed process, the JSON report)."""
    def attempt(seconds):
        cp = run([profrun, "-q", "-F", str(DEFAULT_FREQ), "-o", out, wl("outcome"), mode,
                  seconds], env=env)
        expect(cp.returncode == status,
               f"{mode}: profrun exited {cp.returncode}, expected {status}: {cp.stderr}")
        expect(cp.stdout == f"outcome {mode}\n", f"{mode}: stdout is {cp.stdout!r}")
        rep = report_json(out)
        return (cp, rep), [(samples_of(rep, "spin"), need)]
    return gather(attempt, cpu_for(need))


def check_split(tmp, binary):
    cp, rep = record_split(tmp, wl(binary), "3", "1", quiet=False)
    expect(cp.stdout.startswith("split done:") and cp.stdout.count("\n") == 1,
           f"program stdout changed: {cp.stdout!r}")
    expect("hot_a" in cp.stderr and "hot_b" in cp.stderr,
           f"text report on stderr does not name hot_a/hot_b: {cp.stderr}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, f"{binary}: hot_a vs hot_b (built 3:1)")
    check_share(a + b, rep["samples"]["main"], 0.99, f"{binary}: hot_a+hot_b in main")
    expect(rep["complete"] is True, "a run that exited normally is not marked complete")
    return rep


@case
def pie_split_matches_construction(tmp):
    check_split(tmp, "split")


@case
def nopie_split_matches_construction(tmp):
    check_split(tmp, "split-nopie")


@case
def stripped_binary_accounts_every_sample(tmp):
    out = os.path.join(tmp, "s.prof")

    def attempt(seconds):
        cp = run([PROFRUN, "-q", "-F", str(DEFAULT_FREQ), "-o", out, wl("split-stripped"),
                  seconds])
        expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
        rep = report_json(out)
        return rep, [(rep["samples"]["main"], NEED / 2)]
    rep = gather(attempt, cpu_for(NEED / 2))
    main = rep["samples"]["main"]
    total = sum(f["samples"] for f in rep["functions"])
    expect(total == rep["samples"]["total"],
           f"functions add up to {total}, samples.total is {rep['samples']['total']}")
    main_only = report_json(out, "--main-only")["functions"]
    total = sum(f["samples"] for f in main_only)
    expect(total == main, f"--main-only: functions add up to {total}, samples.main is {main}")
    expect(all(f["name"] not in ("hot_a", "hot_b") for f in rep["functions"]),
           "a stripped binary cannot name static functions")


@case
def debuglink_binary_is_symbolized(tmp):
    _, rep = record_split(tmp, wl("split-debuglink"))
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.75, "debuglink: hot_a vs hot_b")
    f = [f for f in rep["functions"] if f["name"] == "hot_a"][0]
    expect((f.get("file") or "").endswith("split.c"), f"hot_a's file is {f.get('file')!r}")


@case
def exit_status_and_stdout_are_the_programs(tmp):
    for mode, status in (("exit:0", 0), ("exit:3", 3), ("exit:255", 255)):
        out = os.path.join(tmp, f"e{status}.prof")
        cp = run([PROFRUN, "-o", out, wl("outcome"), mode, "0.2"])
        expect(cp.returncode == status, f"{mode}: profrun exited {cp.returncode}")
        expect(cp.stdout == f"outcome {mode}\n", f"{mode}: stdout is {cp.stdout!r}")
        rep = report_json(out)
        expect(rep["complete"] is True, f"{mode}: run not marked complete")
        procs = rep.get("processes", [])
        if procs:
            expect(procs[0].get("exit") == status, f"{mode}: recorded exit {procs[0].get('exit')}")


@case
def signal_death_ends_profrun_by_the_same_signal(tmp):
    # profrun writes the profile, then dies of the program's signal (no
    # core dump of its own: SIGSEGV's core is the program's business)
    for sig in (signal.SIGTERM, signal.SIGSEGV, signal.SIGUSR1):
        out = os.path.join(tmp, f"s{int(sig)}.prof")
        cp = run([PROFRUN, "-q", "-o", out, wl("outcome"), f"signal:{int(sig)}", "0.2"])
        expect(cp.returncode == -sig, f"signal {sig}: profrun ended with {cp.returncode}")
        rep = report_json(out)
        expect(rep["complete"] is False, f"signal {sig}: a killed run is marked complete")


@case
def sigint_death_stops_a_shell_loop(tmp):
    """^C (SIGINT to the whole process group) in a shell loop: the shell
    ends the loop only when its child died of SIGINT (a child that exited,
    even with 130, is taken to have handled it).  Bare and under profrun
    alike, the loop stops at its first round and the shell dies of SIGINT."""
    out = os.path.join(tmp, "int.prof")
    for how in ("", f"'{PROFRUN}' -q -o '{out}' --"):
        loop = (f"for i in 1 2 3; do {how} sh -c 'echo ready; exec sleep 30'; "
                "echo after $i; done")
        p = subprocess.Popen(["bash", "-c", loop], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            line = p.stdout.readline()
            expect(line == "ready\n", f"{how or 'bare'}: the loop said {line!r}")
            time.sleep(0.2)
            os.killpg(p.pid, signal.SIGINT)
            rest, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            raise Failure(f"{how or 'bare'}: the loop went on after SIGINT") from None
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
        expect("after" not in rest and p.returncode == -signal.SIGINT,
               f"{how or 'bare'}: the loop went on: shell ended with {p.returncode}, "
               f"printed {rest!r}, {err!r}")


@case
def abort_and_underscore_exit_leave_readable_profiles(tmp):
    # abort() is cut short; _exit() and _Exit() end the program normally,
    # without exit handlers (shells end this way): complete, with the status
    for mode, status, complete in (("abort", -signal.SIGABRT, False),
                                   ("_exit:7", 7, True), ("_Exit:9", 9, True)):
        _, rep = record_outcome(os.path.join(tmp, "a.prof"), mode, NEED / 4, status)
        expect(rep["complete"] is complete, f"{mode}: complete is {rep['complete']}")
        if complete:
            expect(rep["processes"][0]["exit"] == status,
                   f"{mode}: recorded exit {rep['processes'][0]['exit']}")


@case
def sigkill_mid_run_profile_survives(tmp):
    out = os.path.join(tmp, "k.prof")

    def attempt(seconds):
        p = subprocess.Popen([PROFRUN, "-q", "-F", str(DEFAULT_FREQ), "-o", out,
                              wl("outcome"), "ready", seconds],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = p.stdout.readline()
            expect(line.startswith("ready "), f"workload said {line!r}")
            os.kill(int(line.split()[1]), signal.SIGKILL)
            p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
            p.communicate()
        expect(p.returncode == -signal.SIGKILL, f"profrun ended with {p.returncode}")
        rep = report_json(out)
        return rep, [(rep["samples"]["main"], NEED)]
    rep = gather(attempt, cpu_for(NEED))
    check_share(samples_of(rep, "spin"), rep["samples"]["main"], 0.99,
                "spin() in the killed run")
    expect(rep["complete"] is False, "a SIGKILLed run is marked complete")


@case
def static_binary_refused_before_running(tmp):
    out = os.path.join(tmp, "st.prof")
    cp = run([PROFRUN, "-o", out, wl("split-static"), "0.1"])
    line = one_line_error(cp, "static binary")
    expect("static" in line, f"message does not say static: {line}")
    expect(cp.stdout == "", "the static program ran anyway")


@case
def missing_and_unexecutable_programs(tmp):
    cp = run([PROFRUN, "-o", os.path.join(tmp, "m.prof"), "./no-such-program-here"], cwd=tmp)
    expect(cp.returncode == 127, f"missing program: exit {cp.returncode}")
    expect("no-such-program-here" in cp.stderr, f"message does not name it: {cp.stderr}")
    cp = run([PROFRUN, "-o", os.path.join(tmp, "m.prof"), "no-such-program-in-path"])
    expect(cp.returncode == 127, f"missing program in PATH: exit {cp.returncode}")
    plain = os.path.join(tmp, "plain.txt")
    with open(plain, "w") as f:
        f.write("not a program\n")
    cp = run([PROFRUN, "-o", os.path.join(tmp, "n.prof"), plain])
    expect(cp.returncode == 126, f"non-executable file: exit {cp.returncode}")
    cp = run([PROFRUN, "-o", os.path.join(tmp, "d.prof"), tmp])
    expect(cp.returncode == 126, f"directory as program: exit {cp.returncode}")


def make_profile(tmp):
    out = os.path.join(tmp, "good.prof")
    cp = run([PROFRUN, "-q", "-o", out, wl("outcome"), "exit:0", "0.3"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    members = sorted(os.listdir(out))
    expect(len(members) == 1, f"run directory holds {members}")
    with open(os.path.join(out, members[0]), "rb") as f:
        return f.read()


@case
def damaged_profiles_refused_cleanly(tmp):
    good = make_profile(tmp)
    damages = {
        "empty": b"",
        "truncated-header": good[:100],
        "truncated-counts": good[: len(good) // 2],
        "bad-magic": b"XXXXXXXX" + good[8:],
        "foreign": bytes(range(256)) * 64,
        "newer-format": good[:10] + b"\x63\x00" + good[12:],
        "huge-nbuckets": good[:56] + (2**40).to_bytes(8, "little") + good[64:],
    }
    for name, data in damages.items():
        d = os.path.join(tmp, name)
        os.mkdir(d)
        with open(os.path.join(d, "1.prof"), "wb") as f:
            f.write(data)
        for path in (d, os.path.join(d, "1.prof")):
            cp = run([PROFRUN, "report", path], timeout=30)
            one_line_error(cp, f"{name} profile")
    os.mkdir(os.path.join(tmp, "emptydir"))
    one_line_error(run([PROFRUN, "report", os.path.join(tmp, "emptydir")]), "empty directory")
    one_line_error(run([PROFRUN, "report", os.path.join(tmp, "nothing")]), "missing path")
    # a damaged member never hides a healthy one
    mixed = os.path.join(tmp, "mixed")
    os.mkdir(mixed)
    for name, data in (("10.prof", good), ("11.prof", good[:100])):
        with open(os.path.join(mixed, name), "wb") as f:
            f.write(data)
    cp = run([PROFRUN, "report", mixed])
    expect(cp.returncode == 3, f"mixed run: a partial report exits 3, not {cp.returncode}: {cp.stderr}")
    expect("11.prof" in cp.stderr, f"the skipped member is not named: {cp.stderr}")
    expect("spin" in cp.stdout, f"the healthy member is not reported: {cp.stdout}")


@case
def symlinked_output_refused(tmp):
    target = os.path.join(tmp, "target")
    os.mkdir(target)
    link = os.path.join(tmp, "link.prof")
    os.symlink(target, link)
    cp = run([PROFRUN, "-o", link, wl("outcome"), "exit:0", "0.1"])
    line = one_line_error(cp, "symlinked output")
    expect("symbolic link" in line, f"message does not say why: {line}")
    expect(os.listdir(target) == [], "the symlink's target was written")
    expect(cp.stdout == "", "the program ran although its profile could not be written")
    # the shim alone refuses a symlinked run directory too, and the program still runs
    env = dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=link)
    cp = run([wl("outcome"), "exit:5", "0.1"], env=env)
    expect(cp.returncode == 5 and cp.stdout == "outcome exit:5\n",
           f"program harmed by a refused output: exit {cp.returncode}, {cp.stdout!r}")
    expect(os.listdir(target) == [], "the shim wrote through a symlink")


@case
def json_report_contract(tmp):
    out = os.path.join(tmp, "j.prof")
    cp = run([PROFRUN, "-q", "-F", "1000", "-o", out, wl("split"), "1.0", "2", "1"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    rep = report_json(out)
    expect(rep["schema"] == "profrun-report/1", f"schema {rep.get('schema')}")
    s = rep["samples"]
    expect(s["total"] == s["main"] + s["outside"], f"samples {s} do not add up")
    funcs = rep["functions"]
    expect(sum(f["samples"] for f in funcs) == s["total"], "functions do not add up to total")
    expect(s["outside"] == s["libraries"] + s["vdso"] + s["unknown"], f"split of {s}")
    expect(sum(m["samples"] for m in rep["modules"]) == s["total"], "modules do not add up")
    keys = [(-f["samples"], f["name"]) for f in funcs]
    expect(keys == sorted(keys), "functions not sorted by samples, then name")
    for f in funcs:
        for k in ("name", "module", "samples", "percent", "file", "line"):
            expect(k in f, f"function entry lacks {k}: {f}")
        expect(f["samples"] > 0, f"entry with no samples: {f}")
    rate = sample_rate()
    expect(isinstance(rep["rate_hz"], (int, float)) and
           0.5 * rate <= rep["rate_hz"] <= 1.5 * rate,
           f"rate_hz {rep['rate_hz']}, expected about {rate} (tick {tick_hz()} Hz)")
    expect(isinstance(rep["cpu_seconds"], (int, float)) and 0.8 <= rep["cpu_seconds"] <= 5,
           f"cpu_seconds {rep['cpu_seconds']} for a 1 s CPU run")
    pct = sum(f["percent"] for f in funcs)
    expect(abs(pct - 100) < 0.5,
           f"percents add up to {pct}")
    cp2 = run([PROFRUN, "report", "--format", "json", out])
    cp3 = run([PROFRUN, "report", "--format", "json", out])
    expect(cp2.stdout == cp3.stdout, "JSON output is not deterministic")
    top = json.loads(run([PROFRUN, "report", "--format", "json", "--top", "1", out]).stdout)
    expect(len(top["functions"]) == 1 and top["functions"][0]["name"] == "hot_a",
           f"--top 1 gives {top['functions']}")


@case
def script_profiles_its_interpreter(tmp):
    script = os.path.join(tmp, "busy.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\ni=0\nwhile [ $i -lt 300000 ]; do i=$((i+1)); done\necho counted $i\n")
    os.chmod(script, 0o755)
    out = os.path.join(tmp, "sh.prof")
    cp = run([PROFRUN, "-F", "1000", "-o", out, script])
    expect(cp.returncode == 0 and cp.stdout == "counted 300000\n",
           f"script: exit {cp.returncode}, stdout {cp.stdout!r}, {cp.stderr}")
    rep = report_json(out)
    shell = os.path.realpath("/bin/sh")
    expect(rep["samples"]["main"] > 0, "no samples in the interpreter")
    procs = rep.get("processes") or []
    exes = [p["exe"] for p in procs] or [f["module"] for f in rep["functions"]]
    expect(any(os.path.realpath(e) == shell for e in exes),
           f"report does not name the interpreter {shell}: {exes}")
    expect(os.path.basename(shell) in cp.stderr, f"text report does not name {shell}")


@case
def shim_works_without_the_cli(tmp):
    cp, rep = record_split(tmp, wl("split"), "1", "1", shim_alone=True)
    expect(cp.stderr == "", f"the shim printed {cp.stderr!r}")
    a, b = hot_ab(rep)
    check_share(a, a + b, 0.5, "shim alone: hot_a vs hot_b (built 1:1)")


@case
def rerun_replaces_earlier_profile(tmp):
    out = os.path.join(tmp, "r.prof")
    for i in range(2):
        cp = run([PROFRUN, "-q", "-o", out, wl("outcome"), "exit:0", "0.2"])
        expect(cp.returncode == 0, f"run {i}: exit {cp.returncode}: {cp.stderr}")
    expect(len(os.listdir(out)) == 1, f"an earlier run's profile was kept: {os.listdir(out)}")
    with open(os.path.join(tmp, "keep.txt"), "w") as f:
        f.write("precious\n")
    cp = run([PROFRUN, "-o", os.path.join(tmp, "keep.txt"), wl("outcome"), "exit:0", "0.1"])
    one_line_error(cp, "-o naming an ordinary file")
    with open(os.path.join(tmp, "keep.txt")) as f:
        expect(f.read() == "precious\n", "an ordinary file at -o was overwritten")


@case
def bad_command_lines_exit_64(tmp):
    for args in (["-F", "0", "true"], ["-F", "-5", "true"], ["-F", "abc", "true"],
                 ["-F", "99999999999", "true"], ["--no-such-option", "true"], [],
                 ["report", "--format", "xml", "x"], ["report", "--top", "0", "x"],
                 ["report"]):
        cp = run([PROFRUN, *args])
        expect(cp.returncode == 64, f"profrun {' '.join(args)}: exit {cp.returncode}")
        expect(cp.stderr.strip() != "", f"profrun {' '.join(args)}: no message")
    cp = run([PROFRUN, "--help"])
    expect(cp.returncode == 0 and "Exit status" in cp.stdout, "--help lacks exit codes")
    cp = run([PROFRUN, "--version"])
    expect(cp.returncode == 0 and cp.stdout.startswith("profrun "), "--version")


def installed_and_moved(tmp):
    """meson install staged with --destdir under TMP, then moved elsewhere:
    the installed bin/profrun and an environment without PROFRUN_SHIM."""
    meson = shutil.which("meson")
    if not meson or not os.environ.get("BUILD_ROOT"):
        raise Skip("meson or BUILD_ROOT not available")
    stage = os.path.join(tmp, "stage")
    cp = run([meson, "install", "-C", os.environ["BUILD_ROOT"], "--no-rebuild",
              "--quiet", "--destdir", stage], timeout=120)
    expect(cp.returncode == 0, f"meson install failed: {cp.stderr}")
    found = [os.path.join(d, "profrun") for d, _, files in os.walk(stage)
             if "profrun" in files and d.endswith("/bin")]
    expect(len(found) == 1, f"installed profrun not found under {stage}")
    moved = os.path.join(tmp, "moved")
    os.rename(stage, moved)
    exe = found[0].replace(stage, moved, 1)
    env = {k: v for k, v in os.environ.items() if k != "PROFRUN_SHIM"}
    return exe, env


@case
def installed_tree_finds_its_shim(tmp):
    """meson install (here staged with --destdir, then moved) gives a
    bin/profrun that finds its own installed shim, with no variable set."""
    exe, env = installed_and_moved(tmp)
    record_outcome(os.path.join(tmp, "inst.prof"), "exit:0", NEED / 4, profrun=exe, env=env)


def main(cases=CASES, prog="e2e.py"):
    """Run the case named on the command line (shared with e2e_runs.py)."""
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        print(f"usage: {prog} CASE\ncases: {' '.join(sorted(cases))}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="profrun-e2e-") as tmp:
        try:
            cases[sys.argv[1]](tmp)
        except Skip as e:
            print(f"SKIP {sys.argv[1]}: {e}")
            return 77
        except Failure as e:
            print(f"FAIL {sys.argv[1]}: {e}", file=sys.stderr)
            return 1
        except subprocess.TimeoutExpired as e:
            print(f"FAIL {sys.argv[1]}: timed out: {e}", file=sys.stderr)
            return 1
    print(f"PASS {sys.argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
