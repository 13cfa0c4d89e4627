/*
 * Python packaging names and versions. Rules from the PyPA
 * specifications: name normalization (PEP 503), the binary distribution
 * format's filename escaping, core metadata's valid-name pattern, and
 * PEP 440 version normalization. Everything here is pure: no I/O, no
 * messages, so the rules can be tested from tables.
 */
#include "pyname.h"
#include "base/base.h"

#include <string.h>

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int is_name_sep(int c)
{
	return c == '-' || c == '_' || c == '.';
}

/* Lowercase name, turning each run of "-_." into sep. */
static void collapse(const char *name, char sep, struct tf_buf *out)
{
	while (*name) {
		if (is_name_sep(*name)) {
			while (is_name_sep(*name))
				name++;
			tf_buf_addch(out, sep);
			continue;
		}
		tf_buf_addch(out, (char)lower(*name++));
	}
}

void tf_pyname_normalize(const char *name, struct tf_buf *out)
{
	collapse(name, '-', out);
}

void tf_pyname_wheel_escape(const char *name, struct tf_buf *out)
{
	collapse(name, '_', out);
}

int tf_pyname_is_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || !is_alnum(name[0]) || !is_alnum(name[n - 1]))
		return 0;
	for (i = 1; i + 1 < n; i++)
		if (!is_alnum(name[i]) && !is_name_sep(name[i]))
			return 0;
	return 1;
}

int tf_wheel_tag_is_valid(const char *tag)
{
	const char *p = tag;

	if (!*tag)
		return 0;
	for (; *p; p++) {
		if (*p == '.') {
			/* No empty alternative: not first, last or doubled. */
			if (p == tag || !p[1] || p[1] == '.')
				return 0;
		} else if (!is_alnum(*p) && *p != '_') {
			return 0;
		}
	}
	return 1;
}

/*
 * PEP 440. The parser walks the grammar of the specification's regular
 * expression (case-insensitive):
 *
 *   v? (N!)? N(.N)* ([-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?N?)?
 *   (-N | [-_.]?(post|rev|r)[-_.]?N?)? ([-_.]?dev[-_.]?N?)?
 *   (+L([-_.]L)*)?          with N = [0-9]+, L = [a-z0-9]+
 *
 * and writes the normal form as it goes. Each optional part either
 * matches and advances, or leaves the position untouched, which is all
 * the backtracking that grammar needs.
 */
struct pep440 {
	const char *p;      /* borrowed; the next character to read */
	struct tf_buf *out; /* borrowed; normal form so far */
};

static int is_ver_sep(int c)
{
	return c == '-' || c == '_' || c == '.';
}

/* Append a run of digits without leading zeros; 0 if there is none. */
static int number(struct pep440 *v)
{
	const char *s = v->p;

	if (!is_digit(*s))
		return 0;
	while (*s == '0' && is_digit(s[1]))
		s++;
	v->p = s;
	while (is_digit(*v->p))
		v->p++;
	tf_buf_add(v->out, s, (size_t)(v->p - s));
	return 1;
}

/* Match a label case-insensitively at v->p and advance past it. */
static int label(struct pep440 *v, const char *word)
{
	size_t i;

	for (i = 0; word[i]; i++)
		if (lower(v->p[i]) != word[i])
			return 0;
	v->p += i;
	return 1;
}

static void optional_sep(struct pep440 *v)
{
	if (is_ver_sep(*v->p))
		v->p++;
}

/*
 * The "[-_.]?N?" tail of pre, post and dev; a missing number is 0. The
 * separator is taken even when no number follows, as the expression
 * does ("1.0a." is 1.0a0): every later part may start without one.
 */
static void implicit_number(struct pep440 *v)
{
	optional_sep(v);
	if (!number(v))
		tf_buf_addch(v->out, '0');
}

/* Try each label in order; on a match append its normal spelling. */
static int spelled(struct pep440 *v, const char *const (*words)[2])
{
	for (; (*words)[0]; words++) {
		if (label(v, (*words)[0])) {
			tf_buf_addstr(v->out, (*words)[1]);
			return 1;
		}
	}
	return 0;
}

static const char *const pre_words[][2] = {
	{ "alpha", "a" }, { "a", "a" },        { "beta", "b" },
	{ "b", "b" },     { "preview", "rc" }, { "pre", "rc" },
	{ "c", "rc" },    { "rc", "rc" },      { NULL, NULL },
};
static const char *const post_words[][2] = {
	{ "post", ".post" },
	{ "rev", ".post" },
	{ "r", ".post" },
	{ NULL, NULL },
};
static const char *const dev_words[][2] = {
	{ "dev", ".dev" },
	{ NULL, NULL },
};

/* An optional "[-_.]?LABEL[-_.]?N?" part; undone if LABEL is not there. */
static void labelled(struct pep440 *v, const char *const (*words)[2])
{
	const char *save = v->p;

	optional_sep(v);
	if (spelled(v, words))
		implicit_number(v);
	else
		v->p = save;
}

static void post(struct pep440 *v)
{
	/* The implicit post release "1.0-1" needs the '-' and a number. */
	if (v->p[0] == '-' && is_digit(v->p[1])) {
		v->p++;
		tf_buf_addstr(v->out, ".post");
		number(v);
		return;
	}
	labelled(v, post_words);
}

static int epoch_and_release(struct pep440 *v)
{
	const char *s = v->p;
	size_t start = v->out->len;

	while (is_digit(*s))
		s++;
	if (s > v->p && *s == '!') {
		number(v);
		/* Epoch 0 is the default and is left out. */
		if (!strcmp(v->out->buf + start, "0"))
			tf_buf_setlen(v->out, start);
		else
			tf_buf_addch(v->out, '!');
		v->p++;
	}
	if (!number(v))
		return -1;
	while (v->p[0] == '.' && is_digit(v->p[1])) {
		v->p++;
		tf_buf_addch(v->out, '.');
		number(v);
	}
	return 0;
}

static int local(struct pep440 *v)
{
	if (*v->p != '+')
		return 0;
	v->p++;
	tf_buf_addch(v->out, '+');
	for (;;) {
		const char *s = v->p;
		int digits = 1;

		while (is_alnum(*v->p))
			digits &= is_digit(*v->p++);
		if (v->p == s)
			return -1;
		if (digits) {
			/* Numeric segments compare as integers: "+01" is "+1". */
			v->p = s;
			number(v);
		} else {
			for (; s < v->p; s++)
				tf_buf_addch(v->out, (char)lower(*s));
		}
		if (!is_ver_sep(*v->p))
			return 0;
		v->p++;
		tf_buf_addch(v->out, '.');
	}
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/*
 * Surrounding whitespace is stripped, not rejected: PEP 440 says it
 * "must be silently ignored", and that is what pip does.
 */
int tf_pep440_normalize(const char *version, struct tf_buf *out)
{
	struct tf_buf b = TF_BUF_INIT;
	struct pep440 v = { version, &b };
	int ret = -1;

	while (is_space(*v.p))
		v.p++;
	if (lower(*v.p) == 'v')
		v.p++;
	if (epoch_and_release(&v) < 0)
		goto out;
	labelled(&v, pre_words);
	post(&v);
	labelled(&v, dev_words);
	if (local(&v) < 0)
		goto out;
	while (is_space(*v.p))
		v.p++;
	if (*v.p)
		goto out;
	tf_buf_add(out, b.buf, b.len);
	ret = 0;
out:
	tf_buf_release(&b);
	return ret;
}

/* Push each dot-separated alternative of tag, prefixed by each of pre. */
static void cross(const struct tf_strvec *pre, const char *tag,
		  struct tf_strvec *out)
{
	size_t i;

	for (i = 0; i < pre->nr; i++) {
		const char *p = tag;

		for (;;) {
			size_t n = strcspn(p, ".");

			tf_strvec_pushf(out, "%s%s%.*s", pre->v[i],
					*pre->v[i] ? "-" : "", (int)n, p);
			if (!p[n])
				break;
			p += n + 1;
		}
	}
}

int tf_wheel_tags_expand(const char *python, const char *abi,
			 const char *platform, struct tf_strvec *out)
{
	struct tf_strvec a = TF_STRVEC_INIT, b = TF_STRVEC_INIT;
	size_t i;

	if (!tf_wheel_tag_is_valid(python) || !tf_wheel_tag_is_valid(abi) ||
	    !tf_wheel_tag_is_valid(platform))
		return -1;
	tf_strvec_push(&a, "");
	cross(&a, python, &b);
	tf_strvec_release(&a);
	cross(&b, abi, &a);
	tf_strvec_release(&b);
	cross(&a, platform, &b);
	for (i = 0; i < b.nr; i++)
		tf_strvec_push(out, b.v[i]);
	tf_strvec_release(&a);
	tf_strvec_release(&b);
	return 0;
}
