/* SPDX-License-Identifier: MIT */
/* Demangling C++ and Rust symbol names (libiberty's demangler). */
#ifndef PROFRUN_CLI_DEMANGLE_H
#define PROFRUN_CLI_DEMANGLE_H

/* The demangled form of SYM (namespaces, templates, argument lists), in a
 * new string, or NULL when SYM is not a C++ or Rust mangled name (or out
 * of memory). */
char *demangle(const char *sym);

#endif /* PROFRUN_CLI_DEMANGLE_H */
