# SPDX-License-Identifier: MIT
"""Memory: peak RSS (wait4 ru_maxrss) of workloads with and without the
shim, and of `profrun report` on the big program's profile."""
import os
import sys

from . import measure
from .measure import Command, fmt_ratio
from .table import section, table
from .tools import Variants, reset_dir

WORKLOADS = ("loop", "memory", "threads", "big")


def workload_row(ctx, v, name, pairs):
    exe = ctx.build.workload(name)
    args = ctx.big_args if name == "big" else ["1"]
    print(f"  memory: {name}", file=sys.stderr)
    try:
        bare, shim = measure.alternate(v.bare(exe, args), v.shim(exe, args), pairs,
                                       warmup=0)
    except measure.CommandFailed as e:
        return [name, f"failed: {e}", "", "", ""]
    rss_bare = measure.median_of(bare, "maxrss_kb")
    rss_shim = measure.median_of(shim, "maxrss_kb")
    wall = measure.pair_ratios(bare, shim, "wall")
    return [name, str(rss_bare), str(rss_shim), f"{rss_shim - rss_bare:+d}",
            fmt_ratio(wall)]


def report_rss(ctx):
    """Peak RSS of `profrun report` on the big profile, recording it if the
    report-speed section has not."""
    if ctx.report_maxrss_kb is not None:
        return ctx.report_maxrss_kb
    out = os.path.join(ctx.tmp, "memory-big.prof")
    reset_dir(out)()
    measure.run_once(Command("record big", [ctx.build.profrun, "-q", "-F", "1000", "-o",
                                            out, ctx.build.workload("big"), *ctx.big_args],
                             cwd=ctx.tmp))
    run = measure.run_once(Command("profrun report", [ctx.build.profrun, "report", out]))
    return run.maxrss_kb


def run(ctx):
    if not ctx.build.has_profrun():
        return section("Memory", "profrun or its shim is not built: not measured.", [])
    v = Variants(ctx.build, ctx.tmp)
    rows = [workload_row(ctx, v, name, ctx.memory_pairs) for name in WORKLOADS]
    try:
        report = f"- `profrun report` on the big profile: peak RSS {report_rss(ctx)} KB"
    except measure.CommandFailed as e:
        report = f"- `profrun report` on the big profile: failed: {e}"
    intro = ("Peak RSS (KB, median) of the program bare and under the shim "
             "(LD_PRELOAD direct); alternating pairs. Wall ratio for context.")
    body = table(["workload", "bare KB", "shim KB", "difference KB", "wall ratio"], rows)
    return section("Memory", intro, body + ["", report])
