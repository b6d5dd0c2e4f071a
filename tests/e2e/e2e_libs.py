#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Samples outside the main executable: attributed to libc, to a library
loaded with dlopen, to libm, under many threads; the report's accounting
(every sample in one entry), --module, --main-only, older profiles, merge
and the exports.

Usage: e2e_libs.py CASE (meson test runs one case per test; exit 0 pass,
1 fail, 77 skip).  Same environment, sample counts and tolerances as
e2e.py: workloads run until they have the samples a check needs
(e2e.gather), shares are checked on at least NEED = 400 samples, within 5
standard deviations plus 2 points, against each workload's own measure of its CPU time per phase
(the construction is the ground truth: perf may not be allowed here)."""

import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import (NEED, PROFRUN, check_share, cpu_for, expect,  # noqa: E402
                 report_json, run, samples_of, wl)
import e2e  # noqa: E402
import mkprofile  # noqa: E402
from e2e_runs import gathered, profrun  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def module_samples(rep, base):
    return sum(f["samples"] for f in rep["functions"]
               if os.path.basename(f["module"]) == base)


def accounts_for_all(rep):
    s = rep["samples"]
    total = sum(f["samples"] for f in rep["functions"])
    expect(total == s["total"] == s["main"] + s["outside"],
           f"functions add up to {total}, samples are {s}")
    expect(s["outside"] == s["libraries"] + s["vdso"] + s["unknown"],
           f"the split does not add up: {s}")
    expect(sum(m["samples"] for m in rep["modules"]) == s["total"],
           f"modules add up to {sum(m['samples'] for m in rep['modules'])}")


def total_of(_, rep):
    """The samples a share of the whole is checked on: NEED in all."""
    return [(rep["samples"]["total"], NEED)]


LIBC = "libc.so.6"
COPY = re.compile(r"(memcpy|memmove|memset|__mem)")


@case
def libc_share_matches_construction(tmp):
    out, cp, rep = gathered(tmp, "c.prof", total_of, lambda s: (wl("libcopy"), f"{s:.2f}", "0.4"))
    m = re.match(r"libcopy: libc ([\d.]+) own ([\d.]+)", cp.stdout)
    expect(m is not None, f"workload output {cp.stdout!r}")
    libc_s, own_s = float(m.group(1)), float(m.group(2))
    accounts_for_all(rep)
    libc = module_samples(rep, LIBC)
    check_share(libc, rep["samples"]["total"], libc_s / (libc_s + own_s),
                "libc (memset+memcpy) vs the program's own loop")
    copy = sum(f["samples"] for f in rep["functions"]
               if os.path.basename(f["module"]) == LIBC and COPY.search(f["name"]))
    expect(copy >= 0.9 * libc, f"only {copy} of libc's {libc} samples in memcpy/memset: "
           f"{[f for f in rep['functions'] if f['module'].endswith(LIBC)][:5]}")
    text = run([PROFRUN, "report", out]).stdout
    expect(re.search(r"\d+ in libraries \(\d", text) and "libc.so.6" in text,
           f"text report lacks the split or the module column: {text}")


@case
def dlopened_library_is_named_with_its_module(tmp):
    # two rounds in the plugin and one in its own loop, a third of the CPU
    # seconds each
    out, cp, rep = gathered(tmp, "d.prof", total_of, lambda s: (wl("dlburn"), f"{s / 3:.2f}"))
    m = re.match(r"dlburn: plugin ([\d.]+) own ([\d.]+)", cp.stdout)
    expect(m is not None, f"dlopen by bare name through RUNPATH failed: {cp.stdout!r} {cp.stderr!r}")
    plugin_s, own_s = float(m.group(1)), float(m.group(2))
    accounts_for_all(rep)
    burn = [f for f in rep["functions"] if f["name"] == "plugin_burn"]
    expect(len(burn) == 1 and os.path.basename(burn[0]["module"]) == "libburnplugin.so",
           f"plugin_burn not named with its module: {rep['functions'][:5]}")
    expect(burn[0]["file"] and burn[0]["file"].endswith("plugin.c"),
           f"plugin_burn without its source: {burn[0]}")
    check_share(burn[0]["samples"], rep["samples"]["total"],
                plugin_s / (plugin_s + own_s), "plugin_burn vs main")
    expect(rep["samples"]["unknown"] <= 2, f"samples unknown: {rep['samples']}")


def raw_tables(member):
    """(samples_outside, PC counts, lost, unmapped, module ranges) of a file."""
    with open(member, "rb") as f:
        b = f.read()
    outside = struct.unpack_from("<Q", b, 248)[0]
    (pcs_off, slots, _probe, lost, mods_off, _mslots, mcount, _so, _ss, _ml,
     _gen, _vs, _vo, unmapped) = struct.unpack_from("<QIIQQIIQIIIIQQ", b, 280)
    pcs = [struct.unpack_from("<QQ", b, pcs_off + 16 * i) for i in range(slots)]
    mods = [struct.unpack_from("<QQ", b, mods_off + 112 * i) for i in range(mcount)]
    # the first samples are in the log (region kind 14), one key each:
    # those outside the histogram's range count as outside PCs
    text_start, text_end, bias = struct.unpack_from("<QQQ", b, 64)
    regions_off, nregions = struct.unpack_from("<QI", b, 384)
    for i in range(nregions):
        kind, _v, _f, off, size = struct.unpack_from("<IHHQQ", b, regions_off + 24 * i)
        if kind != 14:
            continue
        nslots, _flags, claimed = struct.unpack_from("<IIQ", b, off)
        nslots = nslots or (size - 32) // 8  # 0: as many as the region holds
        for j in range(min(nslots, claimed)):
            (k,) = struct.unpack_from("<Q", b, off + 32 + 8 * j)
            pc = k & ((1 << 48) - 1)
            if k and not text_start + bias <= pc < text_end + bias:
                pcs.append((k, 1))
    return outside, [(k, c) for k, c in pcs if k], lost, unmapped, mods


@case
def threads_in_libraries_lose_no_sample(tmp):
    # 8 threads, CPU time for some 1000 samples (6 s at a 250 Hz tick),
    # until at least 150 of them are in libraries
    out, _, rep = gathered(tmp, "t.prof", lambda _, rep: [(rep["samples"]["outside"], NEED * 3 / 8)],
                           lambda s: (wl("libthreads"), "8", f"{s:.2f}"), seconds=cpu_for(1000))
    accounts_for_all(rep)
    s = rep["samples"]
    for lib in (LIBC, "libm.so.6"):
        expect(module_samples(rep, lib) > 0, f"no samples in {lib}: {rep['modules']}")
    (member,) = os.listdir(out)
    outside, pcs, lost, unmapped, mods = raw_tables(os.path.join(out, member))
    expect(sum(c for _, c in pcs) + lost + unmapped == outside,
           f"table {sum(c for _, c in pcs)} + lost {lost} + unmapped {unmapped} "
           f"!= outside {outside}")
    torn = [hex(k) for k, _ in pcs
            if not any(a <= (k & (2**48 - 1)) < e for a, e in mods)]
    expect(not torn, f"PCs in no module: {torn[:8]}")
    expect(lost == 0 or "[PC table full]" in [f["name"] for f in rep["functions"]],
           "overflow not reported")
    expect(s["unknown"] == lost + unmapped, f"unknown {s['unknown']}")


@case
def module_filter_and_main_only(tmp):
    out, _ = profrun(tmp, "m.prof", wl("libcopy"), "1.0", "0.5")
    rep = report_json(out)
    only = report_json(out, "--module", LIBC)
    expect(only["functions"] and all(f["module"].endswith("/" + LIBC) for f in only["functions"]),
           f"--module {LIBC}: {only['functions'][:3]}")
    expect(only["samples"] == rep["samples"] and only["modules"] == rep["modules"],
           "--module changed the totals")
    main = report_json(out, "--main-only")
    expect(sum(f["samples"] for f in main["functions"]) == main["samples"]["main"],
           "--main-only: functions do not add up to samples.main")
    expect(all(f["module"] == main["processes"][0]["exe"] for f in main["functions"]),
           "--main-only lists other modules")
    text = run([PROFRUN, "report", "--main-only", out]).stdout
    expect("outside (" in text and LIBC not in text, f"--main-only text: {text}")


@case
def old_profiles_without_a_pc_table_still_add_up(tmp):
    path = os.path.join(tmp, "o.prof")
    args = dict(exe=wl("split"), recorded_exe=None, text=None, bucket_size=2,
                sample=[], symbol=["hot_a=40"], outside=9, state="exited", exit=0,
                flags=0, note="", cpu_ms=100, rate=1000, pid=7, ppid=1,
                build_id="auto", version=1, min_version=1)
    with open(path, "wb") as f:
        f.write(mkprofile.build(type("A", (), args)))
    rep = report_json(path)
    accounts_for_all(rep)
    f = {x["name"]: x["samples"] for x in rep["functions"]}
    expect(f == {"hot_a": 40, "[not recorded]": 9}, f"functions {f}")


def library_functions(rep):
    """{(module basename, function): samples} of the functions outside the
    main executable."""
    exe = rep["processes"][0]["exe"]
    out = {}
    for f in rep["functions"]:
        if f["module"] != exe:
            key = (os.path.basename(f["module"]), f["name"])
            out[key] = out.get(key, 0) + f["samples"]
    return out


@case
def merge_keeps_library_samples(tmp):
    runs = [profrun(tmp, f"r{i}.prof", wl("libcopy"), "0.4", "0.3")[0] for i in range(3)]
    reps = [report_json(r) for r in runs]
    merged = os.path.join(tmp, "m.prof")
    cp = run([PROFRUN, "merge", "-o", merged, *runs])
    expect(cp.returncode == 0, f"merge: {cp.stderr}")
    expect("[not recorded]" not in cp.stderr, f"merge drops library samples: {cp.stderr!r}")
    rep = report_json(merged)
    accounts_for_all(rep)
    for k in ("total", "main", "outside", "libraries", "vdso", "unknown"):
        want = sum(r["samples"][k] for r in reps)
        expect(rep["samples"][k] == want, f"samples.{k}: merged {rep['samples']}, "
               f"inputs {[r['samples'] for r in reps]}")
    want = {}
    for r in reps:
        for key, n in library_functions(r).items():
            want[key] = want.get(key, 0) + n
    got = library_functions(rep)
    expect(got == want, f"library functions differ: merged {sorted(got.items())[:8]}, "
           f"summed {sorted(want.items())[:8]}")
    expect(module_samples(rep, LIBC) >= 1 and "[not recorded]" not in
           {f["name"] for f in rep["functions"]}, f"functions {rep['functions'][:6]}")
    again = os.path.join(tmp, "mm.prof")
    cp = run([PROFRUN, "merge", "-o", again, merged, runs[0]])
    expect(cp.returncode == 0, f"merge of a merged profile: {cp.stderr}")
    twice = library_functions(report_json(again))
    for key, n in library_functions(reps[0]).items():
        want[key] = want.get(key, 0) + n
    expect(twice == want, "merging a merged profile again is not exact")


@case
def pprof_maps_every_module_and_gmon_says_main_only(tmp):
    out, _ = profrun(tmp, "p.prof", wl("libcopy"), "1.0", "0.5")
    rep = report_json(out)
    gm = subprocess.run([PROFRUN, "report", "--format", "gmon", "-o",
                         os.path.join(tmp, "gmon.out"), out], capture_output=True, text=True)
    expect(gm.returncode == 0 and "main executable only" in gm.stderr,
           f"gmon export does not say it is main-only: {gm.stderr!r}")
    import e2e_ci  # noqa: E402  (protoc decoding)
    data = e2e_ci.export(out, "pprof")
    text = e2e_ci.protoc_decode(data)
    files = set(re.findall(r'string_table: "([^"]*libc\.so\.6)"', text))
    expect(files, "no libc mapping in the pprof export")
    maps = text.count("mapping {")
    expect(maps >= 2, f"{maps} mappings")
    values = [int(v) for v in re.findall(r"value: (\d+)\n\s*value: \d+", text)]
    expect(sum(values) == rep["samples"]["total"],
           f"pprof samples {sum(values)}, report {rep['samples']['total']}")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "e2e_libs.py"))
