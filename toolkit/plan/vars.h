#ifndef TF_VARS_H
#define TF_VARS_H

/*
 * ${NAME} expansion. A table maps names to values; a value may itself
 * be a recipe string still to expand (recipe variables), expanded on
 * first use with cycle detection. "$$" gives a literal "$".
 *
 * A value set as a path (tf_vars_set_path: the built-ins that name a
 * directory of the build machine) is percent-encoded when it lands in a
 * URL (tf_expand_url), directly or through recipe variables, so
 * "file://${recipe_dir}/x" is a valid URL for any checkout path; the
 * text the recipe or --set wrote is left as written (fetch/url.h).
 */

#include <stddef.h>

struct tf_buf;
struct tf_str;

struct tf_var {
	char *name;  /* owned */
	char *value; /* owned; NULL until expanded */
	const struct tf_str
		*raw;    /* borrowed from the recipe; NULL for built-ins */
	char *url_value; /* owned; NULL until expanded for a URL: a path
			    percent-encoded, a recipe variable expanded
			    with tf_expand_url */
	int is_path;     /* 1: a path of the build machine */
	int busy;        /* 1 while its own value is being expanded */
	int failed;      /* 1 once expanding it failed (reported once) */
};

struct tf_vars {
	struct tf_var *v; /* owned array */
	size_t nr, alloc;
};

#define TF_VARS_INIT       \
	{                  \
		NULL, 0, 0 \
	}

/* Set name to a literal value (replacing any earlier one). */
void tf_vars_set(struct tf_vars *vars, const char *name, const char *value);
/* Set name to a path, percent-encoded when expanded into a URL. */
void tf_vars_set_path(struct tf_vars *vars, const char *name, const char *path);
/* Set name to a recipe string, expanded when first used. */
void tf_vars_set_raw(struct tf_vars *vars, const char *name,
		     const struct tf_str *raw);
void tf_vars_release(struct tf_vars *vars);

/*
 * Expand every ${NAME} in in->s, appending the result to out. An
 * undefined name, a cycle or an unterminated "${" is reported at its
 * position in the recipe and -1 returned.
 */
int tf_expand(struct tf_vars *vars, const struct tf_str *in,
	      struct tf_buf *out);
/* Like tf_expand, returning a new string the caller frees (NULL on error). */
char *tf_expand_dup(struct tf_vars *vars, const struct tf_str *in);
/* Like tf_expand_dup for a URL: every path value percent-encoded. */
char *tf_expand_url_dup(struct tf_vars *vars, const struct tf_str *in);

/*
 * No value expands to more than this: ten variables each using the
 * previous ten times would otherwise ask for 10^10 bytes.
 */
#define TF_VARS_MAX_VALUE (1 << 20)

#endif
