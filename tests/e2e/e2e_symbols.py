#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of symbolization depth: source lines, inlined
functions, demangled names, annotated source, separate debug files and
debuginfod.  Same conventions and tolerances as e2e.py (whose helpers
this uses): exit 0 pass, 1 fail, 77 skip.

Workloads run until the executable has NEED / 0.9 samples (e2e.gather),
so that the functions a share is checked on, which hold over 90% of them
by construction, have at least NEED = 400; shares are accepted within 5
standard deviations plus 2 points."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import e2e  # noqa: E402
import mkprofile  # noqa: E402
from e2e import (PROFRUN, Failure, Skip, check_share, expect,  # noqa: E402
                 one_line_error, report_json, run, samples_of, wl)

SOURCE_TESTS = os.environ.get("SOURCE_TESTS", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = {}

# no debuginfod unless a case asks for it: a stray DEBUGINFOD_URLS would
# make the results depend on the network
os.environ.pop("DEBUGINFOD_URLS", None)


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def record(tmp, binary, *args, name="w.prof", seconds=None):
    """BINARY SECONDS ARGS under profrun -F 1000 into TMP/NAME; with SECONDS
    None, for the CPU time that gives the executable NEED / 0.9 samples
    (again for longer while it has fewer)."""
    out = os.path.join(tmp, name)
    need = e2e.NEED / 0.9

    def attempt(secs):
        cp = run([PROFRUN, "-q", "-F", str(e2e.DEFAULT_FREQ), "-o", out, binary, secs, *args])
        expect(cp.returncode == 0, f"{binary}: exit {cp.returncode}: {cp.stderr}")
        return out, [(report_json(out)["samples"]["main"], need)]
    if seconds is not None:
        return attempt(seconds)[0]
    return e2e.gather(attempt, e2e.cpu_for(need))


def hot_line():
    with open(os.path.join(SOURCE_TESTS, "workloads", "inline.c")) as f:
        for n, text in enumerate(f, 1):
            if "/* HOT LINE */" in text:
                return n
    raise Failure("inline.c has no HOT LINE")


@case
def inlined_helper_line_tops_lines(tmp):
    prof = record(tmp, wl("inline"))
    rep = report_json(prof, "--lines")
    lines, total = rep["lines"], rep["samples"]["total"]
    expect(sum(l["samples"] for l in lines) == total, "lines do not add up to samples.total")
    keys = [-l["samples"] for l in lines]
    expect(keys == sorted(keys), "lines not sorted by samples")
    top = lines[0]
    for k in ("file", "line", "function", "samples", "percent"):
        expect(k in top, f"line entry lacks {k}: {top}")
    expect(top["file"].endswith("/inline.c") and top["line"] == hot_line(),
           f"top line is {top['file']}:{top['line']}, expected inline.c:{hot_line()}")
    expect(top["function"] == "mix_step", f"top line's function is {top['function']!r}")
    # by construction nearly all the work is the helper's one line: 97-100%
    # of the samples on an idle machine; with another program on the same
    # core the loop's own compare and branch (the for line) took up to a
    # quarter of them
    main = rep["samples"]["main"]
    expect(main >= e2e.NEED and top["samples"] >= 0.6 * main,
           f"the helper's line has {top['samples']} of {main} samples")
    cp = run([PROFRUN, "report", "--lines", prof])
    expect(cp.returncode == 0 and f"inline.c:{hot_line()}" in cp.stdout,
           f"text --lines lacks inline.c:{hot_line()}: {cp.stdout}")


@case
def inline_view_names_helper_and_keeps_every_sample(tmp):
    prof = record(tmp, wl("inline"))
    flat = report_json(prof)
    expect(flat["functions"][0]["name"] == "churn", "the default view is not by symbol")
    rep = report_json(prof, "--inline")
    expect(sum(f["samples"] for f in rep["functions"]) == rep["samples"]["total"],
           "--inline functions do not add up to samples.total")
    name = "mix_step [inlined into churn]"
    helper, churn = samples_of(rep, name), samples_of(flat, "churn")
    # the helper's code is its one line: the same samples in both views
    lines = report_json(prof, "--lines")["lines"]
    hot = sum(l["samples"] for l in lines if l["line"] == hot_line() and
              l["file"].endswith("/inline.c"))
    expect(helper == hot, f"{name}: {helper} samples, its line {hot}")
    # most of churn's samples (see inlined_helper_line_tops_lines)
    expect(churn >= e2e.NEED and helper >= 0.6 * churn,
           f"{name}: {helper} of churn's {churn} samples")
    entry = [f for f in rep["functions"] if f["name"] == name][0]
    expect(entry.get("inlined_into") == "churn" and entry["symbol"] == "mix_step",
           f"inlined entry: {entry}")


@case
def cxx_names_demangled_exactly(tmp):
    binary = wl("templates")
    if not os.path.exists(binary):
        raise Skip("no C++ compiler: templates workload not built")
    prof = record(tmp, binary)
    rep = report_json(prof)
    spin = "unsigned long calc::spin<unsigned long>(unsigned long)"
    one, two = "calc::mix(long)", "calc::mix(long, int)"
    s, a, b = samples_of(rep, spin), samples_of(rep, one), samples_of(rep, two)
    check_share(s, s + a + b, 0.5, "spin<unsigned long> (built 2:1:1)")
    check_share(a, s + a + b, 0.25, "mix(long) (built 2:1:1)")
    check_share(b, s + a + b, 0.25, "mix(long, int) (built 2:1:1)")
    raw = {f["name"]: f["symbol"] for f in rep["functions"]}
    expect(raw[spin] == "_ZN4calc4spinImEET_S1_" and raw[one] == "_ZN4calc3mixEl"
           and raw[two] == "_ZN4calc3mixEli", f"raw symbols: {raw}")
    names = {f["name"] for f in report_json(prof, "--no-demangle")["functions"]}
    expect({"_ZN4calc4spinImEET_S1_", "_ZN4calc3mixEl", "_ZN4calc3mixEli"} <= names,
           f"--no-demangle names: {names}")
    cp = run([PROFRUN, "annotate", "--top", "1", "calc::mix", prof])
    expect(cp.returncode == 0 and cp.stdout.count("== calc::mix(") == 2,
           f"annotate by C++ name without arguments: {cp.stdout}")


@case
def debuglink_binary_gives_lines(tmp):
    prof = record(tmp, wl("split-debuglink"))
    rep = report_json(prof, "--lines")
    files = {os.path.basename(l["file"] or "") for l in rep["lines"] if l["function"] == "hot_a"}
    expect(files == {"split.c"}, f"hot_a's lines through the debuglink file: {files}")


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(src, dst)
    return dst


@case
def debug_dir_finds_debuglink_file(tmp):
    exe = copy(wl("split-debuglink"), os.path.join(tmp, "bin", "split-debuglink"))
    dbg = os.path.join(tmp, "dbg")
    copy(wl("split-debuglink.debug"), os.path.join(dbg, "split-debuglink.debug"))
    prof = record(tmp, exe)
    rep = report_json(prof)
    expect(samples_of(rep, "hot_a") == 0, "found a debug file it was not told about")
    rep = report_json(prof, "--debug-dir", dbg)
    a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
    check_share(a, a + b, 0.75, "--debug-dir: hot_a vs hot_b")


def build_id(path):
    out = run(["readelf", "-n", path]).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    raise Failure(f"{path} has no build-id")


@case
def build_id_tree_under_debug_dir(tmp):
    exe = wl("split-stripped")
    bid = build_id(exe)
    tree = os.path.join(tmp, "debugroot")
    copy(wl("split.debug"), os.path.join(tree, ".build-id", bid[:2], bid[2:] + ".debug"))
    prof = record(tmp, exe)
    rep = report_json(prof, "--debug-dir", tree, "--lines")
    a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
    check_share(a, a + b, 0.75, "build-id tree: hot_a vs hot_b")
    expect(any(l["function"] == "hot_a" and (l["file"] or "").endswith("split.c")
               for l in rep["lines"]), "no source lines from the build-id tree")


@case
def changed_binary_refused_naming_build_ids(tmp):
    exe = copy(wl("split"), os.path.join(tmp, "app"))
    prof = record(tmp, exe, seconds="0.3")
    old = build_id(exe)
    os.unlink(exe)
    copy(wl("split-nopie"), exe)
    new = build_id(exe)
    for extra in ([], ["--lines"], ["--inline"]):
        cp = run([PROFRUN, "report", *extra, prof])
        line = one_line_error(cp, "changed binary")
        expect(old in line and new in line, f"refusal does not name both build-ids: {line}")
        expect(cp.stdout == "", "a refused report printed a profile")
    cp = run([PROFRUN, "annotate", prof])
    expect(cp.returncode == 1 and old in cp.stderr, f"annotate: {cp.returncode} {cp.stderr}")
    cp = run([PROFRUN, "report", "--force", "--lines", prof])
    expect(cp.returncode == 0 and "build-id mismatch" in cp.stderr, f"--force: {cp.stderr}")


def build_inline_copy(tmp):
    """inline.c compiled from a copy of its source, which is then removed."""
    src = os.path.join(tmp, "src")
    for name in ("inline.c", "common.h"):
        copy(os.path.join(SOURCE_TESTS, "workloads", name), os.path.join(src, name))
    exe = os.path.join(tmp, "inline-copy")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise Skip("no C compiler to build a workload whose source then goes missing")
    cp = run([cc, "-O2", "-g", "-o", exe, os.path.join(src, "inline.c")])
    expect(cp.returncode == 0, f"cannot build inline.c: {cp.stderr}")
    return exe, src


@case
def annotate_shows_hot_line_and_survives_missing_source(tmp):
    exe, src = build_inline_copy(tmp)
    prof = record(tmp, exe)
    n = hot_line()
    cp = run([PROFRUN, "annotate", prof])
    expect(cp.returncode == 0 and "== churn" in cp.stdout, f"annotate: {cp.stderr}")
    rows = [l for l in cp.stdout.splitlines() if "HOT LINE" in l]
    expect(len(rows) == 1 and int(rows[0].split()[0]) > 0 and int(rows[0].split()[2]) == n,
           f"the hot line is not shown with its samples: {rows}")
    expect("\033[" not in cp.stdout, "colour on a pipe")
    cp = run([PROFRUN, "annotate", "--color=always", prof])
    expect("\033[1;31m" in cp.stdout, "--color=always does not highlight the hot line")
    shutil.rmtree(src)
    cp = run([PROFRUN, "annotate", "churn", "churn", prof])
    warnings = [l for l in cp.stderr.splitlines() if "inline.c" in l]
    expect(cp.returncode == 0 and len(warnings) == 1, f"missing source not said once: {cp.stderr}")
    expect(any(l.split()[2:3] == [str(n)] for l in cp.stdout.splitlines() if l.strip()),
           f"line {n} not shown without its source: {cp.stdout}")
    # churn by name: with the default --top 3, a C library function whose
    # source is not installed (clock_gettime where the vdso falls back to a
    # system call) may be annotated too and warned about, rightly.
    cp = run([PROFRUN, "annotate", "--source-dir", os.path.join(SOURCE_TESTS, "workloads"),
              "churn", prof])
    expect(cp.returncode == 0 and "HOT LINE" in cp.stdout and cp.stderr == "",
           f"--source-dir: {cp.stderr}")
    os.mkdir(src)
    os.mkdir(os.path.join(src, "inline.c"))  # unreadable as a file, even for root
    cp = run([PROFRUN, "annotate", prof])
    expect(cp.returncode == 0 and "inline.c" in cp.stderr and "== churn" in cp.stdout,
           f"unreadable source: {cp.returncode} {cp.stderr}")


def plt_entries(binary):
    """{name@plt: address} of BINARY's PLT entries, as objdump names them."""
    cp = run(["objdump", "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", binary])
    expect(cp.returncode == 0, f"objdump {binary}: {cp.stderr}")
    return {m.group(2): int(m.group(1), 16)
            for m in re.finditer(r"^([0-9a-f]+) <([^>+]+@plt)>:$", cp.stdout, re.M)}


@case
def plt_entries_named_by_their_functions(tmp):
    # a call into a shared library goes through the program's PLT, which no
    # symbol table covers; samples there are named NAME@plt, as objdump does
    if not shutil.which("objdump"):
        raise Skip("objdump (binutils) is needed to find the PLT entries")
    binaries = ["split", "split-stripped"]
    if os.path.exists(wl("split-ibtplt")):
        binaries.append("split-ibtplt")  # entries in .plt.sec
    for name in binaries:
        entries = plt_entries(wl(name))
        expect(len(entries) >= 3, f"{name}: too few PLT entries to test: {entries}")
        plt_samples_named(tmp, name, wl(name), entries)


def plt_samples_named(tmp, name, exe, entries):
    """A crafted member of EXE with samples in the PLT ENTRIES ({name@plt:
    address}) reports each entry's samples under its name."""
    counts = {e: 100 + 10 * i for i, e in enumerate(sorted(entries))}
    prof = os.path.join(tmp, name + ".prof")
    os.mkdir(prof)
    args = dict(exe=exe, recorded_exe=None, text=None, bucket_size=2,
                sample=[f"{entries[e] + 2:#x}={c}" for e, c in counts.items()],
                symbol=[], outside=0, state="exited", exit=0, flags=0, note="",
                cpu_ms=1000, rate=1000, tick_hz=250, pid=10, ppid=1,
                build_id="auto", version=1, min_version=1)
    with open(os.path.join(prof, "10.prof"), "wb") as f:
        f.write(mkprofile.build(type("A", (), args)))
    rep = report_json(prof)
    got = {f["name"]: f["samples"] for f in rep["functions"]}
    expect(got == counts, f"{name}: PLT samples {got}, expected {counts}")


@case
def plt_of_more_than_a_thousand_entries_named(tmp):
    """A PLT of 1200 entries (as libstdc++'s, over 1024 relocations in one
    section, read in pieces): its first, middle and last entries named."""
    if not shutil.which("objdump") or not shutil.which("cc"):
        raise Skip("objdump (binutils) and cc are needed")
    n = 1200
    with open(os.path.join(tmp, "many.c"), "w") as f:
        f.write("".join(f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(n)))
    with open(os.path.join(tmp, "calls.c"), "w") as f:
        f.write("".join(f"int f{i}(int);\n" for i in range(n)))
        f.write("int main(int c, char **v) {\n  (void)v;\n")
        f.write("".join(f"  c = f{i}(c);\n" for i in range(n)))
        f.write("  return c & 1;\n}\n")
    lib, exe = os.path.join(tmp, "libmany.so"), os.path.join(tmp, "calls")
    for cmd in (["cc", "-O1", "-shared", "-fPIC", "-o", lib, os.path.join(tmp, "many.c")],
                ["cc", "-O1", "-o", exe, os.path.join(tmp, "calls.c"), lib,
                 "-Wl,-z,lazy"]):
        cp = run(cmd, timeout=120)
        expect(cp.returncode == 0, f"{' '.join(cmd)}: {cp.stderr}")
    entries = plt_entries(exe)
    expect(len(entries) >= n, f"{len(entries)} PLT entries, {n} wanted")
    ordered = sorted(entries, key=entries.get)
    picked = {e: entries[e] for e in ordered[:2] + ordered[n // 2:n // 2 + 2] + ordered[-2:]}
    plt_samples_named(tmp, "calls", exe, picked)


@case
def names_line_only_when_unnamed_code_matters(tmp):
    """The line on missing names is said once, when code without symbols
    holds 5% of the samples or more, naming its module and share; a
    stripped executable's 3% (its PLT entries named) says nothing."""
    if not shutil.which("objdump") or not shutil.which("readelf"):
        raise Skip("objdump and readelf (binutils) are needed")
    exe = wl("split-stripped")
    entries = plt_entries(exe)
    cp = run(["readelf", "--debug-dump=frames", exe])
    fde = re.findall(r"FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", cp.stdout)
    code = [(int(a, 16), int(b, 16)) for a, b in fde]
    plt = min(entries.values())
    lo, hi = next((a, b) for a, b in code if a > plt + 16 * len(entries) and b - a > 4)
    for unnamed, said in ((30, False), (100, True)):
        named = 1000 - unnamed
        each = named // len(entries)
        sample = [f"{a + 2:#x}={each}" for a in entries.values()]
        sample.append(f"{lo + 2:#x}={unnamed + named - each * len(entries)}")
        prof = os.path.join(tmp, f"u{unnamed}.prof")
        os.mkdir(prof)
        args = dict(exe=exe, recorded_exe=None, text=None, bucket_size=2, sample=sample,
                    symbol=[], outside=0, state="exited", exit=0, flags=0, note="",
                    cpu_ms=1000, rate=1000, tick_hz=250, pid=10, ppid=1,
                    build_id="auto", version=1, min_version=1)
        with open(os.path.join(prof, "10.prof"), "wb") as f:
            f.write(mkprofile.build(type("A", (), args)))
        rep = report_json(prof)
        share = sum(f["samples"] for f in rep["functions"] if f["name"].startswith("["))
        expect(share == unnamed + named - each * len(entries),
               f"{unnamed}: unnamed samples {share}: {rep['functions']}")
        cp = run([PROFRUN, "report", prof])
        lines = [l for l in cp.stdout.splitlines() if l.startswith("names:")]
        if not said:
            expect(not lines and "without symbols" not in cp.stderr,
                   f"{share / 10:.1f}% unnamed: {lines} {cp.stderr}")
            continue
        want = f"names: {share / 10:.1f}% of the samples are in code without symbols (split-stripped {share / 10:.1f}%)"
        expect(len(lines) == 1 and lines[0].startswith(want), f"{lines}, expected {want!r}")


@case
def debug_file_found_by_name_beside_binary(tmp):
    """A stripped binary without .gnu_debuglink: libdwfl's search by path
    (done by profrun itself when no debuginfod server is named) finds
    NAME.debug beside it and in .debug/ under its directory, and passes
    over one of another build there."""
    exe = copy(wl("split-stripped"), os.path.join(tmp, "bin", "split-stripped"))
    prof = record(tmp, exe)
    expect(samples_of(report_json(prof), "hot_a") == 0, "names without a debug file")
    for sub in ("", ".debug"):
        where = os.path.join(tmp, "bin", sub, "split-stripped.debug")
        copy(wl("split-nopie.debug"), where)
        expect(samples_of(report_json(prof), "hot_a") == 0,
               f"names from another build's {where}")
        copy(wl("split.debug"), where)
        rep = report_json(prof, "--lines")
        a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
        check_share(a, a + b, 0.75, f"{where}: hot_a vs hot_b")
        expect(any(l["function"] == "hot_a" and (l["file"] or "").endswith("split.c")
                   for l in rep["lines"]), f"no source lines from {where}")
        os.unlink(where)


@case
def debug_file_of_another_build_named(tmp):
    exe = copy(wl("split-debuglink"), os.path.join(tmp, "split-debuglink"))
    wrong = copy(wl("split-nopie.debug"), os.path.join(tmp, "split-debuglink.debug"))
    prof = record(tmp, exe, seconds="1.0")
    rep_cp = run([PROFRUN, "report", "--format", "json", "--lines", prof])
    expect(rep_cp.returncode == 0, f"exit {rep_cp.returncode}: {rep_cp.stderr}")
    expect(wrong in rep_cp.stderr and "another build" in rep_cp.stderr,
           f"the wrong debug file is not named: {rep_cp.stderr}")
    rep = report_json(prof)
    expect(sum(f["samples"] for f in rep["functions"]) == rep["samples"]["total"],
           "samples lost")
    expect(samples_of(rep, "hot_a") == 0, "names taken from another build's debug file")


def damage_dwarf(src, dst):
    """A copy of SRC whose .debug_info is garbage (same code, same build-id)."""
    junk = dst + ".junk"
    with open(junk, "wb") as f:
        f.write(b"\xff" * 4096)
    cp = run(["objcopy", "--update-section", f".debug_info={junk}", src, dst])
    expect(cp.returncode == 0, f"objcopy: {cp.stderr}")
    os.chmod(dst, 0o755)


@case
def damaged_dwarf_warned_report_intact(tmp):
    exe = os.path.join(tmp, "split-damaged")
    damage_dwarf(wl("split"), exe)
    prof = record(tmp, exe)
    for extra in (["--lines"], ["--inline"]):
        cp = run([PROFRUN, "report", "--format", "json", *extra, prof])
        expect(cp.returncode == 0, f"{extra}: exit {cp.returncode}: {cp.stderr}")
        expect(exe in cp.stderr and "warning" in cp.stderr,
               f"{extra}: damaged DWARF not warned about naming the file: {cp.stderr!r}")
        rep = json.loads(cp.stdout)
        a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
        check_share(a, a + b, 0.75, f"{extra}: symbols despite damaged DWARF")
        if "lines" in rep:
            expect(sum(l["samples"] for l in rep["lines"]) == rep["samples"]["total"],
                   "lines lost samples")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_scan(url, bid, server, deadline):
    """Until the server serves BID's debuginfo (it scans in the background)."""
    while time.time() < deadline:
        if server.poll() is not None:
            raise Failure(f"debuginfod exited {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/buildid/{bid}/debuginfo", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise Failure("debuginfod did not serve the debug file in time")


@case
def debuginfod_on_loopback_resolves_stripped_binary(tmp):
    server_bin = shutil.which("debuginfod")
    if not server_bin:
        raise Skip("debuginfod (the server) is not installed")
    exe = wl("split-stripped")
    bid = build_id(exe)
    served = os.path.join(tmp, "served")
    copy(wl("split.debug"), os.path.join(served, "split.debug"))
    prof = record(tmp, exe)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(os.path.join(tmp, "debuginfod.log"), "w")
    server = subprocess.Popen([server_bin, "-F", served, "-p", str(port), "-d",
                               os.path.join(tmp, "debuginfod.sqlite"), "-t", "1"],
                              stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    try:
        wait_for_scan(url, bid, server, time.time() + 20)
        env = dict(os.environ, DEBUGINFOD_URLS=url,
                   DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache"))
        cp = run([PROFRUN, "report", "--format", "json", "--lines", prof], env=env)
        expect(cp.returncode == 0, f"exit {cp.returncode}: {cp.stderr}")
        rep = json.loads(cp.stdout)
        a, b = samples_of(rep, "hot_a"), samples_of(rep, "hot_b")
        check_share(a, a + b, 0.75, "debuginfod: hot_a vs hot_b")
        expect(any((l["file"] or "").endswith("split.c") for l in rep["lines"]),
               "no source lines from debuginfod")
        expect(os.path.isdir(os.path.join(tmp, "cache", bid)),
               "the debug file was not cached as debuginfod caches")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@case
def stripped_binary_runs_diff_clean_one_entry_per_function(tmp):
    """Two runs of a stripped binary: its code is named by the extents of
    its frame descriptions, the same in both runs, one entry per function,
    so diff finds no regression; the text report says once how to get the
    names."""
    binary = wl("split-stripped")
    a = record(tmp, binary, name="a.prof")
    b = record(tmp, binary, name="b.prof")
    shape = re.compile(r"^\[split-stripped 0x[0-9a-f]+-0x[0-9a-f]+\]$")
    names = []
    for out in (a, b):
        funcs = [f for f in report_json(out)["functions"]
                 if f["module"].endswith("split-stripped")]
        unnamed = [f["name"] for f in funcs if f["name"].startswith("[")]
        expect(unnamed and all(shape.match(n) for n in unnamed),
               f"{out}: unnamed code {unnamed}")
        expect(len(unnamed) == len(set(unnamed)), f"{out}: one entry per function: {unnamed}")
        hot = {f["name"] for f in funcs if f["samples"] >= 0.1 * sum(g["samples"] for g in funcs)}
        names.append(hot)
    expect(names[0] == names[1], f"the hot functions differ between runs: {names}")
    expect(len(names[0]) >= 2, f"hot_a and hot_b apart: {names[0]}")
    cp = run([PROFRUN, "diff", a, b])
    expect(cp.returncode == 0, f"diff of two runs: exit {cp.returncode}: {cp.stdout}{cp.stderr}")
    cp = run([PROFRUN, "report", a])
    hints = [l for l in cp.stdout.splitlines() if l.startswith("names:")]
    expect(len(hints) == 1 and "debug symbols" in hints[0] and "DEBUGINFOD_URLS" in hints[0],
           f"the line on missing names: {hints}")


@case
def symbol_options_bad_values_exit_64(tmp):
    for args in (["report", "--debug-dir"], ["annotate"], ["annotate", "--color=sometimes", "x"],
                 ["annotate", "--top", "0", "x"], ["annotate", "--bogus", "x"],
                 ["report", "--lines=3", "x"]):
        cp = run([PROFRUN, *args])
        expect(cp.returncode == 64, f"profrun {' '.join(args)}: exit {cp.returncode}")
        expect(cp.stderr.startswith("profrun: "), f"profrun {' '.join(args)}: {cp.stderr!r}")
    for sub in ("report", "annotate"):
        cp = run([PROFRUN, sub, "--help"])
        for opt in ("--debug-dir", "--no-demangle"):
            expect(opt in cp.stdout, f"{sub} --help does not document {opt}")
    cp = run([PROFRUN, "annotate", "--help"])
    expect("--source-dir" in cp.stdout and "--color" in cp.stdout, "annotate --help")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_symbols.py"))
