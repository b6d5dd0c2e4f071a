#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of the fuzz harnesses (docs/fuzzing.md).

usage: make-corpus.py SPLIT_BINARY REAL_MEMBER...

REAL_MEMBER are member files of real runs (the shim's own output); they
are copied as they are.  The members that claim far more than they hold
(read by the profile harness as sparse files) go to regressions/profile.  Small members crafted with tests/e2e/mkprofile.py
(a 4-slot wrap table, a short text range, a 16-bit wrap, a note) join them,
since a fuzzer mutates a 1 KiB input far faster than a 66 KiB one.  The
merge corpus is an option byte followed by several members.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import mkprofile  # noqa: E402


def crafted(split, **kw):
    args = dict(exe=split, recorded_exe="/usr/bin/split", text=(0x1000, 0x1100),
                bucket_size=2, sample=[], symbol=[], outside=0,
                state="exited", exit=0, flags=0, note="", cpu_ms=10,
                rate=1000, pid=100, ppid=1, build_id="", version=1,
                min_version=1)
    args.update(kw)
    return mkprofile.build(type("A", (), args))


def with_log(member, keys):
    """MEMBER with a region list after it naming a sample log (kind 14,
    required) of KEYS, as the shim writes its first samples."""
    buf = bytearray(member)
    regions_off = len(buf)
    log_off = regions_off + 2 * 24
    log = struct.pack("<IIQ16x", 0, 0, len(keys)) + struct.pack("<%dQ" % len(keys), *keys)
    buf += struct.pack("<IHHQQ", 14, 1, 1, log_off, len(log))
    buf += struct.pack("<IHHQQ", 9, 1, 0, regions_off, 2 * 24)
    buf += log
    struct.pack_into("<Q", buf, 16, len(buf))              # file_size
    total, outside = struct.unpack_from("<QQ", buf, 240)   # samples_total, outside
    out = sum(1 for k in keys if not 0x1000 <= k & (2**48 - 1) < 0x1100)
    struct.pack_into("<QQ", buf, 240, total + len(keys), outside + out)
    struct.pack_into("<QI", buf, 384, regions_off, 2)      # regions_off, region_count
    return bytes(buf)


def with_region(member, kind, body, claimed=None):
    """MEMBER with a region list after it naming one region of KIND (layout
    version 1) holding BODY; with CLAIMED, the region and the file claim
    that many bytes for it, BODY only at its start (the harness reads such
    an input as a sparse file of the size claimed)."""
    buf = bytearray(member)
    regions_off = len(buf)
    off = regions_off + 2 * 24
    size = claimed if claimed else len(body)
    buf += struct.pack("<IHHQQ", kind, 1, 0, off, size)
    buf += struct.pack("<IHHQQ", 9, 1, 0, regions_off, 2 * 24)
    buf += body
    struct.pack_into("<Q", buf, 16, max(len(buf), off + size))  # file_size
    struct.pack_into("<QI", buf, 384, regions_off, 2)  # regions_off, count
    return bytes(buf)


def stack_area(slot_size, slots, offered, stack=b"\x11" * 64):
    """A stack area head (x86-64, 17 registers) and SLOTS slots of one
    committed stack each (of at most SLOT_SIZE bytes)."""
    head = struct.pack("<6I3Q16x", slot_size, slots, 64, 62, 17, 0,
                       offered, 0, 0)
    slot = struct.pack("<IiIIIIQQ17Q24x", 1, 100, len(stack), 0, 1, 0, 0,
                       0x7ffc0000, *([0x1010] * 17)) + stack
    slot += bytes(max(0, min(slot_size, 4096) - len(slot)))
    return head + slot * slots


def claiming(base):
    """Members that claim far more than they hold (in holes): a 4 GiB stack
    slot, a sample log of 2^24 slots, 512 MiB of unwound stacks."""
    log = struct.pack("<IIQ16x", 1 << 24, 0, 1 << 24) + struct.pack("<Q", 0x1010 | 1 << 48)
    frames = struct.pack("<IIQQ24x", 1, 64, 1, 1) + struct.pack("<IHH", 1, 1, 0) + struct.pack("<Q", 0x1010)
    return {
        "stack-slot-of-4GiB-in-a-sparse-member":
            with_region(base, 10, stack_area(0xFFFFFFC0, 1, 1),
                        64 + 0xFFFFFFC0),
        "sample-log-of-16M-slots-in-a-sparse-member":
            with_region(base, 14, log, 32 + 8 * (1 << 24)),
        "unwound-stacks-of-512MiB-in-a-sparse-member":
            with_region(base, 12, frames, 512 << 20),
    }


def main():
    split, real = sys.argv[1], sys.argv[2:]
    mkprofile.WRAP_SLOTS = 4
    small = {
        "small-exited": crafted(split, sample=["0x1010=7", "0x1012=1"]),
        "small-wrap": crafted(split, sample=["0x1020=70000"], outside=3),
        "small-running-note": crafted(split, state="running", pid=101,
                                      note="stopped early", flags=32,
                                      sample=["0x10fe=2"]),
        "small-bucket8": crafted(split, bucket_size=8, pid=102,
                                 sample=["0x1008=5"]),
    }
    small["small-stacks"] = with_region(small["small-exited"], 10,
                                        stack_area(320, 2, 2))
    small["small-log"] = with_log(small["small-exited"],
                                  [0x1010 | 1 << 48, 0x1012 | 1 << 48,
                                   0x7f0000001000 | 1 << 48, 0x1010 | 1 << 48])
    out = os.path.join(HERE, "corpus")
    prof = {}
    for path in real:
        with open(path, "rb") as f:
            name = os.path.basename(os.path.dirname(path)).replace(".prof", "")
            prof["real-" + name] = f.read()
    prof.update(small)
    for name, data in prof.items():
        with open(os.path.join(out, "profile", name), "wb") as f:
            f.write(data)
    for name, data in claiming(small["small-exited"]).items():
        with open(os.path.join(HERE, "regressions", "profile", name), "wb") as f:
            f.write(data)
    merges = {
        "small-three": b"\x00" + small["small-exited"] + small["small-wrap"]
        + small["small-running-note"],
        "small-json-by-process": b"\x06" + small["small-exited"]
        + small["small-bucket8"],
        "small-force-top-pid": b"\x19" + small["small-wrap"]
        + small["small-exited"],
    }
    reals = [v for k, v in prof.items() if k.startswith("real-")]
    if len(reals) >= 2:
        merges["real-two"] = b"\x01" + reals[0] + reals[1]
    for name, data in merges.items():
        with open(os.path.join(out, "merge", name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
