#!/bin/sh
# The shim exports exactly the interposers listed in shim-symbols.txt:
# nothing else may shadow a symbol of the profiled program.
# usage: symbols-leak.sh LIBPROFRUN.so EXPECTED-LIST
command -v nm >/dev/null 2>&1 || exit 77
nm -D --defined-only "$1" | awk '{ print $3 }' | LC_ALL=C sort | diff -u "$2" - || exit 1
