#ifndef TF_PATH_H
#define TF_PATH_H

/* File-system helpers. Each reports its own error and returns -1. */

#include <stddef.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>

struct tf_buf;
struct tf_strvec;

/* mkdir -p with mode 0755; 0 if it exists as a directory. */
int tf_mkdir_p(const char *path);
/* rm -rf; 0 if the path did not exist. Never follows symlinks. */
int tf_rm_rf(const char *path);
/* Append "a/b" to out, without doubling or dropping slashes. */
void tf_path_join(struct tf_buf *out, const char *a, const char *b);
/*
 * Append path made absolute against the current directory (no symlink
 * resolution) to out. 0, or -1 after an error when the current
 * directory cannot be had (removed, or deeper than PATH_MAX).
 */
int tf_path_absolute(struct tf_buf *out, const char *path);
/* The directory part of path ("." when there is none), appended to out. */
void tf_path_dirname(struct tf_buf *out, const char *path);
/* The last component of path (borrowed pointer into path). */
const char *tf_path_basename(const char *path);
/* 1 if path exists (lstat), else 0. */
int tf_path_exists(const char *path);
/* 1 if path is a directory (stat), else 0. */
int tf_path_is_dir(const char *path);
/*
 * 0 if path (symlinks followed) is a regular file; else -1 with why
 * filled: "p: not a regular file (a FIFO)", or why it cannot be
 * opened. It is opened with O_NONBLOCK and its descriptor looked at, so
 * a FIFO or a device never blocks the caller.
 */
int tf_path_regular_check(const char *path, struct tf_buf *why);
/*
 * Read path (symlinks followed), a regular file, into out: at most
 * out->cap bytes where that is set. Looked at before any read, the same
 * way, so a FIFO or a device never blocks. 0; 1 if it does not exist and
 * missing_ok; -1 after reporting ("cannot open 'p': ...", "cannot read",
 * "'p' is too large (over N bytes)"); -2, unreported, when it is not a
 * regular file, with *kind naming what it is ("a FIFO", "a directory")
 * for the caller's own message.
 */
int tf_read_regular(const char *path, struct tf_buf *out, int missing_ok,
		    const char **kind);

/*
 * Create a unique temporary directory "<dir>/.<prefix>.XXXXXX" (so it can
 * later be renamed within the same file system) and append its path to out.
 */
int tf_mkdtemp_in(const char *dir, const char *prefix, struct tf_buf *out);
/*
 * tf_mkdtemp_in, and registered for removal should tfbuild die of a
 * signal before the caller renames or removes it and calls
 * tf_signals_temp_forget(out->buf) (signals.h).
 */
int tf_mkdtemp_temp(const char *dir, const char *prefix, struct tf_buf *out);

/*
 * Write data to path atomically: a temporary file beside it, fsync, then
 * rename. With mode 0 the file gets 0644.
 */
int tf_write_file_atomic(const char *path, const void *data, size_t len,
			 mode_t mode);
/* write(2) all of data, retrying short writes and EINTR; -1 with errno set. */
int tf_write_all(int fd, const void *data, size_t len);

/* A stat time in nanoseconds: the unit file identities are kept in. */
long long tf_time_ns(const struct timespec *t);
/*
 * 1 if a and b are the same file unchanged: device, inode, size, and
 * mtime and ctime to the nanosecond (any write changes the ctime).
 */
int tf_stat_same(const struct stat *a, const struct stat *b);
/* Read a whole (small) file into out; -1 with an error if it fails. */
int tf_read_file(const char *path, struct tf_buf *out);

/*
 * Copy a directory tree src to dst (dst must not exist): regular files,
 * directories and symlinks (copied as links); modes kept. Skips nothing.
 */
int tf_copy_tree(const char *src, const char *dst);
/* Copy one regular file, streaming, keeping the mode's exec bits. */
int tf_copy_file(const char *src, const char *dst);

/*
 * A path is "safe" relative path when it is not absolute, not empty and
 * has no ".." component. Returns 1 if safe.
 */
int tf_path_is_safe_relative(const char *path);

/* Names in a directory, sorted bytewise, without "." and "..". */
int tf_list_dir(const char *path, struct tf_strvec *names);

/*
 * Walk the directory src one level, in sorted order, in step with a
 * mirror path dst (a destination directory, or a relative name; "" gives
 * bare names): call fn(src/NAME, dst/NAME, arg) for each entry and stop
 * at the first non-zero return, which is returned.
 */
int tf_dir_each(const char *src, const char *dst,
		int (*fn)(const char *src, const char *dst, void *arg),
		void *arg);

#endif
