#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The exports of call stacks, read by the programs they are for: pprof
through protoc, gmon.out through gprof -q, the flame graph page through
headless Chromium.  tests/unit-stacks writes them from stacks built by
hand: fx_leaf called through fx_caller_a (300 samples, fx_helper inlined
into it) and fx_caller_b (100), fx_rec recursing (50), and more.

Usage: stacks_formats.py CASE  (exit 0 pass, 1 fail, 77 skip).
Environment: UNIT_STACKS (the unit-stacks binary), PROFILE_PROTO."""

import codecs
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import e2e  # noqa: E402
import e2e_ci  # noqa: E402  (protoc decoding)
from e2e import expect, run  # noqa: E402

UNIT_STACKS = os.environ.get("UNIT_STACKS", "unit-stacks")
CASES = {}


def case(fn):
    CASES[fn.__name__.replace("_", "-")] = fn
    return fn


def exports(tmp):
    cp = run([UNIT_STACKS, "write", tmp])
    expect(cp.returncode == 0, f"unit-stacks write: {cp.stderr}")
    return lambda name: os.path.join(tmp, name)


def string_table(text):
    """protoc's string_table lines, C escapes (octal UTF-8 bytes) undone."""
    return [codecs.escape_decode(m.encode())[0].decode("utf-8", "replace")
            for m in re.findall(r'^string_table: "(.*)"$', text, re.M)]


@case
def pprof_stacks_decode_with_protoc(tmp):
    path = exports(tmp)
    with open(path("stacks.pb.gz"), "rb") as f:
        text = e2e_ci.protoc_decode(f.read())
    strings = string_table(text)
    funcs = {b["id"][0]: strings[int(b["name"][0])] for b in e2e_ci.proto_blocks(text, "function")}
    locs = {b["id"][0]: b for b in e2e_ci.proto_blocks(text, "location")}
    samples = e2e_ci.proto_blocks(text, "sample")
    expect(len(samples) == 7, f"{len(samples)} samples, not one per stack")
    stacks = {}
    for s in samples:
        names = []
        for loc in s["location_id"]:
            names.append("+".join(funcs[i] for i in locs[loc].get("line.function_id", [])))
        stacks[";".join(names)] = int(s["value"][0])
    # leaf first; the inlined helper is the first line of the leaf's location
    expect(stacks.get("fx_helper+fx_leaf;fx_caller_a;fx_main") == 300, f"stacks {stacks}")
    expect(stacks.get("fx_leaf;fx_caller_b;fx_main") == 100, f"stacks {stacks}")
    expect(stacks.get("fx_rec;fx_rec;fx_rec;fx_main") == 50, f"stacks {stacks}")
    expect(sum(stacks.values()) == 500, f"stacks {stacks}")
    expect("odd;name\nx</script>\u2028" in strings, "an awkward name changed on its way")
    main_map = [b for b in e2e_ci.proto_blocks(text, "mapping")
                if strings[int(b["filename"][0])] == os.path.realpath(UNIT_STACKS)]
    expect(main_map, "no mapping of the executable")
    start, limit = int(main_map[0]["memory_start"][0]), int(main_map[0]["memory_limit"][0])
    mapped = [int(b["address"][0]) for b in locs.values() if b.get("mapping_id") == main_map[0]["id"]]
    expect(mapped and all(start <= a < limit for a in mapped), "a location outside its mapping")


@case
def gprof_prints_the_call_graph_from_arcs(tmp):
    if not shutil.which("gprof"):
        sys.exit(77)
    path = exports(tmp)
    cp = run(["gprof", "-q", "-b", UNIT_STACKS, path("gmon.out")], cwd=tmp)
    expect(cp.returncode == 0, f"gprof: {cp.stderr}")
    out = cp.stdout
    # fx_leaf's entry: called 300/400 times from fx_caller_a, 100/400 from fx_caller_b
    expect(re.search(r"\s300/400\s+fx_caller_a \[\d+\]", out), f"gprof -q:\n{out}")
    expect(re.search(r"\s100/400\s+fx_caller_b \[\d+\]", out), f"gprof -q:\n{out}")
    expect(re.search(r"^\[\d+\]\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+400\s+fx_leaf \[\d+\]", out, re.M),
           f"gprof -q:\n{out}")
    expect(re.search(r"\s50\+50\s+fx_rec \[\d+\]", out), f"recursion in gprof -q:\n{out}")


dump_dom = e2e.dump_dom


def drawn(dom):
    m = re.search(r'<pre id="drawn"[^>]*>(.*?)</pre>', dom, re.S)
    expect(m, "the page drew nothing (no #drawn)")
    return set(m.group(1).split("\n"))


def attr(dom, name):
    m = re.search(name + r'="(\d+)"', dom)
    expect(m, f"no {name} on the page's body")
    return int(m.group(1))


@case
def flame_graph_drawn_in_headless_chromium(tmp):
    path = exports(tmp)
    dom = dump_dom(tmp, path("flame.html"))
    names = drawn(dom)
    for f in ("all", "fx_main", "fx_caller_a", "fx_caller_b", "fx_leaf", "fx_helper", "fx_rec"):
        expect(f in names, f"{f} not drawn: {sorted(names)}")
    expect(attr(dom, "data-drawn-frames") >= 12, "too few frames drawn")
    # a name holding "</script>" and U+2028 neither ends the data early nor
    # breaks it: the data up to the first "</script>" is whole
    with open(path("flame.html"), encoding="utf-8") as f:
        page = f.read()
    data = json.loads(page.split('id="profrun-data">')[1].split("</script>")[0])
    expect("odd;name\nx</script>\u2028" in data["names"], f"names {data['names']}")
    # search: the matched share counts nested matches once
    dom = dump_dom(tmp, path("flame.html"), "#search=fx_(leaf|helper)")
    expect(attr(dom, "data-matched") == 400, "search matched share")
    # zoom on fx_caller_b: its subtree and its ancestors only
    names = drawn(dump_dom(tmp, path("flame.html"), "#zoom=fx_caller_b"))
    expect(names == {"all", "fx_main", "fx_caller_b", "fx_leaf"}, f"zoomed: {sorted(names)}")
    # no stacks at all, a 1000-frame stack, 400,000 samples
    expect(drawn(dump_dom(tmp, path("empty.html"))) == {"all"}, "empty page")
    names = drawn(dump_dom(tmp, path("deep.html")))
    expect("deep_999" in names and "deep_0" in names, "deep stack not drawn to its leaf")
    dom = dump_dom(tmp, path("big.html"))
    expect(attr(dom, "data-drawn-frames") > 500, "large profile barely drawn")


if __name__ == "__main__":
    sys.exit(e2e.main(CASES, "stacks_formats.py"))
