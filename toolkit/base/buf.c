#include "buf.h"
#include "log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char tf_buf_empty[1];
char *tf_strvec_empty[1];

void tf_out_of_memory(size_t n)
{
	if (n)
		error("out of memory allocating %zu bytes", n);
	else
		error("out of memory");
	exit(TF_EXIT_FAILURE);
}

void *tf_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		tf_out_of_memory(n);
	return p;
}

void *tf_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		tf_out_of_memory(nmemb * size);
	return p;
}

void *tf_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		tf_out_of_memory(n);
	return q;
}

char *tf_strdup(const char *s)
{
	return tf_strndup(s, strlen(s));
}

char *tf_strndup(const char *s, size_t n)
{
	char *p = tf_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *tf_xstrfmt(const char *fmt, ...)
{
	struct tf_buf b = TF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return tf_buf_detach(&b);
}

void tf_buf_init(struct tf_buf *b)
{
	struct tf_buf empty = TF_BUF_INIT;

	*b = empty;
}

void tf_buf_release(struct tf_buf *b)
{
	size_t cap;

	if (!b)
		return;
	cap = b->cap;
	if (b->alloc)
		free(b->buf);
	tf_buf_init(b);
	b->cap = cap;
}

char *tf_buf_detach(struct tf_buf *b)
{
	char *s = b->alloc ? b->buf : tf_strdup("");

	b->buf = tf_buf_empty;
	b->len = b->alloc = 0;
	return s;
}

void tf_buf_reset(struct tf_buf *b)
{
	tf_buf_setlen(b, 0);
}

void tf_buf_setlen(struct tf_buf *b, size_t len)
{
	if (len > b->len && len >= b->alloc)
		BUG("tf_buf_setlen past allocation");
	b->len = len;
	if (b->alloc)
		b->buf[len] = '\0';
}

int tf_buf_grow(struct tf_buf *b, size_t n)
{
	size_t want;

	if (n > (size_t)-1 / 2 - b->len)
		tf_out_of_memory(n);
	want = b->len + n + 1;
	if (b->cap && b->len + n > b->cap)
		return -1;
	if (want <= b->alloc)
		return 0;
	if (!b->alloc)
		b->buf = NULL;
	b->alloc = b->alloc * 3 / 2 > want ? b->alloc * 3 / 2 : want + 16;
	b->buf = tf_realloc(b->buf, b->alloc);
	if (!b->len)
		b->buf[0] = '\0';
	return 0;
}

int tf_buf_add(struct tf_buf *b, const void *data, size_t n)
{
	if (tf_buf_grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return 0;
}

int tf_buf_addstr(struct tf_buf *b, const char *s)
{
	return tf_buf_add(b, s, strlen(s));
}

int tf_buf_addch(struct tf_buf *b, char c)
{
	return tf_buf_add(b, &c, 1);
}

int tf_why(struct tf_buf *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(why, fmt, ap);
	va_end(ap);
	return -1;
}

int tf_buf_vaddf(struct tf_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	if (tf_buf_grow(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int tf_buf_addf(struct tf_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = tf_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return ret;
}

int tf_buf_setf(struct tf_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	tf_buf_reset(b);
	va_start(ap, fmt);
	ret = tf_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return ret;
}

void tf_strvec_push_take(struct tf_strvec *sv, char *s)
{
	if (sv->nr + 2 > sv->alloc) {
		size_t n = sv->alloc ? sv->alloc * 2 : 8;

		sv->v = tf_realloc(sv->alloc ? sv->v : NULL,
				   n * sizeof(*sv->v));
		sv->alloc = n;
	}
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void tf_strvec_push(struct tf_strvec *sv, const char *s)
{
	tf_strvec_push_take(sv, tf_strdup(s));
}

void tf_strvec_pushf(struct tf_strvec *sv, const char *fmt, ...)
{
	struct tf_buf b = TF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	tf_strvec_push_take(sv, tf_buf_detach(&b));
}

void tf_strvec_pushv(struct tf_strvec *sv, const char *const *v)
{
	for (; *v; v++)
		tf_strvec_push(sv, *v);
}

void tf_strvec_release(struct tf_strvec *sv)
{
	size_t i;

	if (!sv)
		return;
	for (i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	if (sv->alloc)
		free(sv->v);
	sv->v = tf_strvec_empty;
	sv->nr = sv->alloc = 0;
}

void tf_strvec_join(const struct tf_strvec *sv, const char *sep,
		    struct tf_buf *out)
{
	size_t i;

	for (i = 0; i < sv->nr; i++) {
		if (i)
			tf_buf_addstr(out, sep);
		tf_buf_addstr(out, sv->v[i]);
	}
}

int tf_strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *tf_str_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int tf_strvec_has(const struct tf_strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}
