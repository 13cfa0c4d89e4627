#ifndef TF_WHEELREAD_H
#define TF_WHEELREAD_H

/*
 * Reading a wheel's entries as they are stored: names in archive order,
 * sizes, modes, timestamps and content digests. For `tfbuild diff`.
 */

#include <stddef.h>

#include "base/base.h"

struct tf_wheel_entry {
	char *name;         /* owned: as stored */
	long long size;     /* uncompressed bytes */
	unsigned mode;      /* permission bits (07777) */
	long long mtime;    /* seconds since the epoch, as libarchive decodes it */
	char sha256[TF_SHA256_HEX_LEN + 1]; /* of the content */
};

struct tf_wheel_listing {
	struct tf_wheel_entry *v; /* owned array, in archive order */
	size_t nr, alloc;
};

#define TF_WHEEL_LISTING_INIT { NULL, 0, 0 }

/* List every entry of the zip at path (central directory order). */
int tf_wheel_list(const char *path, struct tf_wheel_listing *out);
void tf_wheel_listing_release(struct tf_wheel_listing *l);

#endif
