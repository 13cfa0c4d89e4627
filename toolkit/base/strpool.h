#ifndef TF_STRPOOL_H
#define TF_STRPOOL_H

/*
 * A string pool: strings copied into large blocks and freed all at
 * once. For lists of tens of thousands of paths (a wheel's files, the
 * digest cache's names), where one malloc per string costs 16 to 32
 * bytes of allocator overhead on top of a 20 to 80 byte path, and the
 * freed strings leave the heap fragmented.
 */

#include <stddef.h>

struct tf_strpool_block;

struct tf_strpool {
	struct tf_strpool_block *head; /* owned: the block being filled */
	size_t used;                   /* bytes taken in head */
};

#define TF_STRPOOL_INIT \
	{               \
		NULL, 0 \
	}

/* A copy of s[0..n) with a NUL after it, alive until the release. */
const char *tf_strpool_addn(struct tf_strpool *p, const char *s, size_t n);
const char *tf_strpool_add(struct tf_strpool *p, const char *s);
/* Free every string; the pool can be used again. */
void tf_strpool_release(struct tf_strpool *p);

#endif
