#ifndef TF_CACHE_STORE_H
#define TF_CACHE_STORE_H

/*
 * The local store: content-addressed stage archives and the action
 * entries that map step keys to them, under <cache>/store/ and shared by
 * every recipe and build tree of the machine (docs/cache.md):
 *
 *   cas/AB/ABCD...   stage archives, named by their SHA-256, read-only
 *   ac/12/1234...    action entries (acentry.h), named by the step key
 *   tmp/             files being written; renamed into cas/ or ac/
 *   mac.key          32 random bytes (0600) that tfbuild makes once
 *
 * An action entry in ac/ is its text (acentry.h) and one line more,
 * "mac <HMAC-SHA256 of the text under mac.key, hex>": the store's key
 * never reaches a step (store/ is hidden in every sandbox), so a step
 * that could write ac/ still cannot make an entry tfbuild takes. An
 * entry without that line (an older tfbuild's) is a miss; one whose MAC
 * is wrong is bad.
 *
 * Writers write a temporary file in tmp/ and rename it into place, so a
 * reader sees a whole entry or none; two writers of one key write the
 * same bytes. The least-recently-used clock is each blob's mtime, which
 * tfbuild sets to "now" whenever it stores or uses the blob (atime is
 * not relied on). A process using a blob holds a shared flock(2) on it;
 * gc takes an exclusive one without waiting and skips a blob it cannot
 * lock.
 */

#include <stddef.h>

struct tf_ac_entry;
struct tf_buf;

#define TF_STORE_KEY_LEN 32

struct tf_store {
	char *dir;                           /* owned: <cache>/store */
	unsigned char key[TF_STORE_KEY_LEN]; /* mac.key's bytes, if keyed */
	int keyed; /* 1 once mac.key is read (made by the first put) */
};

#define TF_STORE_INIT       \
	{                   \
		.dir = NULL \
	}

/* Set up the store under cache_dir, creating its directories, and read
 * its key (mac.key) if there is one (the first tf_store_put_ac makes
 * it); -1 after reporting (a key that is not 32 bytes, or that others
 * may read, is refused). */
int tf_store_open(struct tf_store *s, const char *cache_dir);
void tf_store_release(struct tf_store *s);

/* What looking up an action entry or a blob gives. */
enum tf_store_result {
	TF_STORE_OK,      /* there, and sound */
	TF_STORE_MISSING, /* not in the store */
	TF_STORE_BAD,     /* cannot be read, or corrupt: why says how
			       (no report) */
};

/*
 * The action entry of key: TF_STORE_OK with e (and its text, without
 * the MAC line, in text, if not NULL) filled. An entry with no MAC line
 * is TF_STORE_MISSING (why says so), one whose MAC is wrong TF_STORE_BAD.
 */
enum tf_store_result tf_store_get_ac(const struct tf_store *s, const char *key,
				     struct tf_ac_entry *e, struct tf_buf *text,
				     struct tf_buf *why);
/* Write an action entry's text for key, with its MAC line, atomically. */
int tf_store_put_ac(struct tf_store *s, const char *key, const char *text,
		    size_t len);
/* Remove the action entry of key and, if hex is not NULL, that blob. */
void tf_store_drop(const struct tf_store *s, const char *key, const char *hex);

/*
 * Open the blob hex for reading, holding a read lock on it until *fd is
 * closed, and check that its bytes hash to hex and that it has size
 * bytes (size < 0: any). Marks it used. A blob that fails the check,
 * or whose bytes cannot be read, is removed. *fd is -1 unless
 * TF_STORE_OK.
 */
enum tf_store_result tf_store_open_blob(const struct tf_store *s,
					const char *hex, long long size,
					int *fd, struct tf_buf *why);
/*
 * A new temporary file in tmp/: its path into path, its fd (read-write)
 * returned, -1 after reporting.
 */
int tf_store_tmp(const struct tf_store *s, struct tf_buf *path);
/*
 * Move the temporary file tmp, whose SHA-256 the caller checked is hex,
 * into cas/ (read-only). If the blob is there already, tmp is removed.
 */
int tf_store_add_blob(const struct tf_store *s, const char *tmp,
		      const char *hex);

struct tf_store_stats {
	size_t entries;  /* action entries */
	size_t blobs;    /* archives */
	long long bytes; /* bytes of the archives */
};
int tf_store_stats(const struct tf_store *s, struct tf_store_stats *st);

/* One blob, for choosing what to evict. */
struct tf_store_blob {
	char hex[65];
	long long size;
	long long used; /* the LRU clock: last use, seconds */
	long long used_ns;
};
/*
 * Which blobs to evict to bring total bytes down to max_size: sorts
 * v[0..nr) from least to most recently used (ties by name) and returns
 * how many of the first ones must go. Pure: for unit tests.
 */
size_t tf_store_lru_pick(struct tf_store_blob *v, size_t nr,
			 long long max_size);
/* Every blob of the store into *v (owned, free()) and *nr. */
int tf_store_list(const struct tf_store *s, struct tf_store_blob **v,
		  size_t *nr);
/* Unlink blob hex unless a process holds it: 1 removed (or gone), 0 in
   use. */
int tf_store_evict(const struct tf_store *s, const char *hex);
/* Drop action entries whose blob is gone, and temp files a day old. */
int tf_store_sweep(const struct tf_store *s);
/* Remove everything in the store (locked blobs too: their readers keep
   their open files). */
int tf_store_clear(const struct tf_store *s);
/* Check every blob hashes to its name and every entry parses; report
   each bad one; returns how many are bad, or -1. */
int tf_store_verify(const struct tf_store *s);

/* "10G", "500M", "64k", "123": bytes, or -1. */
long long tf_store_parse_size(const char *s);

#endif
