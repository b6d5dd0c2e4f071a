/* SPDX-License-Identifier: MIT */
/* System-call sites in a module's code (syscall-site.h). */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "syscall-site.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif
#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/* An executable section: its link-time extent and where its bytes are in
 * the file. */
struct code_section {
	uint64_t addr, size;
	uint64_t off; /* in the file */
};

static int
add_section(struct code_bytes *c, const GElf_Shdr *sh, Elf_Data *d)
{
	struct code_section *v;

	if (d == NULL || d->d_buf == NULL || d->d_size == 0)
		return 0;
	v = realloc(c->v, (c->n + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	c->v = v;
	c->v[c->n++] =
		(struct code_section){sh->sh_addr, d->d_size, sh->sh_offset};
	return 0;
}

int
code_bytes_load(struct code_bytes *c, Dwfl_Module *mod, int fd)
{
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (elf == NULL || fd < 0 || gelf_getehdr(elf, &eh) == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	c->fd = fd;
	c->machine = eh.e_machine;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		/* the section's data, only to know it is there: its bytes
		 * are read from the file where samples fell */
		if (add_section(c, &sh, elf_getdata(scn, NULL)) < 0)
			return -1;
	}
	return 0;
}

void
code_bytes_fini(struct code_bytes *c)
{
	free(c->v);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Bytes [OFF, OFF + N) of section S, through the window; NULL when they
 * cannot be read. */
static const uint8_t *
section_bytes(struct code_bytes *c, const struct code_section *s, uint64_t off,
	      uint64_t n)
{
	struct code_window *w = &c->window;
	uint64_t from, len;
	ssize_t got;

	if (w->s == s && off >= w->off && off + n <= w->off + w->len)
		return w->buf + (off - w->off);
	/* the samples come in address order: read ahead of this one */
	from = off > 16 ? off - 16 : 0;
	len = s->size - from < sizeof(w->buf) ? s->size - from : sizeof(w->buf);
	w->s = NULL;
	if (s->off > UINT64_MAX - from)
		return NULL;
	got = pread(c->fd, w->buf, (size_t)len, (off_t)(s->off + from));
	if (got < 0 || (uint64_t)got < off - from + n)
		return NULL;
	w->s = s;
	w->off = from;
	w->len = (uint64_t)got;
	return w->buf + (off - from);
}

/* The N bytes ending just before link-time PC, or NULL. */
static const uint8_t *
bytes_before(struct code_bytes *c, uint64_t pc, uint64_t n)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct code_section *s = &c->v[i];

		if (pc >= s->addr + n && pc - s->addr <= s->size)
			return section_bytes(c, s, pc - s->addr - n, n);
	}
	return NULL;
}

static bool
after_syscall(struct code_bytes *c, uint64_t pc)
{
	static const uint8_t svc0[4] = {0x01, 0x00, 0x00, 0xd4};
	static const uint8_t ecall[4] = {0x73, 0x00, 0x00, 0x00};
	const uint8_t *b;

	switch (c->machine) {
	case EM_X86_64:
		b = bytes_before(c, pc, 2);
		return b && b[0] == 0x0f && b[1] == 0x05;
	case EM_AARCH64:
		b = bytes_before(c, pc, 4);
		return b && memcmp(b, svc0, 4) == 0;
	case EM_RISCV: /* ecall has no compressed form */
		b = bytes_before(c, pc, 4);
		return b && memcmp(b, ecall, 4) == 0;
	default:
		return false;
	}
}

bool
code_after_syscall(struct code_bytes *c, uint64_t addr, uint64_t granule)
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
