#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Processes and threads that slip out of a run: images that cannot be
profiled (set-user-ID, static), children that left no member (a full
disk), a raw exit_group, C11 and clone() threads, and the CPU time of
ordinary threads' start and end.  Each case runs a real workload
(tests/workloads/offspring.c) under profrun and checks what the report
says of it.

Usage: e2e_offspring.py CASE (meson test runs one case per test; exit 0
pass, 1 fail, 77 skip: the cases that need root to make a set-user-ID
file of another user or to mount a small tmpfs skip without it).  Same
environment, sample counts and tolerances as e2e.py."""

import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, Failure, Skip, cpu_for, expect, gather,  # noqa: E402
                 report_json, run, samples_of, wl)
import e2e  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def profrun(out, *args, status=0, freq="1000"):
    """Run ARGS under profrun -q -F FREQ into OUT; check the exit status."""
    cp = run([PROFRUN, "-q", "-F", freq, "-o", out, "--", *args])
    expect(cp.returncode == status,
           f"{args}: exit {cp.returncode}, expected {status}; "
           f"stdout {cp.stdout!r}, stderr {cp.stderr!r}")
    return cp


def report_text(path, status=0):
    cp = run([PROFRUN, "report", path])
    expect(cp.returncode == status,
           f"report {path}: exit {cp.returncode}, expected {status}: {cp.stderr.strip()}")
    return cp.stderr + cp.stdout


def check_not_profiled(out, path, reason, count):
    """The run's report names PATH, not profiled for REASON, COUNT times,
    and is complete otherwise."""
    rep = report_json(out)
    got = rep.get("not_profiled")
    expect(got == [{"path": path, "reason": reason, "script": False, "count": count}],
           f"not_profiled: {got!r}, expected {count} x {path} ({reason})")
    expect(rep["missing"] == [] and rep["partial"] is False,
           f"a child it could not profile is not missing: {rep['missing']!r}")
    text = report_text(out)
    want = f"not profiled: {count} processes: {path} ({reason}) x{count}"
    expect(want in text, f"text report lacks {want!r}:\n{text}")


@case
def setuid_image_of_another_user_is_named(tmp):
    """A set-user-ID copy owned by another user runs unprofiled (the
    loader ignores LD_PRELOAD): its fork+exec and posix_spawn are counted
    and named, not mistaken for missing members."""
    if os.geteuid() != 0:
        raise Skip("needs root to make a set-user-ID file of another user")
    if "nosuid" in subprocess.run(["findmnt", "-no", "OPTIONS", "-T", tmp],
                                  capture_output=True, text=True).stdout:
        raise Skip(f"{tmp} is mounted nosuid")
    copy = os.path.join(tmp, "suid-outcome")
    shutil.copy(wl("outcome"), copy)
    os.chown(copy, 65534, 65534)
    os.chmod(copy, 0o4755)
    os.chmod(tmp, 0o755)
    out = os.path.join(tmp, "suid.prof")
    cp = profrun(out, wl("offspring"), "exec", copy, "exit:0", "0.05")
    expect("exec: 0 0" in cp.stdout, f"the set-user-ID copy did not run: {cp.stdout!r}")
    check_not_profiled(out, copy, "set-user-ID", 2)


@case
def static_child_is_named(tmp):
    """A statically linked child (no PT_INTERP) exec'd and spawned by the
    program is counted and named; its parent's members are complete."""
    out = os.path.join(tmp, "static.prof")
    static = wl("outcome-static")
    cp = profrun(out, wl("offspring"), "exec", static, "exit:3", "0.05")
    expect("exec: 3 3" in cp.stdout, f"the static child did not run: {cp.stdout!r}")
    check_not_profiled(out, static, "static", 2)


@case
def full_disk_children_are_missing(tmp):
    """On a 64 KiB tmpfs, children forked at once find no room for their
    members (the pages each reserves at start): the report names each
    missing one by pid and parent, is partial (exit 3), and so is a merge
    of the run."""
    if os.geteuid() != 0:
        raise Skip("needs root to mount a small tmpfs")
    mnt = os.path.join(tmp, "small")
    os.mkdir(mnt)
    cp = run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt])
    if cp.returncode != 0:
        raise Skip(f"cannot mount a tmpfs: {cp.stderr.strip()}")
    try:
        out = os.path.join(mnt, "full.prof")
        cp = profrun(out, wl("offspring"), "children", "20", "0.01")
        expect("children: 20 of 20 exited 0" in cp.stdout,
               f"the children were harmed: {cp.stdout!r} {cp.stderr!r}")
        members = len(os.listdir(out))
        expect(members < 21, f"{members} members: the disk did not fill")
        cpr = run([PROFRUN, "report", "--format", "json", out])
        expect(cpr.returncode == 3, f"report exit {cpr.returncode}, expected 3 (partial)")
        rep = json.loads(cpr.stdout)
        parent = rep["processes"][0]["pid"]
        missing = rep["missing"]
        expect(rep["partial"] is True and len(missing) == 21 - members,
               f"{members} members of 21 processes, missing: {missing!r}")
        expect(all(m["ppid"] == parent and m["how"] == "forked" for m in missing),
               f"missing children not named by their parent {parent}: {missing!r}")
        text = report_text(out, status=3)
        want = f"missing: {21 - members} processes left no profile"
        expect(want in text and f"forked by pid {parent}" in text,
               f"text report lacks {want!r}:\n{text}")
        merged = os.path.join(tmp, "merged.prof")
        cpm = run([PROFRUN, "merge", "-o", merged, out])
        expect(cpm.returncode == 3 and "partial" in cpm.stderr,
               f"merge of a run with missing members: exit {cpm.returncode}, "
               f"{cpm.stderr.strip()!r}")
    finally:
        run(["umount", mnt])


@case
def merge_of_a_run_with_an_unreadable_member_is_partial(tmp):
    """profrun merge of a run one of whose members is damaged writes the
    rest and says it is partial: exit 3, not 0."""
    out = os.path.join(tmp, "fam.prof")
    profrun(out, wl("offspring"), "children", "2", "0.01")
    names = sorted(os.listdir(out))
    expect(len(names) == 3, f"members {names}")
    with open(os.path.join(out, names[-1]), "r+b") as f:
        f.truncate(100)
    merged = os.path.join(tmp, "merged.prof")
    cp = run([PROFRUN, "merge", "-o", merged, out])
    expect(cp.returncode == 3, f"merge exit {cp.returncode}, expected 3: {cp.stderr.strip()}")
    expect("partial" in cp.stderr and "1 member" in cp.stderr,
           f"merge did not say it is partial: {cp.stderr!r}")
    expect(os.path.isdir(merged), "the merge of the rest was not written")


def offspring_region(path):
    """The file offset of the offspring region (kind 17) of the member
    PATH, from its region list (docs/format.md), or None."""
    with open(path, "rb") as f:
        data = f.read()
    regions_off, count = struct.unpack_from("<QI", data, 384)
    for i in range(count):
        kind, _, _, off, _ = struct.unpack_from("<IHHQQ", data, regions_off + 24 * i)
        if kind == 17:
            return off
    return None


@case
def damaged_offspring_region_is_refused_cleanly(tmp):
    """A member whose offspring head claims more records than its region
    holds is refused in one line naming the problem, and the report of
    the rest is partial; a record whose path lies outside the path area
    is shown without one."""
    out = os.path.join(tmp, "dmg.prof")
    profrun(out, wl("offspring"), "exec", wl("outcome-static"), "exit:0", "0.01")
    parents = []
    for m in sorted(os.listdir(out)):
        off = offspring_region(os.path.join(out, m))
        expect(off is not None, f"{m} has no offspring region")
        with open(os.path.join(out, m), "rb") as f:
            f.seek(off)
            if struct.unpack("<I", f.read(4))[0] != 0:
                parents.append((m, off))
    expect(len(parents) == 2, f"members with offspring records: {parents}")
    (first, off1), (second, off2) = parents
    with open(os.path.join(out, first), "r+b") as f:
        f.seek(off1)
        f.write(struct.pack("<I", 0x7fffffff))  # slot_count
    with open(os.path.join(out, second), "r+b") as f:
        f.seek(off2 + 32 + 16)  # the first record's path_off
        f.write(struct.pack("<I", 0xfffffff0))
    cp = run([PROFRUN, "report", "--format", "json", out])
    expect(cp.returncode == 3, f"report exit {cp.returncode}, expected 3: {cp.stderr.strip()}")
    expect("offspring records larger than their region" in cp.stderr and first in cp.stderr,
           f"the damaged member is not named with its problem: {cp.stderr!r}")
    rep = json.loads(cp.stdout)
    expect([n["path"] for n in rep["not_profiled"]] == ["?"],
           f"a record with a path out of bounds: {rep['not_profiled']!r}")


@case
def raw_exit_group_is_not_a_crash(tmp):
    """A process that ends with a raw exit_group system call (no libc
    exit) is reported as exited with its status, not as killed or crashed:
    the first process (profrun waited for it) and a fork child (its
    parent's waitpid saw it)."""
    out = os.path.join(tmp, "raw.prof")
    profrun(out, wl("offspring"), "rawexit", "7", "0.05", status=7)
    rep = report_json(out)
    p = rep["processes"][0]
    expect(p["exit"] == 7 and p["exit_through_libc"] is False and p["signal"] is None,
           f"raw exit_group 7: {p!r}")
    text = report_text(out)
    expect("exited (not through libc), exit 7" in text and "killed or crashed" not in text,
           f"text report of a raw exit_group:\n{text}")
    out = os.path.join(tmp, "rawchild.prof")
    cp = profrun(out, wl("offspring"), "rawchild", "5", "0.05")
    expect("rawchild: exit 5" in cp.stdout, f"the child's status: {cp.stdout!r}")
    rep = report_json(out)
    child = [p for p in rep["processes"] if p["ppid"] == rep["processes"][0]["pid"]]
    expect(len(child) == 1 and child[0]["exit"] == 5 and not child[0]["exit_through_libc"],
           f"the child's entry: {child!r}")
    text = report_text(out)
    expect("exited not through libc" in text and "killed or crashed" not in text,
           f"text report of a child's raw exit_group:\n{text}")


@case
def thrd_create_threads_are_sampled(tmp):
    """Threads started with C11 thrd_create (glibc starts them without the
    exported pthread_create) each get a timer: their CPU is sampled and
    charged to their own records, none of it unsampled."""
    def attempt(secs):
        out = os.path.join(tmp, "thrd.prof")
        cp = profrun(out, wl("offspring"), "thrd", "2", f"{float(secs) / 2:.2f}")
        expect("thrd: 2 of 2 returned 7" in cp.stdout, f"threads harmed: {cp.stdout!r}")
        rep = report_json(out, "--by-thread")
        # a timer per thread gives ~CPU x rate samples: none at all is
        # no timer, not bad luck
        expect(samples_of(rep, "thrd_hot") > 0,
               f"no sample in the C11 threads' {secs} s of CPU")
        return rep, [(samples_of(rep, "thrd_hot"), NEED)]
    rep = gather(attempt, cpu_for(NEED))
    hot = samples_of(rep, "thrd_hot")
    expect(hot >= 0.9 * rep["samples"]["total"],
           f"thrd_hot has {hot} of {rep['samples']['total']} samples")
    threads = [t for t in rep["processes"][0]["threads"] if not t["main"]]
    expect(len(threads) == 2 and all(t["samples"] > 0 for t in threads),
           f"the C11 threads' records: {threads!r}")
    unsampled = rep["cpu_unsampled_seconds"]
    expect(unsampled is not None and unsampled < 0.1 * rep["cpu_seconds"],
           f"{unsampled} s of {rep['cpu_seconds']} s unsampled")


@case
def clone_thread_cpu_is_unsampled_and_named(tmp):
    """A thread the program starts with clone() itself runs where nothing
    of ours may: its CPU is counted as unsampled, and the report names
    clone() as the cause."""
    out = os.path.join(tmp, "clone.prof")
    profrun(out, wl("offspring"), "clone", "0.5", freq="200")
    rep = report_json(out)
    expect(rep.get("clone_threads") == 1 and rep.get("unsampled_cause") == "clone_threads",
           f"clone_threads {rep.get('clone_threads')}, cause {rep.get('unsampled_cause')}")
    expect(rep["cpu_unsampled_seconds"] >= 0.4,
           f"only {rep['cpu_unsampled_seconds']} s unsampled of the clone thread's 0.5 s")
    text = report_text(out)
    expect("1 thread the program started with clone() itself" in text,
           f"text report does not name clone():\n{text}")


@case
def ordinary_threads_start_and_end_are_not_called_unhooked(tmp):
    """Thousands of short pthreads leave CPU outside their timers (their
    start and end): the report says so, and never that they were not
    started by pthread_create."""
    out = os.path.join(tmp, "spawn.prof")
    profrun(out, wl("offspring"), "spawnthreads", "8000", freq="200")
    rep = report_json(out)
    expect(rep["cpu_unsampled_seconds"] is not None and rep["cpu_unsampled_seconds"] > 0,
           f"no unsampled CPU: {rep['cpu_unsampled_seconds']}")
    expect(rep.get("unsampled_cause") == "thread_edges" and rep.get("clone_threads") == 0,
           f"cause {rep.get('unsampled_cause')}, clone threads {rep.get('clone_threads')}")
    text = report_text(out)
    expect("not started by pthread_create" not in text,
           f"ordinary threads called unhooked:\n{text}")
    if "unsampled:" in text:
        expect("starting and ending 8000 threads" in text,
               f"the unsampled line names another cause:\n{text}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_offspring.py"))
