/*
 * A wheel's size against a budget (verify.h): PyPI refuses a file over
 * its project's limit, 100 MiB unless raised, so a wheel over the
 * recipe's `max-size` fails the run before it is published, and says
 * what made it large.
 */
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"
#include "wheel/wheel.h"

/* "12345 bytes (1.2 MiB)" */
static void human(struct tf_buf *out, unsigned long long n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	tf_buf_addf(out, "%llu bytes", n);
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u >= 0)
		tf_buf_addf(out, " (%.1f %s)", v, unit[u]);
}

/* The 3 largest entries, largest first. */
struct largest {
	char *names[3]; /* owned */
	long long sizes[3];
	size_t nr;
};

static void keep(struct largest *l, const char *name, long long size)
{
	size_t i, j;

	for (i = 0; i < l->nr && l->sizes[i] >= size; i++)
		;
	if (i == 3)
		return;
	if (l->nr == 3)
		free(l->names[2]);
	else
		l->nr++;
	for (j = l->nr - 1; j > i; j--) {
		l->names[j] = l->names[j - 1];
		l->sizes[j] = l->sizes[j - 1];
	}
	l->names[i] = tf_strdup(name);
	l->sizes[i] = size;
}

int tf_verify_max_size(const char *path, const char *shown,
		       unsigned long long max, const char *what)
{
	struct largest l = { { NULL, NULL, NULL }, { 0, 0, 0 }, 0 };
	struct tf_buf why = TF_BUF_INIT, msg = TF_BUF_INIT;
	const struct tf_wheel_member *m;
	struct tf_wheel_reader *r;
	enum tf_wheel_step step;
	struct stat st;
	size_t i;

	if (stat(path, &st) < 0)
		return error("%s: cannot open: %s", path, strerror(errno));
	if ((unsigned long long)st.st_size <= max)
		return 0;
	tf_buf_addf(&msg, "%s: ", shown ? shown : path);
	human(&msg, (unsigned long long)st.st_size);
	tf_buf_addf(&msg, ", over the size budget of ");
	human(&msg, max);
	tf_buf_addf(&msg, " (%s)", what);
	r = tf_wheel_open(path, TF_WHEEL_SEEKABLE | TF_WHEEL_UTF8, 65536, &why);
	while (r && ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER ||
		     step == TF_WHEEL_WARNED))
		if (m->name && m->type == TF_WHEEL_FILE && m->size_known)
			keep(&l, m->name, m->size);
	for (i = 0; i < l.nr; i++) {
		tf_buf_addstr(&msg,
			      i ? ", "
				: "; its largest entries, uncompressed: ");
		tf_buf_addf(&msg, "%s ", l.names[i]);
		human(&msg, (unsigned long long)l.sizes[i]);
	}
	error("%s", msg.buf);
	tf_wheel_close(r);
	for (i = 0; i < l.nr; i++)
		free(l.names[i]);
	tf_buf_release(&why);
	tf_buf_release(&msg);
	return -1;
}
