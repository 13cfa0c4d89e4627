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
 * Not thread-safe: tree digests are taken by the main thread.
 */

#include <sys/stat.h>

#include "hash.h"

void tf_digest_cache_open(const char *path);
/* 1 and md set if path with this stat identity was digested before. */
int tf_digest_cache_lookup(const char *path, const struct stat *st,
			   unsigned char md[TF_SHA256_LEN]);
void tf_digest_cache_store(const char *path, const struct stat *st,
			   const unsigned char md[TF_SHA256_LEN]);
/* With save, write what this run used and added; then forget it all. */
void tf_digest_cache_close(int save);

#endif
