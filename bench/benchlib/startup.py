# SPDX-License-Identifier: MIT
"""Start-up: /bin/true under the shim and under `profrun -q`, against a
bare /bin/true, in many alternating pairs."""
import sys

from . import measure
from .measure import fmt_ratio, judge_at_most
from .table import section, table
from .tools import Variants

TRUE = "/bin/true"
BATCH = 20   # runs of /bin/true per measurement, back to back in bench-spawn


def measure_pair(bare, profiled, pairs):
    print(f"  start-up: {profiled.label}", file=sys.stderr)
    try:
        runs_a, runs_b = measure.alternate(bare, profiled, pairs, warmup=2)
    except measure.CommandFailed as e:
        return [profiled.label, f"failed: {e}", "", "", ""], None
    wall = measure.pair_ratios(runs_a, runs_b, "wall")
    return [profiled.label, fmt_ratio(wall),
            f"{1000 * measure.median_of(runs_a, 'wall') / BATCH:.2f} ms",
            f"{1000 * measure.median_of(runs_b, 'wall') / BATCH:.2f} ms", str(pairs)], wall


def run(ctx):
    if not ctx.build.has_profrun():
        return section("Start-up", "profrun or its shim is not built: not measured.", [])
    v = Variants(ctx.build, ctx.tmp)
    bare = v.bare(TRUE, [])
    bare.repeat = BATCH
    pairs = ctx.startup_pairs
    rows, verdicts = [], []
    for profiled in (v.shim(TRUE, []), v.profrun(TRUE, [])):
        profiled.repeat = BATCH
        row, wall = measure_pair(bare, profiled, pairs)
        rows.append(row)
        if wall:
            verdicts.append(f"- {profiled.label} on /bin/true: {fmt_ratio(wall)}: "
                            f"{judge_at_most(wall, 1.05)} (target ≤ 1.05x)")
    intro = (f"Wall time of `/bin/true`, bare vs profiled: each measurement runs it "
             f"{BATCH} times back to back from bench-spawn (fork, exec, wait4), and "
             "measurements alternate bare, profiled, ...; ratio median ± half IQR; "
             "per-run times are batch medians / {BATCH}.".replace("{BATCH}", str(BATCH)))
    body = table(["profiled", "wall ratio", "bare per run", "profiled per run", "pairs"],
                 rows)
    return section("Start-up", intro, body + [""] + verdicts)
