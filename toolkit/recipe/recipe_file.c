/*
 * Reading a recipe or toolchain file: a regular file only, looked at
 * before any read. A FIFO (or a device) would block open(2) or read(2)
 * for ever; opened with O_NONBLOCK it cannot, and fstat(2) of that
 * descriptor says what it is (base/path.c's tf_read_regular, which the
 * lock file's reader and verify's checks share); here only the message.
 */
#include "recipe_internal.h"

#include <errno.h>
#include <string.h>

#include "base/base.h"

int tf_recipe_read_regular(const char *path, struct tf_buf *out)
{
	const char *kind = NULL;
	int ret = tf_read_regular(path, out, 0, &kind);

	if (ret != -2)
		return ret;
	if (!strcmp(kind, "a directory")) /* as read(2) would say */
		return error("cannot read '%s': %s", path, strerror(EISDIR));
	return error("'%s' is not a regular file (%s)", path, kind);
}
