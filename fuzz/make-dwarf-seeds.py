#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seeds of fuzz-dwarf (docs/fuzzing.md) from fuzz/dwarf-seed.c.

usage: make-dwarf-seeds.py [OUTDIR]     (default: fuzz/corpus/dwarf)

Needs gcc (DWARF 5 by default since gcc 11) and binutils.  Each seed is a
small ELF file built without the C library, with the sections profrun
never reads removed, followed by the 16 32-bit words fuzz-dwarf takes
addresses from (offsets from the start of the code):

  real-exec-dwarf5      gcc -O2 -g, a static executable
  real-shared-dwarf5    the same as a shared library (addresses from 0)
  real-exec-dwarf4      -gdwarf-4: .debug_ranges instead of .debug_rnglists
  crafted-repeated-ranges
                        gcc -S, then every range list of .debug_rnglists
                        (those of the unit, of the subprogram seed_churn,
                        of its lexical blocks and of the inlined
                        subroutines) holds its ranges 4 times, then once
                        more shifted by a byte (overlapping): the input
                        that overflowed the scope walk's buffer
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "dwarf-seed.c"  # compiled in HERE, which the DWARF calls:
PREFIX = f"-fdebug-prefix-map={HERE}=/src/profrun/fuzz"
CFLAGS = ["-O2", "-g", PREFIX, "-nostdlib", "-fno-stack-protector"]
LDFLAGS = ["-Wl,--build-id=none", "-Wl,-z,noseparate-code",
           "-Wl,-z,max-page-size=0x1000", "-Wl,-z,norelro"]
DROP = [".comment", ".debug_loclists", ".debug_loc", ".note.gnu.property"]
# the tail: offsets spread over the code, some past its end
TAIL = struct.pack("<16I", *[7 + i * 0x3b for i in range(15)] + [0xfffffff0])


def run(*cmd):
    subprocess.run(cmd, check=True, cwd=HERE)


def finish(binary, out):
    """Drop what profrun never reads, append the tail, write OUT."""
    args = ["objcopy"]
    for s in DROP:
        args += ["--remove-section", s]
    run(*args, binary)
    with open(binary, "rb") as f:
        data = f.read()
    with open(out, "wb") as f:
        f.write(data + TAIL)
    print(f"{out}: {len(data) + len(TAIL)} bytes")


def repeat_ranges(asm):
    """Each range list of .debug_rnglists: its entries 4 times, then once
    shifted by one byte, then the end of the list."""
    out, entries, in_list = [], [], False
    for line in asm.splitlines():
        if re.match(r"\.LLRL\d+:", line):
            in_list, entries = True, []
            out.append(line)
            continue
        if in_list and "DW_RLE_end_of_list" in line:
            out += entries * 4 + shifted(entries) + [line]
            in_list = False
            continue
        (entries if in_list else out).append(line)
    return "\n".join(out) + "\n"


def shifted(entries):
    """ENTRIES with each range moved one byte up: a base address stays, a
    start (start_length, start_end) or offset pair moves."""
    res = []
    for line in entries:
        m = re.match(r"(\s+\.(?:quad|uleb128)\s+)(\S+)(\s+# Range (?:begin|end) address.*)", line)
        res.append(f"{m.group(1)}({m.group(2)})+1{m.group(3)}" if m else line)
    return res


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus", "dwarf")
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        def build(name, extra):
            b = os.path.join(tmp, name)
            run("gcc", *CFLAGS, *extra, *LDFLAGS, "-o", b, SOURCE)
            finish(b, os.path.join(outdir, name))

        build("real-exec-dwarf5", ["-gdwarf-5", "-static", "-no-pie"])
        build("real-shared-dwarf5", ["-gdwarf-5", "-shared", "-fPIC"])
        build("real-exec-dwarf4", ["-gdwarf-4", "-static", "-no-pie"])

        s = os.path.join(tmp, "crafted.s")
        run("gcc", *CFLAGS, "-gdwarf-5", "-dA", "-S", "-o", s, SOURCE)
        with open(s) as f:
            asm = f.read()
        crafted = repeat_ranges(asm)
        assert crafted.count("DW_RLE_") > asm.count("DW_RLE_") * 4
        with open(s, "w") as f:
            f.write(crafted)
        b = os.path.join(tmp, "crafted-repeated-ranges")
        run("gcc", "-nostdlib", "-static", "-no-pie", *LDFLAGS, "-o", b, s)
        finish(b, os.path.join(outdir, "crafted-repeated-ranges"))


if __name__ == "__main__":
    main()
