# SPDX-License-Identifier: MIT
"""Accuracy: per-function shares of the loop workload (50/30/15/5 by
construction) from profrun and from perf, against that ground truth; and
how many samples profrun keeps from four busy threads."""
import collections
import json
import os
import subprocess
import sys

from . import measure
from .measure import Command
from .table import section, table
from .tools import peer_missing, reset_dir

TRUTH = {"share_50": 50.0, "share_30": 30.0, "share_15": 15.0, "share_05": 5.0}


def profrun_counts(ctx, exe, args, freq, name):
    """({function: samples}, samples in the executable, CPU seconds)."""
    out = os.path.join(ctx.tmp, name)
    reset_dir(out)()
    rate = ["-F", str(freq)] if freq else []
    run = measure.run_once(Command(name, [ctx.build.profrun, "-q", *rate, "-o", out,
                                          exe, *args], cwd=ctx.tmp))
    done = subprocess.run([ctx.build.profrun, "report", "--format", "json", out],
                          capture_output=True, text=True, check=True)
    rep = json.loads(done.stdout)
    counts = collections.Counter()
    for f in rep["functions"]:
        counts[f["name"]] += f["samples"]
    return counts, rep["samples"]["main"], run.cpu


def perf_counts(ctx, exe, args, freq):
    data = os.path.join(ctx.tmp, "accuracy.perf.data")
    measure.run_once(Command("perf record loop", ["perf", "record", "-q", "-F", str(freq),
                                                  "-o", data, "--", exe, *args],
                             cwd=ctx.tmp))
    done = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"],
                          capture_output=True, text=True, check=True)
    counts = collections.Counter()
    total = 0
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[-1] == f"({exe})":
            counts[fields[1]] += 1
            total += 1
    return counts, total


def share_row(label, counts, total):
    """A table row: each share in %, the worst error against the truth."""
    if total == 0:
        return [label, "0", *["–"] * len(TRUTH), "no samples"], None
    shares = {f: 100.0 * counts.get(f, 0) / total for f in TRUTH}
    worst = max(abs(shares[f] - TRUTH[f]) for f in TRUTH)
    return [label, str(total), *[f"{shares[f]:.1f}" for f in TRUTH], f"{worst:.2f} pp"], \
        (shares, worst, total)


def worst_between(a, b):
    return max(abs(a[f] - b[f]) for f in TRUTH)


def thread_capture(ctx, rate_hz):
    """Samples profrun counted from four threads over CPU time x rate."""
    counts, main, cpu = profrun_counts(ctx, ctx.build.workload("threads"),
                                       ctx.threads_args, 1000, "threads.prof")
    expected = cpu * rate_hz
    return (f"- threads (4 threads, 2 cores, `-F 1000`): {main} samples in the program "
            f"over {cpu:.2f} CPU-s; at the measured {rate_hz:.0f} Hz tick that is "
            f"{100 * main / expected:.0f}% of CPU time × rate (ITIMER_PROF expirations "
            "can coalesce when several threads are busy).")


def profrun_rows(ctx, exe):
    rows, found = [], {}
    for label, freq, args in (("profrun -F 1000", 1000, ctx.accuracy_args),
                              ("profrun (default 100 Hz)", None, ctx.accuracy_default_args)):
        print(f"  accuracy: {label}", file=sys.stderr)
        counts, main, _ = profrun_counts(ctx, exe, args, freq, "accuracy.prof")
        row, result = share_row(f"{label}, scale {args[0]}", counts, main)
        rows.append(row)
        found[label] = result
    return rows, found


def verdicts(found, perf):
    lines = []
    for label, result in found.items():
        if not result:
            continue
        _, worst, total = result
        ok = worst <= 2.0 and total >= 1000
        lines.append(f"- {label}: worst error {worst:.2f} pp with {total} samples: "
                     f"{'met' if ok else 'missed'} (target ≤ 2 pp with ≥ 1000 samples)")
        if perf:
            lines.append(f"  - against perf's shares: worst difference "
                         f"{worst_between(result[0], perf[0]):.2f} pp")
    return lines


def run(ctx):
    if not ctx.build.has_profrun():
        return section("Accuracy", "profrun is not built: not measured.", [])
    exe = ctx.build.workload("loop")
    truth_row = ["ground truth", "", *[f"{v:.1f}" for v in TRUTH.values()], ""]
    try:
        rows, found = profrun_rows(ctx, exe)
        perf = None
        if peer_missing("perf"):
            rows.append(["perf record", "missing", *[""] * len(TRUTH), ""])
        else:
            print("  accuracy: perf record -F 250", file=sys.stderr)
            counts, total = perf_counts(ctx, exe, ctx.accuracy_args, 250)
            row, perf = share_row(f"perf record -F 250, scale {ctx.accuracy_args[0]}",
                                  counts, total)
            rows.append(row)
        extra = [thread_capture(ctx, ctx.prof_rate)]
    except (measure.CommandFailed, subprocess.CalledProcessError, ValueError,
            KeyError) as e:
        return section("Accuracy", f"failed: {e}", [])
    intro = ("Shares (%) of the samples in the loop executable; the four functions "
             "run the same loop body with iteration counts 50:30:15:5.")
    body = table(["profiler", "samples", *TRUTH, "worst error"], [truth_row] + rows)
    return section("Accuracy", intro, body + [""] + verdicts(found, perf) + extra)
