#include "vars.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "fetch/fetch.h"
#include "recipe/recipe.h"

static struct tf_var *find(const struct tf_vars *vars, const char *name,
			   size_t len)
{
	size_t i;

	for (i = 0; i < vars->nr; i++)
		if (!strncmp(vars->v[i].name, name, len) &&
		    !vars->v[i].name[len])
			return &vars->v[i];
	return NULL;
}

static struct tf_var *slot(struct tf_vars *vars, const char *name)
{
	struct tf_var *v = find(vars, name, strlen(name));

	if (v) {
		free(v->value);
		free(v->url_value);
		v->value = v->url_value = NULL;
		v->raw = NULL;
		v->is_path = 0;
		return v;
	}
	if (vars->nr == vars->alloc) {
		vars->alloc = vars->alloc ? vars->alloc * 2 : 32;
		vars->v = tf_realloc(vars->v, vars->alloc * sizeof(*vars->v));
	}
	v = &vars->v[vars->nr++];
	memset(v, 0, sizeof(*v));
	v->name = tf_strdup(name);
	return v;
}

void tf_vars_set(struct tf_vars *vars, const char *name, const char *value)
{
	slot(vars, name)->value = tf_strdup(value);
}

void tf_vars_set_path(struct tf_vars *vars, const char *name, const char *path)
{
	struct tf_var *v = slot(vars, name);

	v->value = tf_strdup(path);
	v->is_path = 1;
}

void tf_vars_set_raw(struct tf_vars *vars, const char *name,
		     const struct tf_str *raw)
{
	slot(vars, name)->raw = raw;
}

void tf_vars_release(struct tf_vars *vars)
{
	size_t i;

	if (!vars)
		return;
	for (i = 0; i < vars->nr; i++) {
		free(vars->v[i].name);
		free(vars->v[i].value);
		free(vars->v[i].url_value);
	}
	free(vars->v);
	vars->v = NULL;
	vars->nr = vars->alloc = 0;
}

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static int expand(struct tf_vars *vars, const struct tf_str *in, int url,
		  struct tf_buf *out);

/* Expand a recipe variable's own string into *dst, once. */
static int expand_raw(struct tf_vars *vars, struct tf_var *v,
		      const struct tf_pos *pos, int url, char **dst)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret;

	if (v->busy)
		return tf_error_at(pos, "variable '%s' refers to itself",
				   v->name);
	v->busy = 1;
	ret = expand(vars, v->raw, url, &b);
	v->busy = 0;
	if (ret) {
		v->failed = 1;
		tf_buf_release(&b);
		return -1;
	}
	*dst = tf_buf_detach(&b);
	return 0;
}

/*
 * Resolve one variable, expanding a recipe variable on first use; for
 * a URL (url set), a path is percent-encoded, and a recipe variable is
 * expanded again with its paths encoded.
 */
static int value_of(struct tf_vars *vars, const struct tf_str *in, size_t at,
		    const char *name, size_t len, int url, const char **out)
{
	struct tf_var *v = find(vars, name, len);
	struct tf_pos pos = tf_str_pos_at(in, at);

	if (!v)
		return tf_error_at(&pos, "undefined variable '${%.*s}'",
				   (int)len, name);
	if (v->failed)
		return -1;
	if (url && v->raw) {
		if (!v->url_value &&
		    expand_raw(vars, v, &pos, 1, &v->url_value) < 0)
			return -1;
		*out = v->url_value;
		return 0;
	}
	if (!v->value && expand_raw(vars, v, &pos, 0, &v->value) < 0)
		return -1;
	*out = v->value;
	if (url && v->is_path) {
		if (!v->url_value) {
			struct tf_buf b = TF_BUF_INIT;

			tf_url_encode_path(v->value, &b);
			v->url_value = tf_buf_detach(&b);
		}
		*out = v->url_value;
	}
	return 0;
}

static int expand(struct tf_vars *vars, const struct tf_str *in, int url,
		  struct tf_buf *out)
{
	const char *s = in->s, *p;

	for (p = s; *p; p++) {
		const char *name, *end, *value = NULL;

		if (*p != '$') {
			tf_buf_addch(out, *p);
			continue;
		}
		if (p[1] == '$') {
			tf_buf_addch(out, '$');
			p++;
			continue;
		}
		if (p[1] != '{') {
			tf_buf_addch(out, '$');
			continue;
		}
		name = p + 2;
		for (end = name; is_name_char(*end); end++)
			;
		if (*end != '}' || end == name) {
			struct tf_pos pos = tf_str_pos_at(in, (size_t)(p - s));

			return tf_error_at(
				&pos,
				*end == '}'
					? "empty variable name '${}'"
					: "unterminated or invalid variable reference '%.*s'",
				(int)(end - p + (*end != 0)), p);
		}
		if (value_of(vars, in, (size_t)(p - s), name,
			     (size_t)(end - name), url, &value))
			return -1;
		tf_buf_addstr(out, value);
		p = end;
		if (out->len > TF_VARS_MAX_VALUE) {
			struct tf_pos pos =
				tf_str_pos_at(in, (size_t)(name - 2 - s));

			return tf_error_at(&pos,
					   "expands to more than %d bytes",
					   TF_VARS_MAX_VALUE);
		}
	}
	return 0;
}

int tf_expand(struct tf_vars *vars, const struct tf_str *in, struct tf_buf *out)
{
	return expand(vars, in, 0, out);
}

static char *expand_dup(struct tf_vars *vars, const struct tf_str *in, int url)
{
	struct tf_buf b = TF_BUF_INIT;

	if (expand(vars, in, url, &b)) {
		tf_buf_release(&b);
		return NULL;
	}
	return tf_buf_detach(&b);
}

char *tf_expand_dup(struct tf_vars *vars, const struct tf_str *in)
{
	return expand_dup(vars, in, 0);
}

char *tf_expand_url_dup(struct tf_vars *vars, const struct tf_str *in)
{
	return expand_dup(vars, in, 1);
}
