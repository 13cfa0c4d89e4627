#ifndef TF_WHEELREAD_H
#define TF_WHEELREAD_H

/*
 * Reading a wheel (a zip) member by member: the one reader of wheels,
 * for `tfbuild diff`, zipcheck.c, verify and audit's conventions and
 * framework checks. libarchive reads it; its handles stay in
 * wheelread.c. A member's data is read in blocks into the caller's
 * buffer, as libarchive inflates it: nothing is copied on the way.
 */

#include <stddef.h>
#include <sys/types.h>

#include "base/base.h"

/* How tf_wheel_open() reads the zip: one reader, or both, or'ed with UTF8. */
enum tf_wheel_how {
	/* The central directory's entries, as pip's zipfile walks it
	   (libarchive's seekable reader, which holds the directory). */
	TF_WHEEL_SEEKABLE = 1,
	/* The local headers, in file order (the streamable reader: nothing
	   held but the current member). With SEEKABLE, libarchive chooses:
	   the seekable reader where it finds a central directory. */
	TF_WHEEL_STREAMABLE = 2,
	/* Every libarchive call under a UTF-8 LC_CTYPE (base/locale.h), and
	   names as UTF-8 where libarchive has them so. Without it names are
	   converted to the C locale, and libarchive warns of a UTF-8 name
	   it cannot convert (TF_WHEEL_WARNED). */
	TF_WHEEL_UTF8 = 4,
};

enum tf_wheel_type {
	TF_WHEEL_FILE,  /* a regular file */
	TF_WHEEL_DIR,   /* a directory */
	TF_WHEEL_OTHER, /* anything else (a symbolic link) */
};

/* The member tf_wheel_next() stepped to; borrowed until the next step. */
struct tf_wheel_member {
	const char *name; /* as stored, as libarchive gives it (UTF-8
				   first with TF_WHEEL_UTF8); NULL if none */
	enum tf_wheel_type type;
	int size_known;  /* 1 if its header gives the size */
	long long size;  /* uncompressed bytes its header declares */
	unsigned mode;   /* permission bits (07777) */
	long long mtime; /* seconds since the epoch, as libarchive
				   decodes it */
};

/* What tf_wheel_next() found. */
enum tf_wheel_step {
	TF_WHEEL_MEMBER, /* the next member */
	TF_WHEEL_WARNED, /* the next member, which libarchive warned of
			    (tf_wheel_error() says what): a name it could
			    not convert, headers that disagree */
	TF_WHEEL_END,    /* no more members */
	TF_WHEEL_ERROR,  /* the archive cannot be read on (tf_wheel_error()) */
};

struct tf_wheel_reader;

/*
 * Open the zip at path, read `block` bytes at a time, the way `how`
 * says. Returns the reader (the caller closes it), or NULL with
 * libarchive's reason appended to why (nothing printed): the caller
 * says "cannot read the zip archive: WHY" in its own words. Out of
 * memory exits (tf_out_of_memory).
 */
struct tf_wheel_reader *tf_wheel_open(const char *path, unsigned how,
				      size_t block, struct tf_buf *why);
/*
 * Step to the next member, skipping what is left of the current one's
 * data; *m is set for TF_WHEEL_MEMBER and TF_WHEEL_WARNED.
 */
enum tf_wheel_step tf_wheel_next(struct tf_wheel_reader *r,
				 const struct tf_wheel_member **m);
/*
 * Read up to n bytes of the current member's data into buf (inflated,
 * CRC checked at its end). Returns how many, 0 at its end, or -1 if it
 * cannot be read (tf_wheel_error() says why).
 */
ssize_t tf_wheel_read(struct tf_wheel_reader *r, void *buf, size_t n);
/* libarchive's text for the last failure or warning; owned by r. */
const char *tf_wheel_error(struct tf_wheel_reader *r);
/* Free r and close its file; safe on NULL. */
void tf_wheel_close(struct tf_wheel_reader *r);

/* A wheel's entries as they are stored, for `tfbuild diff`. */
struct tf_wheel_entry {
	char *name;      /* owned: as stored */
	long long size;  /* uncompressed bytes */
	unsigned mode;   /* permission bits (07777) */
	long long mtime; /* seconds since the epoch, as libarchive decodes it */
	char sha256[TF_SHA256_HEX_LEN + 1]; /* of the content */
};

struct tf_wheel_listing {
	struct tf_wheel_entry *v; /* owned array, in archive order */
	size_t nr, alloc;
};

#define TF_WHEEL_LISTING_INIT \
	{                     \
		NULL, 0, 0    \
	}

/*
 * List every entry of the zip at path (central directory order): names,
 * sizes, modes, timestamps and content digests. Returns 0, or -1 after
 * printing why it cannot be read.
 */
int tf_wheel_list(const char *path, struct tf_wheel_listing *out);
void tf_wheel_listing_release(struct tf_wheel_listing *l);

#endif
