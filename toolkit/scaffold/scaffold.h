#ifndef TF_SCAFFOLD_H
#define TF_SCAFFOLD_H

/*
 * scaffold/: a new project from a template (`tfbuild new`). The
 * templates are the files under templates/NAME/ in the repository,
 * embedded into the binary at build time by tools/embed-templates.c
 * (the generated table, tf_templates below), so an installed tfbuild
 * has them. A template's `.summary` is its line in `tfbuild new --list`;
 * every other file is written into the project, with the placeholders
 * of placeholders.inc ({{name}}, {{module}}, {{MODULE}}, {{DEVICE}})
 * filled in, in its text and its path.
 */

#include <stddef.h>

#include "base/base.h"

/* One file of a template, as embedded. */
struct tf_template_file {
	const char *path; /* relative to the project: "src/{{module}}.c" */
	unsigned mode;    /* 0644, or 0755 for an executable */
	const unsigned char *data; /* its bytes (NUL after them) */
	size_t len;
};

struct tf_template {
	const char *name;    /* "python-extension": templates/NAME */
	const char *summary; /* what it makes, one line (.summary) */
	const struct tf_template_file *files; /* sorted by path */
	size_t nr_files;
};

/* Every template, sorted by name, ending with a NULL name (generated). */
extern const struct tf_template tf_templates[];

/* The template called name, or NULL. */
const struct tf_template *tf_template_find(const char *name);
/* The templates' names, NULL-terminated, for suggestions and completion. */
const char *const *tf_template_names(void);

/* The values of the placeholders, in placeholders.inc's order. */
enum tf_placeholder {
#define TF_PLACEHOLDER(id, what) TF_PH_##id,
#include "placeholders.inc"
#undef TF_PLACEHOLDER
	TF_NR_PLACEHOLDERS
};

struct tf_scaffold_names {
	struct tf_buf v[TF_NR_PLACEHOLDERS]; /* owned */
};

/*
 * Derive the placeholders' values from a distribution name: it must be a
 * valid one (core metadata Name); {{name}} is its PEP 503 form, {{module}}
 * that with '-' as '_', which must be a Python identifier that is not a
 * keyword; {{MODULE}} that in upper case, {{DEVICE}} that with each digit
 * spelled out (M1: M_ONE), a valid TensorFlow device type. Returns 0, or -1 with why filled (nothing printed). Release
 * names with tf_scaffold_names_release() either way.
 */
int tf_scaffold_names_check(const char *name, struct tf_scaffold_names *names,
			    struct tf_buf *why);
void tf_scaffold_names_release(struct tf_scaffold_names *names);

/*
 * Write template t, filled in with names, as the new directory dir: dir
 * must not exist, or be an empty directory. The files are written into a
 * temporary directory beside it, then renamed to dir, so a failure
 * leaves nothing. Returns 0, or -1 after reporting.
 */
int tf_scaffold_write(const struct tf_template *t, const char *dir,
		      const struct tf_scaffold_names *names);

#endif
