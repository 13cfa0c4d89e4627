/*
 * PEP 440 versions compared and specifier sets as intervals (pep440.h).
 * A version is parsed from the normal form tf_pep440_normalize writes,
 * which has one spelling for each part.
 */
#include "pep440.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pyname.h"
#include "base/base.h"

static unsigned long digits(const char **p)
{
	unsigned long n = 0;

	while (isdigit((unsigned char)**p))
		n = n * 10 + (unsigned long)(*(*p)++ - '0');
	return n;
}

int tf_version_parse(const char *s, struct tf_version *v, struct tf_buf *why)
{
	struct tf_buf norm = TF_BUF_INIT;
	const char *p, *bang;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	v->post = v->dev = -1;
	if (tf_pep440_normalize(s, &norm) < 0) {
		ret = tf_why(why, "'%s' is not a PEP 440 version", s);
		goto out;
	}
	p = norm.buf;
	bang = strchr(p, '!');
	if (bang) {
		v->epoch = digits(&p);
		p = bang + 1;
	}
	for (;;) {
		if (v->nr_release == TF_VERSION_MAX_RELEASE) {
			ret = tf_why(why, "'%s' has more than %d release parts",
				     s, TF_VERSION_MAX_RELEASE);
			goto out;
		}
		v->release[v->nr_release++] = digits(&p);
		if (*p != '.' || !isdigit((unsigned char)p[1]))
			break;
		p++;
	}
	if (*p == 'a' || *p == 'b' || !strncmp(p, "rc", 2)) {
		v->pre_kind = *p == 'a' ? 1 : *p == 'b' ? 2 : 3;
		p += v->pre_kind == 3 ? 2 : 1;
		v->pre = digits(&p);
	}
	if (!strncmp(p, ".post", 5)) {
		p += 5;
		v->post = (long)digits(&p);
	}
	if (!strncmp(p, ".dev", 4)) {
		p += 4;
		v->dev = (long)digits(&p);
	}
	v->local = *p == '+';
out:
	tf_buf_release(&norm);
	return ret;
}

static int cmp_ul(unsigned long a, unsigned long b)
{
	return a < b ? -1 : a > b;
}

/*
 * PEP 440's order, as packaging sorts: the release padded with zeros;
 * a dev-release of a final release before its pre-releases; pre before
 * final; no post before any post; dev before none.
 */
int tf_version_cmp(const struct tf_version *a, const struct tf_version *b)
{
	size_t i, n = a->nr_release > b->nr_release ? a->nr_release
						    : b->nr_release;
	int c = cmp_ul(a->epoch, b->epoch);
	long pa, pb;

	for (i = 0; !c && i < n; i++)
		c = cmp_ul(i < a->nr_release ? a->release[i] : 0,
			   i < b->nr_release ? b->release[i] : 0);
	if (c)
		return c;
	/* Pre-release rank: -1 a dev-release of the final, 0..3 kinds
	   (0 = final, ranked above every pre-release as 4). */
	pa = !a->pre_kind && a->post < 0 && a->dev >= 0 ? -1
	     : a->pre_kind                              ? a->pre_kind
							: 4;
	pb = !b->pre_kind && b->post < 0 && b->dev >= 0 ? -1
	     : b->pre_kind                              ? b->pre_kind
							: 4;
	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (a->pre_kind && (c = cmp_ul(a->pre, b->pre)))
		return c;
	if (a->post != b->post)
		return a->post < b->post ? -1 : 1;
	if (a->dev != b->dev) {
		if (a->dev < 0 || b->dev < 0)
			return a->dev < 0 ? 1 : -1;
		return a->dev < b->dev ? -1 : 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ ranges */

/* The least version of release rel[0..n) in epoch: "R.dev0". */
static void least_of(struct tf_version *out, unsigned long epoch,
		     const unsigned long *rel, size_t n)
{
	memset(out, 0, sizeof(*out));
	out->epoch = epoch;
	memcpy(out->release, rel, n * sizeof(*rel));
	out->nr_release = n;
	out->post = -1;
	out->dev = 0;
}

/* Tighten r's lower bound to v (open or closed). */
static void raise_lo(struct tf_version_range *r, const struct tf_version *v,
		     int open)
{
	int c = r->has_lo ? tf_version_cmp(v, &r->lo) : 1;

	if (c > 0 || (c == 0 && open)) {
		r->lo = *v;
		r->lo_open = open;
		r->has_lo = 1;
	}
}

static void lower_hi(struct tf_version_range *r, const struct tf_version *v,
		     int open)
{
	int c = r->has_hi ? tf_version_cmp(v, &r->hi) : -1;

	if (c < 0 || (c == 0 && open)) {
		r->hi = *v;
		r->hi_open = open;
		r->has_hi = 1;
	}
}

/* [R.dev0, R'.dev0) where R' is R[0..n) with its last part plus one. */
static void prefix_range(struct tf_version_range *r, const struct tf_version *v,
			 size_t n)
{
	unsigned long rel[TF_VERSION_MAX_RELEASE];
	struct tf_version b;

	memcpy(rel, v->release, n * sizeof(*rel));
	least_of(&b, v->epoch, rel, n);
	raise_lo(r, &b, 0);
	rel[n - 1]++;
	least_of(&b, v->epoch, rel, n);
	lower_hi(r, &b, 1);
}

static int is_pre(const struct tf_version *v)
{
	return v->pre_kind || v->dev >= 0;
}

/* One specifier s[0..n) (trimmed) into r. */
static int one_range(const char *s, size_t n, struct tf_version_range *r,
		     struct tf_buf *why)
{
	static const char *const ops[] = { "===", "~=", "==", "!=",
					   "<=",  ">=", "<",  ">" };
	const char *op = NULL;
	char *ver;
	size_t i, len;
	int star = 0, ret = 0;
	struct tf_version v;

	for (i = 0; i < sizeof(ops) / sizeof(*ops) && !op; i++)
		if (!strncmp(s, ops[i], strlen(ops[i])))
			op = ops[i];
	if (!op)
		return tf_why(why, "'%.*s' has no operator", (int)n, s);
	if (!strcmp(op, "==="))
		return tf_why(why,
			      "'%.*s' (arbitrary equality) cannot be "
			      "judged",
			      (int)n, s);
	ver = tf_strndup(s + strlen(op), n - strlen(op));
	len = strlen(ver);
	if (len > 2 && !strcmp(ver + len - 2, ".*")) {
		ver[len - 2] = '\0';
		star = 1;
	}
	if (tf_version_parse(ver, &v, why) < 0) {
		ret = -1;
	} else if (!strcmp(op, "!=")) {
		/* Only narrows: the interval still holds what it admits. */
	} else if (star && (strcmp(op, "==") || is_pre(&v) || v.post >= 0)) {
		ret = tf_why(why, "'%.*s' cannot be judged", (int)n, s);
	} else if (star) {
		prefix_range(r, &v, v.nr_release);
	} else if (!strcmp(op, "==")) {
		raise_lo(r, &v, 0);
		lower_hi(r, &v, 0);
	} else if (!strcmp(op, ">=") || !strcmp(op, ">")) {
		raise_lo(r, &v, op[1] != '=');
	} else if (!strcmp(op, "<=")) {
		lower_hi(r, &v, 0);
	} else if (!strcmp(op, "<")) {
		struct tf_version b = v;

		/* "<2.22" admits no pre-release of 2.22: below 2.22.dev0. */
		if (!is_pre(&v) && v.post < 0)
			least_of(&b, v.epoch, v.release, v.nr_release);
		lower_hi(r, &b, 1);
	} else if (v.nr_release < 2) { /* ~= */
		ret = tf_why(why, "'%.*s': ~= needs two release parts", (int)n,
			     s);
	} else {
		raise_lo(r, &v, 0);
		prefix_range(r, &v, v.nr_release - 1);
	}
	free(ver);
	return ret;
}

int tf_specifiers_range(const char *spec, struct tf_version_range *out,
			struct tf_buf *why)
{
	const char *s = spec;

	memset(out, 0, sizeof(*out));
	for (;;) {
		size_t n = strcspn(s, ",");
		const char *t = s;
		size_t m = n;

		while (m && isspace((unsigned char)*t))
			t++, m--;
		while (m && isspace((unsigned char)t[m - 1]))
			m--;
		if (m) {
			char *one = tf_strndup(t, m);
			char *w = one, *c;

			/* "> = 1.0" is not PEP 440, but "== 1.0" is: blanks go. */
			for (c = one; *c; c++)
				if (!isspace((unsigned char)*c))
					*w++ = *c;
			*w = '\0';
			if (one_range(one, strlen(one), out, why) < 0) {
				free(one);
				return -1;
			}
			free(one);
		}
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

int tf_version_range_within(const struct tf_version_range *inner,
			    const struct tf_version_range *outer)
{
	int c;

	if (outer->has_lo) {
		if (!inner->has_lo)
			return 0;
		c = tf_version_cmp(&inner->lo, &outer->lo);
		if (c < 0 || (!c && outer->lo_open && !inner->lo_open))
			return 0;
	}
	if (outer->has_hi) {
		if (!inner->has_hi)
			return 0;
		c = tf_version_cmp(&inner->hi, &outer->hi);
		if (c > 0 || (!c && outer->hi_open && !inner->hi_open))
			return 0;
	}
	return 1;
}

int tf_version_range_has(const struct tf_version_range *r,
			 const struct tf_version *v)
{
	int c;

	if (r->has_lo) {
		c = tf_version_cmp(v, &r->lo);
		if (c < 0 || (!c && r->lo_open))
			return 0;
	}
	if (r->has_hi) {
		c = tf_version_cmp(v, &r->hi);
		if (c > 0 || (!c && r->hi_open))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------------ PEP 508 */

int tf_requirement_split(const char *req, struct tf_buf *name,
			 struct tf_buf *spec, struct tf_buf *marker)
{
	const char *p = req, *start, *semi;
	struct tf_buf raw = TF_BUF_INIT;
	size_t n;

	while (isspace((unsigned char)*p))
		p++;
	start = p;
	while (isalnum((unsigned char)*p) || *p == '-' || *p == '_' ||
	       *p == '.')
		p++;
	tf_buf_add(&raw, start, (size_t)(p - start));
	tf_pyname_normalize(raw.buf, name);
	tf_buf_release(&raw);
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '[')
		p += strcspn(p, "]") + (strchr(p, ']') != NULL);
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '@')
		return -1;
	semi = strchr(p, ';');
	n = semi ? (size_t)(semi - p) : strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n >= 2 && *p == '(' && p[n - 1] == ')')
		p++, n -= 2;
	tf_buf_add(spec, p, n);
	if (semi) {
		p = semi + 1;
		while (isspace((unsigned char)*p))
			p++;
		tf_buf_addstr(marker, p);
	}
	return 0;
}
