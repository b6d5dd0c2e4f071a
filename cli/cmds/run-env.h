/* SPDX-License-Identifier: MIT */
/* The program's LD_PRELOAD, kept apart from profrun's own (run-env.c). */
#ifndef PROFRUN_RUN_ENV_H
#define PROFRUN_RUN_ENV_H

/* `profrun PROGRAM`, before any constructor runs: when LD_PRELOAD holds
 * something of the user's, start profrun again without it (a profrun shim
 * in it stays), noting it in the environment for the program.  Returns
 * when there is nothing to set aside, or the new start failed.  ARGV is
 * main's. */
void run_env_restart(char **argv);

/* At the start of main: take what run_env_restart set aside, and clear
 * its notes from the environment. */
void run_env_take_aside(void);

/* Let a program built with -fsanitize=address, or one it starts, start
 * with the shim preloaded: verify_asan_link_order=0 added to ASAN_OPTIONS
 * unless the user set that flag.  Returns 0 or -1. */
int run_env_sanitizers(void);

/* Set NAME to ITEM appended to the ':' list OLD (NULL or empty: none).
 * Returns 0 or -1. */
int run_env_append(const char *name, const char *old, const char *item);

/* The LD_PRELOAD the user meant for the program, or NULL. */
const char *run_env_user_preload(void);

#endif /* PROFRUN_RUN_ENV_H */
