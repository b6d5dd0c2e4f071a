# SPDX-License-Identifier: MIT
"""Overhead: each profiler against a bare run of the same workload, in
alternating pairs; wall and CPU time ratios with their spread."""
import sys

from . import measure
from .measure import fmt_ratio, judge_at_most
from .table import section, table
from .tools import Variants, peer_missing

WORKLOADS = ("loop", "calls")


def variant_list(v, build, name, args):
    """(peer or None, label, bare command, profiled command or None)."""
    exe = build.workload(name)
    bare = v.bare(exe, args)
    rows = []
    if build.has_profrun():
        rows += [(None, bare, v.shim(exe, args)),
                 (None, bare, v.profrun(exe, args)),
                 (None, bare, v.profrun(exe, args, 1000))]
    else:
        rows += [("profrun", bare, None)]
    rows += [("gprof", bare, v.gprof(build.workload(name + "-pg"), args)),
             ("gperftools", bare, v.gperftools(exe, args)),
             ("gprofng", bare, v.gprofng(exe, args)),
             ("perf", bare, v.perf(exe, args, 100)),
             ("perf", bare, v.perf(exe, args, "max"))]
    return rows


def measure_row(name, bare, profiled, peer, pairs):
    label = profiled.label if profiled else {"profrun": "profrun / shim"}.get(peer, peer)
    why = "not built" if profiled is None else (peer_missing(peer) if peer else None)
    if why:
        return [name, label, why, "", "", "", ""], None
    print(f"  overhead: {name}: {label}", file=sys.stderr)
    try:
        runs_a, runs_b = measure.alternate(bare, profiled, pairs, early_stop=True)
    except measure.CommandFailed as e:
        return [name, label, f"failed: {e}", "", "", "", ""], None
    wall = measure.pair_ratios(runs_a, runs_b, "wall")
    cpu = measure.pair_ratios(runs_a, runs_b, "cpu")
    bare_s = measure.median_of(runs_a, "wall")
    fastest = min(r.wall for r in runs_b) / min(r.wall for r in runs_a)
    return [name, label, fmt_ratio(wall), fmt_ratio(cpu), f"{fastest:.3f}x", f"{bare_s:.3f} s",
            str(len(runs_a))], (wall, cpu)


def targets(results):
    """Verdicts for profrun at the default rate: <= 1.005x wall on loop and
    no worse on calls."""
    lines = []
    for name in WORKLOADS:
        found = results.get((name, "profrun -q"))
        if not found:
            lines.append(f"- {name}: profrun -q at the default rate: not measured")
            continue
        wall, cpu = found
        lines.append(f"- {name}: profrun -q wall {fmt_ratio(wall)}: "
                     f"{judge_at_most(wall, 1.005)} (target ≤ 1.005x); "
                     f"CPU {fmt_ratio(cpu)}: {judge_at_most(cpu, 1.005)}")
    return lines


def run(ctx):
    v = Variants(ctx.build, ctx.tmp)
    rows, results = [], {}
    for name in WORKLOADS:
        for peer, bare, profiled in variant_list(v, ctx.build, name, ctx.scale_args):
            row, found = measure_row(name, bare, profiled, peer, ctx.pairs)
            rows.append(row)
            if found:
                results[(name, row[1])] = found
    intro = ("Ratio = profiled / bare, the median over alternating pairs (bare, "
             "profiled, bare, profiled, ...), ± half the interquartile range of the "
             "pair ratios. A target is met or missed only when median ± half IQR lies "
             "on one side of it. CPU = user + system time of the process tree from wait4(). "
             "fastest/fastest = the ratio of the two sides' minimum wall times, the least disturbed by other load. gprof's bare run is the same source built without -pg. A row whose ratio "
             f"is clearly far from 1 stops after {measure.MIN_PAIRS} pairs.")
    body = table(["workload", "profiler", "wall ratio", "CPU ratio", "fastest/fastest",
                  "bare wall (median)",
                  "pairs"], rows)
    return section("Overhead", intro, body + [""] + targets(results))
