/*
 * Reading a recipe or toolchain file: a regular file only, looked at
 * before any read. A FIFO (or a device) would block open(2) or read(2)
 * for ever; opened with O_NONBLOCK it cannot, and fstat(2) of that
 * descriptor says what it is. verify's readers do the same (a later
 * merge joins them in base/path.c beside tf_path_regular_check).
 */
#include "recipe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a file";
}

int tf_recipe_read_regular(const char *path, struct tf_buf *out)
{
	char chunk[8192];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
	    ret = 0;

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	if (fstat(fd, &st) < 0)
		ret = error_errno("cannot read '%s'", path);
	else if (S_ISDIR(st.st_mode)) /* as read(2) would say */
		ret = error("cannot read '%s': %s", path, strerror(EISDIR));
	else if (!S_ISREG(st.st_mode))
		ret = error("'%s' is not a regular file (%s)", path,
			    kind_of(st.st_mode));
	else if (fcntl(fd, F_SETFL, 0) < 0) /* reads may block again */
		ret = error_errno("cannot read '%s'", path);
	while (!ret && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = error_errno("cannot read '%s'", path);
		else if (tf_buf_add(out, chunk, (size_t)n) < 0)
			ret = error("'%s' is too large (over %zu bytes)", path,
				    out->cap);
	}
	close(fd);
	return ret;
}
