#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Never hurt the program: dispositions, masks, waits and alternate stacks
of its own.  Each case runs a real program (tests/workloads/sigs.c,
c11reset.c, or a Debian program) bare and under profrun and checks that
it printed the same, ended the same and observed the same.

Usage: e2e_signals.py CASE (exit 0 pass, 1 fail, 77 skip)."""

import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import PROFRUN, expect, report_json, run, wl  # noqa: E402
import e2e  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def same_as_bare(tmp, name, args, opts=(), timeout=60):
    """Run ARGS bare, then under profrun: the same stdout and exit status.
    Returns the profile's path."""
    bare = run(args, timeout=timeout)
    out = os.path.join(tmp, name)
    try:
        cp = run([PROFRUN, "-q", "-o", out, *opts, "--", *args], timeout=timeout)
    except subprocess.TimeoutExpired:
        raise e2e.Failure(f"{args[1:]}: hangs under profrun (bare: exit "
                          f"{bare.returncode}, {bare.stdout!r})")
    status = bare.returncode  # profrun dies of the signal the program died of
    expect(cp.returncode == status and cp.stdout == bare.stdout,
           f"{args[1:]}: under profrun exit {cp.returncode}, {cp.stdout!r}; "
           f"bare exit {status}, {bare.stdout!r}; stderr {cp.stderr!r}")
    return out


def still_profiled(out, what):
    p = report_json(out)["processes"][0]
    expect(p["stopped_early"] is None and p["samples"] > 0,
           f"{what}: profiling stopped or took no sample: {p}")


@case
def strict_c_program_resetting_every_signal_exits_as_bare(tmp):
    # -std=c11: signal() is __sysv_signal, which the shim did not see, so
    # SIGPROF went back to SIG_DFL under our timer (exit 155)
    out = same_as_bare(tmp, "c11.prof", [wl("c11reset"), "0.5"])
    still_profiled(out, "c11reset")
    # every other entry that sets a disposition, SIGPROF's included
    out = same_as_bare(tmp, "entries.prof", [wl("sigs"), "entries"])
    still_profiled(out, "entries")
    # and the raw system calls made through syscall(): SIG_DFL by a raw
    # rt_sigaction ended the process at our next sample
    out = same_as_bare(tmp, "raw.prof", [wl("sigs"), "rawcalls"])
    still_profiled(out, "rawcalls")


def blocked_in(pid, nr, seconds=30):
    """Wait until PID is blocked in system call NR."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/syscall") as f:
                if f.read().split()[0] == str(nr):
                    return
        except (OSError, IndexError):
            pass
        time.sleep(0.01)
    raise e2e.Failure(f"process {pid} never blocked in system call {nr}")


@case
def toggle_signal_during_exit_loses_no_output(tmp):
    # the lines leave in exit's last flush, after the shim's exit hook ran;
    # a toggle signal then ended the program with SIGUSR1 (138) mid-flush
    n = 16000
    out = os.path.join(tmp, "ex.prof")
    p = subprocess.Popen([PROFRUN, "-q", "-o", out, "--toggle-signal", "USR1", "--",
                          wl("sigs"), "exitflush", str(n)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pid = int(p.stderr.readline())
        blocked_in(pid, 1)  # write(2): the pipe is full, nobody reads it yet
        os.kill(pid, signal.SIGUSR1)
        time.sleep(0.1)
        text, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    lines = text.splitlines()
    expect(p.returncode == 0 and len(lines) == n and lines[-1] == f"line {n - 1} of the final flush",
           f"exit {p.returncode}, {len(lines)} of {n} lines, stderr {err!r}")
    proc = report_json(out)["processes"][0]
    expect(proc["complete"] and proc["exit"] == 0, f"the profile: {proc}")


@case
def program_small_alternate_stack_survives_sampling(tmp):
    # a 7 KiB alternate stack of the program's, its handler using 2 KiB:
    # our SIGPROF frame on top of it overflowed it (139)
    for i in range(2):
        out = same_as_bare(tmp, f"alt{i}.prof", [wl("sigs"), "smallalt"])
    still_profiled(out, "smallalt")


@case
def onstack_handler_without_a_stack_runs_on_the_threads_own(tmp):
    # SA_ONSTACK where the program set no alternate stack: the handler runs
    # on the thread's stack (200 KiB used, sigaltstack() allowed), not on
    # the shim's 64 KiB one (139, EPERM)
    out = same_as_bare(tmp, "on.prof", [wl("sigs"), "onstack"])
    still_profiled(out, "onstack")


@case
def sigprof_sent_while_blocked_reaches_the_programs_waits(tmp):
    # kill/raise/sigqueue with SIGPROF blocked: sigwait, sigwaitinfo and
    # sigtimedwait take it (they hung or said EAGAIN); sigsuspend unblocking
    # it ends the process as the default action does (it hung)
    same_as_bare(tmp, "sw.prof", [wl("sigs"), "sigwait"], timeout=20)
    same_as_bare(tmp, "ss.prof", [wl("sigs"), "sigsuspend"], timeout=20)


def sleeper(tmp, name, opts, toggles=0):
    out = os.path.join(tmp, name)
    p = subprocess.Popen([PROFRUN, "-q", "-o", out, *opts, "--", wl("sigs"), "sleeper", "0.8"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pid = int(p.stderr.readline())
        for _ in range(toggles):
            time.sleep(0.05)
            os.kill(pid, signal.SIGUSR2)
        text, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    expect(p.returncode == 0 and text == "sleeper: 0 nanosleep and 0 epoll_wait interrupted\n",
           f"{opts}: exit {p.returncode}, {text!r}, stderr {err!r}")
    return out


@case
def our_signals_never_interrupt_sleeping_threads(tmp):
    # the CPU window's edges and the toggle signal went to a sleeping
    # thread (the main thread first): nanosleep and epoll_wait failed EINTR
    bare = run([wl("sigs"), "sleeper", "0.3"])
    expect(bare.stdout == "sleeper: 0 nanosleep and 0 epoll_wait interrupted\n", bare.stdout)
    sleeper(tmp, "win.prof", ["--delay", "0.1", "--duration", "0.2"])
    out = sleeper(tmp, "tog.prof", ["--toggle-signal", "USR2"], toggles=6)
    pause = report_json(out)["processes"][0]["pause"]
    expect(pause["pauses"] + pause["resumes"] == 6, f"not every toggle counted: {pause}")


@case
def children_of_vfork_system_and_popen_keep_ignored_and_blocked_sigprof(tmp):
    # glibc's system() and popen() spawn through its internal posix_spawn,
    # and a vfork child execs on its own: they got SIG_DFL and an
    # unblocked SIGPROF where the program ignored and blocked it
    same_as_bare(tmp, "ch.prof", [wl("sigs"), "children"])


@case
def old_mask_calls_keep_the_view_and_the_samples(tmp):
    # sighold and sigblock blocked SIGPROF for real: the program was told
    # it was not blocked, and its thread went unsampled
    out = same_as_bare(tmp, "om.prof", [wl("sigs"), "oldmasks"])
    still_profiled(out, "oldmasks")
    rep = report_json(out)
    expect(rep["samples"]["total"] >= 0.5 * 0.4 * e2e.sample_rate(100),
           f"the thread blocking SIGPROF went unsampled: {rep['samples']}")


@case
def mask_calls_make_no_extra_system_call(tmp):
    # each sigprocmask under profrun called getpid() too: twice the cost
    if not shutil.which("strace"):
        raise e2e.Skip("needs strace")
    log = os.path.join(tmp, "strace.txt")
    cp = run(["strace", "-f", "-c", "-e", "trace=getpid,rt_sigprocmask", "-o", log,
              PROFRUN, "-q", "-o", os.path.join(tmp, "m.prof"), "--",
              wl("sigs"), "masks", "5000"])
    if cp.returncode != 0 and "ptrace" in cp.stderr:
        raise e2e.Skip(f"strace cannot trace here: {cp.stderr.strip()}")
    expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr!r}")
    calls = {}
    with open(log) as f:
        for line in f:
            parts = line.split()
            if parts and parts[-1] in ("getpid", "rt_sigprocmask"):
                calls[parts[-1]] = int(parts[-2] if len(parts) == 5 else parts[-3])
    expect(calls.get("rt_sigprocmask", 0) >= 10000 and calls.get("getpid", 0) < 100,
           f"10000 mask calls made {calls}")


@case
def debian_programs_run_as_bare(tmp):
    # programs nobody wrote for these tests: the same output and status
    tried = 0
    if shutil.which("lua5.4"):
        script = ("local t = {} for i = 1, 300000 do t[i] = (i * 7919) % 10007 end "
                  "table.sort(t) local s = 0 for i = 1, #t, 97 do s = s + t[i] end "
                  "print(s, #t) os.exit(3)")
        same_as_bare(tmp, "lua.prof", ["lua5.4", "-e", script])
        tried += 1
    if shutil.which("zstd"):
        data = os.path.join(tmp, "data.txt")
        with open(data, "w") as f:
            for i in range(200000):
                f.write(f"{i} {i * 7919 % 10007} profrun\n")
        same_as_bare(tmp, "zstd.prof", ["sh", "-c", 'zstd -q -c -T2 "$0" | zstd -q -d -c | md5sum', data])
        tried += 1
    if not tried:
        raise e2e.Skip("needs lua5.4 or zstd")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_signals.py"))
