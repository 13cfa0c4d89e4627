#ifndef TF_INDEX_H
#define TF_INDEX_H

/*
 * index/: wheels from the package index pip is configured for, as a
 * build's inputs (`target-wheels`, docs/frameworks.md): the lock file
 * that pins each one by sha256 (pins.c), pip run to download a target's
 * wheel into the download cache (pip.c), and a target's wheels unpacked
 * into its site directory, ${target_site} (site.c). The index is
 * untrusted: the digest in the lock file pins the bytes.
 */

#include <stddef.h>

struct tf_buf;
struct tf_compat_target;
struct tf_fetch_opts;

/* One pin: a requirement of a target, and the wheel it resolved to. */
struct tf_index_pin {
	char *target;      /* owned: "x86_64" */
	char *requirement; /* owned: "NAME==VERSION" as the recipe writes it */
	char *file;        /* owned: the wheel's file name */
	char *sha256;      /* owned: its digest, 64 lowercase hex digits */
	size_t nth;        /* its place in the lock file it was read from
			      (1 for the first), for messages; 0: none */
};

struct tf_index_pins {
	struct tf_index_pin *v; /* owned array */
	size_t nr, alloc;
};

#define TF_INDEX_PINS_INIT \
	{                  \
		NULL, 0, 0 \
	}

/*
 * Read the lock file at path into pins (appended). A missing file is no
 * pins (0). A file that is not a lock file is reported, naming it and
 * what is wrong: -1.
 */
int tf_index_pins_read(const char *path, struct tf_index_pins *pins);
/*
 * Write pins to path, sorted by target then requirement, as JSON with
 * fixed formatting (the same pins give the same bytes), through a
 * temporary file and a rename. 0 or -1 after reporting.
 */
int tf_index_pins_write(const char *path, struct tf_index_pins *pins);
/* The pin of requirement for target, or NULL. */
struct tf_index_pin *tf_index_pins_find(const struct tf_index_pins *pins,
					const char *target,
					const char *requirement);
/*
 * Add a pin (copies every string; nth 0); an existing one is replaced.
 * Returns it, borrowed until pins change.
 */
struct tf_index_pin *tf_index_pins_set(struct tf_index_pins *pins,
				       const char *target,
				       const char *requirement,
				       const char *file, const char *sha256);
void tf_index_pins_release(struct tf_index_pins *pins);

/* How a wheel is got from the index. */
struct tf_index_opts {
	const char *python;    /* the Python that runs pip; NULL:
				  $TFBUILD_PIP_PYTHON, else python3 in
				  the fixed PATH */
	const char *index_url; /* --index-url for pip, or NULL: pip's own
				  configuration decides */
	const struct tf_fetch_opts *fetch; /* the download cache, --offline */
	const char *lock; /* the lock file the pins came from, as the user
			     names it, for messages; NULL: none */
};

/*
 * Get the wheel of requirement NAME==VERSION (name, version) for target
 * t into the download cache. With pin->file and pin->sha256 set, a
 * cached file of that digest is used without running pip; otherwise pip
 * downloads it with the hash required, and the file must have the
 * pinned name and digest (a mismatch is refused naming the file and
 * both digests). With pin->sha256 NULL, pip picks the wheel (the most
 * specific of t's tags) and pin->file and pin->sha256 are set. Either
 * way, hit or download, the file name and the wheel's METADATA must be
 * NAME and VERSION (tf_index_wheel_is), else it is refused naming the
 * pin's place in o->lock and both names. The cached path is appended
 * to path. 0, or -1 after reporting.
 */
int tf_index_get(const struct tf_index_opts *o,
		 const struct tf_compat_target *t, const char *name,
		 const char *version, struct tf_index_pin *pin,
		 struct tf_buf *path);

/*
 * 0 if the wheel at path says, in its one NAME-VERSION.dist-info/
 * METADATA, that it is name's version (PEP 503 and PEP 440 normalized);
 * else -1 after reporting, label first, what it says it is.
 */
int tf_index_wheel_is(const char *path, const char *label, const char *name,
		      const char *version);

/* A wheel to unpack: where it is, and its file name for messages. */
struct tf_index_wheel {
	const char *path;   /* borrowed: the cached file */
	const char *file;   /* borrowed: its name as the index gave it */
	const char *sha256; /* borrowed: its digest, listed in the marker */
};

/*
 * Unpack wheels[0..n) into the directory site, laid out as
 * site-packages (a wheel's NAME.data/purelib and /platlib at the top),
 * unless site is already complete. Built in a temporary directory
 * beside it and renamed; members that are absolute, hold "..", or are
 * links or special files are refused, naming the wheel and the member;
 * executables stay executable (0755, else 0644) and every file gets the
 * fixed time 1980-01-01. The site is then held with a shared lock until
 * the process ends and marked used (.tfbuild-wheels' mtime; see
 * tf_lock_use), so `tfbuild cache gc` leaves it. 0, or -1 after
 * reporting.
 */
int tf_index_site_make(const char *site, const struct tf_index_wheel *wheels,
		       size_t n);

/*
 * Find the one file called soname in the RECORD of distribution name
 * at version (PEP 503 and PEP 440 normalized), one of the wheels
 * unpacked into site: its site path (NAME.data/purelib/ and platlib/
 * taken off, as unpacked) appended to path, its RECORD hash
 * ("sha256=...") to hash. 0, or -1 after reporting, context first: no
 * such distribution in site (or site NULL), no RECORD, or no file or
 * more than one of that name in it.
 */
int tf_index_site_find_lib(const char *site, const char *name,
			   const char *version, const char *soname,
			   const char *context, struct tf_buf *path,
			   struct tf_buf *hash);

#endif
