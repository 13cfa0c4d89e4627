#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/* Written out in pieces this large: the spool's memory. */
#define SPOOL_CHUNK (64 * 1024)

int tf_spool_open(struct tf_spool *s, const char *dir)
{
	char *tmpl;
	int fd, saved;

	s->size = 0;
	s->err = 0;
	s->buf = (struct tf_buf)TF_BUF_INIT;
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	/* A file system without O_TMPFILE (or a kernel before 3.11,
	   which sees only O_DIRECTORY) gets a named file, unlinked at
	   once; any other failure is final. */
	if (fd >= 0 ||
	    (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) {
		s->fd = fd;
		return fd < 0 ? -1 : 0;
	}
#endif
	tmpl = tf_xstrfmt("%s/.tfbuild-spool.XXXXXX", dir);
	fd = tf_signals_mkstemp(tmpl, O_CLOEXEC);
	if (fd >= 0) {
		unlink(tmpl);
		tf_signals_temp_forget(tmpl);
	}
	saved = errno;
	free(tmpl);
	errno = saved;
	s->fd = fd;
	return fd < 0 ? -1 : 0;
}

static void flush(struct tf_spool *s)
{
	if (!s->err && s->buf.len &&
	    tf_write_all(s->fd, s->buf.buf, s->buf.len) < 0)
		s->err = errno ? errno : EIO;
	tf_buf_reset(&s->buf);
}

void tf_spool_add(struct tf_spool *s, const void *data, size_t n)
{
	tf_buf_add(&s->buf, data, n);
	s->size += (long long)n;
	if (s->buf.len >= SPOOL_CHUNK)
		flush(s);
}

int tf_spool_rewind(struct tf_spool *s)
{
	flush(s);
	tf_buf_release(&s->buf);
	if (!s->err && lseek(s->fd, 0, SEEK_SET) < 0)
		s->err = errno;
	if (!s->err)
		return 0;
	errno = s->err;
	return -1;
}

ssize_t tf_spool_read(struct tf_spool *s, void *data, size_t n)
{
	ssize_t r;

	do
		r = read(s->fd, data, n);
	while (r < 0 && errno == EINTR);
	return r;
}

void tf_spool_release(struct tf_spool *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	tf_buf_release(&s->buf);
}
