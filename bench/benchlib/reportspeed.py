# SPDX-License-Identifier: MIT
"""Report speed: `profrun report` on the big program's profile against
`gprof -p` (on a -pg build of the same program, and on profrun's gmon
export when it exists) and `perf report --stdio` on a perf recording."""
import os
import subprocess
import sys

from . import measure
from .measure import Command, fmt_ratio
from .table import section, table
from .tools import peer_missing, reset_dir

RECORD_HZ = 1000   # profrun's request; the tick caps it (see the machine)
PERF_HZ = 250      # about the samples profrun gets, so perf report reads as many


class Inputs:
    """Profiles of the big program, recorded once."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.tmp = os.path.join(ctx.tmp, "report")
        os.makedirs(self.tmp, exist_ok=True)
        self.big = ctx.build.workload("big")
        self.big_pg = ctx.build.workload("big-pg")
        self.prof = os.path.join(self.tmp, "big.prof")
        self.perf_data = os.path.join(self.tmp, "big.perf.data")
        self.gmon_pg = os.path.join(self.tmp, "gmon.out")
        self.gmon_export = os.path.join(self.tmp, "big.gmon")

    def record_profrun(self):
        reset_dir(self.prof)()
        argv = [self.ctx.build.profrun, "-q", "-F", str(RECORD_HZ), "-o", self.prof,
                self.big, *self.ctx.big_args]
        measure.run_once(Command("profrun record big", argv, cwd=self.tmp))

    def record_perf(self):
        argv = ["perf", "record", "-q", "-F", str(PERF_HZ), "-o", self.perf_data, "--",
                self.big, *self.ctx.big_args]
        measure.run_once(Command("perf record big", argv, cwd=self.tmp))

    def record_gprof(self):
        reset_dir(self.gmon_pg)()
        measure.run_once(Command("big -pg", [self.big_pg, *self.ctx.big_args],
                                 cwd=self.tmp))

    def export_gmon(self):
        """True if `profrun report --format gmon` wrote a gmon.out file."""
        with open(self.gmon_export, "wb") as out:
            done = subprocess.run([self.ctx.build.profrun, "report", "--format", "gmon",
                                   self.prof], stdout=out, stderr=subprocess.DEVNULL)
        with open(self.gmon_export, "rb") as f:
            magic = f.read(4)
        return done.returncode == 0 and magic == b"gmon"


def profrun_report(inputs):
    return Command("profrun report", [inputs.ctx.build.profrun, "report", inputs.prof])


def peer_commands(inputs, has_export):
    """(label, command or None, why not) for each peer report."""
    gprof = peer_missing("gprof")
    perf = peer_missing("perf")
    rows = [("gprof -p (-pg build)",
             Command("gprof -p", ["gprof", "-p", inputs.big_pg, inputs.gmon_pg],
                     cwd=inputs.tmp), gprof),
            ("perf report --stdio",
             Command("perf report", ["perf", "report", "--stdio", "-i", inputs.perf_data]),
             perf)]
    export = gprof or (None if has_export else "profrun report --format gmon: not yet")
    rows.append(("gprof -p (profrun gmon export)",
                 Command("gprof -p export", ["gprof", "-p", inputs.big, inputs.gmon_export],
                         cwd=inputs.tmp), export))
    return rows


def record_all(inputs):
    print("  report: recording the big program", file=sys.stderr)
    inputs.record_profrun()
    if not peer_missing("perf"):
        inputs.record_perf()
    if not peer_missing("gprof"):
        inputs.record_gprof()
    return inputs.export_gmon()


def compare(inputs, label, peer_cmd, pairs):
    print(f"  report: profrun report vs {label}", file=sys.stderr)
    runs_peer, runs_profrun = measure.alternate(peer_cmd, profrun_report(inputs), pairs,
                                                early_stop=True)
    ratio = measure.pair_ratios(runs_peer, runs_profrun, "wall")
    verdict = "met" if ratio.median <= 1.0 else "missed"
    return [label, fmt_ratio(ratio),
            f"{1000 * measure.median_of(runs_profrun, 'wall'):.1f} ms",
            f"{1000 * measure.median_of(runs_peer, 'wall'):.1f} ms",
            f"{measure.median_of(runs_profrun, 'maxrss_kb')} / "
            f"{measure.median_of(runs_peer, 'maxrss_kb')}", str(len(runs_peer))], verdict, \
        runs_profrun


def run(ctx):
    if not ctx.build.has_profrun():
        return section("Report speed", "profrun is not built: not measured.", [])
    inputs = Inputs(ctx)
    try:
        has_export = record_all(inputs)
    except measure.CommandFailed as e:
        return section("Report speed", f"recording failed: {e}", [])
    rows, verdicts = [], []
    for label, cmd, why in peer_commands(inputs, has_export):
        if why:
            rows.append([label, why, "", "", "", ""])
            continue
        try:
            row, verdict, runs = compare(inputs, label, cmd, ctx.report_pairs)
        except measure.CommandFailed as e:
            rows.append([label, f"failed: {e}", "", "", "", ""])
            continue
        rows.append(row)
        ctx.report_maxrss_kb = measure.median_of(runs, "maxrss_kb")
        if label.startswith("gprof"):
            verdicts.append(f"- profrun report vs {label}: {row[1]}: {verdict} "
                            "(target: no slower, ratio ≤ 1)")
    intro = (f"The big program ({ctx.big_functions} functions) recorded once by "
             f"`profrun -q -F {RECORD_HZ}`, by `perf record -F {PERF_HZ}` and as a -pg "
             "build for gprof. Ratio = profrun report / peer, median of alternating "
             "pairs ± half IQR; text output to /dev/null.")
    body = table(["peer", "ratio (profrun / peer)", "profrun report median",
                  "peer median", "peak RSS KB (profrun / peer)", "pairs"], rows)
    return section("Report speed", intro, body + [""] + verdicts)
