/* SPDX-License-Identifier: MIT */
/* System-call sites in a module's code (syscall-site.h). */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "syscall-site.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

struct code_section {
	uint64_t addr, size;
	const uint8_t *data; /* libelf's, valid while the module is */
};

static int
add_section(struct code_bytes *c, uint64_t addr, Elf_Data *d)
{
	struct code_section *v;

	if (d == NULL || d->d_buf == NULL || d->d_size == 0)
		return 0;
	v = realloc(c->v, (c->n + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	c->v = v;
	c->v[c->n++] = (struct code_section){addr, d->d_size, d->d_buf};
	return 0;
}

int
code_bytes_load(struct code_bytes *c, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	memset(c, 0, sizeof(*c));
	if (elf == NULL || gelf_getehdr(elf, &eh) == NULL)
		return 0;
	c->machine = eh.e_machine;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (add_section(c, sh.sh_addr, elf_getdata(scn, NULL)) < 0)
			return -1;
	}
	return 0;
}

void
code_bytes_fini(struct code_bytes *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* The N bytes ending just before link-time PC, or NULL. */
static const uint8_t *
bytes_before(const struct code_bytes *c, uint64_t pc, uint64_t n)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct code_section *s = &c->v[i];

		if (pc >= s->addr + n && pc - s->addr <= s->size)
			return s->data + (pc - s->addr - n);
	}
	return NULL;
}

static bool
after_syscall(const struct code_bytes *c, uint64_t pc)
{
	static const uint8_t svc0[4] = {0x01, 0x00, 0x00, 0xd4};
	const uint8_t *b;

	switch (c->machine) {
	case EM_X86_64:
		b = bytes_before(c, pc, 2);
		return b && b[0] == 0x0f && b[1] == 0x05;
	case EM_AARCH64:
		b = bytes_before(c, pc, 4);
		return b && memcmp(b, svc0, 4) == 0;
	default:
		return false;
	}
}

bool
code_after_syscall(const struct code_bytes *c, uint64_t addr, uint64_t granule)
{
	if (c->n == 0)
		return false;
	if (granule == 0)
		granule = 1;
	for (uint64_t k = 0; k < granule && addr + k >= addr; k++)
		if (after_syscall(c, addr + k))
			return true;
	return false;
}
