/* Reading YAML nodes into values, and mappings and lists by field tables. */
#include "recipe_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
#include "recipe.h"

/* A plain scalar "~", "null" or empty is YAML's null. */
static int is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

/* The column where a block scalar's first content line starts. */
static int block_indent(struct loader *l, const yaml_node_t *n)
{
	const char *p = l->text + n->start_mark.index;
	const char *end = l->text + n->end_mark.index;

	p = memchr(p, '\n', (size_t)(end - p));
	while (p && p < end) {
		const char *q = ++p;

		while (q < end && *q == ' ')
			q++;
		if (q < end && *q != '\n')
			return (int)(q - p) + 1;
		p = memchr(p, '\n', (size_t)(end - p));
	}
	return (int)n->start_mark.column + 1;
}

int tf_load_str(struct loader *l, const char *key, yaml_node_t *n,
		struct tf_str *out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return tf_load_bad(l, n, "'%s' must be a string, not %s", key,
				   is_null(n) ? "null" : kind_name(n));
	out->s = tf_arena_strdup(l->r, scalar(n));
	out->pos = pos_of(l, n);
	switch (n->data.scalar.style) {
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		out->style = TF_STR_BLOCK;
		out->indent = block_indent(l, n);
		break;
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		out->style = TF_STR_QUOTED;
		break;
	default:
		out->style = TF_STR_PLAIN;
	}
	return 0;
}

int tf_load_target(struct loader *l, const char *key, yaml_node_t *n,
		   struct tf_str *out)
{
	struct tf_buf known = TF_BUF_INIT;

	if (tf_load_str(l, key, n, out))
		return -1;
	if (tf_target_is_known(out->s))
		return 0;
	tf_target_list(&known);
	tf_load_bad(l, n, "'%s': unknown target '%s' (known: %s)", key, out->s,
		    known.buf);
	tf_buf_release(&known);
	return -1;
}

int tf_load_int(struct loader *l, const char *key, yaml_node_t *n,
		long long min, long long max, long long *out)
{
	const char *s = scalar(n);
	char *end;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*s)
		return tf_load_bad(l, n, "'%s' must be an integer, not %s", key,
				   n->type == YAML_SCALAR_NODE ? "a string"
							       : kind_name(n));
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*end || errno)
		return tf_load_bad(l, n, "'%s' must be an integer, not '%s'",
				   key, s);
	if (*out < min || *out > max)
		return tf_load_bad(
			l, n, "'%s' must be between %lld and %lld, not %lld",
			key, min, max, *out);
	return 0;
}

int tf_load_str_list(struct loader *l, const char *key, yaml_node_t *n,
		     struct tf_str **out, size_t *nr)
{
	yaml_node_item_t *it;
	size_t i = 0;
	int ret = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return tf_load_bad(l, n,
				   "'%s' must be a list of strings, not %s",
				   key, kind_name(n));
	*nr = (size_t)(n->data.sequence.items.top -
		       n->data.sequence.items.start);
	*out = tf_arena_alloc(l->r, (*nr ? *nr : 1) * sizeof(**out));
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++)
		ret |= tf_load_str(l, key, node(l, *it), &(*out)[i++]);
	return ret ? -1 : 0;
}

int tf_load_str_map(struct loader *l, const char *key, yaml_node_t *n,
		    struct tf_kv **out, size_t *nr)
{
	yaml_node_pair_t *p;
	size_t i = 0, j;
	int ret = 0;

	if (n->type != YAML_MAPPING_NODE)
		return tf_load_bad(l, n,
				   "'%s' must be a mapping of strings, not %s",
				   key, kind_name(n));
	*nr = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	*out = tf_arena_alloc(l->r, (*nr ? *nr : 1) * sizeof(**out));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++, i++) {
		struct tf_kv *kv = &(*out)[i];

		ret |= tf_load_str(l, "key", node(l, p->key), &kv->key);
		ret |= tf_load_str(l, kv->key.s ? kv->key.s : key,
				   node(l, p->value), &kv->value);
		for (j = 0; kv->key.s && j < i; j++)
			if ((*out)[j].key.s &&
			    !strcmp((*out)[j].key.s, kv->key.s))
				ret |= tf_load_bad(l, node(l, p->key),
						   "duplicate key '%s' in '%s'",
						   kv->key.s, key);
	}
	return ret ? -1 : 0;
}

int tf_load_map(struct loader *l, yaml_node_t *n, const struct field *fields,
		void *obj, const char *where)
{
	yaml_node_pair_t *p, *q;
	const struct field *f;
	int ret = 0;

	if (n->type != YAML_MAPPING_NODE)
		return tf_load_bad(l, n, "'%s' must be a mapping, not %s",
				   where, kind_name(n));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(l, p->key);

		/* `? [a, b]` is a complex key: no name to look up. */
		if (k->type != YAML_SCALAR_NODE) {
			ret |= tf_load_bad(l, k,
					   "a key in '%s' must be a plain "
					   "scalar, not %s",
					   where, kind_name(k));
			continue;
		}
		for (q = n->data.mapping.pairs.start; q < p; q++)
			if (node(l, q->key)->type == YAML_SCALAR_NODE &&
			    !strcmp(scalar(node(l, q->key)), scalar(k)))
				break;
		if (q < p) {
			ret |= tf_load_bad(l, k, "duplicate key '%s' in '%s'",
					   scalar(k), where);
			continue;
		}
		for (f = fields; f->key && strcmp(f->key, scalar(k)); f++)
			;
		if (!f->key) {
			ret |= tf_load_bad(l, k, "unknown key '%s' in '%s'",
					   scalar(k), where);
			continue;
		}
		ret |= f->parse(l, node(l, p->value), obj, where);
	}
	for (f = fields; f->key; f++) {
		if (!f->required)
			continue;
		for (p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++)
			if (!strcmp(scalar(node(l, p->key)), f->key))
				break;
		if (p == n->data.mapping.pairs.top)
			ret |= tf_load_bad(l, n,
					   "missing required key '%s' in '%s'",
					   f->key, where);
	}
	return ret ? -1 : 0;
}

/*
 * Parse a list whose items are mappings described by fields; items are
 * `size` bytes each, and `check` (may be NULL) runs on each parsed item.
 */
int tf_load_list(struct loader *l, yaml_node_t *v, const char *key,
		 const struct field *fields, size_t size, void **items,
		 size_t *nr,
		 int (*check)(struct loader *, yaml_node_t *, void *,
			      const char *))
{
	yaml_node_item_t *it;
	struct tf_buf where = TF_BUF_INIT;
	int ret = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return tf_load_bad(l, v, "'%s' must be a list, not %s", key,
				   kind_name(v));
	*nr = (size_t)(v->data.sequence.items.top -
		       v->data.sequence.items.start);
	*items = tf_arena_alloc(l->r, (*nr ? *nr : 1) * size);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		size_t i = (size_t)(it - v->data.sequence.items.start);
		char *item = (char *)*items + i * size;
		yaml_node_t *n = node(l, *it);

		tf_buf_setf(&where, "%s[%zu]", key, i);
		if (tf_load_map(l, n, fields, item, where.buf) ||
		    (check && check(l, n, item, where.buf)))
			ret = -1;
	}
	tf_buf_release(&where);
	return ret;
}
