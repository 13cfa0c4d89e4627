/*
 * Recipe parsing and schema checks. libyaml builds a document tree whose
 * nodes carry marks; we walk it with one table per mapping type, so the
 * schema in docs/recipe.md and the code here read alike.
 */
#include "recipe.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/base.h"
#include "audit/audit.h"

#include "recipe_meta.h"
#include "env/env.h"

/* Recipes are small; a cap keeps a hostile file from eating memory. */
#define RECIPE_MAX_BYTES (4 << 20)
/* Stop after this many errors: the rest are usually consequences. */
#define MAX_ERRORS 20
/* Steps in one recipe (docs/security.md#limits). */
#define MAX_STEPS 4096

struct tf_arena_block {
	struct tf_arena_block *next; /* owned */
	size_t used, size;           /* bytes used and available in data */
	char data[];
};

static void *arena_alloc(struct tf_recipe *r, size_t n)
{
	struct tf_arena_block *b = r->arena;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->size - b->used < n) {
		size_t size = n > 16384 ? n : 16384;

		b = tf_malloc(sizeof(*b) + size);
		b->next = r->arena;
		b->used = 0;
		b->size = size;
		r->arena = b;
	}
	b->used += n;
	return memset(b->data + b->used - n, 0, n);
}

static const char *arena_strdup(struct tf_recipe *r, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(arena_alloc(r, n), s, n);
}

void tf_recipe_release(struct tf_recipe *r)
{
	struct tf_arena_block *b, *next;

	if (!r)
		return;
	for (b = r->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(r, 0, sizeof(*r));
}

int tf_error_at(const struct tf_pos *pos, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error_at(pos->file, pos->line, pos->col, "%s", msg);
}

/* The state of one load. */
struct loader {
	struct tf_recipe *r;   /* the recipe being filled */
	yaml_document_t *doc;  /* borrowed */
	const char *text;      /* borrowed: the recipe's bytes, for columns */
	const char *file;      /* borrowed: the file being read, for positions */
	int errors;            /* errors reported so far */
};

static struct tf_pos pos_of(struct loader *l, const yaml_node_t *n)
{
	struct tf_pos p = { l->file, (int)n->start_mark.line + 1,
			    (int)n->start_mark.column + 1 };
	return p;
}

static int bad(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
	TF_PRINTF(3, 4);
static int bad(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	struct tf_pos p = pos_of(l, n);
	char msg[2048];
	va_list ap;

	if (++l->errors > MAX_ERRORS)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tf_error_at(&p, "%s", msg);
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "empty";
	}
}

/* The text of a scalar node, for messages; "" for other nodes. */
static const char *scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
					   : "";
}

/* A plain scalar "~", "null" or empty is YAML's null. */
static int is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

static yaml_node_t *node(struct loader *l, int id)
{
	return yaml_document_get_node(l->doc, id);
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

struct tf_pos tf_str_pos_at(const struct tf_str *s, size_t off)
{
	struct tf_pos p = s->pos;
	const char *nl = NULL, *c;

	for (c = s->s; c < s->s + off && *c; c++)
		if (*c == '\n') {
			p.line++;
			nl = c;
		}
	if (s->style == TF_STR_BLOCK) {
		p.line++;
		p.col = s->indent + (int)(nl ? off - (size_t)(nl + 1 - s->s) : off);
	} else if (!nl) {
		p.col += (int)off + (s->style == TF_STR_QUOTED);
	}
	return p;
}

static int get_str(struct loader *l, const char *key, yaml_node_t *n,
		   struct tf_str *out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return bad(l, n, "'%s' must be a string, not %s", key,
			   is_null(n) ? "null" : kind_name(n));
	out->s = arena_strdup(l->r, scalar(n));
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

static int get_int(struct loader *l, const char *key, yaml_node_t *n,
		   long long min, long long max, long long *out)
{
	const char *s = scalar(n);
	char *end;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*s)
		return bad(l, n, "'%s' must be an integer, not %s", key,
			   n->type == YAML_SCALAR_NODE ? "a string" : kind_name(n));
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*end || errno)
		return bad(l, n, "'%s' must be an integer, not '%s'", key, s);
	if (*out < min || *out > max)
		return bad(l, n, "'%s' must be between %lld and %lld, not %lld",
			   key, min, max, *out);
	return 0;
}

static int get_str_list(struct loader *l, const char *key, yaml_node_t *n,
			struct tf_str **out, size_t *nr)
{
	yaml_node_item_t *it;
	size_t i = 0;
	int ret = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return bad(l, n, "'%s' must be a list of strings, not %s", key,
			   kind_name(n));
	*nr = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	*out = arena_alloc(l->r, (*nr ? *nr : 1) * sizeof(**out));
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++)
		ret |= get_str(l, key, node(l, *it), &(*out)[i++]);
	return ret ? -1 : 0;
}

static int get_str_map(struct loader *l, const char *key, yaml_node_t *n,
		       struct tf_kv **out, size_t *nr)
{
	yaml_node_pair_t *p;
	size_t i = 0, j;
	int ret = 0;

	if (n->type != YAML_MAPPING_NODE)
		return bad(l, n, "'%s' must be a mapping of strings, not %s", key,
			   kind_name(n));
	*nr = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	*out = arena_alloc(l->r, (*nr ? *nr : 1) * sizeof(**out));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++, i++) {
		struct tf_kv *kv = &(*out)[i];

		ret |= get_str(l, "key", node(l, p->key), &kv->key);
		ret |= get_str(l, kv->key.s ? kv->key.s : key, node(l, p->value),
			       &kv->value);
		for (j = 0; kv->key.s && j < i; j++)
			if ((*out)[j].key.s && !strcmp((*out)[j].key.s, kv->key.s))
				ret |= bad(l, node(l, p->key),
					   "duplicate key '%s' in '%s'", kv->key.s,
					   key);
	}
	return ret ? -1 : 0;
}

/*
 * Schema tables: a mapping is described by its fields. `parse` fills the
 * field in `obj` from the value node; `required` makes absence an error.
 */
struct field {
	const char *key;
	int required;
	int (*parse)(struct loader *l, yaml_node_t *v, void *obj,
		     const char *where);
};

static int walk_map(struct loader *l, yaml_node_t *n, const struct field *fields,
		    void *obj, const char *where)
{
	yaml_node_pair_t *p, *q;
	const struct field *f;
	int ret = 0;

	if (n->type != YAML_MAPPING_NODE)
		return bad(l, n, "'%s' must be a mapping, not %s", where,
			   kind_name(n));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(l, p->key);

		for (q = n->data.mapping.pairs.start; q < p; q++)
			if (!strcmp(scalar(node(l, q->key)), scalar(k)))
				break;
		if (q < p) {
			ret |= bad(l, k, "duplicate key '%s' in '%s'", scalar(k), where);
			continue;
		}
		for (f = fields; f->key && strcmp(f->key, scalar(k)); f++)
			;
		if (!f->key || k->type != YAML_SCALAR_NODE) {
			ret |= bad(l, k, "unknown key '%s' in '%s'", scalar(k), where);
			continue;
		}
		ret |= f->parse(l, node(l, p->value), obj, where);
	}
	for (f = fields; f->key; f++) {
		if (!f->required)
			continue;
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
			if (!strcmp(scalar(node(l, p->key)), f->key))
				break;
		if (p == n->data.mapping.pairs.top)
			ret |= bad(l, n, "missing required key '%s' in '%s'", f->key,
				   where);
	}
	return ret ? -1 : 0;
}

/* The value node of key in mapping n (n itself if absent), for positions. */
static yaml_node_t *node_of_key(struct loader *l, yaml_node_t *n,
				const char *key)
{
	yaml_node_pair_t *p;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		if (!strcmp(scalar(node(l, p->key)), key))
			return node(l, p->value);
	return n;
}

/* Generate a field parser for a string member of a struct. */
#define STR_FIELD(type, member, key)                                         \
	static int parse_##type##_##member(struct loader *l, yaml_node_t *v,  \
					   void *obj, const char *where)      \
	{                                                                     \
		(void)where;                                                  \
		return get_str(l, key, v, &((struct type *)obj)->member);     \
	}

static int check_name(struct loader *l, const struct tf_str *s, const char *what)
{
	const char *p;

	for (p = s->s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '-'))
			break;
	if (*s->s && !*p && *s->s != '.')
		return 0;
	l->errors++;
	/* Names become directory names; hidden ones are tfbuild's own. */
	if (*s->s && !*p)
		return tf_error_at(&s->pos, "%s '%s' cannot start with '.'",
				   what, s->s);
	return tf_error_at(&s->pos,
			   "%s '%s' may only use letters, digits, '.', '_' and '-'",
			   what, s->s);
}

/* ---- sources ---- */

STR_FIELD(tf_source, name, "name")
STR_FIELD(tf_source, url, "url")
STR_FIELD(tf_source, sha256, "sha256")
STR_FIELD(tf_source, path, "path")

static int parse_source_mirrors(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_source *s = obj;

	return get_str_list(l, "mirrors", v, &s->mirrors, &s->nr_mirrors);
}

static int parse_source_strip(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	long long n;

	if (get_int(l, "strip", v, 0, 64, &n))
		return -1;
	((struct tf_source *)obj)->strip = (int)n;
	return 0;
}

static int parse_patch_strip(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	long long n;

	if (get_int(l, "strip", v, 0, 64, &n))
		return -1;
	((struct tf_source *)obj)->patch_strip = (int)n;
	return 0;
}

static int parse_patch_series(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_source *s = obj;

	return get_str_list(l, "series", v, &s->patches, &s->nr_patches);
}

static const struct field patch_fields[] = {
	{ "strip", 1, parse_patch_strip },
	{ "series", 1, parse_patch_series },
	{ NULL, 0, NULL },
};

static int parse_source_patches(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_buf w = TF_BUF_INIT;
	int ret;

	tf_buf_addf(&w, "%s.patches", where);
	((struct tf_source *)obj)->has_patches = 1;
	ret = walk_map(l, v, patch_fields, obj, w.buf);
	tf_buf_release(&w);
	return ret;
}

static const struct field source_fields[] = {
	{ "name", 1, parse_tf_source_name },
	{ "url", 0, parse_tf_source_url },
	{ "mirrors", 0, parse_source_mirrors },
	{ "sha256", 0, parse_tf_source_sha256 },
	{ "strip", 0, parse_source_strip },
	{ "path", 0, parse_tf_source_path },
	{ "patches", 0, parse_source_patches },
	{ NULL, 0, NULL },
};

/* Checks that involve more than one key of a source. */
static int check_source(struct loader *l, yaml_node_t *n, struct tf_source *s,
			const char *where)
{
	if (s->name.s && check_name(l, &s->name, "source name"))
		return -1;
	if (!s->url.s && !s->path.s)
		return bad(l, n, "'%s' needs 'url' or 'path'", where);
	if (s->url.s && s->path.s)
		return bad(l, n, "'%s' has both 'url' and 'path'; use one", where);
	if (s->path.s && (s->sha256.s || s->nr_mirrors || s->strip)) {
		const char *k = s->sha256.s ? "sha256" : s->nr_mirrors ? "mirrors"
								       : "strip";
		return bad(l, n, "'%s' is a local 'path' source; '%s' applies only to 'url' sources",
			   where, k);
	}
	if (s->url.s && !s->sha256.s)
		return bad(l, n, "missing required key 'sha256' in '%s'", where);
	if (s->sha256.s && !tf_sha256_is_hex(s->sha256.s)) {
		l->errors++;
		return tf_error_at(&s->sha256.pos,
				   "'sha256' must be 64 lowercase hex digits, not '%s'",
				   s->sha256.s);
	}
	return 0;
}

/* ---- steps ---- */

STR_FIELD(tf_step, name, "name")
STR_FIELD(tf_step, source, "source")
STR_FIELD(tf_step, run, "run")

static int parse_step_needs(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_step *s = obj;

	return get_str_list(l, "needs", v, &s->needs, &s->nr_needs);
}

static int parse_step_env(struct loader *l, yaml_node_t *v, void *obj,
			  const char *where)
{
	struct tf_step *s = obj;
	size_t i;

	if (get_str_map(l, "env", v, &s->env, &s->nr_env))
		return -1;
	for (i = 0; i < s->nr_env; i++) {
		const char *k = s->env[i].key.s;

		if (!*k || k[strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")] ||
		    (*k >= '0' && *k <= '9')) {
			l->errors++;
			return tf_error_at(&s->env[i].key.pos,
					   "'%s' is not a valid environment variable name",
					   k);
		}
	}
	return 0;
}

long long tf_parse_duration(const char *s)
{
	long long n = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (*p - '0');
		if (n > 1000000000LL)
			return -1;
	}
	if (!strcmp(p, "") || !strcmp(p, "s"))
		return n;
	if (!strcmp(p, "m"))
		return n * 60;
	if (!strcmp(p, "h"))
		return n * 3600;
	return -1;
}

static int parse_step_timeout(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_step *s = obj;
	struct tf_str t;

	if (get_str(l, "timeout", v, &t))
		return -1;
	s->timeout = tf_parse_duration(t.s);
	s->timeout_pos = t.pos;
	if (s->timeout > 0)
		return 0;
	l->errors++;
	return tf_error_at(&t.pos,
			   "'timeout' must be a positive duration such as 90s, 30m or 2h, not '%s'",
			   t.s);
}

static const struct field step_fields[] = {
	{ "name", 1, parse_tf_step_name },
	{ "source", 0, parse_tf_step_source },
	{ "needs", 0, parse_step_needs },
	{ "env", 0, parse_step_env },
	{ "run", 1, parse_tf_step_run },
	{ "timeout", 0, parse_step_timeout },
	{ NULL, 0, NULL },
};

/* ---- wheels ---- */

STR_FIELD(tf_file_rule, from, "from")
STR_FIELD(tf_file_rule, src, "src")
STR_FIELD(tf_file_rule, dst, "dst")

static const struct field file_fields[] = {
	{ "from", 1, parse_tf_file_rule_from },
	{ "src", 1, parse_tf_file_rule_src },
	{ "dst", 1, parse_tf_file_rule_dst },
	{ NULL, 0, NULL },
};

STR_FIELD(tf_wheel_def, name, "name")
STR_FIELD(tf_wheel_def, version, "version")
STR_FIELD(tf_wheel_def, python, "python")
STR_FIELD(tf_wheel_def, abi, "abi")
STR_FIELD(tf_wheel_def, platform, "platform")
STR_FIELD(tf_wheel_def, summary, "summary")
STR_FIELD(tf_wheel_def, license, "license")
STR_FIELD(tf_wheel_def, requires_python, "requires-python")

static int parse_wheel_requires(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_list(l, "requires-dist", v, &w->requires_dist,
			    &w->nr_requires_dist);
}

static int parse_wheel_entry_points(struct loader *l, yaml_node_t *v,
				    void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n = 0;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return bad(l, v, "'entry-points' must be a mapping of groups, not %s",
			   kind_name(v));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *g = node(l, p->value);

		if (g->type == YAML_MAPPING_NODE)
			n += (size_t)(g->data.mapping.pairs.top -
				      g->data.mapping.pairs.start);
	}
	w->entry_points = arena_alloc(l->r, (n ? n : 1) * sizeof(*w->entry_points));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		struct tf_str group = { NULL, { NULL, 0, 0 }, 0, 0 };
		struct tf_kv *kvs = NULL;
		size_t i, nr = 0;

		ret |= get_str(l, "entry-points", node(l, p->key), &group);
		if (!group.s || get_str_map(l, group.s, node(l, p->value), &kvs, &nr)) {
			ret = -1;
			continue;
		}
		for (i = 0; i < nr; i++) {
			struct tf_entry_point *e = &w->entry_points[w->nr_entry_points++];

			e->group = group;
			e->name = kvs[i].key;
			e->value = kvs[i].value;
		}
	}
	return ret ? -1 : 0;
}

static int parse_wheel_files(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_item_t *it;
	struct tf_buf sub = TF_BUF_INIT;
	int ret = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return bad(l, v, "'files' must be a list, not %s", kind_name(v));
	w->nr_files = (size_t)(v->data.sequence.items.top -
			       v->data.sequence.items.start);
	if (!w->nr_files)
		return bad(l, v, "'files' in '%s' is empty", where);
	w->files = arena_alloc(l->r, w->nr_files * sizeof(*w->files));
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		struct tf_file_rule *f = &w->files[it - v->data.sequence.items.start];

		tf_buf_setf(&sub, "%s.files[%d]", where,
			    (int)(it - v->data.sequence.items.start));
		f->pos = pos_of(l, node(l, *it));
		ret |= walk_map(l, node(l, *it), file_fields, f, sub.buf);
	}
	tf_buf_release(&sub);
	return ret ? -1 : 0;
}

static int parse_wheel_allow_needed(struct loader *l, yaml_node_t *v,
				    void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_list(l, "allow-needed", v, &w->allow_needed,
			    &w->nr_allow_needed);
}

static int parse_wheel_isa_level(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	long long n;

	if (get_int(l, "x86-64-level", v, 1, 4, &n))
		return -1;
	((struct tf_wheel_def *)obj)->isa_level = (int)n;
	return 0;
}

/* exports: {FILE: [SYMBOL, ...]} */
static int parse_wheel_exports(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n = 0;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return bad(l, v, "'exports' must map files to lists of symbols, not %s",
			   kind_name(v));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *s = node(l, p->value);

		if (s->type == YAML_SEQUENCE_NODE)
			n += (size_t)(s->data.sequence.items.top -
				      s->data.sequence.items.start);
	}
	w->exports = arena_alloc(l->r, (n + 1) * sizeof(*w->exports));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		struct tf_str file = { NULL, { NULL, 0, 0 }, 0, 0 }, *syms = NULL;
		size_t i, nr = 0;

		if (get_str(l, "exports", node(l, p->key), &file) ||
		    get_str_list(l, file.s, node(l, p->value), &syms, &nr)) {
			ret = -1;
			continue;
		}
		for (i = 0; i < nr; i++) {
			w->exports[w->nr_exports].file = file;
			w->exports[w->nr_exports++].symbol = syms[i];
		}
	}
	return ret ? -1 : 0;
}

/* Like bad(), at a scalar's own position. */
static int bad_at(struct loader *l, const struct tf_str *s, const char *msg,
		  const char *arg)
{
	l->errors++;
	return tf_error_at(&s->pos, msg, arg);
}

static int parse_isa_dispatch(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_wheel_def *w = obj;
	size_t i;

	if (get_str_list(l, "dispatch", v, &w->isa_dispatch, &w->nr_isa_dispatch))
		return -1;
	for (i = 0; i < w->nr_isa_dispatch; i++)
		if (!*w->isa_dispatch[i].s || *w->isa_dispatch[i].s == '/')
			return bad_at(l, &w->isa_dispatch[i], "'dispatch' "
				      "pattern '%s' is not a relative path "
				      "inside the wheel", w->isa_dispatch[i].s);
	return 0;
}

/* minimum: LEVEL or [LEVEL, ...], one per family (x86-64-vN, armv8.N-a). */
static int parse_isa_minimum(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	struct tf_wheel_def *w = obj;
	enum tf_isa_family fam, seen[8];
	size_t i;
	int level;

	if (v->type == YAML_SCALAR_NODE) {
		w->isa_minimum = arena_alloc(l->r, sizeof(*w->isa_minimum));
		w->nr_isa_minimum = 1;
		if (get_str(l, "minimum", v, w->isa_minimum))
			return -1;
	} else if (get_str_list(l, "minimum", v, &w->isa_minimum,
				&w->nr_isa_minimum)) {
		return -1;
	}
	for (i = 0; i < w->nr_isa_minimum; i++) {
		const struct tf_str *m = &w->isa_minimum[i];
		size_t j;

		if (tf_isa_level_parse(m->s, &fam, &level))
			return bad_at(l, m, "unknown ISA level '%s' in "
				      "'minimum' (known: x86-64-v1 to x86-64-v4, "
				      "armv8.0-a to armv8.4-a)", m->s);
		for (j = 0; j < i && j < 8; j++)
			if (seen[j] == fam)
				return bad_at(l, m, "'minimum' names two "
					      "levels of one family: '%s'", m->s);
		if (i < 8)
			seen[i] = fam;
	}
	return 0;
}

static const struct field isa_fields[] = {
	{ "dispatch", 0, parse_isa_dispatch },
	{ "minimum", 0, parse_isa_minimum },
	{ NULL, 0, NULL },
};

/* isa: {dispatch: [GLOB...], minimum: LEVEL}: see docs/isa.md. */
static int parse_wheel_isa(struct loader *l, yaml_node_t *v, void *obj,
			   const char *where)
{
	struct tf_buf sub = TF_BUF_INIT;
	int ret;

	tf_buf_setf(&sub, "%s.isa", where);
	ret = walk_map(l, v, isa_fields, obj, sub.buf);
	tf_buf_release(&sub);
	return ret;
}

STR_FIELD(tf_framework_def, name, "name")
STR_FIELD(tf_framework_def, site_packages, "site-packages")
STR_FIELD(tf_framework_def, version, "version")

static const struct field framework_fields[] = {
	{ "name", 1, parse_tf_framework_def_name },
	{ "site-packages", 1, parse_tf_framework_def_site_packages },
	{ "version", 0, parse_tf_framework_def_version },
	{ NULL, 0, NULL },
};

/* framework: {name: torch, site-packages: DIR, version: 1.13} */
static int parse_wheel_framework(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	struct tf_wheel_def *w = obj;
	struct tf_buf sub = TF_BUF_INIT;
	int ret;

	tf_buf_setf(&sub, "%s.framework", where);
	w->framework.pos = pos_of(l, v);
	ret = walk_map(l, v, framework_fields, &w->framework, sub.buf);
	tf_buf_release(&sub);
	return ret;
}

/* libraries: {SONAME: vendor | system | {from: REQ, runpath: PATH}} */
STR_FIELD(tf_library_def, from, "from")
STR_FIELD(tf_library_def, runpath, "runpath")

static const struct field provided_fields[] = {
	{ "from", 1, parse_tf_library_def_from },
	{ "runpath", 1, parse_tf_library_def_runpath },
	{ NULL, 0, NULL },
};

static int parse_library(struct loader *l, yaml_node_t *v,
			 struct tf_library_def *d)
{
	struct tf_buf where = TF_BUF_INIT;
	int ret;

	if (v->type == YAML_MAPPING_NODE) {
		tf_buf_addf(&where, "libraries.%s", d->soname.s);
		d->kind = TF_LIB_PROVIDED;
		ret = walk_map(l, v, provided_fields, d, where.buf);
		if (!ret && !strstr(d->runpath.s, "$ORIGIN"))
			ret = bad(l, node_of_key(l, v, "runpath"),
				  "'runpath' of '%s' must be relative to "
				  "$ORIGIN, not '%s'", d->soname.s,
				  d->runpath.s);
		tf_buf_release(&where);
		return ret;
	}
	if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "vendor"))
		d->kind = TF_LIB_VENDOR;
	else if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "system"))
		d->kind = TF_LIB_SYSTEM;
	else
		return bad(l, v, "library '%s' must be 'vendor', 'system' or "
			   "{from: REQUIREMENT, runpath: PATH}, not %s%s%s",
			   d->soname.s, v->type == YAML_SCALAR_NODE ? "'" : "",
			   v->type == YAML_SCALAR_NODE ? scalar(v) : kind_name(v),
			   v->type == YAML_SCALAR_NODE ? "'" : "");
	return 0;
}

static int parse_wheel_libraries(struct loader *l, yaml_node_t *v,
				 void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return bad(l, v, "'libraries' must map sonames to how they are "
			   "resolved, not %s", kind_name(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	w->libraries = arena_alloc(l->r, (n + 1) * sizeof(*w->libraries));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		struct tf_library_def *d = &w->libraries[w->nr_libraries];
		yaml_node_t *k = node(l, p->key);
		size_t i;

		if (get_str(l, "libraries", k, &d->soname)) {
			ret = -1;
			continue;
		}
		if (!*d->soname.s || strchr(d->soname.s, '/')) {
			ret |= bad(l, k, "'%s' is not a soname", d->soname.s);
			continue;
		}
		for (i = 0; i < w->nr_libraries; i++)
			if (!strcmp(w->libraries[i].soname.s, d->soname.s))
				break;
		if (i < w->nr_libraries) {
			ret |= bad(l, k, "duplicate key '%s' in 'libraries'",
				   d->soname.s);
			continue;
		}
		ret |= parse_library(l, node(l, p->value), d);
		w->nr_libraries++;
	}
	return ret ? -1 : 0;
}

static int parse_wheel_library_dirs(struct loader *l, yaml_node_t *v,
				    void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_list(l, "library-dirs", v, &w->library_dirs,
			    &w->nr_library_dirs);
}

/* readme: FILE or {file: FILE, content-type: TYPE} */
STR_FIELD(tf_wheel_def, readme, "file")
STR_FIELD(tf_wheel_def, readme_type, "content-type")

static const struct field readme_fields[] = {
	{ "file", 1, parse_tf_wheel_def_readme },
	{ "content-type", 0, parse_tf_wheel_def_readme_type },
	{ NULL, 0, NULL },
};

static int parse_wheel_readme(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_wheel_def *w = obj;

	if (v->type == YAML_MAPPING_NODE)
		return walk_map(l, v, readme_fields, w, "readme");
	return get_str(l, "readme", v, &w->readme);
}

static int parse_wheel_license_files(struct loader *l, yaml_node_t *v,
				     void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_list(l, "license-files", v, &w->license_files,
			    &w->nr_license_files);
}

static int parse_wheel_urls(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_map(l, "urls", v, &w->urls, &w->nr_urls);
}

STR_FIELD(tf_person, name, "name")
STR_FIELD(tf_person, email, "email")

static const struct field person_fields[] = {
	{ "name", 0, parse_tf_person_name },
	{ "email", 0, parse_tf_person_email },
	{ NULL, 0, NULL },
};

static int get_people(struct loader *l, const char *key, yaml_node_t *v,
		      struct tf_person **out, size_t *nr)
{
	yaml_node_item_t *it;
	struct tf_buf where = TF_BUF_INIT;
	int ret = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return bad(l, v, "'%s' must be a list of {name, email}, not %s",
			   key, kind_name(v));
	*nr = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	*out = arena_alloc(l->r, (*nr + 1) * sizeof(**out));
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		struct tf_person *p = &(*out)[it - v->data.sequence.items.start];
		yaml_node_t *n = node(l, *it);

		tf_buf_setf(&where, "%s[%d]", key,
			    (int)(it - v->data.sequence.items.start));
		if (walk_map(l, n, person_fields, p, where.buf)) {
			ret = -1;
		} else if (!p->name.s && !p->email.s) {
			ret = bad(l, n, "'%s' needs a 'name' or an 'email'",
				  where.buf);
		}
	}
	tf_buf_release(&where);
	return ret;
}

static int parse_wheel_authors(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_people(l, "authors", v, &w->authors, &w->nr_authors);
}

static int parse_wheel_maintainers(struct loader *l, yaml_node_t *v,
				   void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_people(l, "maintainers", v, &w->maintainers,
			  &w->nr_maintainers);
}

static int parse_wheel_keywords(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_list(l, "keywords", v, &w->keywords, &w->nr_keywords);
}

static int parse_wheel_classifiers(struct loader *l, yaml_node_t *v,
				   void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_str_list(l, "classifiers", v, &w->classifiers,
			    &w->nr_classifiers);
}

static const struct field wheel_fields[] = {
	{ "name", 1, parse_tf_wheel_def_name },
	{ "version", 1, parse_tf_wheel_def_version },
	{ "python", 0, parse_tf_wheel_def_python },
	{ "abi", 0, parse_tf_wheel_def_abi },
	{ "platform", 0, parse_tf_wheel_def_platform },
	{ "summary", 0, parse_tf_wheel_def_summary },
	{ "license", 0, parse_tf_wheel_def_license },
	{ "requires-python", 0, parse_tf_wheel_def_requires_python },
	{ "requires-dist", 0, parse_wheel_requires },
	{ "entry-points", 0, parse_wheel_entry_points },
	{ "files", 1, parse_wheel_files },
	{ "allow-needed", 0, parse_wheel_allow_needed },
	{ "x86-64-level", 0, parse_wheel_isa_level },
	{ "exports", 0, parse_wheel_exports },
	{ "isa", 0, parse_wheel_isa },
	{ "framework", 0, parse_wheel_framework },
	{ "libraries", 0, parse_wheel_libraries },
	{ "library-dirs", 0, parse_wheel_library_dirs },
	{ "readme", 0, parse_wheel_readme },
	{ "license-files", 0, parse_wheel_license_files },
	{ "urls", 0, parse_wheel_urls },
	{ "authors", 0, parse_wheel_authors },
	{ "maintainers", 0, parse_wheel_maintainers },
	{ "keywords", 0, parse_wheel_keywords },
	{ "classifiers", 0, parse_wheel_classifiers },
	{ NULL, 0, NULL },
};

/* ---- toolchains ---- */

STR_FIELD(tf_toolchain_def, cc, "cc")
STR_FIELD(tf_toolchain_def, ar, "ar")
STR_FIELD(tf_toolchain_def, strip, "strip")
STR_FIELD(tf_toolchain_def, cflags, "cflags")
STR_FIELD(tf_toolchain_def, ldflags, "ldflags")
STR_FIELD(tf_toolchain_def, sysroot, "sysroot")
STR_FIELD(tf_toolchain_def, python_include, "python-include")
STR_FIELD(tf_toolchain_def, emulator, "emulator")

static int parse_tf_toolchain_def_launcher(struct loader *l, yaml_node_t *v,
					   void *obj, const char *where)
{
	struct tf_str *s = &((struct tf_toolchain_def *)obj)->launcher;
	struct tf_buf valid = TF_BUF_INIT;
	const char *near;
	int ret;

	(void)where;
	if (get_str(l, "launcher", v, s))
		return -1;
	if (tf_launcher_is_known(s->s))
		return 0;
	near = tf_words_nearest(s->s, tf_launcher_choices());
	tf_words_join(tf_launcher_choices(), &valid);
	ret = bad(l, v, "unknown launcher '%s' (valid: %s)%s%s%s", s->s, valid.buf,
		  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	tf_buf_release(&valid);
	return ret;
}

static const struct field toolchain_fields[] = {
	{ "cc", 0, parse_tf_toolchain_def_cc },
	{ "ar", 0, parse_tf_toolchain_def_ar },
	{ "strip", 0, parse_tf_toolchain_def_strip },
	{ "cflags", 0, parse_tf_toolchain_def_cflags },
	{ "ldflags", 0, parse_tf_toolchain_def_ldflags },
	{ "sysroot", 0, parse_tf_toolchain_def_sysroot },
	{ "python-include", 0, parse_tf_toolchain_def_python_include },
	{ "emulator", 0, parse_tf_toolchain_def_emulator },
	{ "launcher", 0, parse_tf_toolchain_def_launcher },
	{ NULL, 0, NULL },
};

static int parse_toolchains(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_recipe *r = l->r;
	struct tf_toolchain_def *all;
	struct tf_buf sub = TF_BUF_INIT;
	yaml_node_pair_t *p;
	size_t n;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return bad(l, v, "'toolchains' must be a mapping of target names, not %s",
			   kind_name(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	all = arena_alloc(r, (r->nr_toolchains + n + 1) * sizeof(*all));
	if (r->nr_toolchains)
		memcpy(all, r->toolchains, r->nr_toolchains * sizeof(*all));
	r->toolchains = all;
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		struct tf_toolchain_def *t = &all[r->nr_toolchains++];
		yaml_node_t *k = node(l, p->key);

		if (get_str(l, "toolchains", k, &t->target)) {
			ret = -1;
			continue;
		}
		if (!tf_target_is_known(t->target.s)) {
			struct tf_buf known = TF_BUF_INIT;

			tf_target_list(&known);
			ret = bad(l, k, "unknown target '%s' in 'toolchains' (known: %s)",
				  t->target.s, known.buf);
			tf_buf_release(&known);
			continue;
		}
		t->pos = pos_of(l, k);
		tf_buf_setf(&sub, "toolchains.%s", t->target.s);
		ret |= walk_map(l, node(l, p->value), toolchain_fields, t, sub.buf);
	}
	tf_buf_release(&sub);
	return ret ? -1 : 0;
}

const struct tf_toolchain_def *tf_recipe_toolchain(const struct tf_recipe *r,
						   const char *target)
{
	const struct tf_toolchain_def *found = NULL;
	size_t i;

	for (i = 0; i < r->nr_toolchains; i++)
		if (!strcmp(r->toolchains[i].target.s, target))
			found = &r->toolchains[i];
	return found;
}

/* ---- lists of mappings and the top level ---- */

/*
 * Parse a list whose items are mappings described by fields; items are
 * `size` bytes each, and `check` (may be NULL) runs on each parsed item.
 */
static int walk_list(struct loader *l, yaml_node_t *v, const char *key,
		     const struct field *fields, size_t size, void **items,
		     size_t *nr,
		     int (*check)(struct loader *, yaml_node_t *, void *,
				  const char *))
{
	yaml_node_item_t *it;
	struct tf_buf where = TF_BUF_INIT;
	int ret = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return bad(l, v, "'%s' must be a list, not %s", key, kind_name(v));
	*nr = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	*items = arena_alloc(l->r, (*nr ? *nr : 1) * size);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		size_t i = (size_t)(it - v->data.sequence.items.start);
		char *item = (char *)*items + i * size;
		yaml_node_t *n = node(l, *it);

		tf_buf_setf(&where, "%s[%zu]", key, i);
		if (walk_map(l, n, fields, item, where.buf) ||
		    (check && check(l, n, item, where.buf)))
			ret = -1;
	}
	tf_buf_release(&where);
	return ret;
}

static int check_source_item(struct loader *l, yaml_node_t *n, void *item,
			     const char *where)
{
	struct tf_source *s = item;

	s->pos = pos_of(l, n);
	return check_source(l, n, s, where);
}

static int check_step_item(struct loader *l, yaml_node_t *n, void *item,
			   const char *where)
{
	struct tf_step *s = item;

	s->pos = pos_of(l, n);
	s->source_index = -1;
	return s->name.s ? check_name(l, &s->name, "step name") : 0;
}

static int check_wheel_item(struct loader *l, yaml_node_t *n, void *item,
			    const char *where)
{
	((struct tf_wheel_def *)item)->pos = pos_of(l, n);
	/* Metadata values are checked now, before anything is fetched. */
	return tf_wheel_def_check_metadata(l->r, item) ? -1 : 0;
}

static int parse_sources(struct loader *l, yaml_node_t *v, void *obj,
			 const char *where)
{
	struct tf_recipe *r = obj;

	return walk_list(l, v, "sources", source_fields, sizeof(*r->sources),
			 (void **)&r->sources, &r->nr_sources, check_source_item);
}

static int parse_steps(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct tf_recipe *r = obj;

	/* The scheduler is quadratic in steps; no recipe needs this many. */
	if (v->type == YAML_SEQUENCE_NODE &&
	    v->data.sequence.items.top - v->data.sequence.items.start > MAX_STEPS) {
		struct tf_pos p = pos_of(l, v);

		l->errors++;
		return tf_error_at(&p, "more than %d steps", MAX_STEPS);
	}
	return walk_list(l, v, "steps", step_fields, sizeof(*r->steps),
			 (void **)&r->steps, &r->nr_steps, check_step_item);
}

static int parse_tests(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct tf_recipe *r = obj;

	return walk_list(l, v, "tests", step_fields, sizeof(*r->tests),
			 (void **)&r->tests, &r->nr_tests, check_step_item);
}

static int parse_wheels(struct loader *l, yaml_node_t *v, void *obj,
			const char *where)
{
	struct tf_recipe *r = obj;

	return walk_list(l, v, "wheels", wheel_fields, sizeof(*r->wheels),
			 (void **)&r->wheels, &r->nr_wheels, check_wheel_item);
}

static int parse_schema(struct loader *l, yaml_node_t *v, void *obj,
			const char *where)
{
	long long n;

	if (get_int(l, "schema", v, 0, INT_MAX, &n))
		return -1;
	if (n != 1)
		return bad(l, v, "unsupported schema %lld: this tfbuild reads schema 1",
			   n);
	((struct tf_recipe *)obj)->schema = (int)n;
	return 0;
}

STR_FIELD(tf_recipe, name, "name")
STR_FIELD(tf_recipe, version, "version")

static int parse_targets(struct loader *l, yaml_node_t *v, void *obj,
			 const char *where)
{
	struct tf_recipe *r = obj;
	size_t i, j;

	if (get_str_list(l, "targets", v, &r->targets, &r->nr_targets))
		return -1;
	if (!r->nr_targets)
		return bad(l, v, "'targets' is empty");
	for (i = 0; i < r->nr_targets; i++) {
		const struct tf_str *t = &r->targets[i];

		if (!tf_target_is_known(t->s)) {
			struct tf_buf known = TF_BUF_INIT;

			l->errors++;
			tf_target_list(&known);
			tf_error_at(&t->pos, "unknown target '%s' (known: %s)", t->s,
				    known.buf);
			tf_buf_release(&known);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(r->targets[j].s, t->s)) {
				l->errors++;
				return tf_error_at(&t->pos, "target '%s' is listed twice",
						   t->s);
			}
	}
	return 0;
}

static int parse_epoch(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	return get_int(l, "source-date-epoch", v, 315532800, 4102444800LL,
		       &((struct tf_recipe *)obj)->source_date_epoch);
}

static int parse_variables(struct loader *l, yaml_node_t *v, void *obj,
			   const char *where)
{
	struct tf_recipe *r = obj;
	size_t i;

	if (get_str_map(l, "variables", v, &r->vars, &r->nr_vars))
		return -1;
	for (i = 0; i < r->nr_vars; i++) {
		const char *k = r->vars[i].key.s;

		if ((*k >= '0' && *k <= '9') || !*k ||
		    k[strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]) {
			l->errors++;
			return tf_error_at(&r->vars[i].key.pos,
					   "variable name '%s' may only use letters, digits and '_'",
					   k);
		}
	}
	return 0;
}

/*
 * A Debian package name, optionally with "=VERSION": what apt accepts,
 * and nothing a shell or apt option could misread.
 */
static int package_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+-.");

	if (n < 2 || s[0] == '-' || s[0] == '.' || s[0] == '+')
		return 0;
	if (!s[n])
		return 1;
	return s[n] == '=' && s[n + 1] &&
	       !s[n + 1 + strspn(s + n + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.:~")];
}

static int parse_target_packages(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	struct tf_recipe *r = obj;
	size_t i;
	int ret = 0;

	if (get_str_list(l, "target-packages", v, &r->target_packages,
			 &r->nr_target_packages))
		return -1;
	for (i = 0; i < r->nr_target_packages; i++) {
		const struct tf_str *p = &r->target_packages[i];

		if (package_ok(p->s))
			continue;
		l->errors++;
		ret = tf_error_at(&p->pos,
				  "'%s' is not a Debian package name (NAME or NAME=VERSION)",
				  p->s);
	}
	return ret;
}

static int parse_host_tools(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_recipe *r = obj;
	size_t i;
	int ret = 0;

	if (get_str_list(l, "host-tools", v, &r->host_tools, &r->nr_host_tools))
		return -1;
	for (i = 0; i < r->nr_host_tools; i++) {
		const struct tf_str *t = &r->host_tools[i];

		if (*t->s && !strchr(t->s, '/') && strcmp(t->s, ".") &&
		    strcmp(t->s, ".."))
			continue;
		l->errors++;
		ret = tf_error_at(&t->pos,
				  "host tool '%s' must be a program name, without '/'",
				  t->s);
	}
	return ret;
}

static const struct field top_fields[] = {
	{ "target-packages", 0, parse_target_packages },
	{ "host-tools", 0, parse_host_tools },
	{ "schema", 1, parse_schema },
	{ "name", 1, parse_tf_recipe_name },
	{ "version", 1, parse_tf_recipe_version },
	{ "targets", 0, parse_targets },
	{ "source-date-epoch", 0, parse_epoch },
	{ "variables", 0, parse_variables },
	{ "sources", 0, parse_sources },
	{ "steps", 0, parse_steps },
	{ "tests", 0, parse_tests },
	{ "wheels", 0, parse_wheels },
	{ "toolchains", 0, parse_toolchains },
	{ NULL, 0, NULL },
};

#define DEFAULT_EPOCH 315532800LL

static int parse_top(struct loader *l, yaml_node_t *root)
{
	l->r->source_date_epoch = DEFAULT_EPOCH;
	if (walk_map(l, root, top_fields, l->r, "recipe"))
		return -1;
	return check_name(l, &l->r->name, "recipe name");
}

/* ---- cross references ---- */

static int dup_name(struct loader *l, const struct tf_str *a,
		    const struct tf_str *b, const char *what)
{
	l->errors++;
	return tf_error_at(&b->pos, "%s '%s' is defined twice (first at line %d)",
			   what, b->s, a->pos.line);
}

/* Depth-first search for a cycle through step i; state 1 = on the path. */
static int find_cycle(struct loader *l, size_t i, char *state, size_t *path,
		      size_t depth)
{
	struct tf_recipe *r = l->r;
	size_t j;

	if (state[i] == 2)
		return 0;
	path[depth] = i;
	if (state[i] == 1) {
		struct tf_buf b = TF_BUF_INIT;
		size_t k = 0;

		while (path[k] != i)
			k++;
		for (; k <= depth; k++)
			tf_buf_addf(&b, "%s%s", b.len ? " -> " : "",
				    r->steps[path[k]].name.s);
		l->errors++;
		tf_error_at(&r->steps[i].pos, "steps depend on each other in a cycle: %s",
			    b.buf);
		tf_buf_release(&b);
		return -1;
	}
	state[i] = 1;
	for (j = 0; j < r->steps[i].nr_needs; j++)
		if (find_cycle(l, r->steps[i].need_index[j], state, path, depth + 1))
			return -1;
	state[i] = 2;
	return 0;
}

static int resolve_step(struct loader *l, struct tf_step *s)
{
	struct tf_recipe *r = l->r;
	size_t j;
	int ret = 0;

	if (s->source.s) {
		s->source_index = tf_recipe_find_source(r, s->source.s);
		if (s->source_index < 0) {
			l->errors++;
			ret = tf_error_at(&s->source.pos,
					  "step '%s' uses unknown source '%s'",
					  s->name.s, s->source.s);
		}
	}
	s->need_index = arena_alloc(r, (s->nr_needs + 1) * sizeof(size_t));
	for (j = 0; j < s->nr_needs; j++) {
		int k = tf_recipe_find_step(r, s->needs[j].s);

		if (k < 0 || !strcmp(s->needs[j].s, s->name.s)) {
			l->errors++;
			ret = tf_error_at(&s->needs[j].pos, k < 0 ?
					  "step '%s' needs unknown step '%s'" :
					  "step '%s' needs itself ('%s')",
					  s->name.s, s->needs[j].s);
			continue;
		}
		s->need_index[j] = (size_t)k;
	}
	return ret;
}

/*
 * Each test runs again as NAME@baseline under emulation of the oldest
 * CPU the wheels allow (docs/isa.md), once NAME has passed.
 */
static void baseline_copy(struct tf_recipe *r, const struct tf_step *t,
			  struct tf_step *copy)
{
	size_t n = strlen(t->name.s) + sizeof("@baseline");
	char *name = arena_alloc(r, n);

	*copy = *t;
	snprintf(name, n, "%s@baseline", t->name.s);
	copy->name.s = name;
	copy->is_test = TF_TEST_BASELINE;
	copy->needs = arena_alloc(r, (t->nr_needs + 1) * sizeof(*copy->needs));
	if (t->nr_needs)
		memcpy(copy->needs, t->needs, t->nr_needs * sizeof(*copy->needs));
	copy->needs[copy->nr_needs++] = t->name;
}

/* Tests are steps that run target code; they follow the build steps. */
static void append_tests(struct tf_recipe *r)
{
	struct tf_step *all;
	size_t i;

	if (!r->nr_tests)
		return;
	all = arena_alloc(r, (r->nr_steps + 2 * r->nr_tests) * sizeof(*all));
	if (r->nr_steps)
		memcpy(all, r->steps, r->nr_steps * sizeof(*all));
	for (i = 0; i < r->nr_tests; i++) {
		all[r->nr_steps + i] = r->tests[i];
		all[r->nr_steps + i].is_test = 1;
	}
	for (i = 0; i < r->nr_tests; i++)
		baseline_copy(r, &r->tests[i], &all[r->nr_steps + r->nr_tests + i]);
	r->steps = all;
	r->nr_steps += 2 * r->nr_tests;
}

static int check_test_refs(struct loader *l)
{
	struct tf_recipe *r = l->r;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < r->nr_steps; i++)
		for (j = 0; !r->steps[i].is_test && j < r->steps[i].nr_needs; j++)
			if (r->steps[r->steps[i].need_index[j]].is_test) {
				l->errors++;
				ret = tf_error_at(&r->steps[i].needs[j].pos,
						  "step '%s' needs '%s', which is a test; steps cannot need tests",
						  r->steps[i].name.s, r->steps[i].needs[j].s);
			}
	for (i = 0; i < r->nr_wheels; i++)
		for (j = 0; j < r->wheels[i].nr_files; j++) {
			const struct tf_file_rule *f = &r->wheels[i].files[j];

			if (f->step_index >= 0 && r->steps[f->step_index].is_test) {
				l->errors++;
				ret = tf_error_at(&f->from.pos,
						  "wheel '%s' takes files from test '%s'; only steps make files",
						  r->wheels[i].name.s, f->from.s);
			}
		}
	return ret;
}

static int resolve(struct loader *l)
{
	struct tf_recipe *r = l->r;
	size_t i, j;
	int ret = 0;

	append_tests(r);
	for (i = 0; i < r->nr_sources; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(r->sources[i].name.s, r->sources[j].name.s))
				ret |= dup_name(l, &r->sources[j].name,
						&r->sources[i].name, "source");
	for (i = 0; i < r->nr_steps; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(r->steps[i].name.s, r->steps[j].name.s))
				ret |= dup_name(l, &r->steps[j].name, &r->steps[i].name,
						r->steps[i].is_test ? "test or step" : "step");
	for (i = 0; i < r->nr_steps; i++)
		ret |= resolve_step(l, &r->steps[i]);
	for (i = 0; i < r->nr_wheels; i++) {
		struct tf_wheel_def *w = &r->wheels[i];

		for (j = 0; j < w->nr_files; j++) {
			struct tf_file_rule *f = &w->files[j];

			f->step_index = tf_recipe_find_step(r, f->from.s);
			/* A source's tree, read where it was prepared (no step
			 * to copy it): only when no step has that name. */
			f->source_index = f->step_index < 0 ?
				tf_recipe_find_source(r, f->from.s) : -1;
			if (f->step_index < 0 && f->source_index < 0) {
				l->errors++;
				ret = tf_error_at(&f->from.pos,
						  "wheel '%s' takes files from unknown step or source '%s'",
						  w->name.s, f->from.s);
			}
		}
	}
	if (ret)
		return -1;
	{
		char *state = tf_calloc(r->nr_steps + 1, 1);
		size_t *path = tf_calloc(r->nr_steps + 1, sizeof(size_t));

		for (i = 0; !ret && i < r->nr_steps; i++)
			ret = find_cycle(l, i, state, path, 0);
		free(state);
		free(path);
	}
	return ret ? ret : check_test_refs(l);
}

/*
 * Load YAML into a document. libyaml reports syntax errors with the
 * problem mark; we print them in the same FILE:LINE:COL form.
 */
/*
 * Refuse nesting deeper than any recipe needs before building the tree:
 * libyaml 0.2.5 takes time quadratic in the depth of flow collections,
 * so 200,000 '[' would stall it. Streaming events stops at the limit.
 */
#define MAX_DEPTH 64

/*
 * Aliases are fine for repeating a script; a few of them nested, each
 * naming the previous one ten times, are a billion nodes for whoever
 * walks the tree ("billion laughs"). So the nodes the document stands
 * for once aliases are expanded are counted while it streams by, each
 * anchor remembering its own count, and refused past MAX_NODES.
 */
#define MAX_NODES 1000000

struct expansion {
	unsigned long long open[MAX_DEPTH + 2]; /* nodes in each open collection */
	char *anchor[MAX_DEPTH + 2];            /* owned; its anchor, or NULL */
	int depth;                              /* open collections */
	char **names;                           /* owned; anchors seen */
	unsigned long long *counts;             /* nodes each anchor stands for */
	size_t nr;                              /* anchors in names and counts */
};

static unsigned long long anchor_count(const struct expansion *x,
				       const char *name)
{
	size_t i;

	for (i = x->nr; i-- > 0;) /* the latest anchor of a name wins */
		if (!strcmp(x->names[i], name))
			return x->counts[i];
	return 1;
}

static void remember(struct expansion *x, const char *name,
		     unsigned long long n)
{
	if (!name)
		return;
	x->names = realloc(x->names, (x->nr + 1) * sizeof(*x->names));
	x->counts = realloc(x->counts, (x->nr + 1) * sizeof(*x->counts));
	if (!x->names || !x->counts)
		die(TF_EXIT_FAILURE, "out of memory");
	x->names[x->nr] = strdup(name);
	x->counts[x->nr++] = n;
}

static void expansion_release(struct expansion *x)
{
	while (x->nr)
		free(x->names[--x->nr]);
	while (x->depth > 0)
		free(x->anchor[x->depth--]);
	free(x->names);
	free(x->counts);
}

/* Add n nodes to the innermost open collection; 1 past the limit. */
static int add_nodes(struct expansion *x, unsigned long long n)
{
	unsigned long long *c = &x->open[x->depth];

	*c = n > MAX_NODES || *c + n > MAX_NODES ? MAX_NODES + 1 : *c + n;
	return *c > MAX_NODES;
}

static int count_event(struct expansion *x, const yaml_event_t *e)
{
	const char *anchor = NULL;
	unsigned long long n;

	switch (e->type) {
	case YAML_SCALAR_EVENT:
		anchor = (const char *)e->data.scalar.anchor;
		remember(x, anchor, 1);
		return add_nodes(x, 1);
	case YAML_ALIAS_EVENT:
		return add_nodes(x, anchor_count(x, (const char *)e->data.alias.anchor));
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		anchor = (const char *)(e->type == YAML_SEQUENCE_START_EVENT ?
			 e->data.sequence_start.anchor : e->data.mapping_start.anchor);
		if (x->depth > MAX_DEPTH)
			return 0; /* check_depth reports it */
		x->depth++;
		x->open[x->depth] = 1;
		x->anchor[x->depth] = anchor ? strdup(anchor) : NULL;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (x->depth <= 0)
			return 0;
		n = x->open[x->depth];
		remember(x, x->anchor[x->depth], n);
		free(x->anchor[x->depth]);
		x->depth--;
		return add_nodes(x, n);
	default:
		return 0;
	}
}

/*
 * A NUL in a scalar would cut the C string tfbuild sees short of what
 * YAML means; aliases must not expand past MAX_NODES.
 */
static int check_event(const char *path, struct expansion *x,
		       const yaml_event_t *event)
{
	struct tf_pos p = { path, (int)event->start_mark.line + 1,
			    (int)event->start_mark.column + 1 };

	if (event->type == YAML_SCALAR_EVENT &&
	    strlen((const char *)event->data.scalar.value) != event->data.scalar.length)
		return tf_error_at(&p, "a NUL character is not allowed in a value");
	if (count_event(x, event))
		return tf_error_at(&p, "YAML aliases expand to more than %d nodes",
				   MAX_NODES);
	return 0;
}

static int check_depth(const char *path, const struct tf_buf *text)
{
	struct expansion x;
	yaml_parser_t parser;
	yaml_event_t event;
	int depth = 0, ret = 0, done = 0;

	memset(&x, 0, sizeof(x));
	if (!yaml_parser_initialize(&parser))
		return error("%s: cannot start the YAML parser", path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text->buf,
				     text->len);
	while (!done && !ret) {
		if (!yaml_parser_parse(&parser, &event))
			break; /* the loader reports syntax errors */
		if (event.type == YAML_SEQUENCE_START_EVENT ||
		    event.type == YAML_MAPPING_START_EVENT) {
			if (++depth > MAX_DEPTH) {
				struct tf_pos p = { path, (int)event.start_mark.line + 1,
						    (int)event.start_mark.column + 1 };

				ret = tf_error_at(&p, "nested deeper than %d levels",
						  MAX_DEPTH);
			}
		} else if (event.type == YAML_SEQUENCE_END_EVENT ||
			   event.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		if (!ret)
			ret = check_event(path, &x, &event);
		done = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
	expansion_release(&x);
	return ret;
}

static int load_document(const char *path, const struct tf_buf *text,
			 yaml_document_t *doc)
{
	yaml_parser_t parser;
	int ret = check_depth(path, text);

	if (ret)
		return ret;
	if (!yaml_parser_initialize(&parser))
		return error("%s: cannot start the YAML parser", path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text->buf,
				     text->len);
	if (!yaml_parser_load(&parser, doc)) {
		struct tf_pos p = { path, (int)parser.problem_mark.line + 1,
				    (int)parser.problem_mark.column + 1 };

		ret = tf_error_at(&p, "invalid YAML: %s%s%s",
				  parser.problem ? parser.problem : "syntax error",
				  parser.context ? " " : "",
				  parser.context ? parser.context : "");
	} else if (!yaml_document_get_root_node(doc)) {
		yaml_document_delete(doc);
		ret = error("%s: the file is empty", path);
	}
	yaml_parser_delete(&parser);
	return ret;
}

int tf_recipe_load(const char *path, struct tf_recipe *r)
{
	struct tf_buf text = TF_BUF_INIT, dir = TF_BUF_INIT, abs = TF_BUF_INIT;
	yaml_document_t doc;
	struct loader l = { r, &doc, NULL, NULL, 0 };
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = arena_strdup(r, path);
	tf_path_absolute(&abs, path);
	tf_path_dirname(&dir, abs.buf);
	r->dir = arena_strdup(r, dir.buf);
	text.cap = RECIPE_MAX_BYTES;
	ret = tf_read_file(path, &text);
	if (ret)
		goto out;
	{
		struct tf_sha256 *h = tf_sha256_new();

		tf_sha256_update(h, text.buf, text.len);
		tf_sha256_final(h, r->sha256);
	}
	l.text = text.buf;
	l.file = r->path;
	ret = load_document(r->path, &text, &doc);
	if (ret)
		goto out;
	ret = parse_top(&l, yaml_document_get_root_node(&doc));
	if (!ret)
		ret = resolve(&l);
	yaml_document_delete(&doc);
	if (l.errors > MAX_ERRORS)
		error("%s: too many errors, stopping", path);
	if (l.errors)
		ret = -1;
out:
	tf_buf_release(&text);
	tf_buf_release(&dir);
	tf_buf_release(&abs);
	return ret;
}

static const struct field toolchain_file_fields[] = {
	{ "toolchains", 1, parse_toolchains },
	{ NULL, 0, NULL },
};

int tf_recipe_load_toolchains(struct tf_recipe *r, const char *path)
{
	struct tf_buf text = TF_BUF_INIT;
	yaml_document_t doc;
	struct loader l = { r, &doc, NULL, NULL, 0 };
	int ret;

	text.cap = RECIPE_MAX_BYTES;
	ret = tf_read_file(path, &text);
	l.text = text.buf;
	l.file = arena_strdup(r, path);
	if (!ret)
		ret = load_document(path, &text, &doc);
	if (!ret) {
		ret = walk_map(&l, yaml_document_get_root_node(&doc),
			       toolchain_file_fields, r, "toolchain file");
		yaml_document_delete(&doc);
	}
	tf_buf_release(&text);
	return ret || l.errors ? -1 : 0;
}

int tf_recipe_find_source(const struct tf_recipe *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_sources; i++)
		if (!strcmp(r->sources[i].name.s, name))
			return (int)i;
	return -1;
}

int tf_recipe_find_step(const struct tf_recipe *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_steps; i++)
		if (!strcmp(r->steps[i].name.s, name))
			return (int)i;
	return -1;
}
