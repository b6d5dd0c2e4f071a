#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Never hurt the program: the edges of what the shim touches (file size
limits, a stderr that became a data file, rivals that came first or used
other calls, the kernel's exact errors).  Each case runs a real program
bare and under profrun and checks that the program saw the same
(tests/workloads/faults.c, rival.c, earlyprof.c).

Usage: e2e_faults.py CASE (exit 0 pass, 1 fail, 77 skip)."""

import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import PROFRUN, expect, report_json, run, wl  # noqa: E402
import e2e  # noqa: E402
import mkprofile  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def under_profrun(tmp, name, *args, **kw):
    out = os.path.join(tmp, name)
    return out, run([PROFRUN, "-o", out, "--", *args], **kw)


def same_as_bare(tmp, name, args, want):
    bare = run(args)
    expect(bare.returncode == 0 and bare.stdout == want, f"bare {args}: {bare.stdout!r}")
    out, cp = under_profrun(tmp, name, *args)
    expect(cp.returncode == 0 and cp.stdout == want,
           f"under profrun: exit {cp.returncode}, {cp.stdout!r}, {cp.stderr!r}")
    return out, cp


@case
def file_size_limit_runs_the_program_unprofiled(tmp):
    # a member is larger than 100 KiB: it cannot be made, so the program
    # runs unprofiled and says so, instead of dying of SIGXFSZ
    out = os.path.join(tmp, "f.prof")
    cp = run(["sh", "-c", f'ulimit -f 200; exec "$0" -o "$1" -- "$2" 0.3 1 1',
              PROFRUN, out, wl("split")])
    expect(cp.returncode == 0, f"exit {cp.returncode} (153 is SIGXFSZ): {cp.stderr!r}")
    expect("file size limit" in cp.stderr, f"no line saying why: {cp.stderr!r}")


@case
def child_after_lowered_fsize_and_closed_stderr_is_unharmed(tmp):
    data = os.path.join(tmp, "data.txt")
    same_as_bare(tmp, "fz.prof", [wl("faults"), "fsize", data], "fsize: child exit 0\n")
    with open(data) as f:
        text = f.read()
    expect(text == "child data\n", f"the program's data file holds {text!r}")


@case
def profiler_started_before_profrun_keeps_its_ticks(tmp):
    out, cp = same_as_bare(tmp, "early.prof", [wl("faults-early"), "early"],
                           "early: its profiler ticks\n")
    p = report_json(out)["processes"][0]
    expect(p["stopped_early"] and "already in use when profrun started" in p["stopped_early"],
           f"the report must say why it is empty: {p}")


@case
def rival_handler_through_sigset_and_bsd_signal_keeps_working(tmp):
    for how in ("sigset", "bsd_signal"):
        out, cp = same_as_bare(tmp, f"rv-{how}.prof", [wl("rival"), how, "1.0"],
                               f"rival {how}: own handler and timer work\n")
        p = report_json(out)["processes"][0]
        expect(p["stopped_early"] and "SIGPROF" in p["stopped_early"], f"{how}: JSON {p}")


@case
def itimer_calls_fail_exactly_as_the_kernel_does(tmp):
    out, _ = same_as_bare(tmp, "it.prof", [wl("faults"), "itimer"], "itimer: as the kernel\n")
    rep = report_json(out)
    expect(rep["processes"][0]["stopped_early"] is None and rep["samples"]["total"] > 0,
           f"bad setitimer calls stopped profiling: {rep['processes'][0]}")


@case
def programs_inherit_the_dispositions_and_mask_of_a_shell(tmp):
    bare = run([wl("faults"), "spawn"])
    expect(bare.returncode == 0 and bare.stdout.count("\n") == 2, f"bare: {bare.stdout!r}")
    # relative to what this test inherited (nohup, a CI runner's shell)
    m = re.search(r"^parent: not default:(.*?);", bare.stdout, re.M)
    c = re.search(r"^child: not default:(.*?); SIGPROF blocked$", bare.stdout, re.M)
    expect(m and c and set(c.group(1).split()) == set(m.group(1).split()) | {"27=ign"},
           f"the child of a program ignoring and blocking SIGPROF: {bare.stdout!r}")
    _, cp = under_profrun(tmp, "sp.prof", wl("faults"), "spawn")
    expect(cp.returncode == 0 and cp.stdout == bare.stdout,
           f"under profrun:\n{cp.stdout}bare:\n{bare.stdout}")


@case
def sigprof_raised_while_blocked_stays_pending(tmp):
    bare = run([wl("faults"), "pending"])
    expect(bare.returncode in (-signal.SIGPROF, 128 + signal.SIGPROF) and
           bare.stdout == "pending: SIGPROF pending\n", f"bare: {bare.returncode} {bare.stdout!r}")
    _, cp = under_profrun(tmp, "pend.prof", wl("faults"), "pending")
    expect(cp.returncode == -signal.SIGPROF and cp.stdout == bare.stdout,
           f"under profrun: exit {cp.returncode}, {cp.stdout!r}")


@case
def signals_sent_to_profrun_reach_the_program(tmp):
    out = os.path.join(tmp, "term.prof")
    p = subprocess.Popen([PROFRUN, "-o", out, "--", wl("split"), "20", "1", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise e2e.Failure("profrun did not end after SIGTERM")
    expect(p.returncode == -signal.SIGTERM, f"profrun ended with {p.returncode}, expected SIGTERM")
    expect("samples:" in err and "cut short" in err, f"no report of what was recorded: {err!r}")
    pgrep = run(["pgrep", "-f", f"{wl('split')} 20 1 1"])
    expect(pgrep.stdout.strip() == "", f"the program outlived profrun: {pgrep.stdout!r}")


@case
def second_run_into_the_same_profile_is_refused(tmp):
    out = os.path.join(tmp, "same.prof")
    first = subprocess.Popen([PROFRUN, "-q", "-o", out, "--", wl("split"), "1.5", "1", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    cp = run([PROFRUN, "-q", "-o", out, "--", wl("split"), "0.2", "1", "1"])
    first.communicate(timeout=60)
    expect(cp.returncode == 1 and "another profrun run" in cp.stderr and cp.stdout == "",
           f"second run: exit {cp.returncode}, {cp.stdout!r} {cp.stderr!r}")
    rep = report_json(out)
    expect(first.returncode == 0 and len(rep["processes"]) == 1 and
           rep["processes"][0]["cpu_seconds"] >= 1.4,
           f"the first run's profile: {rep['processes']}")


@case
def fifos_named_by_a_profile_never_hang_the_cli(tmp):
    # a profile whose executable is a FIFO, and sources that are FIFOs:
    # open() would wait for a writer for ever
    fifo = os.path.join(tmp, "exe-fifo")
    os.mkfifo(fifo)
    prof = os.path.join(tmp, "fifo.prof", "1.prof")
    os.makedirs(os.path.dirname(prof))
    with open(prof, "wb") as f:
        f.write(mkprofile.build(type("A", (), dict(
            exe=wl("split"), recorded_exe=fifo, text=None, bucket_size=2,
            sample=[], symbol=["hot_a=50"], outside=0, state="exited", exit=0,
            flags=0, note="", cpu_ms=500, rate=100, pid=1, ppid=0,
            build_id="", version=1, min_version=1))))
    for args in (["report", prof], ["report", "--format", "pprof", "-o",
                                    os.path.join(tmp, "p.pb.gz"), prof],
                 ["annotate", prof]):
        cp = run([PROFRUN, *args], timeout=20)
        expect(cp.returncode in (0, 1) and "not a regular file" not in cp.stdout,
               f"{args[:2]}: exit {cp.returncode}: {cp.stderr!r}")
    srcdir = os.path.join(tmp, "src")
    os.makedirs(srcdir)
    os.mkfifo(os.path.join(srcdir, "split.c"))
    real = os.path.join(tmp, "real.prof")
    run([PROFRUN, "-q", "-o", real, "--", wl("split"), "0.5", "1", "1"])
    cp = run([PROFRUN, "annotate", "--source-dir", srcdir, "hot_a", real], timeout=20)
    expect(cp.returncode == 0 and "hot_a" in cp.stdout,
           f"annotate with a FIFO for a source: exit {cp.returncode}: {cp.stderr!r}")


@case
def report_output_is_written_whole_or_not_at_all(tmp):
    keep = os.path.join(tmp, "keep.txt")
    with open(keep, "w") as f:
        f.write("x\n")
    cp = run([PROFRUN, "report", "-o", keep, os.path.join(tmp, "typo.prof")])
    expect(cp.returncode == 1 and open(keep).read() == "x\n",
           f"a failed report destroyed -o's file: {open(keep).read()!r}")
    prof = os.path.join(tmp, "p.prof")
    run([PROFRUN, "-q", "-o", prof, "--", wl("split"), "0.3", "1", "1"])
    link = os.path.join(tmp, "link.txt")
    os.symlink(keep, link)
    cp = run([PROFRUN, "report", "-o", link, prof])
    expect(cp.returncode == 0 and open(keep).read() == "x\n" and not os.path.islink(link)
           and "hot_a" in open(link).read(), "-o through a symlink wrote its target")
    cp = run([PROFRUN, "report", "-o", "/dev/full", prof])
    expect(cp.returncode == 1 and os.path.exists("/dev/full"), f"/dev/full: exit {cp.returncode}")
    out = os.path.join(tmp, "o.json")
    shutil.copytree(prof, os.path.join(tmp, "two.prof"))
    with open(os.path.join(tmp, "two.prof", "999.prof"), "wb") as f:
        f.write(b"PROFRUN\0garbage")
    cp = subprocess.run([PROFRUN, "report", "--format", "json", "-o", out,
                         os.path.join(tmp, "two.prof")], stderr=subprocess.DEVNULL,
                        stdout=subprocess.PIPE, timeout=60, close_fds=True,
                        preexec_fn=lambda: os.close(2))
    expect(cp.returncode == 3, f"a report without a damaged member: exit {cp.returncode}")
    with open(out) as f:
        rep = json.load(f)  # warnings about the damaged member are not in it
    expect(rep.get("partial") is True, "the partial report written with -o says so")
    expect(not [n for n in os.listdir(tmp) if ".tmp-" in n], "a temporary file was left")


@case
def seccomp_sandbox_allowing_the_documented_calls_exits_as_asked(tmp):
    # the filter allows what the program needs and the shim's documented
    # sets (README, Limits); anything else is SIGSYS (159)
    for how, procs in (("exit", 1), ("fork", 2)):
        args = [wl("faults"), "seccomp", how]
        bare = run(args)
        expect(bare.returncode == 3, f"bare {how}: exit {bare.returncode} {bare.stderr!r}")
        out, cp = under_profrun(tmp, f"sc-{how}.prof", *args)
        expect(cp.returncode == 3 and cp.stdout == bare.stdout,
               f"{how} under profrun: exit {cp.returncode} (159 is SIGSYS), {cp.stderr!r}")
        rep = report_json(out)
        got = [p for p in rep["processes"] if p["complete"] and p["exit"] in (3, 4)]
        expect(len(rep["processes"]) == procs and len(got) == procs,
               f"{how}: processes {rep['processes']}")


@case
def library_dlopened_before_exit_or_kill_keeps_its_samples(tmp):
    # recorded when dlopen returns: no later hook event is needed
    for how, code in (("_exit", 0), ("kill", -signal.SIGKILL)):
        out, cp = under_profrun(tmp, f"dl-{how}.prof", wl("faults"), "dlexit", how)
        expect(cp.returncode == code and cp.stdout == "dlexit: burnt\n",
               f"{how}: exit {cp.returncode} {cp.stderr!r}")
        rep = report_json(out)
        total = rep["samples"]["total"]
        plugin = sum(f["samples"] for f in rep["functions"]
                     if f["name"] == "plugin_burn" and "libburnplugin" in f["module"])
        expect(total >= 20 and plugin >= 0.9 * total,
               f"{how}: {plugin} of {total} samples in plugin_burn: {rep['functions'][:3]}")


@case
def threads_dlopen_and_a_rival_mid_run_lose_no_count(tmp):
    # the stop (a rival takes SIGPROF) races handlers on other threads,
    # module scans race each other: no crash, every sample in a thread
    # record, none of the plugin's [unknown]
    want = "stress: survived, own handler ticked\n"
    for i in range(3):
        out, cp = under_profrun(tmp, f"st{i}.prof", wl("faults"), "stress")
        expect(cp.returncode == 0 and cp.stdout == want,
               f"run {i}: exit {cp.returncode} {cp.stdout!r} {cp.stderr!r}")
        rep = report_json(out)
        p = rep["processes"][0]
        in_threads = sum(t["samples"] for t in p["threads"])
        expect(p["stopped_early"] and "SIGPROF" in p["stopped_early"], f"run {i}: {p}")
        expect(rep["samples"]["total"] + rep["samples"]["overhead"] == in_threads
               and rep["samples"]["total"] > 0,
               f"run {i}: {rep['samples']['total']} samples, {in_threads} in threads")
        expect(rep["samples"]["unknown"] == 0, f"run {i}: {rep['samples']}")


@case
def full_ext2_disk_never_kills_the_program(tmp):
    # ext2 has no fallocate: a member mapped over unbacked blocks died of
    # SIGBUS (135) at its first sample once the disk was full
    if os.geteuid() != 0 or not shutil.which("mkfs.ext2"):
        raise e2e.Skip("needs root and mkfs.ext2 (e2fsprogs)")
    img, mnt = os.path.join(tmp, "ext2.img"), os.path.join(tmp, "mnt")
    os.makedirs(mnt)
    with open(img, "wb") as f:
        f.truncate(16 << 20)
    cp = run(["mkfs.ext2", "-q", "-F", "-m", "0", img])
    expect(cp.returncode == 0, f"mkfs.ext2: {cp.stderr!r}")
    if run(["mount", "-o", "loop", img, mnt]).returncode != 0:
        raise e2e.Skip("cannot loop-mount (no loop devices here)")
    try:
        fill = os.path.join(mnt, "fill")
        # the program fills the disk itself, then an image it execs starts
        cp = run([PROFRUN, "-o", os.path.join(mnt, "run.prof"), "--", "sh", "-c",
                  f'dd if=/dev/zero of="$0" bs=64k 2>/dev/null; exec "$1" 0.3 1 1',
                  fill, wl("split")])
        expect(cp.returncode == 0 and cp.stdout.startswith("split done"),
               f"exit {cp.returncode} (135 is SIGBUS): {cp.stdout!r} {cp.stderr!r}")
        os.unlink(fill)
        # the run directory made first: a disk too full for it is refused
        # before the program runs (one line, exit 1)
        os.mkdir(os.path.join(mnt, "full.prof"), 0o700)
        with open(os.path.join(mnt, "fill2"), "wb") as f:  # full before start
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        cp = run([PROFRUN, "-o", os.path.join(mnt, "full.prof"), "--", wl("split"),
                  "0.3", "1", "1"])
        expect(cp.stdout.startswith("split done") and cp.returncode in (0, 1),
               f"on a full disk: exit {cp.returncode} (135 is SIGBUS): {cp.stderr!r}")
    finally:
        run(["umount", mnt])


def small_tmpfs(tmp, size):
    """A tmpfs of SIZE bytes mounted in TMP (root only), or Skip."""
    if os.geteuid() != 0:
        raise e2e.Skip("needs root to mount a small tmpfs")
    mnt = os.path.join(tmp, "small")
    os.makedirs(mnt)
    if run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mnt]).returncode != 0:
        raise e2e.Skip("cannot mount a tmpfs here")
    return mnt


def profile_on_small_tmpfs(tmp, size, args, want):
    """Runs ARGS under profrun -q at the cases' rate with the run directory
    on a tmpfs of SIZE bytes; the program must print WANT first and exit
    0 (135 is SIGBUS).  Returns the report's first process and its JSON."""
    mnt = small_tmpfs(tmp, size)
    try:
        out = os.path.join(mnt, "small.prof")
        cp = run([PROFRUN, "-q", "-F", str(e2e.DEFAULT_FREQ), "-o", out, "--",
                  *[a.replace("@MNT@", mnt) for a in args]])
        expect(cp.returncode == 0 and cp.stdout.startswith(want),
               f"exit {cp.returncode} (135 is SIGBUS): {cp.stdout!r} {cp.stderr!r}")
        rep = report_json(out)
        return rep["processes"][0], rep
    finally:
        run(["umount", mnt])


@case
def run_directory_too_small_for_the_samples_stops_sampling(tmp):
    # room for the pages every process writes, not for the tables the
    # samples fill: the handler finds no room for them, profiling stops
    # with a note and the samples before stay; the program never meets
    # SIGBUS (135)
    p, rep = profile_on_small_tmpfs(tmp, 64 << 10, [wl("split"), "1", "1", "1"],
                                    "split done")
    total = rep["samples"]["total"]
    expect(p["stopped_early"] and "no disk space" in p["stopped_early"],
           f"no note of the stop: {p}")
    expect(0 < total <= 200, f"{total} samples kept before the stop")


@case
def disk_filled_after_the_first_samples_keeps_sampling(tmp):
    # the process fills the disk itself once its first samples are in (the
    # rest of its member reserved then), and goes on being sampled after;
    # 2.4 s of CPU: at a 100 Hz tick 240 samples, far past the first ones
    # (a stop would leave at most 128)
    p, rep = profile_on_small_tmpfs(tmp, 8 << 20,
                                    [wl("faults"), "fill", "@MNT@/fill", "1.2"],
                                    "fill: survived a full disk\n")
    expect(not p["stopped_early"] and rep["samples"]["total"] >= 180,
           f"{rep['samples']['total']} samples, {p['stopped_early']!r}")


@case
def disk_filled_before_the_first_sample_stops_sampling(tmp):
    # the process fills the disk before it has used any CPU: the page of
    # its first samples is reserved by the first sample's handler, which
    # finds no room (or, had a sample come before the fill, the rest of
    # the member is refused past the first 64): profiling stops with a
    # note, the program is never killed (135 is SIGBUS) and 2.4 s of CPU
    # after the fill (240 samples at a 100 Hz tick) are not counted
    p, rep = profile_on_small_tmpfs(tmp, 8 << 20,
                                    [wl("faults"), "fill", "@MNT@/fill", "0", "2.4"],
                                    "fill: survived a full disk\n")
    total = rep["samples"]["total"]
    expect(p["stopped_early"] and "no disk space" in p["stopped_early"],
           f"no note of the stop: {p}")
    expect(total <= 128, f"{total} samples counted after the disk was full")


@case
def pause_call_on_a_full_disk_never_kills_the_program(tmp):
    # a program that pauses through <profrun/profrun.h>, run without a
    # pause setting: the pause record's page is not reserved at start.
    # The disk is full once the member's first two pages are in, so that
    # page cannot be had: the pause does not happen rather than store
    # into it (SIGBUS, 135, before)
    mnt = small_tmpfs(tmp, 64 << 10)
    try:
        with open(os.path.join(mnt, "fill"), "wb") as f:
            f.write(bytes(56 << 10))
        out = os.path.join(mnt, "p.prof")
        cp = run([PROFRUN, "-q", "-o", out, "--", wl("pause"), "bracket", "0.3"])
        expect(cp.returncode == 0 and cp.stdout == "bracket done\n",
               f"exit {cp.returncode} (135 is SIGBUS): {cp.stdout!r} {cp.stderr!r}")
        expect(os.listdir(out), "no member: the profile was not even created")
    finally:
        run(["umount", mnt])


@case
def seccomp_filter_installed_before_the_first_sample_keeps_sampling(tmp):
    # the filter refuses openat and fallocate, which a later reservation
    # of the member needs: the member is reserved whole before it goes in
    out, cp = under_profrun(tmp, "refuse.prof", wl("faults"), "refuse", "2.4")
    expect(cp.returncode == 0 and cp.stdout == "refuse: spun under the filter\n",
           f"exit {cp.returncode}: {cp.stdout!r} {cp.stderr!r}")
    rep = report_json(out)
    p = rep["processes"][0]
    expect(not p["stopped_early"] and rep["samples"]["total"] >= 180,
           f"{rep['samples']['total']} samples, {p['stopped_early']!r}")


@case
def coroutine_on_a_small_stack_survives_sampling(tmp):
    # a coroutine with 3 KiB of its 16 KiB stack left: a signal frame there
    # overflowed it (139); the handler runs on an alternate stack of ours,
    # which sigaltstack() does not show
    want = "coroutine: survived; sigaltstack as the kernel\n"
    out, _ = same_as_bare(tmp, "co.prof", [wl("faults"), "coroutine"], want)
    expect(report_json(out)["samples"]["total"] > 0, "no samples")
    g = os.path.join(tmp, "co-g.prof")
    cp = run([PROFRUN, "-q", "-g", "-o", g, "--", wl("faults"), "coroutine"])
    expect(cp.returncode == 0 and cp.stdout == want, f"-g: exit {cp.returncode} {cp.stderr!r}")
    cp = run([PROFRUN, "report", "--callers", "fault_spin", g])
    expect(cp.returncode == 0 and "coroutine_body" in cp.stdout,
           f"-g: the coroutine is not the spin's caller: {cp.stdout!r}")


@case
def guard_pages_in_the_stack_bounds_survive_call_stacks(tmp):
    """-g copies the top of the stack: coroutine stacks carved out of the
    main thread's and a thread's stack, each with a guard page above it,
    and a stack mmapped 2 MiB below [stack] (nothing mapped above it), all
    inside the bounds the shim noted for the thread.  The copy stops at
    the unreadable page instead of dying of SIGSEGV (139), and the stacks
    still name the coroutine as the spin's caller."""
    for where in ("main", "thread", "below"):
        args = [wl("guarded"), where, "0.1"]
        want = f"guarded {where}: survived\n"
        bare = run(args)
        expect(bare.returncode == 0 and bare.stdout == want, f"bare {args}: {bare.stdout!r}")
        out = os.path.join(tmp, f"{where}.prof")
        cp = run([PROFRUN, "-q", "-g", "-F", "1000", "-o", out, "--", *args])
        expect(cp.returncode == 0 and cp.stdout == want,
               f"{where}: exit {cp.returncode}, {cp.stdout!r}, {cp.stderr.strip()!r}")
        cp = run([PROFRUN, "report", "--callers", "guarded_spin", out])
        m = re.search(r"callers of guarded_spin: (\d+) samples", cp.stdout)
        expect(cp.returncode == 0 and m and int(m.group(1)) >= 10 and
               re.search(r"^ +[\d.]+ +\d+ +guarded_coroutine$", cp.stdout, re.M),
               f"{where}: the coroutine is not the spin's caller: {cp.stdout!r}")


LIBPROFILER = "/usr/lib/x86_64-linux-gnu/libprofiler.so.0"


def gperftools_profile(path):
    """(samples, text of the mapped objects) of a gperftools CPU profile:
    a header of five words (0, 3, 0, period, 0), records of (count, depth,
    PCs...), the trailer (0, 1, 0), then /proc/self/maps as text."""
    with open(path, "rb") as f:
        b = f.read()
    expect(len(b) >= 64, f"{path}: {len(b)} bytes, not a gperftools profile")
    w = struct.unpack_from("<5Q", b, 0)
    expect(w[:3] == (0, 3, 0), f"{path}: header {w}")
    off, samples = 40, 0
    while True:
        count, depth = struct.unpack_from("<2Q", b, off)
        off += 16 + 8 * depth
        if count == 0 and depth == 1:
            break
        samples += count
    return samples, b[off:].decode("utf-8", "replace")


@case
def users_preload_applies_to_the_program_not_profrun(tmp):
    """LD_PRELOAD=libprofiler.so CPUPROFILE=F profrun -- PROG: the user's
    profiler profiles the program alone.  Were it loaded into profrun too,
    profrun would take F (the program's profile going to F_PID instead)
    and write its own profile there at exit."""
    if not os.path.exists(LIBPROFILER):
        raise e2e.Skip("gperftools' libprofiler is not installed (libgoogle-perftools4)")
    cpu = os.path.join(tmp, "cpu.out")
    env = dict(os.environ, LD_PRELOAD=LIBPROFILER, CPUPROFILE=cpu, CPUPROFILE_FREQUENCY="100")
    if os.environ.get("PROFRUN_SANITIZED") == "1":
        # a CLI built with ASan refuses any preload before its runtime,
        # before profrun's own code can set it aside
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    out = os.path.join(tmp, "lp.prof")
    cp = run([PROFRUN, "-q", "-o", out, "--", wl("split"), "0.5", "1", "1"], env=env)
    expect(cp.returncode == 0 and "split done" in cp.stdout, f"exit {cp.returncode}: {cp.stderr!r}")
    files = sorted(f for f in os.listdir(tmp) if f.startswith("cpu.out"))
    expect(files == ["cpu.out"], f"gperftools wrote {files}: profrun ran it too")
    samples, maps = gperftools_profile(cpu)
    expect(wl("split") in maps and "/profrun\n" not in maps,
           f"the profile in {cpu} is not the program's: {maps[:400]!r}")
    # 0.5 s of CPU at 100 Hz (CONFIG_HZ caps nothing here); a loaded
    # machine's timer coalescing can cost some, never half
    expect(25 <= samples <= 75, f"gperftools counted {samples} samples for 0.5 s at 100 Hz")
    expect(report_json(out)["processes"][0]["exe"] == wl("split"), "no profrun member for split")


@case
def run_directory_removed_mid_run_is_said(tmp):
    """The program removes the run directory, then starts a child: the
    child's profile makes a new one, and profrun says the program's own
    process left none.  Removed and nothing after: no profile, and no
    "profile written" line."""
    out = os.path.join(tmp, "rm.prof")
    cp = run([PROFRUN, "-q", "-o", out, "--", "sh", "-c",
              f"rm -rf '{out}'; {wl('split')} 0.2 1 1; true"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    expect("left no profile" in cp.stderr and "removed or replaced" in cp.stderr,
           f"the missing process is not named: {cp.stderr!r}")
    out2 = os.path.join(tmp, "gone.prof")
    cp = run([PROFRUN, "-o", out2, "--", "sh", "-c", f"rm -rf '{out2}'"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    expect("no profile in" in cp.stderr and "profile written" not in cp.stderr,
           f"messages of a run that left nothing: {cp.stderr!r}")


@case
def messages_name_live_processes_and_filter_names(tmp):
    """A process still running is not "killed or crashed"; an -o path with
    a terminal escape and a newline never reaches the terminal raw."""
    out = os.path.join(tmp, "live.prof")
    p = subprocess.Popen([PROFRUN, "-q", "-o", out, wl("split"), "30", "1", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        for _ in range(500):
            if os.path.isdir(out) and os.listdir(out):
                break
            time.sleep(0.01)
        time.sleep(0.3)
        cp = run([PROFRUN, "report", out])
        expect("still running" in cp.stderr + cp.stdout and
               "killed or crashed" not in cp.stderr + cp.stdout,
               f"a live process's state: {cp.stderr!r}")
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # profrun and the program
        p.communicate()
    odd = os.path.join(tmp, "a\x1b[31mb\nc.prof")
    cp = run([PROFRUN, "-o", odd, "--", wl("split"), "0.1", "1", "1"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
    last = cp.stderr.splitlines()[-1]
    expect("\x1b" not in cp.stderr and "written to" in last,
           f"the -o path reached the terminal raw: {cp.stderr[-300:]!r}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_faults.py"))
