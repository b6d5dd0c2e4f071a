# SPDX-License-Identifier: MIT
"""A generated C project for profiling whole builds: FILES source files of
FUNCS functions each, compiled one by one and linked into PROGRAMS
executables by a Makefile (`make -jN` builds it).  Used by the e2e test of
whole builds and by bench/build.py, so both build the same project."""

import os

MAKEFILE = """\
CC ?= cc
CFLAGS ?= -O2
PROGS = {progs}
all: $(PROGS)
{links}
%.o: %.c
\t$(CC) $(CFLAGS) -c $< -o $@
clean:
\trm -f *.o $(PROGS)
"""


def source(i, funcs):
    """One file: FUNCS functions of some arithmetic and branching, each
    different, so that the compiler has real work."""
    out = [f"/* generated file {i} */", "#include <stdint.h>"]
    for j in range(funcs):
        out.append(f"""
uint64_t f{i}_{j}(uint64_t x)
{{
	uint64_t s = {i * 131 + j};
	for (int k = 0; k < {8 + j % 5}; k++) {{
		if ((x ^ k) & {1 + j % 7})
			s = s * 6364136223846793005u + x + k;
		else
			s ^= (s >> {1 + j % 13}) + (uint64_t)k * {j + 3};
		switch ((s >> 7) & 3) {{
		case 0: s += {i}; break;
		case 1: s -= x; break;
		case 2: s ^= x << {j % 9}; break;
		default: s = ~s; break;
		}}
	}}
	return s;
}}""")
    return "\n".join(out) + "\n"


def main_source(p, files):
    calls = "\n".join(f"\tuint64_t f{i}_0(uint64_t);" for i in range(files))
    sums = "\n".join(f"\ts += f{i}_0(s);" for i in range(files))
    return (f"#include <stdint.h>\n#include <stdio.h>\n{calls}\n"
            f"int main(void)\n{{\n\tuint64_t s = {p};\n{sums}\n"
            f"\tprintf(\"%llu\\n\", (unsigned long long)s);\n\treturn 0;\n}}\n")


def generate(root, files=24, funcs=40, programs=3, heavy=None):
    """Write the project into ROOT (created); returns ROOT.  HEAVY maps a
    file's index to its number of functions, for files that take longer
    to compile than the others."""
    heavy = heavy or {}
    os.makedirs(root, exist_ok=True)
    objs = " ".join(f"src{i}.o" for i in range(files))
    links, progs = [], []
    for p in range(programs):
        progs.append(f"prog{p}")
        links.append(f"prog{p}: main{p}.o {objs}\n\t$(CC) -o $@ main{p}.o {objs}")
        with open(os.path.join(root, f"main{p}.c"), "w") as f:
            f.write(main_source(p, files))
    for i in range(files):
        with open(os.path.join(root, f"src{i}.c"), "w") as f:
            f.write(source(i, heavy.get(i, funcs)))
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write(MAKEFILE.format(progs=" ".join(progs), links="\n".join(links)))
    return root
