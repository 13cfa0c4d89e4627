#ifndef TF_LIMITS_H
#define TF_LIMITS_H

#include <stdint.h>

struct tf_buf;

/*
 * Limits on what untrusted input may cost: documented defaults, each
 * changed by an environment variable (docs/security.md#limits). A value
 * is a number with an optional K, M, G or T suffix (powers of 1024;
 * lower case, a following "i" and "B" are accepted: 10GiB).
 */
struct tf_limit {
	const char *env; /* the variable that overrides it */
	uint64_t def;    /* the default */
};

/* Bytes an archive may extract to, in all its members. */
extern const struct tf_limit TF_LIMIT_EXTRACT_BYTES;
/* Members an archive may hold. */
extern const struct tf_limit TF_LIMIT_EXTRACT_ENTRIES;
/* Memory a decompressor may need (xz and lzma dictionaries). */
extern const struct tf_limit TF_LIMIT_EXTRACT_MEMORY;
/*
 * How many times its own size an archive may extract to (a plain
 * number); with TF_LIMIT_EXTRACT_FLOOR, what an archive may always
 * extract to, however small. The smaller of this and
 * TF_LIMIT_EXTRACT_BYTES applies.
 */
extern const struct tf_limit TF_LIMIT_EXTRACT_RATIO;
extern const struct tf_limit TF_LIMIT_EXTRACT_FLOOR;
/* Uncompressed bytes of all entries of a wheel given to verify. */
extern const struct tf_limit TF_LIMIT_VERIFY_BYTES;
/* Bytes one download may have when its source gives no `size:`. */
extern const struct tf_limit TF_LIMIT_FETCH_BYTES;
/* Bytes of one step's log; what comes after is dropped, counted. */
extern const struct tf_limit TF_LIMIT_STEP_LOG;

/*
 * Store the limit's value (the environment's, else the default) in out.
 * Returns 0, or -1 after naming the variable and its bad value.
 */
int tf_limit_get(const struct tf_limit *l, uint64_t *out);

/*
 * What one archive of archive_size bytes may extract to: the smaller of
 * TF_LIMIT_EXTRACT_BYTES and TF_LIMIT_EXTRACT_RATIO times its size
 * (TF_LIMIT_EXTRACT_FLOOR at least), so a bomb stops long before the
 * disk is full. The same for source archives and target wheels.
 */
struct tf_limit_extract {
	uint64_t max_bytes;   /* bytes all its members may come to */
	uint64_t max_entries; /* TF_LIMIT_EXTRACT_ENTRIES */
	uint64_t archive;     /* the archive's own size */
	int by_ratio;         /* 1: max_bytes is the ratio's */
};

/* Fill e for an archive of archive_size bytes; 0, or -1 after reporting. */
int tf_limit_extract_get(uint64_t archive_size, struct tf_limit_extract *e);
/*
 * Why e->max_bytes is what it is, for "... exceed the limit of N bytes
 * (WHY)": the variable, or the ratio, the archive's size and both
 * variables. Appended to out.
 */
void tf_limit_extract_why(const struct tf_limit_extract *e, struct tf_buf *out);

/* Parse "16M" style sizes; 0 or -1 (nothing printed). For unit tests. */
int tf_limit_parse(const char *s, uint64_t *out);

#endif
