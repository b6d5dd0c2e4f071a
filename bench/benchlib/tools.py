# SPDX-License-Identifier: MIT
"""Where profrun, its shim, the workloads and the peer profilers are, and
the command lines that run a workload under each of them."""
import os
import shutil
import subprocess
from dataclasses import dataclass

from .measure import Command

GPERFTOOLS_LIB = "/usr/lib/x86_64-linux-gnu/libprofiler.so.0"


@dataclass
class Build:
    root: str   # the meson build directory

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    @property
    def profrun(self):
        return self.path("cli", "profrun")

    @property
    def shim(self):
        return self.path("preload", "libprofrun.so")

    def workload(self, name):
        return self.path("bench", "bench-" + name)

    def missing_workloads(self, names):
        return [n for n in names if not os.access(self.workload(n), os.X_OK)]

    def has_profrun(self):
        return os.access(self.profrun, os.X_OK) and os.path.exists(self.shim)


def reset_dir(path):
    """Return a callable that removes path (file or directory)."""
    def reset():
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
    return reset


def peer_missing(peer):
    """None if the peer profiler can run here, else why not."""
    checks = {
        "gprof": lambda: shutil.which("gprof"),
        "gperftools": lambda: os.path.exists(GPERFTOOLS_LIB),
        "gprofng": lambda: shutil.which("gprofng"),
        "perf": perf_works,
    }
    return None if checks[peer]() else "missing"


def perf_works():
    if not shutil.which("perf"):
        return False
    probe = subprocess.run(["perf", "record", "-q", "-o", "/dev/null", "--", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return probe.returncode == 0


class Variants:
    """Command builders: each returns a Command running the workload binary
    `exe` with `args` under one profiler, writing into `tmp`."""

    def __init__(self, build, tmp):
        self.build = build
        self.tmp = tmp

    def _out(self, name):
        return os.path.join(self.tmp, name)

    def bare(self, exe, args):
        return Command("bare", [exe, *args], cwd=self.tmp)

    def shim(self, exe, args):
        out = self._out("shim.prof")
        return Command("shim", [exe, *args], cwd=self.tmp,
                       env={"LD_PRELOAD": self.build.shim, "PROFRUN_OUTPUT": out},
                       before=reset_dir(out))

    def profrun(self, exe, args, freq=None):
        out = self._out("profrun.prof")
        rate = ["-F", str(freq)] if freq else []
        label = f"profrun -q -F {freq}" if freq else "profrun -q"
        return Command(label, [self.build.profrun, "-q", *rate, "-o", out, exe, *args],
                       cwd=self.tmp, before=reset_dir(out))

    def gprof(self, exe_pg, args):
        return Command("gprof (-pg build)", [exe_pg, *args], cwd=self.tmp,
                       before=reset_dir(self._out("gmon.out")))

    def gperftools(self, exe, args):
        out = self._out("gperf.prof")
        return Command("gperftools", [exe, *args], cwd=self.tmp,
                       env={"LD_PRELOAD": GPERFTOOLS_LIB, "CPUPROFILE": out},
                       before=reset_dir(out))

    def gprofng(self, exe, args):
        out = self._out("gprofng.er")
        return Command("gprofng collect", ["gprofng", "collect", "app", "-a", "off",
                                           "-O", out, exe, *args],
                       cwd=self.tmp, before=reset_dir(out))

    def perf(self, exe, args, freq):
        out = self._out("perf.data")
        return Command(f"perf record -F {freq}",
                       ["perf", "record", "-q", "-F", str(freq), "-o", out, "--", exe, *args],
                       cwd=self.tmp, before=reset_dir(out))
