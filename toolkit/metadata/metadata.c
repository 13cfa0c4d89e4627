/*
 * Core metadata validators: SPDX expressions, PEP 440 specifiers,
 * PEP 508 requirements. Recursive-descent parsers over the string; the
 * SPDX ids are data generated from Debian's python3-license-expression
 * (spdx_ids.inc says how).
 */
#include "metadata.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pyname.h"
#include "base/base.h"

static const char *const spdx_licenses[] = {
#define SPDX_LICENSE(id) id,
#define SPDX_EXCEPTION(id)
#include "spdx_ids.inc"
#undef SPDX_LICENSE
#undef SPDX_EXCEPTION
};

static const char *const spdx_exceptions[] = {
#define SPDX_LICENSE(id)
#define SPDX_EXCEPTION(id) id,
#include "spdx_ids.inc"
#undef SPDX_LICENSE
#undef SPDX_EXCEPTION
};

/* --- SPDX --- */

struct spdx {
	const char *s;   /* the expression */
	const char *pos; /* next byte */
	char tok[256];   /* the current token; "" at the end */
	struct tf_buf *why;
};

static void next_token(struct spdx *p)
{
	size_t n;

	while (*p->pos == ' ' || *p->pos == '\t')
		p->pos++;
	if (*p->pos == '(' || *p->pos == ')') {
		p->tok[0] = *p->pos++;
		p->tok[1] = '\0';
		return;
	}
	n = strcspn(p->pos, " \t()");
	if (n >= sizeof(p->tok))
		n = sizeof(p->tok) - 1;
	memcpy(p->tok, p->pos, n);
	p->tok[n] = '\0';
	p->pos += strcspn(p->pos, " \t()");
}

/* 1 if the token is operator op: upper case, as PEP 639 writes them. */
static int is_op(const struct spdx *p, const char *op)
{
	return !strcmp(p->tok, op);
}

static int in_list(const char *const *v, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(v[i], id))
			return 1;
	return 0;
}

static int is_idstring(const char *s)
{
	return *s &&
	       s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789.-")] == '\0';
}

static int license_ref(const char *t)
{
	const char *colon = strchr(t, ':');

	if (!strncmp(t, "DocumentRef-", 12) && colon) {
		char *doc = tf_strndup(t + 12, (size_t)(colon - t - 12));
		int ok = is_idstring(doc);

		free(doc);
		if (!ok)
			return 0;
		t = colon + 1;
	}
	return !strncmp(t, "LicenseRef-", 11) && is_idstring(t + 11);
}

static int spdx_or(struct spdx *p);

static int spdx_simple(struct spdx *p)
{
	char id[256];
	size_t n;

	if (!strcmp(p->tok, "(")) {
		next_token(p);
		if (spdx_or(p))
			return -1;
		if (strcmp(p->tok, ")"))
			return tf_why(p->why, "missing ')'");
		next_token(p);
		return 0;
	}
	if (!*p->tok || !strcmp(p->tok, ")"))
		return tf_why(p->why, "a license id is missing%s%s%s",
			      *p->tok ? " before '" : " at the end", p->tok,
			      *p->tok ? "'" : "");
	snprintf(id, sizeof(id), "%s", p->tok);
	n = strlen(id);
	if (n > 1 && id[n - 1] == '+')
		id[n - 1] = '\0';
	if (!license_ref(p->tok) &&
	    !in_list(spdx_licenses,
		     sizeof(spdx_licenses) / sizeof(*spdx_licenses), id))
		return tf_why(p->why, "'%s' is not an SPDX license id", p->tok);
	next_token(p);
	if (!is_op(p, "WITH"))
		return 0;
	next_token(p);
	if (!in_list(spdx_exceptions,
		     sizeof(spdx_exceptions) / sizeof(*spdx_exceptions),
		     p->tok) &&
	    !license_ref(p->tok))
		return tf_why(p->why, "'%s' is not an SPDX exception id",
			      p->tok);
	next_token(p);
	return 0;
}

static int spdx_and(struct spdx *p)
{
	if (spdx_simple(p))
		return -1;
	while (is_op(p, "AND")) {
		next_token(p);
		if (spdx_simple(p))
			return -1;
	}
	return 0;
}

static int spdx_or(struct spdx *p)
{
	if (spdx_and(p))
		return -1;
	while (is_op(p, "OR")) {
		next_token(p);
		if (spdx_and(p))
			return -1;
	}
	return 0;
}

int tf_spdx_check(const char *expr, struct tf_buf *why)
{
	struct spdx p;

	memset(&p, 0, sizeof(p));
	p.s = p.pos = expr;
	p.why = why;
	next_token(&p);
	if (!*p.tok)
		return tf_why(why, "empty license expression");
	if (spdx_or(&p))
		return -1;
	if (*p.tok)
		return tf_why(why, "expected AND, OR or WITH, not '%s'", p.tok);
	return 0;
}

/* --- PEP 440 specifiers --- */

static int version_ok(const char *v)
{
	struct tf_buf b = TF_BUF_INIT;
	int ok = tf_pep440_normalize(v, &b) == 0;

	tf_buf_release(&b);
	return ok;
}

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* One specifier, s[0..n). */
static int one_specifier(const char *s, size_t n, struct tf_buf *why)
{
	static const char *const ops[] = {
		"===", "~=", "==", "!=", "<=", ">=", "<", ">",
	};
	char *v = NULL;
	const char *op = NULL;
	size_t i, len;
	int ret = 0;

	trim(&s, &n);
	for (i = 0; i < sizeof(ops) / sizeof(*ops) && !op; i++)
		if (n >= strlen(ops[i]) && !strncmp(s, ops[i], strlen(ops[i])))
			op = ops[i];
	if (!op)
		return tf_why(why,
			      "'%.*s' has no operator (==, !=, <=, >=, "
			      "<, >, ~=, ===)",
			      (int)n, s);
	v = tf_strndup(s + strlen(op), n - strlen(op));
	{
		const char *t = v;

		len = strlen(t);
		trim(&t, &len);
		memmove(v, t, len);
		v[len] = '\0';
	}
	if (!strcmp(op, "===")) {
		if (!*v || strpbrk(v, " \t"))
			ret = tf_why(why, "'%s' needs a version", op);
	} else if ((!strcmp(op, "==") || !strcmp(op, "!=")) && len > 2 &&
		   !strcmp(v + len - 2, ".*")) {
		v[len - 2] = '\0';
		if (!version_ok(v) || strchr(v, '+'))
			ret = tf_why(why, "'%.*s' is not a valid prefix match",
				     (int)n, s);
	} else if (!version_ok(v)) {
		ret = tf_why(why, "'%.*s': '%s' is not a PEP 440 version",
			     (int)n, s, v);
	} else if (strcmp(op, "==") && strcmp(op, "!=") && strchr(v, '+')) {
		ret = tf_why(why,
			     "'%.*s': a local version is only allowed "
			     "with == and !=",
			     (int)n, s);
	} else if (!strcmp(op, "~=") && !strchr(v, '.')) {
		ret = tf_why(why,
			     "'%.*s': ~= needs at least two release "
			     "segments",
			     (int)n, s);
	}
	free(v);
	return ret;
}

int tf_specifiers_check(const char *spec, struct tf_buf *why)
{
	const char *s = spec;

	if (!*spec)
		return tf_why(why, "empty specifier");
	for (;;) {
		size_t n = strcspn(s, ",");

		if (one_specifier(s, n, why))
			return -1;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* --- PEP 508 --- */

struct req {
	const char *s, *pos;
	struct tf_buf *why;
};

static void skip_ws(struct req *r)
{
	while (*r->pos == ' ' || *r->pos == '\t')
		r->pos++;
}

static size_t name_len(const char *s)
{
	size_t n = 0;

	if (!isalnum((unsigned char)s[0]))
		return 0;
	while (isalnum((unsigned char)s[n]) || (s[n] && strchr("-_.", s[n])))
		n++;
	while (n && !isalnum((unsigned char)s[n - 1]))
		n--;
	return n;
}

static int req_name(struct req *r, const char *what)
{
	size_t n;

	skip_ws(r);
	n = name_len(r->pos);
	if (!n)
		return tf_why(r->why, "a %s is missing at '%s'", what, r->pos);
	r->pos += n;
	return 0;
}

static int req_extras(struct req *r)
{
	skip_ws(r);
	if (*r->pos != '[')
		return 0;
	r->pos++;
	skip_ws(r);
	if (*r->pos == ']') {
		r->pos++;
		return 0;
	}
	for (;;) {
		if (req_name(r, "extra name"))
			return -1;
		skip_ws(r);
		if (*r->pos == ']') {
			r->pos++;
			return 0;
		}
		if (*r->pos++ != ',')
			return tf_why(r->why, "extras need ',' or ']'");
	}
}

static const char *const marker_vars[] = {
	"python_version",
	"python_full_version",
	"os_name",
	"sys_platform",
	"platform_release",
	"platform_system",
	"platform_version",
	"platform_machine",
	"platform_python_implementation",
	"implementation_name",
	"implementation_version",
	"extra",
};

static int marker_value(struct req *r)
{
	size_t i, n;

	skip_ws(r);
	if (*r->pos == '"' || *r->pos == '\'') {
		const char *end = strchr(r->pos + 1, *r->pos);

		if (!end)
			return tf_why(r->why, "unterminated string in marker");
		r->pos = end + 1;
		return 0;
	}
	n = strspn(r->pos, "abcdefghijklmnopqrstuvwxyz_.");
	for (i = 0; i < sizeof(marker_vars) / sizeof(*marker_vars); i++)
		if (strlen(marker_vars[i]) == n &&
		    !strncmp(marker_vars[i], r->pos, n)) {
			r->pos += n;
			return 0;
		}
	return tf_why(r->why,
		      "'%.*s' is not a marker variable or a quoted "
		      "string",
		      (int)(n ? n : strcspn(r->pos, " ")), r->pos);
}

static int marker_op(struct req *r)
{
	static const char *const ops[] = {
		"===", "~=", "==", "!=", "<=", ">=", "<", ">", "in", "not",
	};
	size_t i;

	skip_ws(r);
	for (i = 0; i < sizeof(ops) / sizeof(*ops); i++) {
		size_t n = strlen(ops[i]);

		if (strncmp(r->pos, ops[i], n))
			continue;
		r->pos += n;
		if (!strcmp(ops[i], "not")) {
			skip_ws(r);
			if (strncmp(r->pos, "in", 2))
				break;
			r->pos += 2;
		}
		return 0;
	}
	return tf_why(r->why, "a marker operator is missing at '%s'", r->pos);
}

static int marker_or(struct req *r);

static int marker_expr(struct req *r)
{
	skip_ws(r);
	if (*r->pos == '(') {
		r->pos++;
		if (marker_or(r))
			return -1;
		skip_ws(r);
		if (*r->pos++ != ')')
			return tf_why(r->why, "missing ')' in marker");
		return 0;
	}
	return marker_value(r) || marker_op(r) || marker_value(r) ? -1 : 0;
}

static int keyword(struct req *r, const char *kw)
{
	size_t n = strlen(kw);

	skip_ws(r);
	if (strncmp(r->pos, kw, n) ||
	    !(r->pos[n] == ' ' || r->pos[n] == '(' || r->pos[n] == '\t'))
		return 0;
	r->pos += n;
	return 1;
}

static int marker_and(struct req *r)
{
	if (marker_expr(r))
		return -1;
	while (keyword(r, "and"))
		if (marker_expr(r))
			return -1;
	return 0;
}

static int marker_or(struct req *r)
{
	if (marker_and(r))
		return -1;
	while (keyword(r, "or"))
		if (marker_and(r))
			return -1;
	return 0;
}

/* The version part, up to ';' or the end; parenthesized or not. */
static int req_versions(struct req *r)
{
	size_t n;
	int paren, ret;
	char *spec;

	skip_ws(r);
	paren = *r->pos == '(';
	if (paren)
		r->pos++;
	n = strcspn(r->pos, paren ? ")" : ";");
	while (n && isspace((unsigned char)r->pos[n - 1]))
		n--;
	if (!n && !paren)
		return 0;
	spec = tf_strndup(r->pos, n);
	ret = tf_specifiers_check(spec, r->why);
	free(spec);
	if (ret)
		return -1;
	r->pos += n;
	skip_ws(r);
	if (paren && *r->pos++ != ')')
		return tf_why(r->why, "missing ')'");
	return 0;
}

int tf_requirement_check(const char *req, struct tf_buf *why)
{
	struct req r = { req, req, why };
	size_t before = why->len;
	int ret;

	ret = req_name(&r, "project name") || req_extras(&r);
	skip_ws(&r);
	if (!ret && *r.pos == '@') {
		r.pos++;
		skip_ws(&r);
		if (!strstr(r.pos, "://"))
			ret = tf_why(why, "'@' needs a URL");
		r.pos += strcspn(r.pos, " \t");
		skip_ws(&r);
		if (!ret && *r.pos && *r.pos != ';')
			ret = tf_why(why, "a URL requirement needs ' ;' "
					  "before its marker");
	} else if (!ret) {
		ret = req_versions(&r);
	}
	skip_ws(&r);
	if (!ret && *r.pos == ';') {
		r.pos++;
		ret = marker_or(&r);
		skip_ws(&r);
	}
	if (!ret && *r.pos)
		ret = tf_why(why, "unexpected '%s'", r.pos);
	if (ret && why->len == before)
		tf_why(why, "not a PEP 508 requirement");
	return ret ? -1 : 0;
}

/* --- the rest --- */

int tf_content_type_check(const char *type, struct tf_buf *why)
{
	static const char *const ok[] = {
		"text/plain",
		"text/x-rst",
		"text/markdown",
		"text/plain; charset=UTF-8",
		"text/x-rst; charset=UTF-8",
		"text/markdown; charset=UTF-8",
		"text/markdown; variant=GFM",
		"text/markdown; variant=CommonMark",
		"text/markdown; charset=UTF-8; variant=GFM",
		"text/markdown; charset=UTF-8; variant=CommonMark",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		if (!strcmp(type, ok[i]))
			return 0;
	return tf_why(why,
		      "'%s' is not text/plain, text/x-rst or "
		      "text/markdown (with an optional '; charset=UTF-8', "
		      "'; variant=GFM' or 'CommonMark')",
		      type);
}

int tf_url_check(const char *url, struct tf_buf *why)
{
	const char *host;

	if (!strncmp(url, "https://", 8))
		host = url + 8;
	else if (!strncmp(url, "http://", 7))
		host = url + 7;
	else
		return tf_why(why, "'%s' is not an http:// or https:// URL",
			      url);
	if (!*host || *host == '/' || strpbrk(url, " \t\r\n"))
		return tf_why(why, "'%s' is not a valid URL", url);
	return 0;
}

int tf_email_check(const char *email, struct tf_buf *why)
{
	const char *at = strchr(email, '@');

	if (!at || at == email || !at[1] || strchr(at + 1, '@') ||
	    strpbrk(email, " \t\r\n<>,\"") || !strchr(at + 1, '.'))
		return tf_why(why, "'%s' is not an email address", email);
	return 0;
}
