#ifndef TF_SPOOL_H
#define TF_SPOOL_H

/*
 * Spool: text written now, read back later, kept in an unlinked
 * temporary file instead of memory. The wheel writer spools RECORD's
 * lines there (6 MB at 63,000 files) until every other entry is
 * written. The file has no name (O_TMPFILE; where the file system does
 * not support it, mkstemp and unlink at once), so nothing is left
 * behind whatever happens to the process.
 */

#include <stddef.h>
#include <sys/types.h>

#include "base/base.h"

struct tf_spool {
	int fd;            /* owned; -1 when not open */
	struct tf_buf buf; /* owned: bytes not yet written to fd */
	long long size;    /* bytes added in all */
	int err;           /* errno of the first failed write, or 0 */
};

#define TF_SPOOL_INIT                 \
	{                             \
		-1, TF_BUF_INIT, 0, 0 \
	}

/* Create the spool's file in dir. 0, or -1 with errno set. */
int tf_spool_open(struct tf_spool *s, const char *dir);
/* Add n bytes (buffered; a write error shows at tf_spool_rewind). */
void tf_spool_add(struct tf_spool *s, const void *data, size_t n);
/* Write out what is buffered and go back to the start to read: 0, or
   -1 with errno set (of the first write that failed). */
int tf_spool_rewind(struct tf_spool *s);
/* Read up to n bytes: how many (0 at the end), or -1 with errno set. */
ssize_t tf_spool_read(struct tf_spool *s, void *data, size_t n);
/* Close and forget; safe on a spool never opened, and twice. */
void tf_spool_release(struct tf_spool *s);

#endif
