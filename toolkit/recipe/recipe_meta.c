/*
 * Checking a recipe wheel's core metadata at load time, with positions.
 */
#include "recipe.h"

#include <string.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "recipe_meta.h"

static int uses_vars(const struct tf_str *s)
{
	return s->s && strstr(s->s, "${") != NULL;
}

static const char *kind_name(enum tf_meta_kind kind)
{
	switch (kind) {
	case TF_META_LICENSE:
		return "license";
	case TF_META_REQUIRES_PYTHON:
		return "requires-python";
	case TF_META_REQUIREMENT:
		return "requires-dist";
	case TF_META_FILE:
		return "file";
	}
	return "value";
}

int tf_wheel_meta_validate_value(const struct tf_str *s, const char *v,
				 enum tf_meta_kind kind)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;

	switch (kind) {
	case TF_META_LICENSE:
		ret = tf_spdx_check(v, &why);
		break;
	case TF_META_REQUIRES_PYTHON:
		ret = tf_specifiers_check(v, &why);
		break;
	case TF_META_REQUIREMENT:
		ret = tf_requirement_check(v, &why);
		break;
	case TF_META_FILE:
		if (!tf_path_exists(v) || tf_path_is_dir(v))
			ret = -1;
		break;
	}
	if (!ret) {
		tf_buf_release(&why);
		return 0;
	}
	if (kind == TF_META_FILE)
		tf_error_at(&s->pos, "'%s' does not exist or is not a file",
			    s->s);
	else if (kind == TF_META_LICENSE)
		tf_error_at(&s->pos,
			    "license '%s' is not a valid SPDX license "
			    "expression: %s",
			    v, why.buf);
	else if (kind == TF_META_REQUIRES_PYTHON)
		tf_error_at(&s->pos,
			    "requires-python '%s' is not a PEP 440 "
			    "specifier set: %s",
			    v, why.buf);
	else
		tf_error_at(&s->pos, "%s '%s' is not a PEP 508 requirement: %s",
			    kind_name(kind), v, why.buf);
	tf_buf_release(&why);
	return -1;
}

/* A literal file relative to the recipe's directory. */
static int validate_file(const struct tf_recipe *r, const struct tf_str *s,
			 const char *key)
{
	struct tf_buf path = TF_BUF_INIT;
	int ret = 0;

	if (!s->s || uses_vars(s))
		return 0;
	if (s->s[0] == '/')
		tf_buf_addstr(&path, s->s);
	else
		tf_path_join(&path, r->dir, s->s);
	if (!tf_path_exists(path.buf) || tf_path_is_dir(path.buf))
		ret = tf_error_at(&s->pos,
				  "%s '%s' does not exist or is not a "
				  "file (paths are relative to the recipe)",
				  key, s->s);
	tf_buf_release(&path);
	return ret;
}

static int validate_literal(const struct tf_str *s, enum tf_meta_kind kind)
{
	if (!s->s || uses_vars(s))
		return 0;
	return tf_wheel_meta_validate_value(s, s->s, kind);
}

const char *tf_readme_content_type(const char *file, const char *declared)
{
	const char *base = tf_path_basename(file), *dot = strrchr(base, '.');

	if (declared)
		return declared;
	if (!dot || !strcmp(dot, ".txt"))
		return "text/plain";
	if (!strcmp(dot, ".md"))
		return "text/markdown";
	if (!strcmp(dot, ".rst"))
		return "text/x-rst";
	return NULL;
}

static int validate_readme(const struct tf_recipe *r,
			   const struct tf_wheel_def *w)
{
	struct tf_buf why = TF_BUF_INIT;
	const char *type;
	int ret;

	if (!w->readme.s)
		return 0;
	ret = validate_file(r, &w->readme, "readme");
	type = tf_readme_content_type(w->readme.s, w->readme_type.s);
	if (!type)
		ret = tf_error_at(&w->readme.pos,
				  "cannot tell the content "
				  "type of readme '%s' from its extension; "
				  "give readme: {file: ..., content-type: ...}",
				  w->readme.s);
	else if (w->readme_type.s && tf_content_type_check(type, &why))
		ret = tf_error_at(&w->readme_type.pos, "%s", why.buf);
	tf_buf_release(&why);
	return ret;
}

static int validate_people(const struct tf_person *p, size_t n)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		tf_buf_reset(&why);
		if (p[i].email.s && !uses_vars(&p[i].email) &&
		    tf_email_check(p[i].email.s, &why))
			ret = tf_error_at(&p[i].email.pos, "%s", why.buf);
		if (p[i].name.s && strpbrk(p[i].name.s, ",<>\n"))
			ret = tf_error_at(&p[i].name.pos,
					  "name '%s' may not "
					  "contain ',', '<', '>' or a line "
					  "break",
					  p[i].name.s);
	}
	tf_buf_release(&why);
	return ret;
}

static int validate_lists(const struct tf_wheel_def *w)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;
	size_t i;

	for (i = 0; i < w->nr_urls; i++) {
		const struct tf_kv *u = &w->urls[i];

		tf_buf_reset(&why);
		if (strlen(u->key.s) > 32 || !*u->key.s ||
		    strchr(u->key.s, ','))
			ret = tf_error_at(&u->key.pos,
					  "URL label '%s' must be "
					  "1 to 32 characters without ','",
					  u->key.s);
		if (!uses_vars(&u->value) && tf_url_check(u->value.s, &why))
			ret = tf_error_at(&u->value.pos, "%s", why.buf);
	}
	for (i = 0; i < w->nr_keywords; i++)
		if (!*w->keywords[i].s || strpbrk(w->keywords[i].s, ",\n"))
			ret = tf_error_at(&w->keywords[i].pos,
					  "keyword '%s' "
					  "must be non-empty without ','",
					  w->keywords[i].s);
	for (i = 0; i < w->nr_classifiers; i++)
		if (!strstr(w->classifiers[i].s, " :: ") ||
		    strchr(w->classifiers[i].s, '\n'))
			ret = tf_error_at(&w->classifiers[i].pos,
					  "classifier "
					  "'%s' is not 'Topic :: ...'",
					  w->classifiers[i].s);
	tf_buf_release(&why);
	return ret;
}

int tf_license_twice(const struct tf_str *s, const struct tf_str *first,
		     const char *name)
{
	struct tf_buf dst = TF_BUF_INIT;

	tf_buf_setf(&dst, ".dist-info/licenses/%s", name);
	tf_error_twice(&s->pos, &first->pos, dst.buf,
		       "a license file keeps only its file name there; "
		       "copy one to another name in a step");
	tf_buf_release(&dst);
	return -1;
}

/*
 * No two license files of one file name: they would be one file in
 * .dist-info/licenses/. A name written with ${...} waits for the plan,
 * which checks the expanded names (wheelspec.c).
 */
static int validate_license_names(const struct tf_wheel_def *w)
{
	const struct tf_str *v = w->license_files;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < w->nr_license_files; i++) {
		const char *name = tf_path_basename(v[i].s);

		for (j = 0; j < i && !strchr(name, '$'); j++)
			if (!strcmp(name, tf_path_basename(v[j].s))) {
				ret = tf_license_twice(&v[i], &v[j], name);
				break;
			}
	}
	return ret;
}

int tf_wheel_def_validate_metadata(const struct tf_recipe *r,
				   const struct tf_wheel_def *w)
{
	int ret = 0;
	size_t i;

	/* Every check runs, so that all problems are reported at once. */
	ret |= validate_literal(&w->license, TF_META_LICENSE);
	ret |= validate_literal(&w->requires_python, TF_META_REQUIRES_PYTHON);
	for (i = 0; i < w->nr_requires_dist; i++)
		ret |= validate_literal(&w->requires_dist[i],
					TF_META_REQUIREMENT);
	ret |= validate_readme(r, w);
	for (i = 0; i < w->nr_license_files; i++)
		ret |= validate_file(r, &w->license_files[i], "license-files");
	ret |= validate_license_names(w);
	ret |= validate_people(w->authors, w->nr_authors);
	ret |= validate_people(w->maintainers, w->nr_maintainers);
	ret |= validate_lists(w);
	return ret ? -1 : 0;
}
