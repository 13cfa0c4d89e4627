#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "signals.h"
#include "buf.h"

int tf_mkdir_p(const char *path)
{
	struct tf_buf b = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	tf_buf_addstr(&b, path);
	for (i = 1; i <= b.len; i++) {
		if (b.buf[i] != '/' && b.buf[i] != '\0')
			continue;
		b.buf[i] = '\0';
		if (mkdir(b.buf, 0755) < 0 && errno != EEXIST) {
			ret = error_errno("cannot create directory '%s'",
					  b.buf);
			break;
		}
		if (i < b.len)
			b.buf[i] = '/';
	}
	if (!ret && !tf_path_is_dir(path))
		ret = error("cannot create directory '%s': not a directory",
			    path);
	tf_buf_release(&b);
	return ret;
}

static int rm_rf_at(int dirfd, const char *name, const char *shown)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int fd, ret = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0
				       : error_errno("cannot stat '%s'", shown);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return error_errno("cannot remove '%s'", shown);
		return 0;
	}
	/* Make it writable and searchable so a read-only tree can go too. */
	fchmodat(dirfd, name, 0700, 0);
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_errno("cannot open '%s'", shown);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return error_errno("cannot open '%s'", shown);
	}
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = rm_rf_at(fd, de->d_name, shown);
	}
	closedir(d);
	if (!ret && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = error_errno("cannot remove '%s'", shown);
	return ret;
}

int tf_rm_rf(const char *path)
{
	return rm_rf_at(AT_FDCWD, path, path);
}

void tf_path_join(struct tf_buf *out, const char *a, const char *b)
{
	size_t n = strlen(a);

	tf_buf_addstr(out, a);
	if (n && a[n - 1] != '/' && *b)
		tf_buf_addch(out, '/');
	while (n && *b == '/')
		b++;
	tf_buf_addstr(out, b);
}

int tf_path_absolute(struct tf_buf *out, const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		tf_buf_addstr(out, path);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return error_errno("cannot get the current directory");
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!strcmp(path, "."))
		path = "";
	tf_path_join(out, cwd, path);
	return 0;
}

void tf_path_dirname(struct tf_buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		tf_buf_addch(out, '.');
	else if (slash == path)
		tf_buf_addch(out, '/');
	else
		tf_buf_add(out, path, (size_t)(slash - path));
}

const char *tf_path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int tf_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int tf_path_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a file";
}

/* Opened without blocking on a FIFO or a device; -1 with errno if not. */
static int open_looked_at(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0 && fstat(fd, st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -2;
	}
	return fd;
}

int tf_path_regular_check(const char *path, struct tf_buf *why)
{
	struct stat st;
	int fd = open_looked_at(path, &st), ret = 0;

	if (fd == -1)
		return tf_why(why, "%s: cannot open: %s", path,
			      strerror(errno));
	if (fd < 0)
		return tf_why(why, "%s: cannot read: %s", path,
			      strerror(errno));
	if (!S_ISREG(st.st_mode))
		ret = tf_why(why, "%s: not a regular file (%s)", path,
			     file_kind(st.st_mode));
	close(fd);
	return ret;
}

static int read_all(int fd, const char *path, struct tf_buf *out)
{
	char chunk[8192];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_errno("cannot read '%s'", path);
		if (tf_buf_add(out, chunk, (size_t)n) < 0)
			return error("'%s' is too large (over %zu bytes)", path,
				     out->cap);
	}
	return 0;
}

int tf_read_regular(const char *path, struct tf_buf *out, int missing_ok,
		    const char **kind)
{
	struct stat st;
	int fd = open_looked_at(path, &st), ret;

	if (fd == -1 && errno == ENOENT && missing_ok)
		return 1;
	if (fd == -1)
		return error_errno("cannot open '%s'", path);
	if (fd < 0)
		return error_errno("cannot read '%s'", path);
	if (!S_ISREG(st.st_mode)) {
		*kind = file_kind(st.st_mode);
		ret = -2;
	} else if (fcntl(fd, F_SETFL, 0) < 0) { /* reads may block again */
		ret = error_errno("cannot read '%s'", path);
	} else {
		ret = read_all(fd, path, out);
	}
	close(fd);
	return ret;
}

static int mkdtemp_in(const char *dir, const char *prefix, struct tf_buf *out,
		      int temp)
{
	size_t start = out->len;
	char *made;

	tf_buf_addf(out, "%s/.%s.XXXXXX", dir, prefix);
	made = temp ? tf_signals_mkdtemp(out->buf + start)
		    : mkdtemp(out->buf + start);
	if (!made) {
		error_errno("cannot create a temporary directory in '%s'", dir);
		tf_buf_setlen(out, start);
		return -1;
	}
	return 0;
}

int tf_mkdtemp_in(const char *dir, const char *prefix, struct tf_buf *out)
{
	return mkdtemp_in(dir, prefix, out, 0);
}

int tf_mkdtemp_temp(const char *dir, const char *prefix, struct tf_buf *out)
{
	return mkdtemp_in(dir, prefix, out, 1);
}

long long tf_time_ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

int tf_stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       tf_time_ns(&a->st_mtim) == tf_time_ns(&b->st_mtim) &&
	       tf_time_ns(&a->st_ctim) == tf_time_ns(&b->st_ctim);
}

int tf_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tf_write_file_atomic(const char *path, const void *data, size_t len,
			 mode_t mode)
{
	char *tmp = tf_xstrfmt("%s.tmp.XXXXXX", path);
	int fd = tf_signals_mkstemp(tmp, 0), ret = 0;

	if (fd < 0) {
		ret = error_errno("cannot create a temporary file for '%s'",
				  path);
		goto out;
	}
	if (tf_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		ret = error_errno("cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	fchmod(fd, mode ? mode : 0644);
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		ret = error_errno("cannot write '%s'", path);
		unlink(tmp);
	}
	tf_signals_temp_forget(tmp);
out:
	free(tmp);
	return ret;
}

int tf_read_file(const char *path, struct tf_buf *out)
{
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || tf_buf_add(out, chunk, (size_t)n) < 0) {
			int ret =
				n < 0 ? error_errno("cannot read '%s'", path)
				      : error("'%s' is too large (over %zu bytes)",
					      path, out->cap);
			close(fd);
			return ret;
		}
	}
	close(fd);
	return 0;
}

int tf_copy_file(const char *src, const char *dst)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int in, out, ret = 0;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return error_errno("cannot open '%s'", src);
	if (fstat(in, &st) < 0) {
		close(in);
		return error_errno("cannot stat '%s'", src);
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		   (st.st_mode & 0111) ? 0755 : 0644);
	if (out < 0) {
		close(in);
		return error_errno("cannot create '%s'", dst);
	}
	/*
	 * In the kernel first (no copy through user space; a reflink where
	 * the file system shares extents). It moves both offsets, so the
	 * read loop below finishes whatever it did not copy: the rest after
	 * EOF (nothing), or everything where it is not supported.
	 */
	while (st.st_size > 0 &&
	       ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0 ||
		(n < 0 && errno == EINTR)))
		;
	while ((n = read(in, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = error_errno("cannot read '%s'", src);
			break;
		}
		if (tf_write_all(out, chunk, (size_t)n) < 0) {
			ret = error_errno("cannot write '%s'", dst);
			break;
		}
	}
	close(in);
	if (close(out) < 0 && !ret)
		ret = error_errno("cannot write '%s'", dst);
	return ret;
}

static int copy_entry(const char *src, const char *dst, void *unused)
{
	struct stat st;
	char target[PATH_MAX];
	ssize_t n;

	if (lstat(src, &st) < 0)
		return error_errno("cannot stat '%s'", src);
	(void)unused;
	if (S_ISDIR(st.st_mode))
		return tf_copy_tree(src, dst);
	if (S_ISREG(st.st_mode))
		return tf_copy_file(src, dst);
	if (!S_ISLNK(st.st_mode))
		return error("cannot copy '%s': not a file, directory or link",
			     src);
	n = readlink(src, target, sizeof(target) - 1);
	if (n < 0)
		return error_errno("cannot read link '%s'", src);
	target[n] = '\0';
	if (symlink(target, dst) < 0)
		return error_errno("cannot create link '%s'", dst);
	return 0;
}

/*
 * List a directory's entries, sorted, without "." and "..". The caller
 * releases names. Sorted so every walk in tfbuild is deterministic.
 */
int tf_list_dir(const char *path, struct tf_strvec *names)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return error_errno("cannot open directory '%s'", path);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			tf_strvec_push(names, de->d_name);
	closedir(d);
	qsort(names->v, names->nr, sizeof(*names->v), tf_strcmp_ptr);
	return 0;
}

int tf_dir_each(const char *src, const char *dst,
		int (*fn)(const char *src, const char *dst, void *arg),
		void *arg)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf s = TF_BUF_INIT, d = TF_BUF_INIT;
	size_t i;
	int ret = tf_list_dir(src, &names);

	for (i = 0; !ret && i < names.nr; i++) {
		tf_buf_reset(&s);
		tf_buf_reset(&d);
		tf_path_join(&s, src, names.v[i]);
		tf_path_join(&d, dst, names.v[i]);
		ret = fn(s.buf, d.buf, arg);
	}
	tf_strvec_release(&names);
	tf_buf_release(&s);
	tf_buf_release(&d);
	return ret;
}

int tf_copy_tree(const char *src, const char *dst)
{
	if (mkdir(dst, 0755) < 0)
		return error_errno("cannot create directory '%s'", dst);
	return tf_dir_each(src, dst, copy_entry, NULL);
}

int tf_path_is_safe_relative(const char *path)
{
	const char *p = path;

	if (!*path || *path == '/')
		return 0;
	while (*p) {
		const char *end = strchrnul(p, '/');

		if (end - p == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p = *end ? end + 1 : end;
	}
	return 1;
}
