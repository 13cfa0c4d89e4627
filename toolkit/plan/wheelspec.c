/*
 * A plan's wheels: each wheel's spec, metadata, libraries and file rules
 * expanded and checked, every problem reported at its place in the recipe.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/base.h"
#include "metadata/metadata.h"
#include "recipe/recipe.h"
#include "wheel/wheel.h"
#include "plan.h"

/* Check an expanded wheel value with a validator, reporting at its position. */
static int check_value(const struct tf_str *s, const char *v,
		       int (*ok)(const char *), const char *what)
{
	if (!v || ok(v))
		return 0;
	tf_error_at(&s->pos, "'%s' is not a valid %s", v, what);
	return 1;
}

static int version_ok(const char *v)
{
	struct tf_buf b = TF_BUF_INIT;
	int ok = tf_pep440_normalize(v, &b) == 0;

	tf_buf_release(&b);
	return ok;
}

static int dst_ok(const char *v)
{
	return !strcmp(v, ".") || tf_path_is_safe_relative(v);
}

/* A metadata field that must be one line, at its position. */
static int check_line(const struct tf_str *s, const char *v, const char *what)
{
	struct tf_buf why = TF_BUF_INIT;
	int bad = v && tf_wheel_line_check(v, &why);

	if (bad)
		tf_error_at(&s->pos, "'%s' %s; it must be one line", what,
			    why.buf);
	tf_buf_release(&why);
	return bad;
}

/* A file rule's destination inside the wheel ("." is its root). */
static int check_dst(const struct tf_str *s, const char *v)
{
	struct tf_buf why = TF_BUF_INIT;
	int bad = v && strcmp(v, ".") && tf_wheel_dst_check(v, &why);

	if (bad)
		tf_error_at(&s->pos, "destination '%s' %s", v, why.buf);
	tf_buf_release(&why);
	return bad;
}

/* Each entry point valid and defined once, reported at the part at fault. */
static int check_entry_points(const struct tf_wheel_def *w,
			      const struct tf_wheel_entry_point *e)
{
	struct tf_buf why = TF_BUF_INIT;
	size_t i, j;
	int errors = 0;

	for (i = 0; i < w->nr_entry_points; i++) {
		const struct tf_entry_point *d = &w->entry_points[i];
		struct tf_wheel_entry_point g = { e[i].group, "x", "x" };
		struct tf_wheel_entry_point n = { e[i].group, e[i].name, "x" };

		if (!e[i].group || !e[i].name || !e[i].value)
			continue;
		tf_buf_reset(&why);
		if (tf_wheel_entry_point_check(&e[i], &why)) {
			struct tf_buf scratch = TF_BUF_INIT;
			const struct tf_pos *at =
				tf_wheel_entry_point_check(&g, &scratch)
					? &d->group.pos
				: tf_wheel_entry_point_check(&n, &scratch)
					? &d->name.pos
					: &d->value.pos;

			errors++;
			tf_error_at(at, "%s", why.buf);
			tf_buf_release(&scratch);
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(e[j].group, e[i].group) &&
			    !strcmp(e[j].name, e[i].name)) {
				errors++;
				tf_error_at(
					&d->name.pos,
					"entry point '%s' in '%s' is defined twice",
					e[i].name, e[i].group);
				break;
			}
	}
	tf_buf_release(&why);
	return errors;
}

/*
 * A rule given twice once expanded: the load compared the rules written
 * without ${...} (recipe_wheel.c), so any two equal now are new. Rules
 * that differ but meet at a path are the packer's to find.
 */
static int check_rules_twice(const struct tf_plan_wheel *pw)
{
	struct tf_buf dst = TF_BUF_INIT;
	size_t i, j;
	int errors = 0;

	for (i = 0; i < pw->def->nr_files; i++) {
		const struct tf_plan_file *f = &pw->files[i];

		for (j = 0; j < i && f->src && f->dst; j++) {
			const struct tf_plan_file *g = &pw->files[j];

			if (f->source != g->source || f->step != g->step ||
			    !g->src || !g->dst || strcmp(f->src, g->src) ||
			    strcmp(f->dst, g->dst))
				continue;
			tf_buf_reset(&dst);
			tf_file_rule_dst(f->src, f->dst, &dst);
			tf_error_twice(&f->def->pos, &g->def->pos, dst.buf,
				       NULL);
			errors++;
			break;
		}
	}
	tf_buf_release(&dst);
	return errors;
}

/*
 * No two license files of one name once expanded; the load checked the
 * names written without ${...} (recipe_meta.c).
 */
static int check_licenses_twice(const struct tf_plan_wheel *pw)
{
	const struct tf_wheel_def *w = pw->def;
	size_t i, j;
	int errors = 0;

	for (i = 0; i < w->nr_license_files; i++)
		for (j = 0; j < i && pw->license_names[i]; j++)
			if (pw->license_names[j] &&
			    !strcmp(pw->license_names[i],
				    pw->license_names[j])) {
				tf_license_twice(&w->license_files[i],
						 &w->license_files[j],
						 pw->license_names[i]);
				errors++;
				break;
			}
	return errors;
}

static int plan_files(struct tf_plan *p, struct tf_plan_wheel *pw)
{
	const struct tf_wheel_def *w = pw->def;
	size_t i;
	int errors = 0;

	pw->files = tf_calloc(w->nr_files, sizeof(*pw->files));
	for (i = 0; i < w->nr_files; i++) {
		struct tf_plan_file *f = &pw->files[i];

		f->def = &w->files[i];
		f->source = w->files[i].source_index;
		f->step = f->source < 0 ? (size_t)w->files[i].step_index : 0;
		f->src = tf_plan_expand(p, &w->files[i].src, &errors);
		f->dst = tf_plan_expand(p, &w->files[i].dst, &errors);
		errors += check_value(&w->files[i].src, f->src,
				      tf_path_is_safe_relative,
				      "relative path inside the stage");
		if (check_value(&w->files[i].dst, f->dst, dst_ok,
				"relative path inside the wheel"))
			errors++;
		else
			errors += check_dst(&w->files[i].dst, f->dst);
	}
	return errors + check_rules_twice(pw);
}

/*
 * A cpXY tag must be the CPython of the headers the target builds
 * against (or, for abi3, not newer): a cp312 wheel from 3.11 headers
 * would install where its extension cannot load.
 */
static int check_python_tag(struct tf_plan *p, const struct tf_wheel_def *w,
			    const struct tf_wheel_spec *spec)
{
	int major, minor, n = 0;
	const char *t = spec->python_tag;

	if (!w->python.s || !t || p->py_minor < 0 ||
	    sscanf(t, "cp%1d%d%n", &major, &minor, &n) < 2 || t[n])
		return 0;
	if (major == p->py_major &&
	    (minor == p->py_minor ||
	     (spec->abi_tag && !strcmp(spec->abi_tag, "abi3") &&
	      minor <= p->py_minor)))
		return 0;
	tf_error_at(
		&w->python.pos,
		"python tag '%s' does not match the %s target's Python headers (CPython %d.%d, %s); use ${python_tag}",
		t, p->target.name, p->py_major, p->py_minor,
		p->target.python_include);
	return 1;
}

/* A recipe path, expanded, made absolute against the recipe's directory. */
static const char *expand_path(struct tf_plan *p, const struct tf_str *s,
			       int *errors)
{
	const char *v = tf_plan_expand(p, s, errors);

	return v ? tf_plan_recipe_path(p, v) : NULL;
}

/* "Name <email>" lists for Author/Author-email, as PEP 621 maps them. */
static void plan_people(struct tf_plan *p, const struct tf_person *v, size_t n,
			const char **names, const char **emails, int *errors)
{
	struct tf_buf nb = TF_BUF_INIT, eb = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *name =
			v[i].name.s ? tf_plan_expand(p, &v[i].name, errors)
				    : NULL;
		const char *email =
			v[i].email.s ? tf_plan_expand(p, &v[i].email, errors)
				     : NULL;

		if (email && name)
			tf_buf_addf(&eb, "%s%s <%s>", eb.len ? ", " : "", name,
				    email);
		else if (email)
			tf_buf_addf(&eb, "%s%s", eb.len ? ", " : "", email);
		else if (name)
			tf_buf_addf(&nb, "%s%s", nb.len ? ", " : "", name);
	}
	*names = nb.len ? tf_plan_keep(p, tf_buf_detach(&nb)) : NULL;
	*emails = eb.len ? tf_plan_keep(p, tf_buf_detach(&eb)) : NULL;
	tf_buf_release(&nb);
	tf_buf_release(&eb);
}

/* Values that used ${...} are checked once expanded. */
static int check_expanded(const struct tf_wheel_def *w,
			  const struct tf_wheel_spec *spec)
{
	int errors = 0;
	size_t j;

	if (w->license.s && strstr(w->license.s, "${") && spec->license)
		errors +=
			tf_wheel_meta_validate_value(&w->license, spec->license,
						     TF_META_LICENSE) < 0;
	if (w->requires_python.s && strstr(w->requires_python.s, "${") &&
	    spec->requires_python)
		errors += tf_wheel_meta_validate_value(
				  &w->requires_python, spec->requires_python,
				  TF_META_REQUIRES_PYTHON) < 0;
	for (j = 0; j < w->nr_requires_dist; j++)
		if (strstr(w->requires_dist[j].s, "${") &&
		    spec->requires_dist[j])
			errors += tf_wheel_meta_validate_value(
					  &w->requires_dist[j],
					  spec->requires_dist[j],
					  TF_META_REQUIREMENT) < 0;
	return errors;
}

/* readme, license-files, urls, authors, maintainers, keywords, classifiers. */
static int plan_metadata(struct tf_plan *p, struct tf_plan_wheel *pw)
{
	const struct tf_wheel_def *w = pw->def;
	struct tf_wheel_spec *spec = &pw->spec;
	struct tf_buf kw = TF_BUF_INIT;
	int errors = 0;
	size_t j;

	if (w->readme.s) {
		pw->readme_path = expand_path(p, &w->readme, &errors);
		spec->description_content_type = tf_readme_content_type(
			w->readme.s,
			w->readme_type.s
				? tf_plan_expand(p, &w->readme_type, &errors)
				: NULL);
	}
	pw->license_srcs = tf_calloc(w->nr_license_files + 1, sizeof(char *));
	pw->license_names = tf_calloc(w->nr_license_files + 1, sizeof(char *));
	for (j = 0; j < w->nr_license_files; j++) {
		pw->license_srcs[j] =
			expand_path(p, &w->license_files[j], &errors);
		if (pw->license_srcs[j])
			pw->license_names[j] =
				tf_path_basename(pw->license_srcs[j]);
	}
	spec->license_files = pw->license_names;
	errors += check_licenses_twice(pw);
	pw->classifiers = tf_calloc(w->nr_classifiers + 1, sizeof(char *));
	for (j = 0; j < w->nr_classifiers; j++)
		pw->classifiers[j] =
			tf_plan_expand(p, &w->classifiers[j], &errors);
	spec->classifiers = pw->classifiers;
	pw->project_urls = tf_calloc(w->nr_urls + 1, sizeof(char *));
	for (j = 0; j < w->nr_urls; j++)
		pw->project_urls[j] = tf_plan_keepf(
			p, "%s, %s",
			tf_plan_expand(p, &w->urls[j].key, &errors),
			tf_plan_expand(p, &w->urls[j].value, &errors));
	spec->project_urls = pw->project_urls;
	for (j = 0; j < w->nr_keywords; j++)
		tf_buf_addf(&kw, "%s%s", j ? "," : "",
			    tf_plan_expand(p, &w->keywords[j], &errors));
	spec->keywords = kw.len ? tf_plan_keep(p, tf_buf_detach(&kw)) : NULL;
	tf_buf_release(&kw);
	plan_people(p, w->authors, w->nr_authors, &spec->author,
		    &spec->author_email, &errors);
	plan_people(p, w->maintainers, w->nr_maintainers, &spec->maintainer,
		    &spec->maintainer_email, &errors);
	return errors + check_expanded(w, spec);
}

/* `libraries` and `library-dirs`, expanded; library dirs are absolute. */
static int plan_libraries(struct tf_plan *p, struct tf_plan_wheel *pw)
{
	const struct tf_wheel_def *w = pw->def;
	struct tf_buf abs = TF_BUF_INIT;
	const char *dir;
	size_t j;
	int errors = 0;

	pw->libs = tf_calloc(w->nr_libraries + 1, sizeof(*pw->libs));
	for (j = 0; j < w->nr_libraries; j++) {
		const struct tf_library_def *d = &w->libraries[j];

		pw->libs[j].soname = tf_plan_expand(p, &d->soname, &errors);
		pw->libs[j].kind = (enum tf_lib_kind)d->kind;
		if (d->kind == TF_LIB_PROVIDED) {
			pw->libs[j].from = tf_plan_expand(p, &d->from, &errors);
			pw->libs[j].runpath =
				tf_plan_expand(p, &d->runpath, &errors);
		}
	}
	pw->library_dirs = tf_calloc(w->nr_library_dirs + 1, sizeof(char *));
	for (j = 0; j < w->nr_library_dirs; j++) {
		if (!(dir = tf_plan_expand(p, &w->library_dirs[j], &errors)))
			continue;
		tf_buf_reset(&abs);
		if (*dir == '/')
			tf_buf_addstr(&abs, dir);
		else
			tf_path_join(&abs, p->recipe->dir, dir);
		tf_strvec_push(&p->store, abs.buf);
		pw->library_dirs[j] = p->store.v[p->store.nr - 1];
	}
	tf_buf_release(&abs);
	return errors;
}

/*
 * cuda-archs in one order whatever the recipe's: the record pack writes
 * and the SBOM's property do not change when the list is reordered.
 */
static void plan_cuda_archs(struct tf_plan_wheel *pw)
{
	const struct tf_wheel_def *w = pw->def;
	size_t j;

	if (!w->nr_cuda_archs)
		return;
	pw->cuda_archs = tf_calloc(w->nr_cuda_archs + 1, sizeof(char *));
	for (j = 0; j < w->nr_cuda_archs; j++)
		pw->cuda_archs[j] = w->cuda_archs[j].s;
	qsort(pw->cuda_archs, w->nr_cuda_archs, sizeof(char *),
	      tf_cuda_arch_cmp);
}

int tf_plan_make_wheel(struct tf_plan *p, size_t i)
{
	const struct tf_wheel_def *w = &p->recipe->wheels[i];
	struct tf_plan_wheel *pw = &p->wheels[i];
	struct tf_wheel_spec *spec = &pw->spec;
	size_t j;
	int errors = 0;

	pw->def = w;
	spec->name = tf_plan_expand(p, &w->name, &errors);
	spec->version = tf_plan_expand(p, &w->version, &errors);
	spec->python_tag =
		w->python.s ? tf_plan_expand(p, &w->python, &errors) : "py3";
	spec->abi_tag = w->abi.s ? tf_plan_expand(p, &w->abi, &errors) : "none";
	spec->platform_tag = tf_plan_expand(p, &w->platform, &errors);
	spec->summary = tf_plan_expand(p, &w->summary, &errors);
	spec->license = tf_plan_expand(p, &w->license, &errors);
	spec->requires_python = tf_plan_expand(p, &w->requires_python, &errors);
	spec->source_date_epoch = p->recipe->source_date_epoch;
	spec->compression_level = -1;
	errors += check_value(&w->name, spec->name, tf_pyname_is_valid,
			      "distribution name");
	errors += check_value(&w->version, spec->version, version_ok,
			      "PEP 440 version");
	errors += check_value(&w->python, w->python.s ? spec->python_tag : NULL,
			      tf_wheel_tag_is_valid, "python tag");
	errors += check_value(&w->abi, w->abi.s ? spec->abi_tag : NULL,
			      tf_wheel_tag_is_valid, "ABI tag");
	errors += check_value(&w->platform, spec->platform_tag,
			      tf_wheel_tag_is_valid, "platform tag");
	errors += check_python_tag(p, w, spec);
	pw->requires = tf_calloc(w->nr_requires_dist + 1, sizeof(char *));
	for (j = 0; j < w->nr_requires_dist; j++)
	pw->requires[j] = tf_plan_expand(p, &w->requires_dist[j], &errors);
	spec->requires_dist = pw->requires;
	pw->entry_points =
		tf_calloc(w->nr_entry_points + 1, sizeof(*pw->entry_points));
	for (j = 0; j < w->nr_entry_points; j++) {
		const struct tf_entry_point *d = &w->entry_points[j];

		pw->entry_points[j].group =
			tf_plan_expand(p, &d->group, &errors);
		pw->entry_points[j].name = tf_plan_expand(p, &d->name, &errors);
		pw->entry_points[j].value =
			tf_plan_expand(p, &d->value, &errors);
	}
	spec->entry_points = pw->entry_points;
	spec->nr_entry_points = w->nr_entry_points;
	errors += check_line(&w->summary, spec->summary, "summary");
	errors += check_line(&w->license, spec->license, "license");
	errors += check_line(&w->requires_python, spec->requires_python,
			     "requires-python");
	errors += check_entry_points(w, pw->entry_points);
	pw->allow_needed = tf_calloc(w->nr_allow_needed + 1, sizeof(char *));
	for (j = 0; j < w->nr_allow_needed; j++)
		pw->allow_needed[j] =
			tf_plan_expand(p, &w->allow_needed[j], &errors);
	pw->exports = tf_calloc(w->nr_exports + 1, sizeof(*pw->exports));
	for (j = 0; j < w->nr_exports; j++) {
		pw->exports[j].file =
			tf_plan_expand(p, &w->exports[j].file, &errors);
		pw->exports[j].symbol =
			tf_plan_expand(p, &w->exports[j].symbol, &errors);
	}
	pw->framework = tf_plan_expand(p, &w->framework.name, &errors);
	pw->framework_site =
		tf_plan_expand(p, &w->framework.site_packages, &errors);
	pw->framework_version =
		tf_plan_expand(p, &w->framework.version, &errors);
	pw->framework_pjrt_header =
		tf_plan_expand(p, &w->framework.pjrt_header, &errors);
	plan_cuda_archs(pw);
	errors += plan_libraries(p, pw);
	errors += tf_plan_externals(p, pw);
	errors += plan_metadata(p, pw);
	errors += plan_files(p, pw);
	return errors ? -1 : 0;
}
