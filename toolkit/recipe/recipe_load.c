/* Reading a recipe file: YAML within limits, then its fields and names. */
#include "recipe_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "recipe.h"

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
	unsigned long long
		open[MAX_DEPTH + 2]; /* nodes in each open collection */
	char *anchor[MAX_DEPTH + 2]; /* owned; its anchor, or NULL */
	int depth;                   /* open collections */
	char **names;                /* owned; anchors seen */
	unsigned long long *counts;  /* nodes each anchor stands for */
	size_t nr;                   /* anchors in names and counts */
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
		tf_out_of_memory(0);
	x->names[x->nr] = tf_strdup(name);
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
		return add_nodes(
			x, anchor_count(x, (const char *)e->data.alias.anchor));
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		anchor = (const char *)(e->type == YAML_SEQUENCE_START_EVENT
						? e->data.sequence_start.anchor
						: e->data.mapping_start.anchor);
		if (x->depth > MAX_DEPTH)
			return 0; /* check_depth reports it */
		x->depth++;
		x->open[x->depth] = 1;
		x->anchor[x->depth] = anchor ? tf_strdup(anchor) : NULL;
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
	    strlen((const char *)event->data.scalar.value) !=
		    event->data.scalar.length)
		return tf_error_at(&p,
				   "a NUL character is not allowed in a value");
	if (count_event(x, event))
		return tf_error_at(&p,
				   "YAML aliases expand to more than %d nodes",
				   MAX_NODES);
	return 0;
}

/*
 * libyaml's loader reads the first document of a stream and stops: a
 * second one, after `---`, would be silently ignored (and its syntax
 * never checked). A recipe is one document.
 */
static int second_document(const char *path, const yaml_event_t *event)
{
	struct tf_pos p = { path, (int)event->start_mark.line + 1,
			    (int)event->start_mark.column + 1 };

	return tf_error_at(&p, "a second YAML document; a recipe is one "
			       "YAML document");
}

static int check_depth(const char *path, const struct tf_buf *text)
{
	struct expansion x;
	yaml_parser_t parser;
	yaml_event_t event;
	int depth = 0, ret = 0, done = 0, documents = 0;

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
				struct tf_pos p = {
					path, (int)event.start_mark.line + 1,
					(int)event.start_mark.column + 1
				};

				ret = tf_error_at(
					&p, "nested deeper than %d levels",
					MAX_DEPTH);
			}
		} else if (event.type == YAML_SEQUENCE_END_EVENT ||
			   event.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		if (!ret)
			ret = check_event(path, &x, &event);
		if (!ret && event.type == YAML_DOCUMENT_START_EVENT &&
		    documents++)
			ret = second_document(path, &event);
		done = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
	expansion_release(&x);
	return ret;
}

/*
 * Load YAML into a document. libyaml reports syntax errors with the
 * problem mark; we print them in the same FILE:LINE:COL form.
 */
int tf_load_document(const char *path, const struct tf_buf *text,
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
				  parser.problem ? parser.problem
						 : "syntax error",
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
	r->path = tf_arena_strdup(r, path);
	ret = tf_path_absolute(&abs, path);
	if (ret)
		goto out;
	tf_path_dirname(&dir, abs.buf);
	r->dir = tf_arena_strdup(r, dir.buf);
	text.cap = RECIPE_MAX_BYTES;
	ret = tf_recipe_read_regular(path, &text);
	if (ret)
		goto out;
	{
		struct tf_sha256 *h = tf_sha256_new();

		tf_sha256_update(h, text.buf, text.len);
		tf_sha256_final(h, r->sha256);
	}
	l.text = text.buf;
	l.file = r->path;
	ret = tf_load_document(r->path, &text, &doc);
	if (ret)
		goto out;
	ret = tf_load_top(&l, yaml_document_get_root_node(&doc));
	if (!ret)
		ret = tf_load_resolve(&l);
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
