#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""valgrind memcheck over the shim (inside a real program) and over
`profrun report` on real profiles: no errors, no definite leaks.

Usage: memcheck.py CASE, with the environment of e2e.py plus
PROFRUN_SANITIZED=1 when the CLI is built with sanitizers (valgrind cannot
run it; the shim is never instrumented).  Exit 77 when valgrind is
missing."""

import os
import shutil
import sys

import e2e
from e2e import PROFRUN, SHIM, Skip, case, expect, run, wl

MEMCHECK = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
            "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite"]


def need_valgrind():
    if shutil.which("valgrind") is None:
        raise Skip("valgrind is not installed")


def clean(cp, what):
    expect(cp.returncode != 99, f"{what}: memcheck errors:\n{cp.stderr}")
    expect("==" not in cp.stderr, f"{what}: valgrind reported:\n{cp.stderr}")


@case
def shim_is_memcheck_clean(tmp):
    need_valgrind()
    out = os.path.join(tmp, "shim.prof")
    # env starts the program with the shim, so valgrind checks the program
    # and the shim inside it, not its own launcher
    cp = run([*MEMCHECK, "--trace-children=yes", "env", f"LD_PRELOAD={SHIM}",
              f"PROFRUN_OUTPUT={out}", "PROFRUN_FREQ=1000",
              wl("outcome"), "exit:3", "0.3"], timeout=300)
    clean(cp, "program under the shim")
    expect(cp.returncode == 3 and cp.stdout == "outcome exit:3\n",
           f"exit {cp.returncode}, stdout {cp.stdout!r}")
    rep = e2e.report_json(out)
    expect(rep["complete"] is True and rep["samples"]["total"] > 0,
           f"the profile written under valgrind is {rep['samples']}")


@case
def report_is_memcheck_clean(tmp):
    need_valgrind()
    if os.environ.get("PROFRUN_SANITIZED") == "1":
        raise Skip("the CLI is built with sanitizers, which valgrind cannot run")
    runs = []
    for name, args in (("split", [wl("split"), "0.5", "3", "1"]),
                       ("cut", [wl("outcome"), "abort", "0.3"]),
                       ("stripped", [wl("split-stripped"), "0.3"])):
        out = os.path.join(tmp, f"{name}.prof")
        run([PROFRUN, "-q", "-F", "1000", "-o", out, *args])
        runs.append(out)
    merged = os.path.join(tmp, "merged.prof")
    os.mkdir(merged)
    for i, d in enumerate(runs):
        for m in os.listdir(d):
            shutil.copy(os.path.join(d, m), os.path.join(merged, f"{i + 1}{m}"))
    with open(os.path.join(merged, "9.prof"), "wb") as f:
        f.write(b"PROFRUN\0damaged")
    for args in (["report", runs[0]], ["report", "--format", "json", runs[1]],
                 ["report", runs[2]], ["report", merged],
                 ["report", "--by-process", "--format", "json", merged],
                 ["report", os.path.join(tmp, "missing")]):
        cp = run([*MEMCHECK, PROFRUN, *args], timeout=300)
        clean(cp, "profrun " + " ".join(args))


if __name__ == "__main__":
    sys.exit(e2e.main())
