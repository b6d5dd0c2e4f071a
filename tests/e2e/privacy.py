#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Profiles are private, never destroyed, and read within what they hold:
the modes of run directories and members, outputs that would replace an
input, directories holding something else, members that claim more than
the file holds, and symbolic links planted as members.

Usage: privacy.py CASE, with the environment of e2e.py (whose helpers and
conventions it shares: exit 0 pass, 1 fail, 77 skip)."""

import os
import shutil
import stat
import struct
import subprocess
import sys
import threading

import e2e
from e2e import PROFRUN, Skip, case, expect, one_line_error, run, wl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security import crafted, measured  # noqa: E402

SECRET = b"profrun-stack-secret-4f1d"  # what `stacks secret` holds on its stack
REGION_STACKS = 10  # include/profrun/format.h
OFF_FILE_SIZE, OFF_REGIONS = 16, 384  # struct profrun_header


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def members(d):
    return sorted(os.path.join(d, m) for m in os.listdir(d))


def record(tmp, name, *args, extra=()):
    out = os.path.join(tmp, name)
    cp = run([PROFRUN, "-q", "-F", "1000", *extra, "-o", out, wl("stacks"), *args])
    expect(cp.returncode == 0, f"profrun {' '.join(args)}: exit {cp.returncode}: {cp.stderr}")
    return out


def read_all(paths):
    return {p: open(p, "rb").read() for p in paths}


@case
def profiles_private_under_umask_022(tmp):
    """Run directories 0700 and members 0600 under umask 022, from the
    shim, the merge and an -o directory that was wider; reports keep the
    umask (they hold names and counts)."""
    old = os.umask(0o022)
    try:
        run_dir = record(tmp, "run.prof", "ratio", "0.2", extra=["-g"])
        alone = os.path.join(tmp, "alone.prof")
        env = dict(os.environ, LD_PRELOAD=e2e.SHIM, PROFRUN_OUTPUT=alone,
                   PROFRUN_QUIET="1")
        cp = run([wl("stacks"), "ratio", "0.1"], env=env)
        expect(cp.returncode == 0, f"the shim alone: exit {cp.returncode}")
        merged = os.path.join(tmp, "merged.prof")
        cp = run([PROFRUN, "merge", "-o", merged, run_dir, run_dir])
        expect(cp.returncode == 0, f"merge: exit {cp.returncode}: {cp.stderr}")
        wide = os.path.join(tmp, "wide.prof")
        shutil.copytree(run_dir, wide)
        os.chmod(wide, 0o755)
        for m in members(wide):
            os.chmod(m, 0o644)
        record(tmp, "wide.prof", "ratio", "0.1")
        for d in (run_dir, alone, merged, wide):
            expect(mode(d) == 0o700, f"{d}: mode {oct(mode(d))}, not 0700")
            ms = members(d)
            expect(ms, f"{d}: no member")
            for m in ms:
                expect(mode(m) == 0o600, f"{m}: mode {oct(mode(m))}, not 0600")
        rep = os.path.join(tmp, "report.json")
        cp = run([PROFRUN, "report", "--format", "json", "-o", rep, run_dir])
        expect(cp.returncode == 0, f"report -o: exit {cp.returncode}: {cp.stderr}")
        expect(mode(rep) == 0o644, f"report: mode {oct(mode(rep))}, not 0644 (umask 022)")
        expect(SECRET not in open(rep, "rb").read(), "the report holds stack memory")
    finally:
        os.umask(old)


@case
def stack_secret_unreadable_by_another_user(tmp):
    """A -g profile holds the stack's bytes (a secret the program held):
    another user (nobody) can read neither its members nor its report."""
    if os.geteuid() != 0:
        raise Skip("needs root to run a check as nobody")
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise Skip("no setpriv")
    os.chmod(tmp, 0o755)  # only the profile's own modes keep it private
    old = os.umask(0o022)
    try:
        out = record(tmp, "secret.prof", "secret", "0.5", extra=["-g"])
    finally:
        os.umask(old)
    held = [m for m, data in read_all(members(out)).items() if SECRET in data]
    expect(held, "the secret is not in the -g profile: the check below proves nothing")
    as_nobody = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    cp = run(as_nobody + ["true"])
    if cp.returncode != 0:
        raise Skip(f"cannot run as nobody: {cp.stderr.strip()}")
    for m in held:
        cp = subprocess.run(as_nobody + ["cat", m], capture_output=True, timeout=60)
        expect(cp.returncode != 0 and SECRET not in cp.stdout,
               f"nobody read {m} (exit {cp.returncode})")
    cp = run(as_nobody + ["ls", out])
    expect(cp.returncode != 0, f"nobody listed the run directory: {cp.stdout!r}")
    cp = run(as_nobody + [PROFRUN, "report", out])
    expect(cp.returncode != 0 and "leaf" not in cp.stdout,
           f"nobody got a report (exit {cp.returncode})")


@case
def report_output_onto_an_input_refused(tmp):
    """report -o (and diff -o) naming one of its inputs, or a member of
    one, is refused in one line; the profile stays intact."""
    out = record(tmp, "run.prof", "ratio", "0.3")
    before = read_all(members(out))
    member = members(out)[0]
    link = os.path.join(tmp, "link.prof")
    os.symlink(member, link)
    tries = [
        ["report", "--format", "csv", "-o", member, out],
        ["report", "-o", member, member],
        ["report", "--format", "json", "-o", member, link],
        ["diff", "-o", member, out, out],
    ]
    for args in tries:
        cp = run([PROFRUN, *args])
        line = one_line_error(cp, " ".join(args))
        expect("is one of the inputs" in line, f"{' '.join(args)}: {line}")
        expect(read_all(members(out)) == before, f"{' '.join(args)} changed the profile")
        expect(not [n for n in os.listdir(out) if ".tmp-" in n],
               f"{' '.join(args)} left a temporary file")
    rep = e2e.report_json(out)
    expect(rep["samples"]["total"] > 0, "the profile has no sample after the refusals")
    elsewhere = os.path.join(tmp, "report.csv")
    cp = run([PROFRUN, "report", "--format", "csv", "-o", elsewhere, out])
    expect(cp.returncode == 0 and os.path.getsize(elsewhere) > 0,
           f"report -o elsewhere: exit {cp.returncode}: {cp.stderr}")


@case
def output_directory_holding_a_non_profile_refused(tmp):
    """-o DIR replaces members only: a file named like a member that is
    not a profile makes the run refuse, and stays."""
    out = record(tmp, "run.prof", "ratio", "0.1")
    other = record(tmp, "other.prof", "ratio", "0.1")
    fake = os.path.join(out, "1.prof")
    with open(fake, "w") as f:
        f.write("notes, not a profile\n")
    before = read_all(members(out))
    for args in ([PROFRUN, "-q", "-o", out, wl("stacks"), "ratio", "0.1"],
                 [PROFRUN, "merge", "-o", out, other]):
        cp = run(args)
        line = one_line_error(cp, " ".join(args[:2]))
        expect("1.prof" in line and "not a profile" in line, f"{args[:2]}: {line}")
        expect(read_all(members(out)) == before, f"{args[:2]} changed the directory")


def huge_slot_member(src, dst):
    """SRC's member, its stack area claiming one slot of 4 GiB, written to
    the directory DST as a sparse file of the size the header claims."""
    data = bytearray(open(src, "rb").read())
    roff, count = struct.unpack_from("<QI", data, OFF_REGIONS)
    for i in range(count):
        kind, ver, flags, off, size = struct.unpack_from("<IHHQQ", data, roff + 24 * i)
        if kind != REGION_STACKS:
            continue
        slot = 0xFFFFFFC0
        struct.pack_into("<II", data, off, slot, 1)  # slot_size, slot_count
        struct.pack_into("<Q", data, off + 24, 1)  # offered
        struct.pack_into("<IHHQQ", data, roff + 24 * i, kind, ver, flags, off, 64 + slot)
        total = off + 64 + slot
        data = data[:off + 64 + 4096]
        struct.pack_into("<Q", data, OFF_FILE_SIZE, total)
        os.mkdir(dst)
        path = os.path.join(dst, "1.prof")
        with open(path, "wb") as f:
            f.write(data)
            f.truncate(total)  # sparse: 4 GiB claimed, a few KiB held
        return path
    raise e2e.Failure("the -g profile has no stack area")


@case
def huge_stack_slot_refused_in_small_memory(tmp):
    out = record(tmp, "g.prof", "ratio", "0.3", extra=["-g"])
    bad = os.path.join(tmp, "bad.prof")
    path = huge_slot_member(members(out)[0], bad)
    for target in (bad, path):
        for extra in ([], ["--format", "folded"]):
            cp, secs, rss = measured([PROFRUN, "report", *extra, target], tmp)
            line = one_line_error(cp, f"report {' '.join(extra)} of a 4 GiB stack slot")
            expect("stack area has bad slots" in cp.stderr,
                   f"refused for another reason: {cp.stderr!r}")
            expect(rss < 64, f"peak RSS {rss:.0f} MiB refusing it ({line})")


@case
def symlinked_member_refused_without_opening_target(tmp):
    """A member that is a symbolic link is refused without opening what it
    leads to: a FIFO's writer is never woken, a profile is not read."""
    out = record(tmp, "run.prof", "ratio", "0.2")
    real = members(out)[0]
    elsewhere = os.path.join(tmp, "elsewhere.prof")
    os.mkdir(elsewhere)
    target = os.path.join(elsewhere, "7.prof")
    with open(target, "wb") as f:
        f.write(crafted(pid=7))
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    os.symlink(target, os.path.join(out, "7.prof"))
    os.symlink(fifo, os.path.join(out, "8.prof"))
    opened = threading.Event()

    def writer():  # blocks until someone opens the FIFO for reading
        fd = os.open(fifo, os.O_WRONLY)
        opened.set()
        os.close(fd)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    cp = run([PROFRUN, "report", "--format", "json", out], timeout=30)
    woken = opened.wait(0.5)
    if not woken:  # release the writer
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        t.join(5)
    expect(not woken, "the FIFO behind a symlinked member was opened")
    expect(cp.returncode == 3, f"exit {cp.returncode}, not 3 (partial): {cp.stderr}")
    warned = [l for l in cp.stderr.splitlines() if "symbolic link" in l]
    expect(len(warned) == 2 and any("7.prof" in l for l in warned)
           and any("8.prof" in l for l in warned),
           f"the links are not named as refused: {cp.stderr!r}")
    rep = e2e.json.loads(cp.stdout)
    expect(len(rep["processes"]) == 1 and rep["unreadable"] == 2,
           f"read {len(rep['processes'])} processes, {rep['unreadable']} unreadable: "
           "the linked profile was read")


@case
def member_companions_replaced_with_it_orphans_refused(tmp):
    """A member's companions (<member>.map, <member>.jitdump: a runtime's
    names of its JIT code) are part of the run: -o DIR accepts and
    removes them with their member.  A companion of no member, or one
    that is a symbolic link, is not: the run refuses, and it stays."""
    out = record(tmp, "run.prof", "ratio", "0.1")
    member = os.path.basename(members(out)[0])
    for suffix in (".map", ".jitdump"):
        with open(os.path.join(out, member + suffix), "w") as f:
            f.write("7f0000000000 10 LazyCompile:*fib\n")
    cp = run([PROFRUN, "-q", "-o", out, wl("stacks"), "ratio", "0.1"])
    expect(cp.returncode == 0, f"run over a member and its companions: exit {cp.returncode}: {cp.stderr}")
    left = os.listdir(out)
    expect(not any(n == member + ".map" or n == member + ".jitdump" for n in left),
           f"the old companions stayed: {left}")
    member = os.path.basename(members(out)[0])
    for name, make in (("99999.prof.map", "file"), (member + ".jitdump", "link")):
        for n in os.listdir(out):
            if n.endswith((".map", ".jitdump")):
                os.unlink(os.path.join(out, n))
        path = os.path.join(out, name)
        if make == "file":
            with open(path, "w") as f:
                f.write("notes\n")
        else:
            target = os.path.join(tmp, "target")
            with open(target, "w") as f:
                f.write("keep\n")
            os.symlink(target, path)
        before = sorted(os.listdir(out))
        cp = run([PROFRUN, "-q", "-o", out, wl("stacks"), "ratio", "0.1"])
        line = one_line_error(cp, f"run over {name} ({make})")
        expect(name in line and "not a profile" in line, f"{name} ({make}): {line}")
        expect(sorted(os.listdir(out)) == before, f"{name} ({make}): the directory changed")
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(e2e.main(prog="privacy.py"))
