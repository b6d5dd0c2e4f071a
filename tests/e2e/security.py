#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Security of what profrun reads and writes: hostile profiles, planted
symbolic links, set-user-ID programs, and the shim's signal handler.

Usage: security.py CASE, with the environment of e2e.py (whose helpers and
conventions it shares: exit 0 pass, 1 fail, 77 skip)."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import e2e
from e2e import PROFRUN, SHIM, Skip, case, expect, one_line_error, run, wl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkprofile  # noqa: E402

GiB = 1 << 30
# struct profrun_header offsets (include/profrun/format.h)
OFF_FILE_SIZE, OFF_STRINGS_SIZE, OFF_WRAP_SLOTS, OFF_NBUCKETS = 16, 32, 36, 56


def crafted(**kw):
    args = dict(exe=wl("outcome"), recorded_exe=None, text=None, bucket_size=2,
                sample=[], symbol=["spin=50"], outside=0, state="exited",
                exit=0, flags=0, note="", cpu_ms=500, rate=1000, pid=100,
                ppid=1, build_id="auto", version=1, min_version=1)
    args.update(kw)
    return bytearray(mkprofile.build(type("A", (), args)))


def put(buf, off, value, size):
    buf[off:off + size] = value.to_bytes(size, "little")


def measured(args, tmp):
    """Run ARGS; return (CompletedProcess, seconds, its peak RSS in MiB)."""
    paths = [os.path.join(tmp, n) for n in ("measured.out", "measured.err")]
    with open(paths[0], "w") as out, open(paths[1], "w") as err:
        t0 = time.monotonic()
        p = subprocess.Popen(args, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        secs = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    texts = []
    for path in paths:
        with open(path) as f:
            texts.append(f.read())
    cp = subprocess.CompletedProcess(args, p.returncode, *texts)
    return cp, secs, ru.ru_maxrss / 1024


@case
def absurd_sizes_refused_quickly_in_small_memory(tmp):
    good = crafted()
    damages = {}
    b = bytearray(good)
    put(b, OFF_FILE_SIZE, 8 * GiB, 8)
    damages["claims-8GiB"] = (b, None)
    b = bytearray(good)
    put(b, OFF_FILE_SIZE, 4 * GiB, 8)
    damages["sparse-4GiB"] = (b, 4 * GiB)
    b = bytearray(good)
    put(b, OFF_FILE_SIZE, 4 * GiB, 8)
    put(b, OFF_WRAP_SLOTS, (1 << 28) - 1, 4)
    damages["4GiB-wrap-table"] = (b, 4 * GiB)
    b = bytearray(good)
    put(b, OFF_FILE_SIZE, 5 * GiB, 8)
    put(b, OFF_STRINGS_SIZE, 0xffffffff, 4)
    damages["4GiB-strings"] = (b, 5 * GiB)
    b = bytearray(good)
    put(b, OFF_NBUCKETS, 1 << 60, 8)
    damages["2^60-buckets"] = (b, None)
    for name, (data, size) in damages.items():
        d = os.path.join(tmp, name)
        os.mkdir(d)
        path = os.path.join(d, "1.prof")
        with open(path, "wb") as f:
            f.write(data)
            if size:
                f.truncate(size)  # sparse: costs no disk
        for target in (d, path):
            cp, secs, rss = measured([PROFRUN, "report", target], tmp)
            one_line_error(cp, f"{name} profile")
            expect(secs < 5, f"{name}: refusal took {secs:.1f} s")
            expect(rss < 150, f"{name}: peak RSS {rss:.0f} MiB for a refusal")


@case
def oversized_inputs_refused_in_one_line(tmp):
    """A JSON baseline above 256 MiB and a source above 16 MiB (or a
    device) are refused in one line, without reading them."""
    big = os.path.join(tmp, "huge.json")
    with open(big, "wb") as f:
        f.write(b"{")
        f.truncate(300 << 20)  # sparse: costs no disk
    prof = os.path.join(tmp, "p.prof")
    os.mkdir(prof)
    with open(os.path.join(prof, "1.prof"), "wb") as f:
        f.write(crafted())
    cp, secs, rss = measured([PROFRUN, "diff", big, prof], tmp)
    line = one_line_error(cp, "a 300 MiB JSON baseline")
    expect(cp.returncode == 2 and "larger than 256 MiB" in line,
           f"exit {cp.returncode}: {line}")
    expect(secs < 5 and rss < 150, f"refusal took {secs:.1f} s, {rss:.0f} MiB")
    exe = wl("inline")
    out = os.path.join(tmp, "inline.prof")
    cp = run([PROFRUN, "-q", "-F", "1000", "-o", out, exe, "0.5"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    for name, make in (("big", lambda p: open(p, "wb").truncate(20 << 20)),
                       ("device", lambda p: os.symlink("/dev/zero", p))):
        d = os.path.join(tmp, "src-" + name)
        os.mkdir(d)
        make(os.path.join(d, "inline.c"))
        cp, secs, rss = measured([PROFRUN, "annotate", "--source-dir", d, out], tmp)
        warn = [l for l in cp.stderr.splitlines() if "inline.c" in l]
        if name == "big":
            expect(cp.returncode == 0 and len(warn) == 1 and "larger than 16 MiB" in warn[0],
                   f"{name} source: exit {cp.returncode}: {cp.stderr!r}")
        else:  # not a regular file: passed over for the source itself
            expect(cp.returncode == 0 and "HOT LINE" in cp.stdout,
                   f"{name} source: exit {cp.returncode}: {cp.stderr!r}")
        expect(secs < 10 and rss < 150, f"{name} source: {secs:.1f} s, {rss:.0f} MiB")


def fork_then(setup, argv, env, stdout):
    """Run ARGV (output to the file STDOUT) in a child whose pid is known
    before it runs: SETUP(pid) runs first.  Returns its exit status."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        fd = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.umask(0)  # the shim's modes must not depend on the umask
        os.execve(argv[0], argv, env)
    os.close(r)
    setup(pid)
    os.write(w, b"g")
    os.close(w)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@case
def planted_symlinks_at_member_paths_left_untouched(tmp):
    out = os.path.join(tmp, "run.prof")
    os.mkdir(out)
    precious = os.path.join(tmp, "precious")
    with open(precious, "w") as f:
        f.write("precious\n")
    nowhere = os.path.join(tmp, "nowhere")

    def plant(pid):
        os.symlink(precious, os.path.join(out, f"{pid}.prof"))
        os.symlink(nowhere, os.path.join(out, f"{pid}-1.prof"))

    env = dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=out)
    log = os.path.join(tmp, "stdout")
    status = fork_then(plant, [wl("outcome"), "exit:4", "0.2"], env, log)
    with open(log) as f:
        said = f.read()
    expect(status == 4 and said == "outcome exit:4\n",
           f"with links planted the program exited {status}, said {said!r}")
    with open(precious) as f:
        expect(f.read() == "precious\n", "a symlink's target was written")
    expect(not os.path.lexists(nowhere), "a dangling symlink's target was created")
    members = [m for m in os.listdir(out) if not os.path.islink(os.path.join(out, m))]
    expect(len(members) == 1 and re.fullmatch(r"\d+-2\.prof", members[0]),
           f"the profile went to {members}, not the next free name")
    mode = os.stat(os.path.join(out, members[0])).st_mode
    expect(mode & 0o077 == 0, f"member created with mode {oct(mode)} under umask 0")
    report = e2e.report_json(os.path.join(out, members[0]))
    expect(report["samples"]["total"] >= 0, "the profile is unreadable")


@case
def setuid_program_runs_unprofiled(tmp):
    if os.geteuid() != 0:
        raise Skip("needs root to give a program another owner")
    if os.statvfs(tmp).f_flag & os.ST_NOSUID:
        raise Skip(f"{tmp} is mounted nosuid")
    prog = os.path.join(tmp, "setuid-outcome")
    shutil.copy(wl("outcome"), prog)
    os.chown(prog, 65534, -1)  # nobody
    os.chmod(prog, 0o4755)
    out = os.path.join(tmp, "su.prof")
    cp = run([PROFRUN, "-o", out, prog, "exit:3", "0.1"])
    expect(cp.returncode == 3, f"set-user-ID program: profrun exited {cp.returncode}")
    expect(cp.stdout == "outcome exit:3\n", f"its stdout is {cp.stdout!r}")
    lines = cp.stderr.splitlines()
    expect(len(lines) == 1 and lines[0].startswith("profrun: ")
           and "set-user-ID" in lines[0] and "not profiled" in lines[0],
           f"expected one line saying it is not profiled, got {cp.stderr!r}")
    expect(not os.path.exists(out), "a profile was written for it")
    # the shim alone: the dynamic linker never loads it in secure mode
    env = dict(os.environ, LD_PRELOAD=SHIM, PROFRUN_OUTPUT=out)
    cp = run([prog, "exit:5", "0.1"], env=env)
    expect(cp.returncode == 5 and cp.stdout == "outcome exit:5\n",
           f"under the shim alone: exit {cp.returncode}, {cp.stdout!r}")
    expect(not os.path.exists(out), "the shim wrote a profile in a set-user-ID process")


@case
def hostile_strings_never_reach_the_terminal(tmp):
    d = os.path.join(tmp, "esc.prof")
    os.mkdir(d)
    with open(os.path.join(d, "1.prof"), "wb") as f:
        f.write(crafted(note="\x1b]0;owned\x07\x1b[2J", flags=32,
                        recorded_exe=wl("outcome") + "\x1b[31m"))
    for fmt in ("text", "json"):
        cp = run([PROFRUN, "report", "--format", fmt, d])
        for stream, text in (("stdout", cp.stdout), ("stderr", cp.stderr)):
            expect("\x1b" not in text and "\x07" not in text,
                   f"{fmt}: escape sequence on {stream}: {text!r}")
    expect("?]0;owned?" in run([PROFRUN, "report", d]).stdout,
           "the note is not shown with its controls replaced")


@case
def invalid_utf8_names_give_strict_utf8_output(tmp):
    # a program whose path is not UTF-8: its module name and the recorded
    # executable reach every report; each must stay strict UTF-8
    exe = os.path.join(os.fsencode(tmp), b"split\xff\xc0\xaf\xed\xa0\x80")
    shutil.copy(wl("split"), exe)
    out = os.path.join(tmp, "utf8.prof")
    cp = subprocess.run([PROFRUN.encode(), b"-q", b"-o", out.encode(), b"--",
                         exe, b"0.3"], capture_output=True, timeout=60)
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
    outputs = {}
    for fmt in ("json", "text", "csv", "markdown"):
        cp = subprocess.run([PROFRUN, "report", "--format", fmt, out],
                            capture_output=True, timeout=60)
        expect(cp.returncode == 0, f"{fmt}: exit {cp.returncode}: {cp.stderr!r}")
        try:
            outputs[fmt] = cp.stdout.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            raise e2e.Failure(f"{fmt} report is not UTF-8: {e}")
    rep = json.loads(outputs["json"])
    exe_name = "split\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd"
    expect(rep["processes"][0]["exe"].endswith("/" + exe_name),
           f"exe not shown with U+FFFD: {rep['processes'][0]['exe']!r}")
    expect(any(f["module"].endswith("/" + exe_name) for f in rep["functions"]),
           f"no function in module {exe_name!r}: {rep['functions'][:3]}")
    cp = subprocess.run([PROFRUN, "diff", "--format", "json", out, out],
                        capture_output=True, timeout=60)
    expect(cp.returncode == 0, f"diff: exit {cp.returncode}: {cp.stderr!r}")
    diff = json.loads(cp.stdout.decode("utf-8", errors="strict"))
    expect(any(f["module"] == exe_name for f in diff["functions"]),
           f"diff: no function in module {exe_name!r}: {diff['functions'][:3]}")


@case
def hostile_source_text_never_reaches_the_terminal(tmp):
    # annotate prints a program's source: its text and its file name are
    # whatever the build had, escape sequences and stray bytes included
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise Skip("no C compiler to build a workload from a hostile source")
    workloads = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads")
    src = os.path.join(os.fsencode(tmp), b"in\x1b[2Jl\xffine.c")
    with open(os.path.join(workloads, "inline.c"), "rb") as f:
        text = f.read().replace(b"/* HOT LINE */", b"/* HOT LINE \x1b]0;owned\x07 \xc0\xaf */")
    with open(src, "wb") as f:
        f.write(text.replace(b"\n", b"\r\n"))
    exe = os.path.join(tmp, "inline-hostile")
    cp = subprocess.run([cc.encode(), b"-O2", b"-g", b"-I", workloads.encode(), b"-o",
                         exe.encode(), src], capture_output=True, timeout=120)
    expect(cp.returncode == 0, f"cannot build the hostile source: {cp.stderr!r}")
    prof = os.path.join(tmp, "hostile.prof")
    cp = run([PROFRUN, "-q", "-F", "1000", "-o", prof, exe, "1.0"])
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
    cp = subprocess.run([PROFRUN, "annotate", "--color=never", "churn", prof],
                        capture_output=True, timeout=60)
    expect(cp.returncode == 0, f"annotate: exit {cp.returncode}: {cp.stderr!r}")
    for stream, data in (("stdout", cp.stdout), ("stderr", cp.stderr)):
        expect(not any(c < 0x20 and c not in b"\t\n" or c == 0x7f for c in data),
               f"a control character on {stream}: {data!r}")
        try:
            data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            raise e2e.Failure(f"annotate's {stream} is not UTF-8: {e}")
    out = cp.stdout.decode()
    rows = [l for l in out.splitlines() if "HOT LINE" in l]
    expect(len(rows) == 1 and rows[0].endswith("/* HOT LINE ?]0;owned? \ufffd\ufffd */")
           and int(rows[0].split()[0]) > 0,
           f"the hot line is not shown, sampled, with its controls replaced: {rows}")
    expect("in?[2Jl\ufffdine.c" in out, f"the file name is not shown made printable:\n{out}")


@case
def fifo_member_refused_without_hanging(tmp):
    d = os.path.join(tmp, "fifo.prof")
    os.mkdir(d)
    os.mkfifo(os.path.join(d, "1.prof"))
    with open(os.path.join(d, "2.prof"), "wb") as f:
        f.write(crafted(pid=2))
    cp = run([PROFRUN, "report", d], timeout=20)
    # the report of the other member, said to be partial
    expect(cp.returncode == 3, f"exit {cp.returncode}: {cp.stderr}")
    expect("1.prof" in cp.stderr and "not a regular file" in cp.stderr,
           f"the FIFO is not named as skipped: {cp.stderr!r}")


@case
def sigprof_handler_keeps_errno_and_calls_no_library(tmp):
    out = os.path.join(tmp, "errno.prof")

    # enough samples for the check to mean anything: each one is a chance
    # for the handler to change errno
    def attempt(seconds):
        cp = run([PROFRUN, "-q", "-F", str(e2e.DEFAULT_FREQ), "-o", out, wl("errno-spin"),
                  seconds])
        expect(cp.returncode == 0 and cp.stdout.startswith("errno intact"),
               f"exit {cp.returncode}: {cp.stdout!r} {cp.stderr!r}")
        return None, [(e2e.report_json(out)["samples"]["total"], e2e.NEED / 4)]
    e2e.gather(attempt, e2e.cpu_for(e2e.NEED / 4))
    # The handler, and every function of the shim it reaches, may call only
    # through pointers (profil's handler), each other, and the C library's
    # async-signal-safe clock and system-call entries: no allocator, no
    # lock, no dynamic linker, nothing else from libc.
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", SHIM],
                         capture_output=True, text=True, check=True).stdout
    bodies = dict(re.findall(r"<([^>]+)>:\n(.*?)\n\n", dis, re.S))
    expect("on_sigprof" in bodies, "no on_sigprof in the shim's symbol table")
    allowed_libc = {"__errno_location@plt", "clock_gettime@plt", "syscall@plt",
                    "getpid@plt"}
    seen, todo, bad = set(), ["on_sigprof"], set()
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.add(fn)
        for t in re.findall(r"\b(?:call|jmp)\s+[0-9a-f]+ <([^>+]+)", bodies[fn]):
            if t in allowed_libc:
                continue
            if t in bodies and not t.endswith("@plt"):
                todo.append(t)
            else:
                bad.add(t)
    expect(not bad, f"the SIGPROF handler reaches {sorted(bad)} (from {sorted(seen)})")


if __name__ == "__main__":
    sys.exit(e2e.main())
