#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Peak memory of `profrun report` against what a profile holds.

usage: bench/report-memory.py [--builddir build] [--members 20000]
                              [--addresses 200000] [--out FILE]

Three profiles, each reported with the default text format, --lines and
--by-process --lines (peak RSS from /usr/bin/time's %M):

  members    MEMBERS hard links of one real member recorded by the shim
             (tests/workloads/split at 1000 Hz: a PC table, module
             records, a vdso image): the cost per member;
  addresses  one member crafted with tests/e2e/mkprofile.py holding
             ADDRESSES distinct sampled addresses: the cost per address;
  empty      MEMBERS crafted members of a few samples and no PC table.

Each row gives the peak RSS, the baseline (`profrun report` of one
member) subtracted, per member or per distinct address.  The targets:
at most 4 KiB per member plus 100 bytes per distinct address.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import mkprofile  # noqa: E402


def peak(argv):
    """(exit status, seconds, peak RSS in KiB) of ARGV, measured by
    /usr/bin/time: a child forked from this (large) Python process would
    count the pages it shared before exec as its own peak."""
    with tempfile.NamedTemporaryFile("r") as t, open(os.devnull, "wb") as null:
        st = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%x %e %M",
                             *argv], stdout=null, stderr=null).returncode
        code, secs, rss = t.read().split()[-3:]
    return int(code), float(secs), int(rss)


def crafted(exe, **kw):
    args = dict(exe=exe, recorded_exe=None, text=None, bucket_size=2,
                sample=[], symbol=[], outside=0, state="exited", exit=0,
                flags=0, note="", cpu_ms=10, rate=1000, pid=100, ppid=1,
                build_id="auto", version=1, min_version=1)
    args.update(kw)
    return mkprofile.build(type("A", (), args))


def real_member(profrun, split, tmp):
    out = os.path.join(tmp, "seed.prof")
    subprocess.run([profrun, "-q", "-F", "1000", "-o", out, "--", split],
                   check=True, stdout=subprocess.DEVNULL)
    (name,) = os.listdir(out)
    return os.path.join(out, name)


def links(src, n, d):
    os.mkdir(d)
    for i in range(n):
        os.link(src, os.path.join(d, "%d.prof" % (1000 + i)))
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--members", type=int, default=20000)
    ap.add_argument("--addresses", type=int, default=200000)
    ap.add_argument("--out")
    a = ap.parse_args()
    profrun = os.path.join(a.builddir, "cli", "profrun")
    split = os.path.join(a.builddir, "tests", "workloads", "split")
    tmp = tempfile.mkdtemp(prefix="profrun-mem-")
    try:
        rows = run_cases(profrun, split, tmp, a)
    finally:
        shutil.rmtree(tmp)
    text = "\n".join(rows) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


def run_cases(profrun, split, tmp, a):
    seed = real_member(profrun, split, tmp)
    lo, _ = mkprofile.exec_text(split)
    lo &= ~1
    n = a.addresses
    # one sample every 2 bytes from the text start: n distinct buckets
    addr_member = os.path.join(tmp, "addr")
    os.mkdir(addr_member)
    with open(os.path.join(addr_member, "1.prof"), "wb") as f:
        f.write(crafted(split, text=(lo, lo + 2 * n),
                        sample=["%d=%d" % (lo + 2 * i, 1 + i % 3)
                                for i in range(n)]))
    small = crafted(split, sample=["%d=3" % (lo + 16)])
    empty = os.path.join(tmp, "empty")
    with open(os.path.join(tmp, "small.prof"), "wb") as f:
        f.write(small)
    cases = {
        "members": (links(seed, a.members, os.path.join(tmp, "members")),
                    a.members, "member"),
        "addresses": (addr_member, n, "address"),
        "empty": (links(os.path.join(tmp, "small.prof"), a.members, empty),
                  a.members, "member"),
    }
    rows = ["| profile | options | exit | seconds | peak RSS (MiB) | "
            "above one small member (KiB) | per unit (bytes) |",
            "|---|---|---|---|---|---|---|"]
    for opts in ([], ["--lines"], ["--by-process", "--lines"]):
        _, _, base = peak([profrun, "report", *opts,
                           os.path.join(tmp, "small.prof")])
        for name, (path, units, unit) in cases.items():
            if "--by-process" in opts and name != "members":
                continue
            st, secs, rss = peak([profrun, "report", *opts, path])
            above = max(rss - base, 0)
            rows.append("| %s (%d %ss) | %s | %d | %.1f | %.1f | %d | %.0f |" % (
                name, units, unit, " ".join(opts) or "-", st, secs,
                rss / 1024, above, above * 1024 / units))
            sys.stderr.write(rows[-1] + "\n")
    return rows


if __name__ == "__main__":
    main()
