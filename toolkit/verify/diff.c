#include "diff.h"
#include "base/base.h"
#include "wheel/wheel.h"

#include <stdarg.h>

#include <string.h>
#include <time.h>

/* Index of the entry called name in l, or -1. */
static long find(const struct tf_wheel_listing *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].name, name))
			return (long)i;
	return -1;
}

static void utc(long long t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
}

/* Append a line unless the limit is reached; count it either way. */
static void note(struct tf_buf *out, size_t *n, size_t max, const char *fmt,
		 ...) TF_PRINTF(4, 5);
static void note(struct tf_buf *out, size_t *n, size_t max, const char *fmt,
		 ...)
{
	va_list ap;

	if ((*n)++ >= max)
		return;
	va_start(ap, fmt);
	tf_buf_vaddf(out, fmt, ap);
	va_end(ap);
	tf_buf_addch(out, '\n');
}

static void compare_entry(const struct tf_wheel_entry *x,
			  const struct tf_wheel_entry *y, struct tf_buf *out,
			  size_t *n, size_t max)
{
	char tx[32], ty[32];

	if (strcmp(x->sha256, y->sha256))
		note(out, n, max,
		     "%s: content differs (%lld bytes, sha256 %.12s... vs %lld bytes, sha256 %.12s...)",
		     x->name, x->size, x->sha256, y->size, y->sha256);
	if (x->mode != y->mode)
		note(out, n, max, "%s: permissions differ (%04o vs %04o)",
		     x->name, x->mode, y->mode);
	if (x->mtime != y->mtime) {
		utc(x->mtime, tx);
		utc(y->mtime, ty);
		note(out, n, max, "%s: timestamp differs (%s vs %s UTC)",
		     x->name, tx, ty);
	}
}

size_t tf_wheel_diff(const struct tf_wheel_listing *a, const char *a_name,
		     const struct tf_wheel_listing *b, const char *b_name,
		     size_t max, struct tf_buf *out)
{
	size_t i, n = 0, order_noted = 0;

	for (i = 0; i < a->nr; i++) {
		long j = find(b, a->v[i].name);

		if (j < 0) {
			note(out, &n, max, "%s: only in %s", a->v[i].name,
			     a_name);
			continue;
		}
		if ((size_t)j != i && !order_noted++)
			note(out, &n, max,
			     "%s: order differs (entry %zu in %s, %ld in %s)",
			     a->v[i].name, i + 1, a_name, j + 1, b_name);
		compare_entry(&a->v[i], &b->v[j], out, &n, max);
	}
	for (i = 0; i < b->nr; i++)
		if (find(a, b->v[i].name) < 0)
			note(out, &n, max, "%s: only in %s", b->v[i].name,
			     b_name);
	if (n > max)
		tf_buf_addf(out, "(%zu more differences)\n", n - max);
	return n;
}
