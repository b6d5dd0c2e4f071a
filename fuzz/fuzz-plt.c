/* SPDX-License-Identifier: MIT */
/*
 * Harness: the PLT decoder (plt_entries in cli/symbols/plt.c) on any bytes read as
 * an ELF file, as a hostile executable or library named by a profile
 * would be.  Besides memory errors it checks what the symbolizer relies
 * on: each entry is one PLT slot long, lies where its section says, and is
 * named "NAME@plt" with a non-empty NAME.
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plt.h"
#include "fuzz.h"

static void
check_entry(const struct plt_entry *e)
{
	size_t len;

	fuzz_assert(e->name != NULL, "entry without a name");
	len = strlen(e->name);
	fuzz_assert(len > 4 && strcmp(e->name + len - 4, "@plt") == 0,
		    "name without @plt, or with an empty NAME");
	fuzz_assert(e->end - e->start == 8 || e->end - e->start == 16,
		    "entry is not one PLT slot long");
	fuzz_assert(e->end > e->start, "entry wraps around");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct plt_entry *v;
	size_t n, i;
	char *copy;
	Elf *elf;
	int fd;

	if (!ready) {
		elf_version(EV_CURRENT);
		ready = 1;
	}
	/* libelf may convert a foreign byte order in place: its own copy */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	/* the same bytes as a file, which the relocations are read from */
	fd = memfd_create("fuzz-plt", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	elf = elf_memory(copy, size);
	if (elf && plt_entries(elf, fd, &v, &n) == 0) {
		for (i = 0; i < n; i++)
			check_entry(&v[i]);
		plt_entries_free(v, n);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(copy);
	return 0;
}
