#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`profrun report` on hand-made member files (mkprofile.py): exact
counts, merging, selection and refusals that real runs cannot pin down.

usage: report-crafted.py PROFRUN SPLIT_BINARY
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mkprofile  # noqa: E402

PROFRUN, SPLIT = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what)
    failures += not ok


def member(path, **kw):
    args = dict(exe=SPLIT, recorded_exe=None, text=None, bucket_size=2,
                sample=[], symbol=[], outside=0, state="exited", exit=0,
                flags=0, note="", cpu_ms=1000, rate=1000, pid=100, ppid=1,
                build_id="auto", version=1, min_version=1)
    args.update(kw)
    with open(path, "wb") as f:
        f.write(mkprofile.build(type("A", (), args)))


def report(*args):
    return subprocess.run([PROFRUN, "report", *args], capture_output=True,
                          text=True, timeout=60)


def functions(cp):
    return {f["name"]: f["samples"] for f in json.loads(cp.stdout)["functions"]}


def plt_address():
    """An address in .plt, where no function symbol lies."""
    out = subprocess.run(["readelf", "-SW", SPLIT], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 4 and f[1] == ".plt":
            return int(f[3], 16)
    sys.exit("report-crafted: %s has no .plt" % SPLIT)


def main():
    tmp = tempfile.mkdtemp(prefix="report-crafted-")
    try:
        return cases(tmp)
    finally:
        shutil.rmtree(tmp)


def cases(tmp):
    plt = plt_address()
    run = os.path.join(tmp, "run")
    os.mkdir(run)
    # 70000 samples need a 16-bit wrap; the PLT is in no symbol
    member(os.path.join(run, "100.prof"), pid=100,
           symbol=["hot_a=70000", "hot_b=300"], sample=["%#x=4" % plt],
           outside=6)
    member(os.path.join(run, "101.prof"), pid=101, symbol=["hot_a=5"])
    member(os.path.join(run, "102.prof"), pid=102, state="running")

    cp = report("--format", "json", run)
    check(cp.returncode == 0, "merged run reported")
    rep = json.loads(cp.stdout)
    f = functions(cp)
    check(f.get("hot_a") == 70005, "counts across a wrap merged exactly: %s" % f)
    # named by the extent of the code's frame description (.eh_frame)
    unnamed = {k: v for k, v in f.items() if k.startswith("[split %#x-" % plt)}
    check(list(unnamed.values()) == [4],
          "samples in no symbol kept as an address range: %s" % list(f))
    check(f.get("[not recorded]") == 6,
          "outside samples of a file without a PC table in one entry: %s" % f)
    check(sum(f.values()) == rep["samples"]["total"] == 70315,
          "functions add up to samples.total")
    check(rep["samples"]["main"] == 70309, "total = main + outside")
    cp = report("--format", "json", "--main-only", run)
    check(sum(functions(cp).values()) == 70309,
          "--main-only: functions add up to samples.main")
    check(rep["complete"] is False and rep["cpu_seconds"] is None,
          "a cut short process makes the run incomplete, CPU time unknown")
    check(len(rep["processes"]) == 3, "processes without samples are listed")

    cp = report("--format", "json", "--pid", "101", run)
    check(cp.returncode == 0 and functions(cp) == {"hot_a": 5}, "--pid selects")
    cp = report("--pid", "999", run)
    check(cp.returncode == 1 and "no process 999" in cp.stderr, "--pid absent")

    cp = report("--format", "json", "--by-process", run)
    procs = json.loads(cp.stdout)["processes"]
    check(cp.returncode == 0 and [len(p["functions"]) for p in procs] == [4, 1, 0],
          "--by-process gives each process its functions")

    cp = report("--top", "1", run)
    check(cp.returncode == 0 and "3 more functions (310 samples)" in cp.stdout,
          "--top says what it leaves out")

    stale = os.path.join(tmp, "stale.prof")
    member(stale, build_id="00112233", symbol=["hot_a=10"])
    cp = report(stale)
    check(cp.returncode == 1 and "00112233" in cp.stderr and cp.stdout == "",
          "a rebuilt binary is refused, naming the build-ids")
    cp = report("--force", stale)
    check(cp.returncode == 0 and "hot_a" in cp.stdout, "--force reports anyway")

    gone = os.path.join(tmp, "gone.prof")
    member(gone, recorded_exe=os.path.join(tmp, "no-such-binary"),
           symbol=["hot_a=10"])
    cp = report("--format", "json", gone)
    f = functions(cp)
    check(cp.returncode == 0 and sum(f.values()) == 10 and "warning" in cp.stderr,
          "a missing binary is reported by address: %s" % f)
    print("%d failure%s" % (failures, "" if failures == 1 else "s"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
