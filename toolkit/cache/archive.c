#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/base.h"

#define CHUNK (256 * 1024)

struct writer {
	struct archive *a;         /* owned by tf_cache_archive_write */
	const char *const *forbid; /* borrowed */
	size_t longest;            /* longest forbidden string */
	struct tf_buf *why;        /* a forbidden string found: where */
	int found;                 /* 1 once one is: the walk stops */
	char *chunk;               /* CHUNK + longest bytes */
};

/* The first forbidden string in data, or NULL. */
static const char *forbidden(const struct writer *w, const char *data, size_t n)
{
	const char *const *f;

	for (f = w->forbid; f && *f; f++)
		if (**f && memmem(data, n, *f, strlen(*f)))
			return *f;
	return NULL;
}

static int arch_error(struct archive *a, const char *what)
{
	return error("cannot write the cache archive (%s): %s", what,
		     archive_error_string(a) ? archive_error_string(a) : "?");
}

/*
 * Copy a file's bytes, keeping the last bytes of each chunk for the scan.
 * 0, or -1 after an error (reported) or a forbidden string (w->found).
 */
static int copy_data(struct writer *w, const char *path, const char *rel)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t keep = 0, over = w->longest ? w->longest - 1 : 0;
	const char *hit;
	ssize_t n;

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	while ((n = read(fd, w->chunk + keep, CHUNK)) > 0) {
		if ((hit = forbidden(w, w->chunk, keep + (size_t)n))) {
			close(fd);
			tf_buf_setf(w->why, "'%s' contains '%s'", rel, hit);
			w->found = 1;
			return -1;
		}
		if (archive_write_data(w->a, w->chunk + keep, (size_t)n) != n) {
			close(fd);
			return arch_error(w->a, rel);
		}
		keep += (size_t)n;
		if (keep > over) {
			memmove(w->chunk, w->chunk + keep - over, over);
			keep = over;
		}
	}
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return error_errno("cannot read '%s'", path);
	}
	close(fd);
	return 0;
}

/* Add one entry (a tf_dir_each callback); as copy_data. */
static int add_entry(const char *path, const char *rel, void *arg)
{
	struct writer *w = arg;
	struct archive_entry *e;
	char target[PATH_MAX];
	struct stat st;
	ssize_t n = 0;
	int ret = 0;

	if (lstat(path, &st) < 0)
		return error_errno("cannot stat '%s'", path);
	e = archive_entry_new();
	archive_entry_set_pathname(e, rel);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	if (S_ISDIR(st.st_mode)) {
		archive_entry_set_mode(e, AE_IFDIR | 0755);
	} else if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0) {
			archive_entry_free(e);
			return error_errno("cannot read link '%s'", path);
		}
		target[n] = '\0';
		if (forbidden(w, target, (size_t)n)) {
			archive_entry_free(e);
			tf_buf_setf(w->why, "link '%s' points into '%s'", rel,
				    forbidden(w, target, (size_t)n));
			w->found = 1;
			return -1;
		}
		archive_entry_set_mode(e, AE_IFLNK | 0777);
		archive_entry_set_symlink(e, target);
	} else if (S_ISREG(st.st_mode)) {
		archive_entry_set_mode(
			e, AE_IFREG | ((st.st_mode & 0111) ? 0755 : 0644));
		archive_entry_set_size(e, st.st_size);
	} else {
		archive_entry_free(e);
		return error("'%s' is not a file, directory or link", path);
	}
	if (archive_write_header(w->a, e) != ARCHIVE_OK)
		ret = arch_error(w->a, rel);
	archive_entry_free(e);
	if (!ret && S_ISREG(st.st_mode))
		ret = copy_data(w, path, rel);
	if (!ret && S_ISDIR(st.st_mode))
		ret = tf_dir_each(path, rel, add_entry, w);
	return ret;
}

enum tf_cache_archive_result tf_cache_archive_write(const char *dir, int fd,
						    const char *const *forbid,
						    struct tf_buf *why)
{
	struct writer w = { archive_write_new(), forbid, 0, why, 0, NULL };
	const char *const *f;
	int ret;

	if (!w.a)
		tf_out_of_memory(0);
	for (f = forbid; f && *f; f++)
		if (strlen(*f) > w.longest)
			w.longest = strlen(*f);
	w.chunk = tf_malloc(CHUNK + w.longest + 1);
	if (archive_write_set_format_pax_restricted(w.a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w.a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(w.a, fd) != ARCHIVE_OK)
		ret = arch_error(w.a, "open");
	else
		ret = tf_dir_each(dir, "", add_entry, &w);
	if (archive_write_close(w.a) != ARCHIVE_OK && !ret)
		ret = arch_error(w.a, "close");
	archive_write_free(w.a);
	free(w.chunk);
	if (w.found)
		return TF_CACHE_ARCHIVE_FORBIDDEN;
	return ret ? TF_CACHE_ARCHIVE_ERROR : TF_CACHE_ARCHIVE_OK;
}

/* A link target that stays inside the tree, seen from the link at name. */
static int link_inside(const char *name, const char *target)
{
	int depth = 0;
	const char *p;

	if (target[0] == '/')
		return 0;
	for (p = name; *p; p++)
		if (*p == '/')
			depth++;
	for (p = target; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2))
			depth--;
		else if (n && !(n == 1 && *p == '.'))
			depth++;
		if (depth < 0)
			return 0;
		p += n;
		while (*p == '/')
			p++;
	}
	return 1;
}

/*
 * Extract with relative names from inside dir, so that libarchive's own
 * guards (no absolute names, no "..", nothing written through a
 * symlink) apply to the tree being made and nothing above it.
 */
static int extract(struct archive *a, struct archive *out, struct tf_buf *why)
{
	struct archive_entry *e;
	int r, ret = 0;

	while (!ret && (r = archive_read_next_header(a, &e)) != ARCHIVE_EOF) {
		const char *name = archive_entry_pathname(e);
		mode_t type = archive_entry_filetype(e);

		if (r != ARCHIVE_OK)
			return tf_why(why, "%s", archive_error_string(a));
		if (!name || !tf_path_is_safe_relative(name) ||
		    (type != AE_IFDIR && type != AE_IFREG &&
		     type != AE_IFLNK) ||
		    archive_entry_hardlink(e) ||
		    (type == AE_IFLNK &&
		     !link_inside(name, archive_entry_symlink(e))))
			return tf_why(why, "member '%s' is unsafe",
				      name ? name : "?");
		if (archive_write_header(out, e) != ARCHIVE_OK)
			return tf_why(why, "cannot extract '%s': %s", name,
				      archive_error_string(out));
		if (type == AE_IFREG && archive_entry_size(e) > 0) {
			const void *block;
			size_t size;
			la_int64_t off;

			while ((r = archive_read_data_block(
					a, &block, &size, &off)) == ARCHIVE_OK)
				if (archive_write_data_block(out, block, size,
							     off) != ARCHIVE_OK)
					break;
			if (r != ARCHIVE_EOF)
				return tf_why(
					why, "cannot extract '%s': %s", name,
					archive_error_string(
						r == ARCHIVE_OK ? out : a));
		}
		if (archive_write_finish_entry(out) != ARCHIVE_OK)
			ret = tf_why(why, "cannot extract '%s': %s", name,
				     archive_error_string(out));
	}
	return ret;
}

int tf_cache_archive_read(int fd, const char *dir, struct tf_buf *why)
{
	struct archive *a = archive_read_new(), *out = archive_write_disk_new();
	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (!a || !out)
		tf_out_of_memory(0);
	archive_read_support_format_tar(a);
	archive_write_disk_set_options(
		out, ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
			     ARCHIVE_EXTRACT_SECURE_SYMLINKS |
			     ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	if (here < 0)
		ret = tf_why(why, "cannot open the current directory: %s",
			     strerror(errno));
	else if (lseek(fd, 0, SEEK_SET) < 0 ||
		 archive_read_open_fd(a, fd, CHUNK) != ARCHIVE_OK)
		ret = tf_why(why, "cannot read: %s", archive_error_string(a));
	else if (chdir(dir) < 0)
		ret = tf_why(why, "cannot enter '%s': %s", dir,
			     strerror(errno));
	else {
		ret = extract(a, out, why);
		/* Back where the command was: its relative paths must hold. */
		if (fchdir(here) < 0)
			BUG("cannot return to the working directory");
	}
	if (here >= 0)
		close(here);
	archive_read_free(a);
	archive_write_free(out);
	return ret;
}
