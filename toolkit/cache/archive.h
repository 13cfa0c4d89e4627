#ifndef TF_CACHE_ARCHIVE_H
#define TF_CACHE_ARCHIVE_H

/*
 * Stage trees as deterministic tar archives (libarchive; the only file
 * of the cache that includes it). The same tree gives the same bytes on
 * any machine: entries in sorted order, pax headers only where ustar
 * cannot hold a name, mtime 0, owner 0:0 without names, and the modes
 * tf_tree_digest records (0755 for directories and executables, 0644
 * for other files, symlinks as links).
 */

struct tf_buf;

/* What tf_cache_archive_write gives. */
enum tf_cache_archive_result {
	TF_CACHE_ARCHIVE_OK,        /* the whole tree is written */
	TF_CACHE_ARCHIVE_FORBIDDEN, /* a forbidden string found: the file
				       and the string in why (no report) */
	TF_CACHE_ARCHIVE_ERROR,     /* anything else (reported) */
};

/*
 * Write the tree at dir as a tar to the open file fd. If one of the
 * NULL-terminated strings in forbid occurs in a file or link target
 * (an absolute path of this build, say), stop there.
 */
enum tf_cache_archive_result tf_cache_archive_write(const char *dir, int fd,
						    const char *const *forbid,
						    struct tf_buf *why);
/*
 * Extract the tar read from fd (from its start) into the existing empty directory dir,
 * refusing absolute names, ".." and links that leave dir. 0, or -1 with
 * the reason in why (no report).
 */
int tf_cache_archive_read(int fd, const char *dir, struct tf_buf *why);

#endif
