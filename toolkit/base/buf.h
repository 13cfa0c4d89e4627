#ifndef TF_BUF_H
#define TF_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "log.h"

/*
 * A growable byte buffer. After TF_BUF_INIT, .buf is never NULL and is
 * always NUL-terminated, so it can be passed where a C string is wanted.
 * A non-zero .cap bounds growth for untrusted input: an add past it fails
 * with -1 and leaves the buffer as it was.
 */
struct tf_buf {
	char *buf;    /* owned unless it points at tf_buf_empty */
	size_t len;   /* bytes in use, not counting the NUL */
	size_t alloc; /* bytes allocated; 0 while buf is tf_buf_empty */
	size_t cap;   /* 0 for no limit, else the most len may reach */
};

extern char tf_buf_empty[];
#define TF_BUF_INIT                   \
	{                             \
		tf_buf_empty, 0, 0, 0 \
	}

void tf_buf_init(struct tf_buf *b);
/* Free the storage; safe on NULL and twice. Leaves an empty buffer. */
void tf_buf_release(struct tf_buf *b);
/* Hand the storage to the caller, who must free() it. Leaves b empty. */
char *tf_buf_detach(struct tf_buf *b);
void tf_buf_reset(struct tf_buf *b);
/* Make room for n more bytes; -1 if that passes .cap. Aborts on OOM. */
int tf_buf_grow(struct tf_buf *b, size_t n);
int tf_buf_add(struct tf_buf *b, const void *data, size_t n);
int tf_buf_addstr(struct tf_buf *b, const char *s);
int tf_buf_addch(struct tf_buf *b, char c);
int tf_buf_addf(struct tf_buf *b, const char *fmt, ...) TF_PRINTF(2, 3);
int tf_buf_vaddf(struct tf_buf *b, const char *fmt, va_list ap);
/*
 * For pure *_check functions (log.h): append why something is wrong to
 * why and return -1, so a refusal reads `return tf_why(why, "...", x)`.
 */
int tf_why(struct tf_buf *why, const char *fmt, ...) TF_PRINTF(2, 3);
/* Replace the contents with a formatted string. */
int tf_buf_setf(struct tf_buf *b, const char *fmt, ...) TF_PRINTF(2, 3);
void tf_buf_setlen(struct tf_buf *b, size_t len);

/* Allocation that aborts with a message instead of returning NULL. */
/*
 * Running out of memory is the one failure no caller handles: report it
 * (with the size asked for, when n is not 0) and exit 1 at once, from
 * any layer, as BUG() aborts from any layer.
 */
TF_NORETURN void tf_out_of_memory(size_t n);
void *tf_malloc(size_t n);
void *tf_calloc(size_t nmemb, size_t size);
void *tf_realloc(void *p, size_t n);
/* s without leading and trailing white space: trailing ones are cut in place. */
char *tf_str_trim(char *s);
char *tf_strdup(const char *s);
char *tf_strndup(const char *s, size_t n);
/* Return a newly allocated formatted string; the caller owns it. */
char *tf_xstrfmt(const char *fmt, ...) TF_PRINTF(1, 2);

/*
 * A NULL-terminated vector of owned strings, for argv and environments.
 * .v is never NULL after TF_STRVEC_INIT.
 */
struct tf_strvec {
	char **v;     /* owned, each element owned; v[nr] is NULL */
	size_t nr;    /* number of strings */
	size_t alloc; /* slots allocated, 0 while v is the static empty vector */
};

extern char *tf_strvec_empty[];
#define TF_STRVEC_INIT                \
	{                             \
		tf_strvec_empty, 0, 0 \
	}

void tf_strvec_push(struct tf_strvec *sv, const char *s);
void tf_strvec_pushf(struct tf_strvec *sv, const char *fmt, ...)
	TF_PRINTF(2, 3);
/* Push a string the caller allocated; the vector now owns it. */
void tf_strvec_push_take(struct tf_strvec *sv, char *s);
void tf_strvec_pushv(struct tf_strvec *sv, const char *const *v);
void tf_strvec_release(struct tf_strvec *sv);
/* qsort comparator for an array of char pointers, bytewise. */
int tf_strcmp_ptr(const void *a, const void *b);
/* Join with sep into out (appending). */
void tf_strvec_join(const struct tf_strvec *sv, const char *sep,
		    struct tf_buf *out);
/* 1 if sv holds a string equal to s, else 0. */
int tf_strvec_has(const struct tf_strvec *sv, const char *s);

#endif
