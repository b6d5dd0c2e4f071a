# SPDX-License-Identifier: MIT
"""The machine the benchmark ran on: cores, kernel, the effective
ITIMER_PROF rate (the kernel tick) and the peers' versions."""
import os
import platform
import resource
import shutil
import signal
import subprocess

from .tools import GPERFTOOLS_LIB


def effective_prof_rate(request_hz=1000, cpu_seconds=1.0):
    """SIGPROFs per CPU-second with ITIMER_PROF asking for request_hz."""
    count = 0

    def on_prof(signum, frame):
        nonlocal count
        count += 1

    old = signal.signal(signal.SIGPROF, on_prof)
    start = _cpu_now()
    signal.setitimer(signal.ITIMER_PROF, 1 / request_hz, 1 / request_hz)
    try:
        while _cpu_now() - start < cpu_seconds:
            pass
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, old)
    return count / (_cpu_now() - start)


def _cpu_now():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def configured_hz():
    path = f"/boot/config-{platform.release()}"
    try:
        with open(path) as conf:
            for line in conf:
                if line.startswith("CONFIG_HZ="):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "not readable"


def first_line(argv):
    if not shutil.which(argv[0]):
        return "missing"
    out = subprocess.run(argv, capture_output=True, text=True)
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else "unknown"


def deb_version(package):
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def peer_versions():
    gperf = deb_version("libgoogle-perftools4") if os.path.exists(GPERFTOOLS_LIB) else None
    return {
        "gcc": first_line(["gcc", "--version"]),
        "glibc": first_line(["ldd", "--version"]),
        "gprof": first_line(["gprof", "--version"]),
        "gprofng": first_line(["gprofng", "--version"]),
        "gperftools": f"libgoogle-perftools4 {gperf}" if gperf else "missing",
        "perf": first_line(["perf", "--version"]),
    }


def cpu_model():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe():
    """Markdown lines describing the machine."""
    rate = effective_prof_rate()
    lines = [
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores",
        f"- kernel: {platform.release()} (CONFIG_HZ in /boot: {configured_hz()})",
        f"- effective ITIMER_PROF rate when asking for 1000 Hz: {rate:.0f} Hz per CPU-second"
        " (the CPU-timer tick)",
    ]
    lines += [f"- {name}: {version}" for name, version in peer_versions().items()]
    return lines, rate
