#ifndef TF_FUZZ_H
#define TF_FUZZ_H

/*
 * Fuzz harnesses: each tests/fuzz/NAME_fuzz.c defines the libFuzzer
 * entry point for one parser of untrusted input. The same file links
 * with libFuzzer (`make fuzz`, clang) or with replay.c (the test suite,
 * any compiler). Helpers here give a harness a private scratch
 * directory, so it leaves nothing behind whatever the input does.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* libFuzzer calls this once first: keep stderr for fuzz_fail(). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Run one input; must not leak, write outside fuzz_dir_make()'s
   directories or keep state that changes the next run. Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Create a fresh empty directory under $TMPDIR (or /tmp) and append its
 * absolute path to dir. Aborts if it cannot: a harness that cannot set
 * up is broken, not the input.
 */
void fuzz_dir_make(struct tf_buf *dir);
/* Write data to DIR/NAME, appending that path to path. Aborts on failure. */
void fuzz_write(const char *dir, const char *name, const uint8_t *data,
		size_t size, struct tf_buf *path);
/* Remove dir and everything below it. Aborts on failure. */
void fuzz_dir_remove(struct tf_buf *dir);

/* A NUL-terminated copy of data (a NUL inside ends the string early). */
char *fuzz_string(const uint8_t *data, size_t size);

/*
 * Where a broken invariant is told: stderr, unless the driver silenced
 * stderr (tfbuild's messages about bad inputs) and moved reports elsewhere.
 */
extern int fuzz_report_fd;

/* Tell a broken harness invariant on fuzz_report_fd and abort. */
#define FUZZ_ASSERT(cond)                                     \
	do {                                                  \
		if (!(cond))                                  \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)
TF_NORETURN void fuzz_fail(const char *file, int line, const char *what);

#endif
