/* SPDX-License-Identifier: MIT */
/*
 * Demangling with libiberty, the demangler of binutils and GCC: the Itanium
 * C++ ABI (cplus_demangle_v3) and both Rust manglings, legacy and v0
 * (rust_demangle).  Only cp-demangle.o, rust-demangle.o and safe-ctype.o
 * of the static libiberty.a are linked in; the two demanglers carry
 * libiberty's unlimited linking exception.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"

char *
demangle(const char *sym)
{
	char *s;

	if (sym[0] != '_')
		return NULL; /* neither _Z (C++, legacy Rust) nor _R (Rust v0) */
	/* legacy Rust names are valid C++ names too: ask Rust first, it
	 * accepts only names that end in its hash */
	s = rust_demangle(sym, DMGL_PARAMS | DMGL_ANSI);
	if (!s)
		s = cplus_demangle_v3(sym, DMGL_PARAMS | DMGL_ANSI);
	return s;
}
