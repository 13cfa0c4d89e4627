#ifndef TF_DIGESTCACHE_H
#define TF_DIGESTCACHE_H

/*
 * Stat before hashing: the sha256 of files already digested, keyed by
 * path and stat identity (size, mtime and ctime in ns, inode, device),
 * so tf_tree_digest does not read an unchanged source tree or stage
 * again. Any write to a file changes its ctime, even when its size and
 * mtime are put back (touch -d).
 *
 * Kept in <build>/.file-digests, written atomically, only the entries
 * used or added in this run. An entry whose mtime or ctime is not
 * older than the file's own mtime is dropped when it is loaded: the
 * file was stat'ed in the same coarse clock tick as a write could have
 * happened in, unseen ("racily clean", as in git); it is hashed again.
 *
 * Without tf_digest_cache_open, lookups miss and stores are ignored.
 * Entries stored are looked up only after tf_digest_cache_settle.
 * Not thread-safe: tree digests are taken by the main thread.
 */

#include <sys/stat.h>

#include "base/base.h"

void tf_digest_cache_open(const char *path);
/* 1 and md set if path with this stat identity was digested before. */
int tf_digest_cache_lookup(const char *path, const struct stat *st,
			   unsigned char md[TF_SHA256_LEN]);
void tf_digest_cache_store(const char *path, const struct stat *st,
			   const unsigned char md[TF_SHA256_LEN]);
/*
 * Room for more entries, made now: the wheel writer stores one per file
 * while its own buffers are in use, and an array doubled then would
 * leave its old copy as a hole in the heap (peak RSS).
 */
void tf_digest_cache_reserve(size_t more);
/*
 * Entries stored since the last settle become visible to lookups (a
 * tree digest settles first): the wheel writer stores the digests of
 * what it read, and the tree digest after packing finds them.
 */
void tf_digest_cache_settle(void);
/* 1 if path was stored in this run (with any stat), as of the last settle. */
int tf_digest_cache_stored(const char *path);
/*
 * The sha256 of a whole file (a wheel), through the cache: a file
 * already digested in this run or before, unchanged, is not read again.
 * 0, or -1 with an error printed.
 */
int tf_digest_cache_file(const char *path, unsigned char md[TF_SHA256_LEN]);
/*
 * A file hashed away from the cache (tf_sha256_file between two equal
 * lstats, `hashed` the first: thread-safe, so on another thread) and
 * since renamed to path, which changed its ctime only: its digest is
 * kept for path if path is still that inode with the same size and
 * mtime, so tf_digest_cache_file does not read it again.
 */
void tf_digest_cache_renamed(const char *path, const struct stat *hashed,
			     const unsigned char md[TF_SHA256_LEN]);
/* With save, write what this run used and added; then forget it all. */
void tf_digest_cache_close(int save);

#endif
