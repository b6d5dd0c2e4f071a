/* SPDX-License-Identifier: MIT */
/*
 * Runs a harness over saved inputs without libFuzzer, so that every build
 * (gcc, sanitizers, valgrind) replays the seed corpus and the inputs of
 * crashes found earlier:  fuzz-replay-NAME FILE-OR-DIR...
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define INPUT_MAX (64u << 20)

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long size;
	size_t got;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    size > (long)INPUT_MAX || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path,
			f ? "unreadable or too large" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(size > 0 ? (size_t)size : 1);
	got = buf ? fread(buf, 1, (size_t)size, f) : 0;
	fclose(f);
	if (!buf || got != (size_t)size) {
		fprintf(stderr, "replay: %s: short read\n", path);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, got);
	free(buf);
	return 0;
}

/* Every regular file of DIR, in name order; returns files replayed or -1. */
static int
replay_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), done = 0, i;
	char *path;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' &&
		    asprintf(&path, "%s/%s", dir, names[i]->d_name) >= 0) {
			done += replay_file(path) == 0;
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int
main(int argc, char **argv)
{
	struct stat st;
	int total = 0, n, i;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? replay_dir(argv[i])
					: (replay_file(argv[i]) == 0 ? 1 : -1);
		if (n < 0)
			return 1;
		total += n;
	}
	printf("replayed %d inputs\n", total);
	return total > 0 ? 0 : 1;
}
