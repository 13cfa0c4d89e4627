#ifndef TF_RECIPE_INTERNAL_H
#define TF_RECIPE_INTERNAL_H

/*
 * What the files of recipe/ share to turn a recipe file into a struct
 * tf_recipe; private to the folder (its door is recipe.h). libyaml
 * builds a document tree whose nodes carry marks; we walk it with one
 * table per mapping type, so the schema in docs/recipe.md and the code
 * read alike. Only recipe/ includes libyaml, through this header.
 *
 *   recipe_load.c       the file, YAML within limits, then the steps below
 *   recipe_read.c       YAML nodes to values; mappings walked by tables
 *   recipe_fields.c     the tables of the top level, sources and steps
 *   recipe_wheel.c      the tables of wheels (metadata: recipe_meta.c)
 *   recipe_toolchain.c  `toolchains` and toolchain files
 *   recipe_twheels.c    `target-wheels`, `host-wheels`: wheels from the
 *                       package index
 *   recipe_variants.c   `variants`: builds per target, copied per target
 *   recipe_resolve.c    names resolved, tests as steps, no cycle
 *   recipe_pos.c        positions, and messages at them
 *   recipe_arena.c      the memory every value lives in
 */

#include <stddef.h>

#include <yaml.h>

#include "base/base.h"

#include "recipe.h"

/* Recipes are small; a cap keeps a hostile file from eating memory. */
#define RECIPE_MAX_BYTES (4 << 20)
/* Stop after this many errors: the rest are usually consequences. */
#define MAX_ERRORS 20

/* The state of one load. */
struct loader {
	struct tf_recipe *r;  /* the recipe being filled */
	yaml_document_t *doc; /* borrowed */
	const char *text;     /* borrowed: the recipe's bytes, for columns */
	const char *file;     /* borrowed: the file being read, for positions */
	int errors;           /* errors reported so far */
};

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

/* ---- small readers of nodes, for every file of the loader ---- */

/* Where node n starts in the file being read. */
static inline struct tf_pos pos_of(struct loader *l, const yaml_node_t *n)
{
	struct tf_pos p = { l->file, (int)n->start_mark.line + 1,
			    (int)n->start_mark.column + 1 };
	return p;
}

/* "a scalar", "a list", "a mapping" or "empty": n's kind, for messages. */
static inline const char *kind_name(const yaml_node_t *n)
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
static inline const char *scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
					   : "";
}

/* The node with that id in the document being read (borrowed). */
static inline yaml_node_t *node(struct loader *l, int id)
{
	return yaml_document_get_node(l->doc, id);
}

/* Generate a field parser for a string member of a struct. */
#define STR_FIELD(type, member, key)                                          \
	static int parse_##type##_##member(struct loader *l, yaml_node_t *v,  \
					   void *obj, const char *where)      \
	{                                                                     \
		(void)where;                                                  \
		return tf_load_str(l, key, v, &((struct type *)obj)->member); \
	}

/* ---- recipe_arena.c ---- */

/* n zeroed bytes, 16-aligned, owned by r's arena (tf_recipe_release()). */
void *tf_arena_alloc(struct tf_recipe *r, size_t n);
/* A copy of s owned by r's arena. */
const char *tf_arena_strdup(struct tf_recipe *r, const char *s);

/* ---- recipe_pos.c ---- */

/*
 * Print "tfbuild: FILE:LINE:COL: MSG" at n and count it in l->errors;
 * past MAX_ERRORS count it without printing. Returns -1.
 */
int tf_load_bad(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
	TF_PRINTF(3, 4);

/* ---- recipe_read.c ---- */

/*
 * Read node n, the value of key, into out (copied into the arena, with
 * its position) or check and store its number between min and max. Each
 * returns 0, or -1 after reporting why n is not one.
 */
int tf_load_str(struct loader *l, const char *key, yaml_node_t *n,
		struct tf_str *out);
/* The same for a target's name, reporting one tfbuild does not know. */
int tf_load_target(struct loader *l, const char *key, yaml_node_t *n,
		   struct tf_str *out);
int tf_load_int(struct loader *l, const char *key, yaml_node_t *n,
		long long min, long long max, long long *out);
/* A list of strings, or a mapping of strings to strings, into the arena. */
int tf_load_str_list(struct loader *l, const char *key, yaml_node_t *n,
		     struct tf_str **out, size_t *nr);
int tf_load_str_map(struct loader *l, const char *key, yaml_node_t *n,
		    struct tf_kv **out, size_t *nr);
/*
 * Fill obj from mapping n by its fields; `where` names n in messages.
 * Every unknown, duplicate or missing key is reported. Returns 0 or -1.
 */
int tf_load_map(struct loader *l, yaml_node_t *n, const struct field *fields,
		void *obj, const char *where);
/*
 * Parse a list whose items are mappings described by fields, into
 * *items (arena, *nr items of `size` bytes); `check` (may be NULL) runs
 * on each parsed item and reports what it refuses. Returns 0 or -1.
 */
int tf_load_list(struct loader *l, yaml_node_t *v, const char *key,
		 const struct field *fields, size_t size, void **items,
		 size_t *nr,
		 int (*check)(struct loader *, yaml_node_t *, void *,
			      const char *));

/* ---- the parts of a recipe: each returns 0, or -1 after reporting ---- */

/* recipe_fields.c: the whole document, from its root mapping. */
int tf_load_top(struct loader *l, yaml_node_t *root);
/* recipe_wheel.c: `wheels`, into the struct tf_recipe obj. */
int tf_load_wheels(struct loader *l, yaml_node_t *v, void *obj,
		   const char *where);
/* recipe_toolchain.c: `toolchains`, appended to l->r's. */
int tf_load_target_wheels(struct loader *l, yaml_node_t *v, void *obj,
			  const char *where);
int tf_load_host_wheels(struct loader *l, yaml_node_t *v, void *obj,
			const char *where);
int tf_load_toolchains(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where);
/* recipe_variants.c: `variants`, `variant-priorities`, `variant-providers`. */
int tf_load_variants(struct loader *l, yaml_node_t *v, void *obj,
		     const char *where);
int tf_load_variant_priorities(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where);
int tf_load_variant_providers(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where);
/* After the whole document: priorities checked or derived. */
int tf_load_variants_finish(struct loader *l);
/*
 * recipe_resolve.c: append tests as steps, check names are unique and
 * references resolve, and that steps do not need each other in a cycle.
 */
int tf_load_resolve(struct loader *l);

/* ---- recipe_file.c ---- */

/*
 * Append the regular file at path to out (within out->cap), refusing
 * anything else (a FIFO, a device, a directory) before any read, so
 * nothing blocks. 0, or -1 after naming path and why.
 */
int tf_recipe_read_regular(const char *path, struct tf_buf *out);

/* ---- recipe_load.c ---- */

/*
 * Load text, read from path, into doc (the caller deletes it on
 * success), after checking its nesting depth, NUL characters and alias
 * expansion. Returns 0, or -1 after reporting at FILE:LINE:COL.
 */
int tf_load_document(const char *path, const struct tf_buf *text,
		     yaml_document_t *doc);

#endif
