# SPDX-License-Identifier: MIT
"""Run a command once and read its wall time, CPU time and peak RSS from
wait4(); run two commands alternately (ABAB...) and summarise the ratios."""
import statistics
import subprocess
import tempfile
from dataclasses import dataclass


@dataclass
class Run:
    wall: float      # seconds
    cpu: float       # user + system seconds, the process and its waited-for children
    maxrss_kb: int   # ru_maxrss of the largest of them
    status: int      # exit code, or -signal


class CommandFailed(Exception):
    pass


SPAWN = None   # path of bench-spawn, set by bench/run


def run_once(cmd, check=True):
    """Run cmd (a Command) to completion through bench-spawn; its output
    goes to /dev/null."""
    with tempfile.NamedTemporaryFile(prefix="spawn-", suffix=".txt") as result:
        assignments = [f"{k}={v}" for k, v in (cmd.env or {}).items()]
        done = subprocess.run([SPAWN, "-n", str(cmd.repeat), result.name, *assignments, "--",
                               *cmd.argv],
                              cwd=cmd.cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        fields = result.read().split()
    err = done.stderr.decode(errors="replace").strip()[-300:]
    if done.returncode != 0 or len(fields) != 4:
        raise CommandFailed(f"{cmd.label}: bench-spawn failed: {err}")
    run = Run(float(fields[0]), float(fields[1]), int(fields[2]), int(fields[3]))
    if check and run.status != 0:
        raise CommandFailed(f"{cmd.label}: exit {run.status}: {err}")
    return run


@dataclass
class Command:
    label: str
    argv: list
    env: dict = None          # added to the program's environment
    cwd: str = None
    before: object = None     # callable run before each execution (cleanup)
    repeat: int = 1           # run the program this many times in a row per measurement


def execute(cmd, check=True):
    if cmd.before:
        cmd.before()
    return run_once(cmd, check)


def alternate(a, b, pairs, warmup=1, early_stop=False):
    """Run A, B, A, B, ... for `pairs` pairs after `warmup` unmeasured pairs.
    With early_stop, stop after MIN_PAIRS once the wall ratio is far from
    1 (a large effect needs no more pairs to be told apart from noise).
    Returns ([Run of A], [Run of B])."""
    for _ in range(warmup):
        execute(a)
        execute(b)
    runs_a, runs_b = [], []
    for _ in range(pairs):
        runs_a.append(execute(a))
        runs_b.append(execute(b))
        if early_stop and clearly_apart(runs_a, runs_b):
            break
    return runs_a, runs_b


MIN_PAIRS = 5


def clearly_apart(runs_a, runs_b):
    if len(runs_a) < MIN_PAIRS:
        return False
    s = pair_ratios(runs_a, runs_b, "wall")
    effect = abs(s.median - 1)
    return effect > 0.2 and effect > 10 * s.half_iqr


@dataclass
class Spread:
    median: float
    q1: float
    q3: float
    n: int

    @property
    def half_iqr(self):
        return (self.q3 - self.q1) / 2


def spread(values):
    values = sorted(values)
    if len(values) < 4:
        return Spread(statistics.median(values), values[0], values[-1], len(values))
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return Spread(statistics.median(values), q1, q3, len(values))


def pair_ratios(runs_a, runs_b, field):
    """Spread of B/A over pairs, each B against the A run just before it."""
    return spread([getattr(b, field) / getattr(a, field)
                   for a, b in zip(runs_a, runs_b)])


def median_of(runs, field):
    return statistics.median(getattr(r, field) for r in runs)


def fmt_ratio(s):
    """'1.003x ±0.4%': the median ratio and half the interquartile range."""
    return f"{s.median:.3f}x ±{100 * s.half_iqr / s.median:.1f}%"


def judge_at_most(s, limit):
    """Verdict for the claim 'ratio <= limit' given the pairs' spread:
    met or missed only when median ± half IQR is on one side of limit."""
    if s.median + s.half_iqr <= limit:
        return "met"
    if s.median - s.half_iqr > limit:
        return "missed"
    return (f"inconclusive: within noise ±{100 * s.half_iqr / s.median:.1f}% "
            f"around {s.median:.3f}x")
