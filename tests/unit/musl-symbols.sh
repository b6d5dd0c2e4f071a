#!/bin/sh
# The musl shim exports exactly the interposers listed in
# musl-shim-symbols.txt, each a function musl's libc exports too (a program
# built with musl can call it; profrun_control is the shim's own API), and
# needs nothing that musl's libc does not define (no glibc-only name, no
# glibc symbol version).
# usage: musl-symbols.sh LIBPROFRUN-MUSL.so EXPECTED-LIST MUSL-PROGRAM
command -v nm >/dev/null 2>&1 || exit 77
command -v readelf >/dev/null 2>&1 || exit 77
shim=$1 list=$2 prog=$3
libc=$(readelf -l "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
case $libc in
*ld-musl*) ;;
*) echo "$prog: not a musl program (interpreter '$libc')"; exit 1 ;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$shim" | awk '{ print $3 }' | LC_ALL=C sort >"$tmp/ours"
nm -D --defined-only "$libc" | awk '{ print $3 }' | LC_ALL=C sort -u >"$tmp/musl"
diff -u "$list" "$tmp/ours" || exit 1
extra=$(LC_ALL=C comm -23 "$tmp/ours" "$tmp/musl" | grep -vx profrun_control)
if [ -n "$extra" ]; then
	echo "exported, but not a function of musl's libc:" $extra
	exit 1
fi
nm -D --undefined-only "$shim" | awk '{ print $2 }' >"$tmp/needs"
if grep '@' "$tmp/needs"; then
	echo "symbol versions of another C library needed (above)"
	exit 1
fi
missing=$(LC_ALL=C sort -u "$tmp/needs" | LC_ALL=C comm -23 - "$tmp/musl" | grep -v '^_ITM_\|^__gmon_start__$\|^_Jv_RegisterClasses$')
if [ -n "$missing" ]; then
	echo "needed, but not defined by musl's libc:" $missing
	exit 1
fi
exit 0
