#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reports a newcomer reads right, on Debian's own stripped programs (zstd,
lua5.4) and on the workloads: code without symbols named by whole
functions (one frame description each, as readelf prints them), stacks
that reach the entry point counted complete, aliases named as perf names
them, processes ranked by CPU time, profrun's own code kept out of the
rows, and every row of every table within its columns.

Usage: e2e_reports.py CASE (exit 0 pass, 1 fail, 77 skip)."""

import csv
import io
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, Skip, cpu_for, expect, gather, report_json,  # noqa: E402
                 run, wl)
import e2e  # noqa: E402
import genbuild  # noqa: E402

CASES = {}
FREQ = e2e.DEFAULT_FREQ
UNNAMED = re.compile(r"^\[(?:(\S+) )?0x([0-9a-f]+)-0x([0-9a-f]+)\]$")

# no debuginfod: names must not depend on the network
os.environ.pop("DEBUGINFOD_URLS", None)


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def need(prog):
    path = shutil.which(prog)
    if not path:
        raise Skip(f"{prog} is not installed (tools/setup installs it)")
    return path


def record(tmp, name, cmd, extra=(), stdin=None):
    out = os.path.join(tmp, name)
    cp = subprocess.run([PROFRUN, "-q", "-F", str(FREQ), *extra, "-o", out, "--", *cmd],
                        stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        text=True, timeout=240)
    expect(cp.returncode == 0, f"{cmd}: exit {cp.returncode}: {cp.stderr.strip()}")
    return out


def report(out, *extra):
    cp = run([PROFRUN, "report", *extra, out])
    expect(cp.returncode == 0, f"report {extra}: exit {cp.returncode}: {cp.stderr.strip()}")
    return cp.stdout


def folded(out):
    stacks = []
    for line in report(out, "--format", "folded").splitlines():
        frames, n = line.rsplit(" ", 1)
        stacks.append((frames.split(";"), int(n)))
    return stacks


def fdes(binary):
    """The frame descriptions of BINARY as readelf prints them: sorted
    (start, end) pairs."""
    cp = run(["readelf", "--debug-dump=frames", binary])
    expect(cp.returncode == 0, f"readelf --debug-dump=frames {binary}: {cp.stderr}")
    got = re.findall(r"\bFDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", cp.stdout)
    expect(got, f"no FDE in {binary}")
    return sorted((int(a, 16), int(b, 16)) for a, b in got)


def whole_function(name, table):
    """NAME, "[module 0xA-0xB]", is one frame description of TABLE, or a
    gap between two that overlaps none; a message saying why not, or None."""
    m = UNNAMED.match(name)
    if not m:
        return f"{name!r} is not an unnamed range"
    lo, hi = int(m.group(2), 16), int(m.group(3), 16)
    if (lo, hi) in table:
        return None
    if any(a < hi and lo < b for a, b in table):
        return f"{name} cuts a frame description: {[f'{a:x}..{b:x}' for a, b in table if a < hi and lo < b][:3]}"
    return None


def zstd_input(tmp, mib):
    """MIB MiB of text that zstd works hard on (words at random)."""
    path = os.path.join(tmp, "in.txt")
    words = [w.encode() for w in "alpha beta gamma delta epsilon zeta eta theta iota kappa "
             "lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega".split()]
    seed, out = 12345, bytearray()
    while len(out) < mib << 20:
        seed = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out += words[(seed >> 33) % len(words)] + (b"\n" if seed & 0x700 == 0 else b" ")
    with open(path, "wb") as f:
        f.write(out)
    return path


def zstd_run(tmp, zstd, name, extra=()):
    """zstd -19 under profrun until its own code has NEED samples."""
    def attempt(seconds):
        data = zstd_input(tmp, max(1, int(float(seconds) * 2)))
        out = record(tmp, name, [zstd, "-q", "-f", "-19", "--single-thread", data,
                                 "-o", os.path.join(tmp, "out.zst")], extra)
        rep = report_json(out)
        return (out, rep), [(rep["samples"]["main"], NEED)]
    return gather(attempt, cpu_for(NEED))


@case
def unnamed_rows_of_stripped_zstd_are_whole_frame_descriptions(tmp):
    """Every unnamed zstd row, flat and in the stacks, is exactly one FDE's
    [initial_location, +address_range) as readelf prints it (or a gap
    between FDEs); beside a module column the row does not repeat the
    module."""
    zstd = need("zstd")
    table = fdes(os.path.realpath(zstd))
    out, rep = zstd_run(tmp, zstd, "z.prof", ("-g",))
    unnamed = [f for f in rep["functions"] if f["module"].endswith("/zstd")
               and f["name"].startswith("[")]
    expect(sum(f["samples"] for f in unnamed) >= 0.5 * rep["samples"]["main"],
           f"zstd is stripped: most of its samples are unnamed: {rep['functions'][:4]}")
    for f in unnamed:
        why = whole_function(f["name"], table)
        expect(why is None, f"flat row: {why}")
    expect(len({f["name"] for f in unnamed}) == len(unnamed), "one row per function")
    framed = {fr for frames, _ in folded(out) for fr in frames if fr.startswith("[zstd ")}
    expect(framed, "no unnamed zstd frame on the stacks")
    for fr in framed:
        why = whole_function(fr, table)
        expect(why is None, f"stack frame: {why}")
    text = report(out)
    head = [l for l in text.splitlines() if l.lstrip().startswith("%")]
    expect(head and "module" in head[0], f"a module column (zstd and libc): {head}")
    expect("[zstd 0x" not in text, "the module named again in the function column")
    expect(re.search(r"\s\[0x[0-9a-f]+-0x[0-9a-f]+\]", text), f"unnamed rows as [0xA-0xB]:\n{text}")
    names = [l for l in text.splitlines() if l.startswith("names:")]
    expect(len(names) == 1 and "zstd" in names[0] and "dbgsym" in names[0]
           and "DEBUGINFOD_URLS" in names[0], f"the line on missing names: {names}")


@case
def lua_stacks_reach_the_entry_point(tmp):
    """lua5.4 is stripped: its stacks end in its ELF entry point (_start,
    no name), which is the start of the process: complete, not
    truncated."""
    lua = need("lua5.4")
    script = os.path.join(tmp, "w.lua")

    def attempt(seconds):
        with open(script, "w") as f:
            f.write(f"local t, s = {{}}, 0\nlocal stop = os.clock() + {seconds}\n"
                    "while os.clock() < stop do\n"
                    "  for i = 1, 20000 do t[i] = tostring(i) .. 'x' end\n"
                    "  table.sort(t)\n  for i = 1, #t do s = s + #t[i] end\nend\nprint(s)\n")
        out = record(tmp, "lua.prof", [lua, script], ("-g",))
        rep = report_json(out)
        return (out, rep), [(rep["stacks"]["with_stack"], NEED)]
    out, rep = gather(attempt, cpu_for(NEED))
    st = rep["stacks"]
    expect(st["truncated"] <= 0.05 * st["with_stack"],
           f"{st['truncated']} of {st['with_stack']} lua5.4 stacks called truncated")
    roots = {}
    for frames, n in folded(out):
        roots[frames[0]] = roots.get(frames[0], 0) + n
    top = max(roots, key=roots.get)
    expect(top.startswith("[lua5.4 0x") and roots[top] >= 0.9 * st["with_stack"],
           f"the roots of lua5.4's stacks: {roots}")
    # the text says what the JSON says (one stack in hundreds may stop
    # short, e.g. one taken in the loader as the process starts)
    text = report(out)
    said = re.search(r"truncated: (\d+) stacks", text)
    expect((int(said.group(1)) if said else 0) == st["truncated"],
           f"the report's truncated line against {st['truncated']}:\n{text[:600]}")


@case
def malloc_and_free_named_as_perf_names_them(tmp):
    """Of the aliases at one address the report names the one users know:
    malloc, not __libc_malloc; free, not __libc_free or cfree."""
    def attempt(seconds):
        out = record(tmp, "a.prof", [wl("allocs"), seconds])
        rep = report_json(out, "--module", "libc.so.6")
        return (out, rep), [(sum(f["samples"] for f in rep["functions"]), NEED)]
    out, rep = gather(attempt, cpu_for(NEED))
    names = {f["name"] for f in rep["functions"]}
    for alias in ("__libc_malloc", "__libc_free", "cfree", "__malloc", "__free"):
        expect(alias not in names, f"{alias} named instead of its public alias: {sorted(names)}")
    expect("malloc" in names and "free" in names, f"malloc and free among {sorted(names)}")


@case
def by_process_ranks_the_heaviest_compile_first(tmp):
    """A generated build where one file takes several times longer to
    compile than any other: --by-process and --processes put its cc1 first,
    with its CPU seconds and share, its command line cut to the file;
    the JSON keeps the whole command line."""
    if not shutil.which("make") or not shutil.which("cc"):
        raise Skip("make or cc missing")
    src = genbuild.generate(os.path.join(tmp, "proj"), files=5, funcs=6, programs=1,
                            heavy={3: 90})
    out = os.path.join(tmp, "build.prof")
    cp = run([PROFRUN, "-q", "-o", out, "--", "make", "-s", "-j2", "-C", src], timeout=300)
    expect(cp.returncode == 0, f"make under profrun: exit {cp.returncode}: {cp.stderr}")
    rep = report_json(out)
    cc1 = [p for p in rep["processes"] if p["exe"].endswith("/cc1")]
    expect(len(cc1) == 6, f"{len(cc1)} cc1 processes, 6 files")
    heavy = max(cc1, key=lambda p: p["cpu_seconds"])
    expect("src3.c" in heavy["argv"], f"the heaviest compile is not src3.c's: {heavy['argv']}")
    expect(heavy["command"].split() == ["cc1", "src3.c"],
           f"its command cut to what tells it apart: {heavy['command']!r}")
    expect(len(heavy["argv"]) > 8, f"JSON keeps the whole command line: {heavy['argv']}")
    text = report(out, "--by-process")
    sections = [l for l in text.splitlines() if l.startswith("== ")]
    expect(sections and sections[0].startswith("== #1 ") and "/cc1:" in sections[0]
           and f"pid {heavy['pid']}," in sections[0] and " s CPU (" in sections[0],
           f"the first section: {sections[:2]}")
    cpus = [float(re.search(r": ([0-9.]+) s CPU", s).group(1)) for s in sections]
    expect(cpus == sorted(cpus, reverse=True), f"sections not by CPU time: {cpus}")
    table = report(out, "--processes", "--top", "5").splitlines()
    i = table.index("processes by CPU time:")
    head, first = table[i + 1], table[i + 2]
    expect(first.split()[0] == "1" and first.endswith("cc1 src3.c")
           and first.split()[4] == str(heavy["pid"]), f"--processes: {table[i:i + 4]}")
    expect(all(len(l) <= len(head) + 80 for l in table[i + 2:i + 7]), "rows within the table")


def aligned(lines, what):
    """The rows of a text table start their function column where the
    header puts it, and their file:line column where the header does."""
    head = next((l for l in lines if l.lstrip().startswith("%")), None)
    expect(head is not None, f"{what}: no table")
    fcol = head.index("function")
    pcol = head.index("file:line") if "file:line" in head else None
    mcol = head.index("module") if "module" in head else None
    rows = []
    for l in lines[lines.index(head) + 1:]:
        if not re.match(r"^\s+\d+\.\d\d ", l):
            break  # the end of this table
        rows.append(l)
    expect(rows, f"{what}: no rows")
    for l in rows:
        expect(l[fcol - 1] == " " and l[fcol] != " ", f"{what}: function column moved: {l!r}\n{head!r}")
        if mcol is not None:
            expect(l[mcol - 1] == " " and l[mcol] != " ",
                   f"{what}: module column moved: {l!r}")
        if pcol is not None and len(l) > pcol:
            expect(l[pcol - 1] == " " and l[pcol - 2] == " ", f"{what}: file:line column moved: {l!r}")
    return rows


@case
def every_row_of_every_format_fits_its_columns(tmp):
    """A program with a long file name beside libc: text rows keep their
    columns (long module names elided, one way), markdown and CSV rows
    have as many cells as their header, --sort total and --processes too."""
    zstd = need("zstd")
    long_name = os.path.join(tmp, "zstd-with-a-rather-long-file-name-for-its-columns")
    shutil.copy(zstd, long_name)
    out, rep = zstd_run(tmp, long_name, "long.prof", ("-g",))
    base = os.path.basename(long_name)
    for extra in ((), ("--sort", "total"), ("--top", "all"), ("--lines",)):
        lines = report(out, *extra).splitlines()
        rows = aligned(lines, f"text {extra}")
        expect(not any(base in l for l in rows), f"text {extra}: the long name in full: {rows[:2]}")
    md = [l for l in report(out, "--format", "markdown").splitlines() if l.startswith("|")]
    cells = {l.count("|") - l.count("\\|") for l in md}
    expect(len(cells) == 1 and "module" in md[0], f"markdown cells per row {cells}: {md[:3]}")
    expect(not any(f"[{base} 0x" in l for l in md), "markdown repeats the module")
    rows = list(csv.reader(io.StringIO(report(out, "--format", "csv"), newline="")))
    expect(len({len(r) for r in rows}) == 1, "csv rows of different lengths")


@case
def callers_without_samples_listed_by_total(tmp):
    """main and the C library's start-up code have no samples of their
    own: --sort total lists them by their inclusive share, and JSON
    functions[] has them with samples 0 and their inclusive count."""
    def attempt(seconds):
        out = record(tmp, "r.prof", [wl("stacks"), "ratio", seconds], ("-g",))
        rep = report_json(out)
        return (out, rep), [(rep["stacks"]["with_stack"], NEED)]
    out, rep = gather(attempt, cpu_for(NEED))
    total = rep["samples"]["total"]
    zero = {f["name"]: f for f in rep["functions"] if f["samples"] == 0}
    expect(zero, "no function without samples of its own in functions[]")
    expect(all(f["inclusive"] > 0 for f in zero.values()), f"{list(zero.values())[:3]}")
    start = [n for n in zero if "libc_start" in n]
    expect(start and zero[start[0]]["inclusive"] >= 0.9 * total,
           f"the start-up code on every stack: {sorted(zero)}")
    incl = [f["inclusive"] for f in report_json(out, "--sort", "total")["functions"]]
    expect(incl == sorted(incl, reverse=True), "--sort total: not by inclusive samples")
    text = report(out, "--sort", "total", "--top", "8").splitlines()
    rows = aligned(text, "--sort total")
    expect(any(" main" in l or start[0] in l for l in rows), f"--sort total rows: {rows}")
    expect(not any(re.match(r"^\s+0\.00\s+\S+\s+0\s", l) for l in
                   aligned(report(out, "--top", "all").splitlines(), "by self")),
           "the table by self samples shows rows without samples")
    cp = run([PROFRUN, "report", "--sort", "total", os.path.join(tmp, "nothing")])
    expect(cp.returncode != 0, "--sort total of a missing profile")
    plain = record(tmp, "plain.prof", [wl("stacks"), "ratio", "0.3"])
    cp = run([PROFRUN, "report", "--sort", "total", plain])
    expect(cp.returncode == 1 and "profrun -g" in cp.stderr, f"--sort total without stacks: {cp.stderr}")
    cp = run([PROFRUN, "report", "--sort", "bogus", plain])
    expect(cp.returncode == 64, f"--sort bogus: exit {cp.returncode}")


def shim_locals():
    """The shim's own local functions (its wrappers: mask_call, ...)."""
    cp = run(["nm", e2e.SHIM])
    expect(cp.returncode == 0, f"nm {e2e.SHIM}: {cp.stderr}")
    return {l.split()[2] for l in cp.stdout.splitlines()
            if len(l.split()) == 3 and l.split()[1] == "t"}


@case
def shim_code_is_overhead_and_its_frames_are_passed_over(tmp):
    """A loop of sigprocmask calls goes through the shim's wrapper of it:
    the samples in the wrapper's own code are overhead (flat and stacks
    alike: one figure, no row), and the wrapper's frames above the C
    library's are passed over."""
    locals_ = shim_locals()
    expect("mask_call" in locals_, f"the shim's wrapper is not where expected: {sorted(locals_)[:20]}")

    def attempt(seconds):
        out = record(tmp, "m.prof", [wl("masks"), seconds], ("-g",))
        rep = report_json(out)
        return (out, rep), [(rep["stacks"]["with_stack"], NEED)]
    out, rep = gather(attempt, cpu_for(NEED))
    s, st = rep["samples"], rep["stacks"]
    expect(not any("libprofrun" in f["module"] for f in rep["functions"]),
           "a row of profrun's shim")
    expect(not any("libprofrun" in m["module"] for m in rep["modules"]), "a module of the shim")
    # the wrapper's own code takes a share of a loop of nothing else
    expect(s["overhead"] >= 0.01 * (s["total"] + s["overhead"]),
           f"no overhead counted in a loop through the shim's wrapper: {s}")
    stacks = folded(out)
    inside = [f for frames, _ in stacks for f in frames if f in locals_]
    expect(not inside, f"the shim's frames on the stacks: {sorted(set(inside))}")
    expect(s["total"] == s["main"] + s["outside"] and st["samples"] == s["total"],
           f"samples {s}, stacks {st}")
    expect(sum(n for _, n in stacks) == st["with_stack"], "folded stacks vs with_stack")
    if st["not_kept"] == 0 and st["copy_failed"] == 0:
        expect(st["overhead"] == s["overhead"], f"overhead: flat {s['overhead']}, stacks {st['overhead']}")
    text = report(out)
    expect(re.search(r"^overhead: \d+ samples \([0-9.]+% of all\) in profrun's own code", text, re.M),
           f"the overhead line:\n{text[:500]}")
    expect("libprofrun" not in text, "the shim in the text report")


@case
def stacks_line_tells_the_reservoir_from_failures(tmp):
    """With room for 100 stacks, the stacks line says how many the
    reservoir left out by design, apart from those that failed."""
    def attempt(seconds):
        out = record(tmp, "r.prof", [wl("stacks"), "ratio", seconds],
                     ("-g", "--stack-samples", "100"))
        rep = report_json(out)
        return (out, rep), [(rep["samples"]["total"], 3 * 100)]
    out, rep = gather(attempt, cpu_for(300))
    st = rep["stacks"]
    # a stack that could not be copied is in copy_failed; kept with its
    # registers (uncopied), it is in with_stack too, as its leaf alone
    expect(st["not_kept"] == st["samples"] - st["with_stack"] - st["copy_failed"] +
           st["uncopied"] and st["not_kept"] > 0,
           f"stacks {st}")
    line = next(l for l in report(out).splitlines() if l.startswith("stacks:"))
    expect(f"{st['with_stack']} of {st['samples']} samples kept" in line
           and f"{st['not_kept']} left out by design" in line
           and f"{st['truncated'] + st['copy_failed']} failed to unwind" in line, line)


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_reports.py"))
