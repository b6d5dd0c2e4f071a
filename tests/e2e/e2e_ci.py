#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of what CI uses: the exports (gprof, pprof, CSV,
markdown), merge, and diff as a regression gate.

Usage: e2e_ci.py CASE  (exit 0 pass, 1 fail, 77 skip).  Environment as
for e2e.py, plus PROFILE_PROTO (tests/data/profile.proto).

Statistical tolerances: shares are checked with e2e.check_share (5 sigma
plus 2 points) on at least e2e.NEED samples, and each recording runs until
it has them (e2e.gather).  The diff gate: the planted slowdown is caught
at the defaults (99% family-wise confidence, 1 point threshold); it moves
a share by about 26 points, some 8 standard errors at 400+ samples a run,
so a correct gate misses it far less than once in a million runs.  The
false-alarm test diffs all 10 pairs of 5 unchanged runs; each diff's
family-wise false-alarm rate is at most 1 - confidence (Holm, whatever
the dependence between functions), so by the union bound the test fails
with probability at most 10 x (1 - confidence), whatever the dependence
between pairs.  At the default 99% that would be up to 10% of suite runs;
the test asks for 99.99%, so a correct gate fails it at most once in a
thousand suite runs (it still fails for any drift between runs of about
4.5 standard errors, the size of a real regression at these counts).
The samples are independent draws because the workload's stages run at
random phases (tests/workloads/common.h), as the test assumes."""

import csv
import gzip
import io
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import browser  # noqa: E402
import e2e  # noqa: E402
import mkprofile  # noqa: E402
from e2e import PROFRUN, Failure, expect, run, wl, report_json, check_share, one_line_error  # noqa: E402

PROTO = os.environ.get("PROFILE_PROTO", os.path.join(HERE, "..", "data", "profile.proto"))
CASES = {}
STAGES = ["stage_parse", "stage_hash", "stage_sort", "stage_compress", "stage_render"]


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def record(tmp, name, *args, seconds=None, opts=(), cwd=None):
    """Run ARGS[0] SECONDS ARGS[1:] under profrun -F 1000 (and OPTS) into
    TMP/NAME; with SECONDS None, for the CPU time that gives the executable
    NEED samples (again for longer while it has fewer: e2e.gather)."""
    out = os.path.join(tmp, name)

    def attempt(secs):
        cp = run([PROFRUN, "-q", "-F", str(e2e.DEFAULT_FREQ), *opts, "-o", out, "--", *args[:1],
                  secs, *args[1:]], cwd=cwd)
        expect(cp.returncode == 0, f"{name}: exit {cp.returncode}: {cp.stderr}")
        return out, [(report_json(out)["samples"]["main"], e2e.NEED)]
    if seconds is not None:
        return attempt(seconds)[0]
    return e2e.gather(attempt, e2e.cpu_for(e2e.NEED))


def export(prof, fmt, *extra):
    cp = subprocess.run([PROFRUN, "report", "--format", fmt, *extra, prof],
                        capture_output=True, timeout=60)
    expect(cp.returncode == 0, f"--format {fmt}: exit {cp.returncode}: {cp.stderr.decode()}")
    return cp.stdout


def crafted(path, **kw):
    args = dict(exe=wl("split"), recorded_exe=None, text=None, bucket_size=2,
                sample=[], symbol=[], outside=0, state="exited", exit=0,
                flags=0, note="", cpu_ms=1000, rate=1000, pid=100, ppid=1,
                build_id="auto", version=1, min_version=1)
    args.update(kw)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(mkprofile.build(type("A", (), args)))
    return path


# ---------------------------------------------------------------- gprof

def gprof_flat(binary, gmon):
    cp = run(["gprof", "-p", "-b", binary, gmon])
    expect(cp.returncode == 0, f"gprof failed ({cp.returncode}): {cp.stderr}")
    rows = {}
    for line in cp.stdout.splitlines():
        f = line.split()
        if len(f) >= 4 and re.match(r"^\d+\.\d+$", f[0]) and re.match(r"^\d", f[2]):
            rows[f[-1]] = (float(f[0]), float(f[2]))
    expect(rows, f"no flat profile rows in gprof's output: {cp.stdout!r}")
    return rows


@case
def gprof_flat_profile_agrees_with_report(tmp):
    if not shutil.which("gprof"):
        sys.exit(77)
    prof = record(tmp, "g.prof", wl("split"), "3", "1")
    gmon = os.path.join(tmp, "gmon.out")
    with open(gmon, "wb") as f:
        f.write(export(prof, "gmon"))
    rep = report_json(prof)
    main = rep["samples"]["main"]
    rows = gprof_flat(wl("split"), gmon)
    ours = {f["name"]: f["samples"] for f in rep["functions"]}
    for name, samples in ours.items():
        if samples * 100 < main:
            continue
        expect(name in rows, f"gprof does not list {name} ({samples} samples): {rows}")
        share = 100.0 * samples / main
        expect(abs(rows[name][0] - share) <= 0.06,
               f"{name}: gprof {rows[name][0]}%, profrun {share:.2f}% of the executable's samples")
    check_share(ours.get("hot_a", 0), main, 0.75, "hot_a in gprof's input")


@case
def gmon_carries_counts_above_65535(tmp):
    if not shutil.which("gprof"):
        sys.exit(77)
    prof = crafted(os.path.join(tmp, "big.prof", "1.prof"),
                   symbol=["hot_a=200000", "hot_b=100001"], cpu_ms=300001)
    gmon = os.path.join(tmp, "gmon.out")
    with open(gmon, "wb") as f:
        f.write(export(os.path.dirname(prof), "gmon"))
    rows = gprof_flat(wl("split"), gmon)
    expect(abs(rows["hot_a"][0] - 66.67) < 0.01, f"hot_a: {rows['hot_a']}")
    expect(abs(rows["hot_a"][1] - 200.0) < 0.01,
           f"hot_a: {rows['hot_a'][1]} s, expected 200000 samples at 1000 Hz")
    expect(abs(rows["hot_b"][1] - 100.0) < 0.01, f"hot_b: {rows['hot_b']}")


# ---------------------------------------------------------------- pprof

def protoc_decode(data):
    if not shutil.which("protoc"):
        sys.exit(77)
    cp = subprocess.run(["protoc", "--proto_path", os.path.dirname(PROTO),
                         "--decode=perftools.profiles.Profile", os.path.basename(PROTO)],
                        input=gzip.decompress(data), capture_output=True, timeout=60)
    expect(cp.returncode == 0, f"protoc --decode failed: {cp.stderr.decode()}")
    return cp.stdout.decode()


def proto_blocks(text, name):
    """The top-level blocks 'name { ... }' of protoc's text format, as dicts
    of their scalar fields (nested blocks flattened with a dot)."""
    out, cur, path = [], None, []
    for line in text.splitlines():
        s = line.strip()
        if s.endswith("{"):
            if not path and s[:-1].strip() == name:
                cur = {}
            path.append(s[:-1].strip())
        elif s == "}":
            path.pop()
            if not path and cur is not None:
                out.append(cur)
                cur = None
        elif cur is not None and ":" in s:
            k, v = s.split(":", 1)
            key = ".".join(path[1:] + [k.strip()])
            cur.setdefault(key, []).append(v.strip())
    return out


def string_table(text):
    return [json.loads(m) for m in re.findall(r'^string_table: (".*")$', text, re.M)]


@case
def pprof_export_decodes_with_protoc(tmp):
    prof = record(tmp, "p.prof", wl("split"), "3", "1")
    data = export(prof, "pprof")
    expect(data[:2] == b"\x1f\x8b", "not gzip")
    expect(data == export(prof, "pprof"), "pprof export is not deterministic")
    text = protoc_decode(data)
    strings = string_table(text)
    expect(strings and strings[0] == "", "string_table[0] is not empty")
    s = lambda i: strings[int(i)]
    types = [(s(b["type"][0]), s(b["unit"][0])) for b in proto_blocks(text, "sample_type")]
    expect(types == [("samples", "count"), ("cpu", "nanoseconds")], f"sample types {types}")
    period = proto_blocks(text, "period_type")
    expect(period and (s(period[0]["type"][0]), s(period[0]["unit"][0])) == ("cpu", "nanoseconds"),
           "period type")
    per = int(re.search(r"^period: (\d+)$", text, re.M).group(1))
    rep = report_json(prof)
    expect(abs(per - 1e9 / rep["rate_hz"]) < 1e9 / rep["rate_hz"] * 0.01, f"period {per}")
    funcs = {b["id"][0]: b for b in proto_blocks(text, "function")}
    ids = [b["id"][0] for b in proto_blocks(text, "location")] + list(funcs)
    expect(all(int(i) > 0 for i in ids), "an id is 0")
    locs = {b["id"][0]: b for b in proto_blocks(text, "location")}
    per_fn, total = {}, 0
    for smp in proto_blocks(text, "sample"):
        expect(len(smp["value"]) == 2 and int(smp["value"][1]) == int(smp["value"][0]) * per,
               f"sample values {smp['value']}")
        loc = locs[smp["location_id"][0]]
        fn = funcs[loc["line.function_id"][0]]
        per_fn[s(fn["name"][0])] = per_fn.get(s(fn["name"][0]), 0) + int(smp["value"][0])
        total += int(smp["value"][0])
        if s(fn["name"][0]) == "hot_a":
            expect(s(fn["filename"][0]).endswith("split.c"), "hot_a's file")
            expect(int(loc.get("line.line", ["0"])[0]) > 0, "hot_a location without a line")
    expect(total == rep["samples"]["total"], f"pprof holds {total} samples, report {rep['samples']['total']}")
    for f in rep["functions"]:
        expect(per_fn.get(f["name"]) == f["samples"], f"{f['name']}: {per_fn.get(f['name'])} vs {f['samples']}")
    m = proto_blocks(text, "mapping")[0]
    bid = rep["processes"][0]["build_id"]
    expect(s(m["build_id"][0]) == bid, f"mapping build-id {s(m['build_id'][0])}, profile {bid}")
    expect(s(m["filename"][0]) == os.path.realpath(wl("split")), f"mapping file {s(m['filename'][0])}")
    expect(m.get("has_functions") == ["true"], "mapping lacks has_functions")


def build_pprof(cache):
    """Google's pprof built offline from Debian's golang-github-google-pprof-dev."""
    binary = os.path.join(cache, "pprof")
    if os.path.exists(binary):
        return binary
    src = "/usr/share/gocode/src/github.com/google/pprof"
    if not shutil.which("go") or not os.path.isdir(src):
        print("SKIP: go or golang-github-google-pprof-dev not installed")
        sys.exit(77)
    os.makedirs(cache, exist_ok=True)
    env = dict(os.environ, GOPATH="/usr/share/gocode", GO111MODULE="off", GOFLAGS="",
               GOCACHE=os.path.join(cache, "gocache"), GOPROXY="off", HOME=cache)
    cp = run(["go", "build", "-o", binary + ".tmp", "github.com/google/pprof"], env=env, timeout=300)
    if cp.returncode != 0:
        print(f"SKIP: cannot build pprof offline: {cp.stderr[-500:]}")
        sys.exit(77)
    os.rename(binary + ".tmp", binary)
    return binary


@case
def pprof_tool_reads_the_export(tmp):
    pprof = build_pprof(os.path.join(e2e.WORKLOADS, "pprof-tool"))
    prof = record(tmp, "p.prof", wl("split"), "3", "1")
    pb = os.path.join(tmp, "split.pb.gz")
    cp = run([PROFRUN, "report", "--format", "pprof", "-o", pb, prof])
    expect(cp.returncode == 0, f"export: {cp.stderr}")
    env = dict(os.environ, HOME=tmp, PPROF_TMPDIR=tmp)
    top = run([pprof, "-top", "-nodecount=5", pb], env=env)
    expect(top.returncode == 0, f"pprof -top: {top.stderr}")
    rep = report_json(prof)
    want = {f["name"]: f["percent"] for f in rep["functions"]}
    for line in top.stdout.splitlines():
        f = line.split()
        if len(f) >= 6 and f[-1] in want and f[1].endswith("%"):
            expect(abs(float(f[1][:-1]) - want[f[-1]]) < 0.02, f"pprof {line!r}, profrun {want[f[-1]]}%")
            want.pop(f[-1])
    expect("hot_a" not in want and "hot_b" not in want, f"pprof -top lacks functions: {top.stdout}")
    lst = run([pprof, "-list", "hot_a", pb], env=env)
    expect(lst.returncode == 0 and "split.c" in lst.stdout and "WORKLOAD_BODY" in lst.stdout,
           f"pprof -list hot_a: {lst.stdout} {lst.stderr}")
    raw = run([pprof, "-raw", pb], env=env)
    expect(rep["processes"][0]["build_id"] in raw.stdout, "pprof -raw lacks the build-id")


# ---------------------------------------------------------------- tables

@case
def csv_and_markdown_match_the_json_report(tmp):
    prof = record(tmp, "c.prof", wl("split"), "3", "1", seconds="1.0")
    rep = report_json(prof)
    data = export(prof, "csv").decode()
    expect(data.endswith("\r\n") and "\n" not in data.replace("\r\n", ""), "CSV lines do not end in CRLF")
    rows = list(csv.DictReader(io.StringIO(data, newline="")))
    expect(len(rows) == len(rep["functions"]), f"{len(rows)} CSV rows, {len(rep['functions'])} functions")
    for r, f in zip(rows, rep["functions"]):
        expect(r["name"] == f["name"] and int(r["samples"]) == f["samples"]
               and abs(float(r["percent"]) - f["percent"]) < 0.006
               and r["module"] == f["module"] and (r["file"] or None) == f["file"],
               f"CSV row {r} differs from {f}")
    md = export(prof, "markdown").decode()
    table = [l for l in md.splitlines() if l.startswith("|")]
    expect(table[1].startswith("|--:"), f"no table header separator: {table[:2]}")
    # six columns, seven when the rows are of several modules (a sample
    # in the vdso, say, adds a module column)
    cells = {l.count("|") - l.count("\\|") for l in table}
    expect(len(cells) == 1 and cells <= {7, 8}, f"ragged table: {md}")
    expect(any("`hot_a`" in l for l in table), "markdown lacks hot_a")
    for fmt in ("text", "json", "csv", "markdown", "gmon", "pprof"):
        expect(export(prof, fmt) == export(prof, fmt), f"--format {fmt} is not deterministic")


@case
def csv_quotes_awkward_names(tmp):
    # a member whose module path holds a comma and a quote
    odd = os.path.join(tmp, 'a,b"c')
    shutil.copy(wl("split"), odd)
    prof = crafted(os.path.join(tmp, "q.prof", "1.prof"), exe=odd, symbol=["hot_a=7"])
    rows = list(csv.reader(io.StringIO(export(os.path.dirname(prof), "csv").decode(), newline="")))
    expect(rows[1][3] == odd and rows[1][1] == "hot_a" and rows[1][4] == "7", f"parsed back as {rows}")


# ---------------------------------------------------------------- merge

def functions(prof):
    return {f["name"]: f["samples"] for f in report_json(prof)["functions"]}


@case
def merge_adds_counts_exactly(tmp):
    a = crafted(os.path.join(tmp, "a.prof", "1.prof"), symbol=["hot_a=70000", "hot_b=3"],
                outside=5, cpu_ms=700)
    crafted(os.path.join(tmp, "a.prof", "2.prof"), symbol=["hot_a=1"], pid=101, cpu_ms=1)
    b = crafted(os.path.join(tmp, "b.prof", "1.prof"), symbol=["hot_a=65536", "hot_b=200000"],
                outside=7, cpu_ms=265)
    out = os.path.join(tmp, "m.prof")
    cp = run([PROFRUN, "merge", "-o", out, os.path.dirname(a), os.path.dirname(b)])
    expect(cp.returncode == 0, f"merge: exit {cp.returncode}: {cp.stderr}")
    expect(len(os.listdir(out)) == 1, f"one binary, but members {os.listdir(out)}")
    rep = report_json(out)
    f = {x["name"]: x["samples"] for x in rep["functions"]}
    expect(f == {"hot_a": 70000 + 1 + 65536, "hot_b": 200003, "[not recorded]": 12},
           f"merged counts {f}")
    expect(rep["samples"]["outside"] == 12 and rep["samples"]["total"] == 335540 + 12,
           f"merged samples {rep['samples']}")
    expect(abs(rep["cpu_seconds"] - 0.966) < 0.0015, f"cpu seconds {rep['cpu_seconds']}")
    # merging into one of the inputs, and real runs: still the exact sum
    r1 = record(tmp, "r1.prof", wl("split"), "3", "1", seconds="0.5")
    r2 = record(tmp, "r2.prof", wl("split"), "1", "1", seconds="0.5")
    want = {k: functions(r1).get(k, 0) + functions(r2).get(k, 0) for k in ("hot_a", "hot_b")}
    cp = run([PROFRUN, "merge", "-o", r1, r1, r2])
    expect(cp.returncode == 0, f"merge into an input: {cp.stderr}")
    got = functions(r1)
    expect(all(got.get(k, 0) == v for k, v in want.items()), f"merged {got}, expected {want}")


@case
def merge_refuses_another_binary(tmp):
    a = record(tmp, "a.prof", wl("split"), "3", "1", seconds="0.3")
    b = record(tmp, "b.prof", wl("split-nopie"), "3", "1", seconds="0.3")
    out = os.path.join(tmp, "m.prof")
    cp = run([PROFRUN, "merge", "-o", out, a, b])
    line = one_line_error(cp, "merge of two binaries")
    expect(cp.returncode == 2, f"exit {cp.returncode}, expected 2")
    expect("another binary" in line and "--force" in line, f"message: {line}")
    expect(not os.path.exists(out), "a refused merge wrote its output")
    cp = run([PROFRUN, "merge", "--force", "-o", out, a, b])
    expect(cp.returncode == 0, f"--force: exit {cp.returncode}: {cp.stderr}")
    fa, fb, fm = functions(a), functions(b), functions(out)
    for k in ("hot_a", "hot_b"):
        expect(fm.get(k, 0) == fa.get(k, 0) + fb.get(k, 0), f"--force {k}: {fm} from {fa} + {fb}")
    plain = os.path.join(tmp, "plain.txt")
    with open(plain, "w") as f:
        f.write("precious\n")
    cp = run([PROFRUN, "merge", "-o", plain, a])
    expect(cp.returncode == 2 and open(plain).read() == "precious\n", "merge replaced an ordinary file")
    expect(run([PROFRUN, "merge", a]).returncode == 64, "merge without -o")


# ---------------------------------------------------------------- diff

def diff(*args):
    return run([PROFRUN, "diff", *args])


# Family-wise confidence of each diff in the false-alarm test: with 10
# pairs, P(any false alarm) <= 10 x (1 - 0.9999) = 0.001 (module docstring).
NO_ALARM_CONFIDENCE = "99.99"


@case
def diff_no_false_alarm_over_repeated_runs(tmp):
    runs = [record(tmp, f"r{i}.prof", wl("stages")) for i in range(5)]
    for a, b in itertools.combinations(runs, 2):
        cp = diff("--confidence", NO_ALARM_CONFIDENCE, "--format", "json", a, b)
        expect(cp.returncode == 0, f"false alarm, {a} vs {b} (exit {cp.returncode}): {cp.stdout} {cp.stderr}")
        d = json.loads(cp.stdout)
        expect(d["method"]["confidence"] == float(NO_ALARM_CONFIDENCE),
               f"diff ran at {d['method']['confidence']}% confidence")
        expect(d["regressions"] == 0 and d["fails"] is False, f"{a} vs {b}: {d['regressions']} regressions")


@case
def diff_catches_a_planted_4x_slowdown(tmp):
    base = record(tmp, "base.prof", wl("stages"))
    slow = record(tmp, "slow.prof", wl("stages"), "stage_sort", "4")
    baseline = os.path.join(tmp, "baseline.json")
    with open(baseline, "wb") as f:
        f.write(export(base, "json"))
    for b in (baseline, base):
        cp = diff(b, slow)
        expect(cp.returncode == 1, f"BASE {b}: exit {cp.returncode}, expected 1: {cp.stdout} {cp.stderr}")
        last = cp.stdout.strip().splitlines()[-1]
        expect("1 regression" in last and "stage_sort" in last, f"verdict: {last}")
        d = json.loads(diff("--format", "json", b, slow).stdout)
        flagged = [r["name"] for r in d["functions"] if r["status"] in ("regression", "new")]
        expect(flagged == ["stage_sort"], f"flagged {flagged}")
        row = [r for r in d["functions"] if r["name"] == "stage_sort"][0]
        # 15% of the work made 4x: 60/145 = 41% of the new run
        check_share(row["new_samples"], d["new"]["samples"], 60 / 145, "stage_sort after the slowdown")
    md = diff("--format", "markdown", baseline, slow)
    expect(md.returncode == 1 and "`stage_sort`" in md.stdout and "regression" in md.stdout,
           f"markdown: {md.stdout}")
    expect(diff("--fail-on=none", baseline, slow).returncode == 0, "--fail-on=none")
    expect(diff("--fail-on=any", base, base).returncode == 0, "--fail-on=any on the same profile")
    expect(diff("--threshold", "50", baseline, slow).returncode == 0, "--threshold 50 still flags")
    # the slow run as BASE: the fix is named as an improvement (the other
    # stages' shares grow in mirror, see docs/diff.md)
    d = json.loads(diff("--format", "json", slow, base).stdout)
    row = [r for r in d["functions"] if r["name"] == "stage_sort"][0]
    expect(row["status"] == "improvement", f"the fix is {row['status']}")
    expect(diff("--fail-on", "any", slow, base).returncode == 1, "--fail-on=any ignores an improvement")


@case
def diff_refuses_bad_baselines(tmp):
    prof = crafted(os.path.join(tmp, "p.prof", "1.prof"), symbol=["hot_a=500", "hot_b=100"])
    good = json.loads(export(os.path.dirname(prof), "json"))
    bad = {
        "other-schema.json": json.dumps(dict(good, schema="profrun-report/2")),
        "no-schema.json": json.dumps({"functions": []}),
        "garbage.json": "{ this is not json",
        "truncated.json": json.dumps(good)[:40],
        "wrong-types.json": json.dumps(dict(good, functions=[{"name": 3, "samples": "x"}])),
        "too-many-samples.json": json.dumps(dict(good, samples={"total": 1, "main": 1, "outside": 0})),
        "empty.json": "",
    }
    for name, text in bad.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        for args in ((path, prof), (prof, path)):
            cp = diff(*args)
            line = one_line_error(cp, f"diff with {name}")
            expect(cp.returncode == 2, f"{name}: exit {cp.returncode}, expected 2")
            expect(name in line, f"{name}: message does not name the file: {line}")
    cp = diff(os.path.join(tmp, "other-schema.json"), prof)
    expect("profrun-report/2" in cp.stderr and "profrun-report/1" in cp.stderr, f"schema message: {cp.stderr}")
    for args in ([prof], [prof, prof, prof], ["--threshold", "x", prof, prof],
                 ["--fail-on", "sometimes", prof, prof], ["--format", "xml", prof, prof],
                 ["--no-such", prof, prof], [os.path.join(tmp, "missing"), prof]):
        cp = diff(*args)
        expect(cp.returncode == 2, f"diff {args}: exit {cp.returncode}, expected 2")
    cp = run([PROFRUN, "diff", "--help"])
    expect(cp.returncode == 0 and "Exit status" in cp.stdout, "diff --help lacks exit codes")


# ---------------------------------------------------------------- the diff page

# stage_sort 4x slower; stage_render does 1.49x its work, which keeps its
# share (8 x 1.49 / (100 + 45 + 8 x 0.49) = 8.0%): an unchanged share.
SLOWER = ["stage_sort", "4", "stage_render", "1.49"]
# The false-alarm rate of each diff of the page tests (family-wise, as in
# the gate): the frames that must be grey stay so but once in 10,000 runs;
# stage_sort's change (about 25 points, 8 standard errors at 400 samples)
# is flagged all the same.
PAGE_CONFIDENCE = "99.99"


def self_contained(page):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    expect(not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", text, re.I),
           "the page loads something from elsewhere")
    expect("http://" not in text and "https://" not in text, "the page names a network address")


def diff_page(tmp, base, new, *extra):
    """BASE against NEW as a page, checked in Chromium: DOM and screenshot.
    Returns (frames drawn, DOM, screenshot, the JSON diff)."""
    page = os.path.join(tmp, "diff.html")
    args = ["--confidence", PAGE_CONFIDENCE, *extra, base, new]
    cp = diff("--format", "html", "-o", page, *args)
    expect(cp.returncode == 1, f"diff --format html: exit {cp.returncode}: {cp.stderr}")
    self_contained(page)
    d = json.loads(diff("--format", "json", *args).stdout)
    dom = browser.dump_dom(tmp, page)
    return browser.frames(dom), dom, browser.screenshot(tmp, page), d


def check_sort_grew(frames, shot, want_points, what):
    """stage_sort's frame: red in the DOM and on screen, noting its change
    as the JSON diff gives it."""
    expect("stage_sort" in frames, f"{what}: stage_sort not drawn: {sorted(frames)}")
    f = frames["stage_sort"]
    expect(browser.reddish(f[4]), f"{what}: stage_sort's colour {f[4]} is not the grown one")
    expect(browser.reddish(shot.inside(f)), f"{what}: stage_sort on screen {shot.inside(f)}")
    m = re.match(r"([+-]\d+\.\d+) points regression$", f[5])
    expect(m, f"{what}: stage_sort's note {f[5]!r}")
    expect(abs(float(m.group(1)) - want_points) < 0.006 and want_points > 10,
           f"{what}: stage_sort changed {m.group(1)}, the JSON diff says {want_points}")


def check_grey(frames, shot, name, what):
    expect(name in frames, f"{what}: {name} not drawn: {sorted(frames)}")
    f = frames[name]
    expect(browser.grey(f[4]) and browser.grey(shot.inside(f)),
           f"{what}: {name} is {f[4]} ({shot.inside(f)} on screen), not grey: {f[5]}")
    expect(f[5].endswith(" unchanged"), f"{what}: {name}'s note {f[5]!r}")


def row_of(rows, name):
    found = [r for r in rows if r["name"] == name]
    expect(found, f"{name} not compared")
    return found[0]


@case
def diff_page_colours_a_4x_slowdown_with_stacks(tmp):
    base = record(tmp, "base.prof", wl("stages"), opts=["-g"])
    slow = record(tmp, "slow.prof", wl("stages"), *SLOWER, opts=["-g"])
    frames, dom, shot, d = diff_page(tmp, base, slow)
    incl = d["inclusive"]["functions"]
    check_sort_grew(frames, shot, row_of(incl, "stage_sort")["change_points"], "with stacks")
    # main is on every stack on both sides; stage_render kept its share
    for name in ("main", "stage_render"):
        check_grey(frames, shot, name, "with stacks")
    expect(row_of(incl, "main")["status"] == "unchanged", "main's inclusive share changed")
    # the shrunk stages are never red (blue when significant)
    for name in ("stage_parse", "stage_hash"):
        expect(not browser.reddish(frames[name][4]), f"{name} drawn as grown: {frames[name]}")
    expect(re.search(r'<tr data-name="stage_sort">', dom), "stage_sort not in the table of changes")
    # hovering stage_sort's frame tells both shares and the change
    tip, side = hover(tmp, os.path.join(tmp, "diff.html"), frames["stage_sort"])
    # the table stands beside the flame graph, at its height
    expect(side[0] >= frames["all"][0] + frames["all"][2] and side[1] <= frames["stage_sort"][1],
           f"the table of changes at {side}, the flame graph {frames['all'][:4]}")
    sort = row_of(incl, "stage_sort")
    want = (f"inclusive share: BASE {sort['base_percent']:.2f}%, NEW {sort['new_percent']:.2f}%\n"
            f"change: {sort['change_points']:+.2f} points (grew, regression")
    expect(want in tip, f"tooltip {tip!r}, expected {want!r}")
    # the JSON diff carries each function's inclusive counts of both sides
    row = row_of(d["functions"], "stage_sort")
    expect(row["new_inclusive"] >= row["new_samples"] and row["inclusive_status"] == "regression",
           f"stage_sort's inclusive fields: {row}")
    # search and zoom are the flame graph's
    page = os.path.join(tmp, "diff.html")
    expect(browser.attr(browser.dump_dom(tmp, page, "#search=^stage_sort$"), "data-matched")
           == frames_samples(page, "stage_sort"), "search matched share")
    names = browser.drawn(browser.dump_dom(tmp, page, "#zoom=stage_sort"))
    expect("stage_sort" in names and "stage_parse" not in names, f"zoomed: {sorted(names)}")
    # a baseline of an older profrun, without the callers' counts (_start,
    # __libc_start_main, ...): they are not compared (not "new")
    report = json.loads(export(base, "json"))
    callers = [f["name"] for f in report["functions"] if f["samples"] == 0]
    expect("_start" in callers and report["stacks"]["callers_listed"] is True,
           f"_start not among the callers listed: {callers} {report['stacks']}")
    report["functions"] = [f for f in report["functions"] if f["samples"] > 0]
    del report["stacks"]["callers_listed"]
    old = os.path.join(tmp, "old.json")
    with open(old, "w") as f:
        json.dump(report, f)
    d = json.loads(diff("--format", "json", old, slow).stdout)
    expect(not set(callers) & {r["name"] for r in d["inclusive"]["functions"]},
           "callers compared with nothing")
    row_of(d["inclusive"]["functions"], "stage_sort")


def hover(tmp, page, frame):
    """The tooltip of FRAME, and where the table of changes is (its left and
    top): a copy of PAGE that moves the mouse over FRAME once its script
    has run."""
    x, y, w, h = frame[:4]
    with open(page, encoding="utf-8") as f:
        text = f.read()
    move = ("<script>document.getElementById('fg').dispatchEvent(new MouseEvent('mousemove', "
            f"{{clientX: {x + w - 3}, clientY: {y + h // 2}, bubbles: true}}));\n"
            "var r = document.getElementById('side').getBoundingClientRect();\n"
            "document.body.setAttribute('data-side', Math.round(r.left) + ' ' + Math.round(r.top));"
            "</script>\n</body>")
    hovered = os.path.join(tmp, "hovered.html")
    with open(hovered, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", move))
    dom = browser.dump_dom(tmp, hovered)
    m = re.search(r'<div id="tip"[^>]*>(.*?)</div>', dom, re.S)
    expect(m and m.group(1), "no tooltip shown")
    side = re.search(r'data-side="(\d+) (\d+)"', dom)
    expect(side, "no position of the table of changes")
    return (m.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"),
            (int(side.group(1)), int(side.group(2))))


def frames_samples(page, name):
    """NEW's samples on the stack frames of NAME (the page's data)."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    data = json.loads(text.split('id="profrun-data">')[1].split("</script>")[0])
    fn = data["names"].index(name)
    nodes = data["nodes"]
    return sum(nodes[i + 1] for i in range(0, len(nodes), 3) if nodes[i] // 2 == fn)


@case
def diff_page_draws_bars_without_stacks(tmp):
    base = record(tmp, "base.prof", wl("stages"))
    slow = record(tmp, "slow.prof", wl("stages"), *SLOWER)
    # a baseline whose stage_compress was called stage_compress_v1: that
    # one is only in BASE
    report = json.loads(export(base, "json"))
    for f in report["functions"]:
        if f["name"] == "stage_compress":
            f["name"] = "stage_compress_v1"
    baseline = os.path.join(tmp, "baseline.json")
    with open(baseline, "w") as f:
        json.dump(report, f)
    frames, dom, shot, d = diff_page(tmp, baseline, slow)
    expect("No call stacks" in dom and browser.attr(dom, "data-drawn-frames") >= 5, "not the flat view")
    check_sort_grew(frames, shot, row_of(d["functions"], "stage_sort")["change_points"], "without stacks")
    check_grey(frames, shot, "stage_render", "without stacks")
    expect(re.search(r'<li data-name="stage_compress_v1">stage_compress_v1 \(stages\): [\d.]+% of BASE</li>', dom),
           "the function only in BASE is not listed as removed")
    expect("stage_compress_v1" not in frames, "a removed function drawn")


def generated_report(tmp, name, counts, stacks=False, effective=None):
    """A JSON report of /build/bench's functions with COUNTS (name ->
    samples, 0 for none), into TMP/NAME; with STACKS, each function's
    inclusive samples its own, and main a caller of them all; with
    EFFECTIVE, its samples.effective."""
    total = sum(counts.values())
    funcs = [{"name": f, "module": "/build/bench", "samples": c, "percent": 100 * c / total}
             for f, c in counts.items() if c]
    report = {"schema": "profrun-report/1",
              "samples": {"total": total, "main": total, "outside": 0, "libraries": 0, "vdso": 0, "unknown": 0},
              "executables": [{"exe": "/build/bench"}], "functions": funcs}
    if effective is not None:
        report["samples"]["effective"] = effective
    if stacks:
        for f in funcs:
            f.update(inclusive=f["samples"], inclusive_percent=f["percent"])
        funcs.append({"name": "main", "module": "/build/bench", "samples": 0, "percent": 0.0,
                      "inclusive": total, "inclusive_percent": 100.0})
        report["stacks"] = {"callers_listed": True}
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(report, f)
    return path


@case
def diff_page_colours_grown_shrunk_and_unchanged_exactly(tmp):
    # generated reports: exact counts, so every colour is certain
    base = generated_report(tmp, "base.json", {"shrinks": 4000, "grows": 2000, "holds": 3000, "goes": 1000})
    new = generated_report(tmp, "new.json", {"shrinks": 1000, "grows": 6000, "holds": 3000})
    frames, dom, shot, d = diff_page(tmp, base, new)
    for fn, looks, note in (("grows", browser.reddish, "+40.00 points regression"),
                            ("shrinks", browser.bluish, "-30.00 points improvement"),
                            ("holds", browser.grey, "+0.00 points unchanged")):
        expect(fn in frames, f"{fn} not drawn: {sorted(frames)}")
        expect(looks(frames[fn][4]) and looks(shot.inside(frames[fn])),
               f"{fn}: {frames[fn][4]}, on screen {shot.inside(frames[fn])}")
        expect(frames[fn][5] == note, f"{fn}'s note {frames[fn][5]!r}, expected {note!r}")
    # the deeper the colour, the larger the change: 40 points are full red
    expect(frames["grows"][4] == (220, 40, 35), f"a 40-point growth drawn {frames['grows'][4]}")
    expect("goes" not in frames and re.search(r'<li data-name="goes">goes \(bench\): 10\.00% of BASE</li>', dom),
           "the function only BASE has is not listed as removed")
    expect(re.search(r'<tr data-name="goes">', dom), "the removed function's significant change not in the table")


@case
def diff_weighs_samples_that_came_in_bursts(tmp):
    # 30% -> 33% of 10,000 samples: 4.6 standard errors taken one by one,
    # 1.4 when they came in bursts worth 1,000 samples (docs/diff.md)
    base, new = {"fa": 3000, "fb": 7000}, {"fa": 3300, "fb": 6700}
    for eff, want in ((None, 1), (10000, 1), (1000, 0)):
        b = generated_report(tmp, "base.json", base, effective=eff)
        n = generated_report(tmp, "new.json", new, effective=eff)
        cp = diff("--format", "json", b, n)
        expect(cp.returncode == want, f"effective {eff}: exit {cp.returncode}, expected {want}: "
                                      f"{cp.stdout[:300]} {cp.stderr}")
        row = [r for r in json.loads(cp.stdout)["functions"] if r["name"] == "fa"][0]
        # z = (0.03 - 0.5 (1/n + 1/n)) / sqrt(0.315 x 0.685 x 2/n), n the
        # effective samples of each side
        neff = eff or 10000
        z = (0.03 - 1 / neff) / math.sqrt(0.315 * 0.685 * 2 / neff)
        expect(row["change_points"] == 3.0 and
               abs(row["p_value"] - math.erfc(z / math.sqrt(2))) <= 0.01 * row["p_value"] + 1e-8,
               f"effective {eff}: {row}, expected p-value {math.erfc(z / math.sqrt(2)):.3g}")
    # one side in bursts is enough to widen the test (its variance is
    # most of it), and both sides' profiles keep their own
    b = generated_report(tmp, "base.json", base, effective=400)
    n = generated_report(tmp, "new.json", new)
    cp = diff(b, n)
    expect(cp.returncode == 0, "a side in bursts is taken as samples one by one")
    expect(f"BASE {b} (10000 samples, in bursts: tested as 400), NEW {n} (10000 samples)"
           in cp.stdout, f"the sides' samples are not said: {cp.stdout[:300]}")
    d = json.loads(diff("--format", "json", b, n).stdout)
    expect((d["base"]["effective_samples"], d["new"]["effective_samples"]) == (400, 10000),
           f"JSON sides {d['base']}, {d['new']}")
    for bad in (0, 10001, -5, "many", 2.5):
        b = generated_report(tmp, "bad.json", base, effective=bad)
        cp = diff(b, generated_report(tmp, "new.json", new))
        line = one_line_error(cp, f"samples.effective {bad!r}")
        expect(cp.returncode == 2 and "bad.json" in line and "samples.effective" in line,
               f"samples.effective {bad!r}: exit {cp.returncode}: {line}")


@case
def diff_markdown_of_5000_functions_stays_under_the_comment_limit(tmp):
    # generated reports with stacks: 5000 functions with long names, each
    # doubling or vanishing, so that every one is flagged (--threshold 0)
    n, name = 5000, "ns::detail::handler_for_request_kind_{}<std::vector<std::string>>::operator()"
    sides = [generated_report(tmp, f"side{k}.json", {name.format(i): c for i, c in enumerate(counts)},
                              stacks=True)
             for k, counts in enumerate(([1000] * n, [2000 if i % 2 else 0 for i in range(n)]))]
    cp = diff("--format", "markdown", "--threshold", "0", "--top", "0", *sides)
    expect(cp.returncode == 1, f"exit {cp.returncode}: {cp.stderr}")
    md = cp.stdout
    expect(len(md) <= 65536 and len(md.encode()) <= 65536, f"{len(md)} characters")
    expect(len(md) > 50000, f"only {len(md)} characters: the tables were cut too short")
    tables = md.split("#### Inclusive shares")
    expect(len(tables) == 2, "no table of inclusive shares")
    for t, compared in zip(tables, (n, n + 1)):
        shown = len(re.findall(r"^\| `", t, re.M))
        m = re.search(r"^\| \*(\d+) more rows left out to stay under GitHub's 65,536 characters", t, re.M)
        expect(m, "no line saying how many rows were left out")
        expect(shown + int(m.group(1)) == compared,
               f"{shown} rows shown and {m.group(1)} left out of {compared}")
    verdict = md.splitlines()[0]
    expect(re.search(r"and \d+ more", verdict) and len(verdict) < 2000, f"verdict: {verdict[:300]}")


@case
def diff_matches_the_main_executable_across_a_rename(tmp):
    os.makedirs(os.path.join(tmp, "build-pr"))
    shutil.copy(wl("stages"), os.path.join(tmp, "bench"))
    shutil.copy(wl("stages"), os.path.join(tmp, "build-pr", "bench-new"))
    base = record(tmp, "base.prof", "./bench", cwd=tmp)
    slow = record(tmp, "slow.prof", "build-pr/bench-new", "stage_sort", "4", cwd=tmp)
    baseline = os.path.join(tmp, "baseline.json")
    with open(baseline, "wb") as f:
        f.write(export(base, "json"))
    for b in (base, baseline):
        cp = diff(b, slow)
        expect(cp.returncode == 1, f"exit {cp.returncode}: {cp.stdout} {cp.stderr}")
        expect("module bench of BASE compared as bench-new of NEW (the one main executable" in cp.stdout,
               f"the match is not said: {cp.stdout}")
        d = json.loads(diff("--format", "json", b, slow).stdout)
        flagged = [r["name"] for r in d["functions"] if r["status"] != "unchanged"]
        expect("stage_sort" in flagged and all(r["status"] not in ("new", "gone") for r in d["functions"]
                                               if r["name"].startswith("stage_")),
               f"flagged {flagged}")
        expect(d["modules_matched"] == [{"base": "bench", "new": "bench-new", "automatic": True}],
               f"modules_matched {d['modules_matched']}")
        md = diff("--format", "markdown", b, slow).stdout
        expect("> module `bench` of BASE compared as `bench-new` of NEW" in md, f"markdown: {md}")
    d = json.loads(diff("--format", "json", "--same", "./bench=build-pr/bench-new", base, slow).stdout)
    expect(d["modules_matched"] == [{"base": "bench", "new": "bench-new", "automatic": False}],
           f"--same: {d['modules_matched']}")
    for bad in ("bench=nothing", "nothing=bench-new", "bench", "=bench-new"):
        cp = diff("--same", bad, base, slow)
        line = one_line_error(cp, f"--same {bad}")
        expect(cp.returncode == 2 and "--same" in line, f"--same {bad}: exit {cp.returncode}: {line}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_ci.py"))
