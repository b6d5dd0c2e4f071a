/* SPDX-License-Identifier: MIT */
/* A minimal protocol buffers encoder and string table for the pprof
 * export. */
#ifndef PROFRUN_CLI_PPROF_ENCODE_H
#define PROFRUN_CLI_PPROF_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer; OOM is sticky and checked once at the end. */
struct pbuf {
	uint8_t *d;
	size_t n, cap;
	bool oom;
};

void pbuf_fini(struct pbuf *b);

/* Field NUM as a varint (wire type 0); zero is left out, as in proto3. */
void pb_uint(struct pbuf *b, int num, uint64_t v);
/* Field NUM with wire type 2 (bytes, string or embedded message). */
void pb_bytes(struct pbuf *b, int num, const void *data, size_t len);
void pb_message(struct pbuf *b, int num, const struct pbuf *msg);
/* Field NUM as packed repeated varints. */
void pb_packed(struct pbuf *b, int num, const uint64_t *v, size_t n);
/* Append the raw bytes of SRC. */
void pb_append(struct pbuf *b, const struct pbuf *src);

/* Interned strings: index of S, added on first use (index 0 is ""). */
struct strtab {
	char **v;
	size_t n, cap;
	size_t *slots; /* open addressing, index + 1; 0 = free */
	size_t nslots;
	bool oom;
};

void strtab_init(struct strtab *t);
void strtab_fini(struct strtab *t);
uint64_t strtab_index(struct strtab *t, const char *s);
/* Every string as field NUM, in index order. */
void strtab_encode(const struct strtab *t, struct pbuf *b, int num);

/* Gzip DATA (no name, no timestamp) into the empty OUT; 0 or -1. */
int gzip_buffer(const struct pbuf *data, struct pbuf *out);

#endif /* PROFRUN_CLI_PPROF_ENCODE_H */
