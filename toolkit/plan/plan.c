/*
 * Expanding a recipe for one target. Errors are counted, not returned
 * at the first one, so a user sees every undefined variable at once.
 */
#include "plan.h"

#include "audit/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "confine.h"
#include "base/base.h"
#include "metadata/metadata.h"
#include "fetch/fetch.h"
#include "wheel/wheel.h"
#include "hosttools.h"
#include "launcher.h"
#include "sysroot.h"
#include "toolfiles.h"
#include "recipe/recipe.h"

/* Keep s in the plan's store and return the stored copy. */
static const char *keep(struct tf_plan *p, char *s)
{
	tf_strvec_push_take(&p->store, s);
	return s;
}

static const char *keepf(struct tf_plan *p, const char *fmt, ...)
	TF_PRINTF(2, 3);
static const char *keepf(struct tf_plan *p, const char *fmt, ...)
{
	struct tf_buf b = TF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return keep(p, tf_buf_detach(&b));
}

/* Expand s into the store; NULL (and *errors bumped) if it fails. */
static const char *expand(struct tf_plan *p, const struct tf_str *s, int *errors)
{
	char *v;

	if (!s->s)
		return NULL;
	v = tf_expand_dup(&p->vars, s);
	if (!v) {
		(*errors)++;
		return NULL;
	}
	return keep(p, v);
}

static const char *const builtins[] = {
	"name", "version", "target", "jobs", "recipe_dir", "build_dir", "cc",
	"ar", "strip", "cflags", "ldflags", "python", "python_include",
	"emulator", "cxx", "cmake_toolchain", "meson_cross", "meson_args",
	"host_triple", "build_triple", "target_python", "python_tag",
	"ext_suffix", "target_root", NULL,
};

static int is_builtin(const char *name)
{
	const char *const *b;

	for (b = builtins; *b; b++)
		if (!strcmp(*b, name))
			return 1;
	return !strncmp(name, "src.", 4) || !strncmp(name, "stage.", 6) ||
	       !strncmp(name, "work.", 5);
}

static void set_dirs(struct tf_plan *p)
{
	const struct tf_recipe *r = p->recipe;
	size_t i;

	for (i = 0; i < r->nr_sources; i++) {
		p->sources[i].dir = keepf(p, "%s/src/%s", p->dir, r->sources[i].name.s);
		tf_vars_set(&p->vars, keepf(p, "src.%s", r->sources[i].name.s),
			    p->sources[i].dir);
	}
	for (i = 0; i < r->nr_steps; i++) {
		struct tf_plan_step *s = &p->steps[i];
		const char *n = r->steps[i].name.s;

		s->work = keepf(p, "%s/work/%s", p->dir, n);
		s->stage = keepf(p, "%s/stage/%s", p->dir, n);
		s->log = keepf(p, "%s/logs/%s.log", p->dir, n);
		s->stamp = keepf(p, "%s/step-%s", p->stamps, n);
		tf_vars_set(&p->vars, keepf(p, "stage.%s", n), s->stage);
		tf_vars_set(&p->vars, keepf(p, "work.%s", n), s->work);
	}
}

/* "cp311" from the target's headers; "" when they are not known. */
static const char *python_tag(struct tf_plan *p)
{
	if (p->py_minor < 0)
		return "";
	return keepf(p, "cp%d%d", p->py_major, p->py_minor);
}

/* What CPython for the target looks for: ".cpython-311-aarch64-linux-gnu.so". */
static const char *ext_suffix(struct tf_plan *p)
{
	if (p->py_minor < 0)
		return "";
	return keepf(p, ".cpython-%d%d-%s.so", p->py_major, p->py_minor,
		     p->target.triplet);
}

static int set_vars(struct tf_plan *p, const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	const struct tf_target *t = &p->target;
	struct tf_vars *v = &p->vars;
	size_t i;
	int errors = 0;

	tf_vars_set(v, "name", r->name.s);
	tf_vars_set(v, "version", r->version.s);
	tf_vars_set(v, "target", t->name);
	tf_vars_set(v, "jobs", keepf(p, "%d", o->jobs));
	tf_vars_set(v, "recipe_dir", r->dir);
	tf_vars_set(v, "build_dir", p->dir);
	tf_vars_set(v, "cc", t->cc);
	tf_vars_set(v, "ar", t->ar);
	tf_vars_set(v, "strip", t->strip);
	tf_vars_set(v, "cflags", p->cflags);
	tf_vars_set(v, "ldflags", p->ldflags);
	tf_vars_set(v, "python", t->python);
	tf_vars_set(v, "python_include", t->python_include);
	tf_vars_set(v, "emulator", t->emulator);
	tf_vars_set(v, "cxx", t->cxx);
	tf_vars_set(v, "cmake_toolchain", p->cmake_toolchain);
	tf_vars_set(v, "meson_cross", p->meson_file);
	tf_vars_set(v, "meson_args", p->meson_args);
	tf_vars_set(v, "host_triple", t->triplet);
	tf_vars_set(v, "build_triple", t->build_triplet);
	tf_vars_set(v, "target_python", p->target_python);
	tf_vars_set(v, "python_tag", python_tag(p));
	tf_vars_set(v, "ext_suffix", ext_suffix(p));
	/* Where the target's packages are: their unpacked root for a cross
	 * target, "" natively (the build machine's own /). */
	tf_vars_set(v, "target_root", p->sysroot ? p->sysroot : "");
	set_dirs(p);
	for (i = 0; i < r->nr_vars; i++) {
		const struct tf_kv *kv = &r->vars[i];

		if (is_builtin(kv->key.s)) {
			errors++;
			tf_error_at(&kv->key.pos,
				    "variable '%s' is built in and cannot be redefined",
				    kv->key.s);
			continue;
		}
		tf_vars_set_raw(v, kv->key.s, &kv->value);
	}
	for (i = 0; o->sets && i < o->sets->nr; i++) {
		const char *s = o->sets->v[i], *eq = strchr(s, '=');
		char *name = tf_strndup(s, eq ? (size_t)(eq - s) : strlen(s));
		size_t j;

		for (j = 0; j < r->nr_vars && strcmp(r->vars[j].key.s, name); j++)
			;
		if (!eq || j == r->nr_vars) {
			errors++;
			error(!eq ? "--set '%s': expected NAME=VALUE"
				  : "--set '%s': '%s' is not a variable of %s",
			      s, name, r->path);
		} else {
			tf_vars_set(v, name, eq + 1);
		}
		free(name);
	}
	return errors;
}

static int url_ok(const char *url)
{
	return !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8) ||
	       !strncmp(url, "file://", 7);
}

/* A path in the recipe is relative to the recipe's directory. */
static const char *recipe_path(struct tf_plan *p, const char *path)
{
	if (path[0] == '/')
		return path;
	return keepf(p, "%s/%s", p->recipe->dir, path);
}

static int plan_url(struct tf_plan *p, struct tf_plan_source *ps,
		    const struct tf_str *u)
{
	int errors = 0;
	const char *url = expand(p, u, &errors);

	if (!url)
		return errors;
	if (!url_ok(url)) {
		tf_error_at(&u->pos, "'%s' is not an http, https or file URL", url);
		return 1;
	}
	tf_strvec_push(&ps->urls, url);
	{
		struct tf_buf shown = TF_BUF_INIT;

		tf_url_canonical(url, p->recipe->dir, &shown);
		tf_strvec_push_take(&ps->shown, tf_buf_detach(&shown));
	}
	return 0;
}

/*
 * A local source or patch stays inside the recipe's tree (confine.h);
 * a source directory must not hold the build tree it is copied into.
 * Returns the number of errors reported.
 */
static int confined(struct tf_plan *p, const struct tf_str *at,
		    const char *path, const char *what)
{
	struct tf_buf root = TF_BUF_INIT, why = TF_BUF_INIT;
	int ret = 0;

	tf_confine_root(p->recipe->dir, &root);
	if (tf_confine_check(root.buf, path, &why) < 0 ||
	    (!strcmp(what, "source directory") &&
	     tf_confine_not_above(path, p->dir, &why) < 0)) {
		tf_error_at(&at->pos, "%s '%s' %s", what, at->s, why.buf);
		ret = 1;
	}
	tf_buf_release(&root);
	tf_buf_release(&why);
	return ret;
}

static int plan_source(struct tf_plan *p, size_t i)
{
	const struct tf_source *s = &p->recipe->sources[i];
	struct tf_plan_source *ps = &p->sources[i];
	const char *v;
	size_t j;
	int errors = 0;

	ps->def = s;
	if (s->url.s) {
		errors += plan_url(p, ps, &s->url);
		for (j = 0; j < s->nr_mirrors; j++)
			errors += plan_url(p, ps, &s->mirrors[j]);
	} else if ((v = expand(p, &s->path, &errors))) {
		ps->local = recipe_path(p, v);
		if (!tf_path_is_dir(ps->local)) {
			errors++;
			tf_error_at(&s->path.pos, "source directory '%s' does not exist",
				    v);
		} else {
			errors += confined(p, &s->path, ps->local, "source directory");
		}
	}
	for (j = 0; j < s->nr_patches; j++) {
		if (!(v = expand(p, &s->patches[j], &errors)))
			continue;
		v = recipe_path(p, v);
		if (!tf_path_exists(v)) {
			errors++;
			tf_error_at(&s->patches[j].pos, "patch '%s' does not exist",
				    s->patches[j].s);
		} else {
			errors += confined(p, &s->patches[j], v, "patch");
		}
		tf_strvec_push(&ps->patches, v);
	}
	return errors;
}

/*
 * The build machine's binutils by full path, for generators (Meson and
 * autotools read NAME_FOR_BUILD): in a cross step the bare names are
 * the guards.
 */
static void build_binutils(struct tf_strvec *e)
{
	static const char *const tools[][2] = {
		{ "AR_FOR_BUILD", "ar" }, { "RANLIB_FOR_BUILD", "ranlib" },
		{ "NM_FOR_BUILD", "nm" }, { "STRIP_FOR_BUILD", "strip" },
	};
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(*tools); i++) {
		char *path = tf_run_which(tools[i][1]);

		if (path)
			tf_strvec_pushf(e, "%s=%s", tools[i][0], path);
		free(path);
	}
}

/* The rest of the target's tool set and build-system files (docs/cross.md). */
static void tool_env(struct tf_plan *p, struct tf_strvec *e)
{
	const struct tf_target *t = &p->target;

	tf_strvec_pushf(e, "CXX=%s", t->cxx);
	if (t->fc)
		tf_strvec_pushf(e, "FC=%s", t->fc);
	tf_strvec_pushf(e, "RANLIB=%s", t->ranlib);
	tf_strvec_pushf(e, "NM=%s", t->nm);
	tf_strvec_pushf(e, "OBJCOPY=%s", t->objcopy);
	tf_strvec_pushf(e, "OBJDUMP=%s", t->objdump);
	tf_strvec_pushf(e, "READELF=%s", t->readelf);
	tf_strvec_pushf(e, "LD=%s", t->ld);
	tf_strvec_pushf(e, "AS=%s", t->as);
	tf_strvec_pushf(e, "HOSTCC=%s", t->hostcc);
	tf_strvec_pushf(e, "CC_FOR_BUILD=%s", t->hostcc);
	tf_strvec_pushf(e, "HOSTCXX=%s", t->hostcxx);
	tf_strvec_pushf(e, "CXX_FOR_BUILD=%s", t->hostcxx);
	if (!t->native)
		build_binutils(e);
	tf_strvec_pushf(e, "HOST_TRIPLE=%s", t->triplet);
	tf_strvec_pushf(e, "BUILD_TRIPLE=%s", t->build_triplet);
	tf_strvec_pushf(e, "PKG_CONFIG=%s", p->pkg_config);
	tf_strvec_pushf(e, "PKG_CONFIG_LIBDIR=%s", p->pkg_config_libdir);
	tf_strvec_pushf(e, "PKG_CONFIG_SYSROOT_DIR=%s", p->pkg_config_sysroot);
	tf_strvec_pushf(e, "CMAKE_TOOLCHAIN_FILE=%s", p->cmake_toolchain);
	tf_strvec_pushf(e, "MESON_CROSS_FILE=%s", p->meson_file);
	tf_strvec_pushf(e, "TARGET_PYTHON=%s", p->target_python);
	tf_strvec_pushf(e, "PYTHON_TAG=%s", python_tag(p));
	tf_strvec_pushf(e, "EXT_SUFFIX=%s", ext_suffix(p));
}

static void step_env(struct tf_plan *p, struct tf_plan_step *ps)
{
	const struct tf_target *t = &p->target;
	struct tf_strvec *e = &ps->env;

	tf_strvec_pushf(e, "PATH=%s", p->host_tools ? p->host_tools : tf_run_path);
	tf_strvec_pushf(e, "HOME=%s/home", p->dir);
	tf_strvec_pushf(e, "TMPDIR=%s/tmp", p->dir);
	tf_strvec_push(e, "LC_ALL=C");
	tf_strvec_push(e, "TZ=UTC");
	tf_strvec_pushf(e, "SOURCE_DATE_EPOCH=%lld", p->recipe->source_date_epoch);
	tf_strvec_pushf(e, "TARGET=%s", t->name);
	tf_strvec_pushf(e, "JOBS=%d", p->jobs);
	tf_strvec_pushf(e, "CC=%s", t->cc);
	tf_strvec_pushf(e, "AR=%s", t->ar);
	tf_strvec_pushf(e, "STRIP=%s", t->strip);
	tf_strvec_pushf(e, "CFLAGS=%s", p->cflags);
	tf_strvec_pushf(e, "CXXFLAGS=%s", p->cflags);
	tf_strvec_pushf(e, "LDFLAGS=%s", p->ldflags);
	tool_env(p, e);
	tf_strvec_pushf(e, "PYTHON=%s", t->python);
	tf_strvec_pushf(e, "PYTHON_INCLUDE=%s", t->python_include);
	if (ps->def->is_test == TF_TEST_BASELINE) {
		tf_strvec_pushf(e, "EMULATOR=%s", p->baseline_emulator);
		tf_strvec_pushf(e, "BASELINE_CPU=%s",
				strrchr(p->baseline_emulator, ' ') + 1);
	} else {
		tf_strvec_pushf(e, "EMULATOR=%s", t->emulator);
	}
	if (p->sysroot)
		tf_strvec_pushf(e, "QEMU_LD_PREFIX=%s", p->sysroot);
	else if (*t->emulator_prefix)
		tf_strvec_pushf(e, "QEMU_LD_PREFIX=%s", t->emulator_prefix);
	tf_strvec_pushf(e, "SRCDIR=%s", ps->cwd);
	tf_strvec_pushf(e, "BUILDDIR=%s", ps->work);
	tf_strvec_pushf(e, "STAGE=%s", ps->stage);
	tf_strvec_pushf(e, "PREFIX=%s", ps->stage);
}

/* 1 if text names the directory dir as a whole path component. */
static int names_dir(const char *text, const char *dir)
{
	size_t n = strlen(dir);
	const char *s = text;

	while ((s = strstr(s, dir))) {
		char c = s[n];

		s += n;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 1;
	}
	return 0;
}

/*
 * The sources a step reads: its own, and every source whose tree its
 * expanded script or environment names (directly or through variables).
 */
static void find_reads(struct tf_plan *p, struct tf_plan_step *ps)
{
	size_t k, j;

	ps->reads = tf_calloc(p->recipe->nr_sources + 1, sizeof(*ps->reads));
	for (k = 0; k < p->recipe->nr_sources; k++) {
		int reads = ps->def->source_index == (int)k ||
			    (ps->script && names_dir(ps->script, p->sources[k].dir));

		for (j = 0; !reads && j < ps->env.nr; j++)
			reads = names_dir(ps->env.v[j], p->sources[k].dir);
		if (reads)
			ps->reads[ps->nr_reads++] = k;
	}
}

/*
 * A path source that no step builds in, reads or names (its tree, through
 * ${src.NAME} or otherwise: find_reads) and that has no patches is only
 * ever read by tfbuild itself, for wheels' `files: from:`. It is read
 * where it is instead of copied: no step is ever given a path into the
 * user's tree, so none can write there. Its tree digest (digestcache.c)
 * still keys the wheel, and the writer refuses a file changing while it
 * is packed. Decided after the steps are planned, before the wheels, so
 * ${src.NAME} in a wheel's fields names the tree that is read.
 */
static void plan_in_place(struct tf_plan *p)
{
	const struct tf_recipe *r = p->recipe;
	size_t k, i, j;

	for (k = 0; k < r->nr_sources; k++) {
		struct tf_plan_source *s = &p->sources[k];
		int used = !s->local || s->patches.nr;

		for (i = 0; !used && i < r->nr_steps; i++)
			for (j = 0; !used && j < p->steps[i].nr_reads; j++)
				used = p->steps[i].reads[j] == k;
		if (used)
			continue;
		s->in_place = 1;
		s->dir = s->local;
		tf_vars_set(&p->vars, keepf(p, "src.%s", r->sources[k].name.s),
			    s->dir);
	}
}

static int plan_step(struct tf_plan *p, size_t i)
{
	const struct tf_step *s = &p->recipe->steps[i];
	struct tf_plan_step *ps = &p->steps[i];
	size_t j;
	int errors = 0;

	ps->def = s;
	ps->cwd = s->source_index >= 0 ? p->sources[s->source_index].dir : ps->work;
	ps->script = expand(p, &s->run, &errors);
	step_env(p, ps);
	for (j = 0; j < s->nr_env; j++) {
		const char *v = expand(p, &s->env[j].value, &errors);

		if (v)
			tf_strvec_pushf(&ps->env, "%s=%s", s->env[j].key.s, v);
	}
	find_reads(p, ps);
	return errors;
}

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
		tf_error_at(&s->pos, "'%s' %s; it must be one line", what, why.buf);
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
				tf_wheel_entry_point_check(&g, &scratch) ? &d->group.pos :
				tf_wheel_entry_point_check(&n, &scratch) ? &d->name.pos :
				&d->value.pos;

			errors++;
			tf_error_at(at, "%s", why.buf);
			tf_buf_release(&scratch);
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(e[j].group, e[i].group) && !strcmp(e[j].name, e[i].name)) {
				errors++;
				tf_error_at(&d->name.pos, "entry point '%s' in '%s' is defined twice",
					    e[i].name, e[i].group);
				break;
			}
	}
	tf_buf_release(&why);
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
		f->src = expand(p, &w->files[i].src, &errors);
		f->dst = expand(p, &w->files[i].dst, &errors);
		errors += check_value(&w->files[i].src, f->src,
				      tf_path_is_safe_relative,
				      "relative path inside the stage");
		if (check_value(&w->files[i].dst, f->dst, dst_ok,
				"relative path inside the wheel"))
			errors++;
		else
			errors += check_dst(&w->files[i].dst, f->dst);
	}
	return errors;
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
	     (spec->abi_tag && !strcmp(spec->abi_tag, "abi3") && minor <= p->py_minor)))
		return 0;
	tf_error_at(&w->python.pos,
		    "python tag '%s' does not match the %s target's Python headers (CPython %d.%d, %s); use ${python_tag}",
		    t, p->target.name, p->py_major, p->py_minor,
		    p->target.python_include);
	return 1;
}

/* A recipe path, expanded, made absolute against the recipe's directory. */
static const char *expand_path(struct tf_plan *p, const struct tf_str *s,
			       int *errors)
{
	const char *v = expand(p, s, errors);

	return v ? recipe_path(p, v) : NULL;
}

/* "Name <email>" lists for Author/Author-email, as PEP 621 maps them. */
static void plan_people(struct tf_plan *p, const struct tf_person *v,
			size_t n, const char **names, const char **emails,
			int *errors)
{
	struct tf_buf nb = TF_BUF_INIT, eb = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *name = v[i].name.s ? expand(p, &v[i].name, errors) : NULL;
		const char *email = v[i].email.s ? expand(p, &v[i].email, errors) : NULL;

		if (email && name)
			tf_buf_addf(&eb, "%s%s <%s>", eb.len ? ", " : "", name, email);
		else if (email)
			tf_buf_addf(&eb, "%s%s", eb.len ? ", " : "", email);
		else if (name)
			tf_buf_addf(&nb, "%s%s", nb.len ? ", " : "", name);
	}
	*names = nb.len ? keep(p, tf_buf_detach(&nb)) : NULL;
	*emails = eb.len ? keep(p, tf_buf_detach(&eb)) : NULL;
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
		errors += tf_wheel_meta_validate_value(
			&w->license, spec->license, TF_META_LICENSE) < 0;
	if (w->requires_python.s && strstr(w->requires_python.s, "${") &&
	    spec->requires_python)
		errors += tf_wheel_meta_validate_value(
			&w->requires_python, spec->requires_python,
			TF_META_REQUIRES_PYTHON) < 0;
	for (j = 0; j < w->nr_requires_dist; j++)
		if (strstr(w->requires_dist[j].s, "${") && spec->requires_dist[j])
			errors += tf_wheel_meta_validate_value(
				&w->requires_dist[j], spec->requires_dist[j],
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
			w->readme.s, w->readme_type.s ?
			expand(p, &w->readme_type, &errors) : NULL);
	}
	pw->license_srcs = tf_calloc(w->nr_license_files + 1, sizeof(char *));
	pw->license_names = tf_calloc(w->nr_license_files + 1, sizeof(char *));
	for (j = 0; j < w->nr_license_files; j++) {
		pw->license_srcs[j] = expand_path(p, &w->license_files[j], &errors);
		if (pw->license_srcs[j])
			pw->license_names[j] = tf_path_basename(pw->license_srcs[j]);
	}
	spec->license_files = pw->license_names;
	pw->classifiers = tf_calloc(w->nr_classifiers + 1, sizeof(char *));
	for (j = 0; j < w->nr_classifiers; j++)
		pw->classifiers[j] = expand(p, &w->classifiers[j], &errors);
	spec->classifiers = pw->classifiers;
	pw->project_urls = tf_calloc(w->nr_urls + 1, sizeof(char *));
	for (j = 0; j < w->nr_urls; j++)
		pw->project_urls[j] = keepf(p, "%s, %s",
			expand(p, &w->urls[j].key, &errors),
			expand(p, &w->urls[j].value, &errors));
	spec->project_urls = pw->project_urls;
	for (j = 0; j < w->nr_keywords; j++)
		tf_buf_addf(&kw, "%s%s", j ? "," : "",
			    expand(p, &w->keywords[j], &errors));
	spec->keywords = kw.len ? keep(p, tf_buf_detach(&kw)) : NULL;
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

		pw->libs[j].soname = expand(p, &d->soname, &errors);
		pw->libs[j].kind = (enum tf_lib_kind)d->kind;
		if (d->kind == TF_LIB_PROVIDED) {
			pw->libs[j].from = expand(p, &d->from, &errors);
			pw->libs[j].runpath = expand(p, &d->runpath, &errors);
		}
	}
	pw->library_dirs = tf_calloc(w->nr_library_dirs + 1, sizeof(char *));
	for (j = 0; j < w->nr_library_dirs; j++) {
		if (!(dir = expand(p, &w->library_dirs[j], &errors)))
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

static int plan_wheel(struct tf_plan *p, size_t i)
{
	const struct tf_wheel_def *w = &p->recipe->wheels[i];
	struct tf_plan_wheel *pw = &p->wheels[i];
	struct tf_wheel_spec *spec = &pw->spec;
	size_t j;
	int errors = 0;

	pw->def = w;
	spec->name = expand(p, &w->name, &errors);
	spec->version = expand(p, &w->version, &errors);
	spec->python_tag = w->python.s ? expand(p, &w->python, &errors) : "py3";
	spec->abi_tag = w->abi.s ? expand(p, &w->abi, &errors) : "none";
	spec->platform_tag = expand(p, &w->platform, &errors);
	spec->summary = expand(p, &w->summary, &errors);
	spec->license = expand(p, &w->license, &errors);
	spec->requires_python = expand(p, &w->requires_python, &errors);
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
		pw->requires[j] = expand(p, &w->requires_dist[j], &errors);
	spec->requires_dist = pw->requires;
	pw->entry_points = tf_calloc(w->nr_entry_points + 1,
				     sizeof(*pw->entry_points));
	for (j = 0; j < w->nr_entry_points; j++) {
		pw->entry_points[j].group = expand(p, &w->entry_points[j].group, &errors);
		pw->entry_points[j].name = expand(p, &w->entry_points[j].name, &errors);
		pw->entry_points[j].value = expand(p, &w->entry_points[j].value, &errors);
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
		pw->allow_needed[j] = expand(p, &w->allow_needed[j], &errors);
	pw->exports = tf_calloc(w->nr_exports + 1, sizeof(*pw->exports));
	for (j = 0; j < w->nr_exports; j++) {
		pw->exports[j].file = expand(p, &w->exports[j].file, &errors);
		pw->exports[j].symbol = expand(p, &w->exports[j].symbol, &errors);
	}
	pw->framework = expand(p, &w->framework.name, &errors);
	pw->framework_site = expand(p, &w->framework.site_packages, &errors);
	pw->framework_version = expand(p, &w->framework.version, &errors);
	errors += plan_libraries(p, pw);
	errors += plan_metadata(p, pw);
	return errors + plan_files(p, pw);
}

/* What the shim's entry name links to. */
static void shim_target(const struct tf_plan *p, const char *name,
			struct tf_buf *to)
{
	if (!strcmp(name, "pyconfig.h"))
		tf_buf_setf(to, "%s", p->target.pyconfig);
	else
		tf_buf_setf(to, "%s/%s", p->target.python_include, name);
}

/* 1 if shim already holds exactly these links: a no-op rewrites nothing. */
static int shim_current(const struct tf_plan *p, const char *shim,
			const struct tf_strvec *names)
{
	struct tf_strvec have = TF_STRVEC_INIT;
	struct tf_buf link = TF_BUF_INIT, to = TF_BUF_INIT;
	char got[4096];
	size_t i;
	int same = tf_path_is_dir(shim) && !tf_list_dir(shim, &have) &&
		   have.nr == names->nr;

	for (i = 0; same && i < names->nr; i++) {
		ssize_t n;

		tf_buf_setf(&link, "%s/%s", shim, names->v[i]);
		shim_target(p, names->v[i], &to);
		n = readlink(link.buf, got, sizeof(got));
		same = n >= 0 && (size_t)n == to.len && !memcmp(got, to.buf, to.len);
	}
	tf_strvec_release(&have);
	tf_buf_release(&link);
	tf_buf_release(&to);
	return same;
}

/*
 * A cross target's Python include directory: the host's headers, shared
 * by every architecture, with the target's own pyconfig.h, so recipes
 * pass one -I directory whatever the target. Built in a temporary
 * directory and renamed, under the build tree.
 */
static int python_shim(struct tf_plan *p)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf tmp = TF_BUF_INIT, link = TF_BUF_INIT, to = TF_BUF_INIT;
	const char *shim = keepf(p, "%s/python-include", p->dir);
	size_t i;
	int ret = tf_mkdir_p(p->dir);

	if (!ret)
		ret = tf_list_dir(p->target.python_include, &names);
	if (!ret && shim_current(p, shim, &names))
		goto done;
	if (!ret)
		ret = tf_mkdtemp_temp(p->dir, "python-include", &tmp);
	for (i = 0; !ret && i < names.nr; i++) {
		tf_buf_setf(&link, "%s/%s", tmp.buf, names.v[i]);
		shim_target(p, names.v[i], &to);
		if (symlink(to.buf, link.buf) < 0)
			ret = error_errno("cannot create '%s'", link.buf);
	}
	if (!ret)
		ret = tf_rm_rf(shim);
	if (!ret && rename(tmp.buf, shim) < 0)
		ret = error_errno("cannot rename '%s' to '%s'", tmp.buf, shim);
	if (ret && tmp.len)
		tf_rm_rf(tmp.buf);
	if (tmp.len)
		tf_signals_temp_forget(tmp.buf);
done:
	if (!ret) {
		free(p->target.python_include);
		p->target.python_include = tf_strdup(shim);
	}
	tf_strvec_release(&names);
	tf_buf_release(&tmp);
	tf_buf_release(&link);
	tf_buf_release(&to);
	return ret;
}

/*
 * qemu-ARCH -cpu MODEL for the oldest CPU the target's wheels allow: the
 * baseline, or the highest minimum the recipe declares for the family.
 */
static const char *baseline_emulator(struct tf_plan *p)
{
	const struct tf_recipe *r = p->recipe;
	enum tf_isa_family want = !strcmp(p->target.name, "aarch64") ?
				  TF_ISA_AARCH64 : TF_ISA_X86_64, fam;
	int level = tf_isa_baseline(want), l;
	size_t i, j;

	for (i = 0; i < r->nr_wheels; i++)
		for (j = 0; j < r->wheels[i].nr_isa_minimum; j++)
			if (!tf_isa_level_parse(r->wheels[i].isa_minimum[j].s,
						&fam, &l) && fam == want && l > level)
				level = l;
	return keepf(p, "qemu-%s -cpu %s", p->target.name,
		     tf_isa_cpu_model(want, level));
}

/* The recipe file's name without .yaml/.yml: unique within its folder. */
static const char *recipe_stem(struct tf_plan *p)
{
	const char *base = tf_path_basename(p->recipe->path);
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	else if (n > 4 && !strcmp(base + n - 4, ".yml"))
		n -= 4;
	return keep(p, tf_strndup(base, n));
}

static int has_tests(const struct tf_recipe *r)
{
	size_t i;

	for (i = 0; i < r->nr_steps; i++)
		if (r->steps[i].is_test)
			return 1;
	return 0;
}

/* The target's toolchain, with the recipe's overrides for it. */
static int setup_target(struct tf_plan *p, const char *target, int check)
{
	const struct tf_toolchain_def *d = tf_recipe_toolchain(p->recipe, target);
	struct tf_toolchain over;

	if (!d)
		return tf_target_setup(target, &p->target, check, NULL);
	over = (struct tf_toolchain){
		.cc = d->cc.s, .ar = d->ar.s, .strip = d->strip.s,
		.cflags = d->cflags.s, .ldflags = d->ldflags.s,
		.sysroot = d->sysroot.s, .python_include = d->python_include.s,
		.emulator = d->emulator.s,
	};
	return tf_target_setup(target, &p->target, check, &over);
}

int tf_plan_make(const struct tf_recipe *r, const char *target,
		 const struct tf_plan_opts *o, struct tf_plan *p)
{
	size_t i;
	int errors;

	memset(p, 0, sizeof(*p));
	p->recipe = r;
	p->jobs = o->jobs;
	p->store = (struct tf_strvec)TF_STRVEC_INIT;
	p->toolfiles = (struct tf_buf)TF_BUF_INIT;
	p->packages = (struct tf_strvec)TF_STRVEC_INIT;
	p->package_digests = (struct tf_strvec)TF_STRVEC_INIT;
	p->package_files = (struct tf_strvec)TF_STRVEC_INIT;
	if (setup_target(p, target, o->check_tools))
		return TF_PLAN_TOOLCHAIN;
	/* Each recipe its own tree: two recipes in one folder never share
	 * stamps, so building them alternately rebuilds nothing. */
	p->dir = keepf(p, "%s/%s/%s", o->build_dir, recipe_stem(p), target);
	p->stamps = keepf(p, "%s/stamps", p->dir);
	if (o->check_tools && p->target.pyconfig && python_shim(p))
		return TF_PLAN_TOOLCHAIN;
	if (o->check_tools && has_tests(r) && tf_target_check_emulator(&p->target))
		return TF_PLAN_TOOLCHAIN;
	p->baseline_emulator = baseline_emulator(p);
	if (o->check_tools && has_tests(r)) {
		struct tf_target base = p->target;

		base.emulator = (char *)p->baseline_emulator;
		if (tf_target_check_emulator(&base))
			return TF_PLAN_TOOLCHAIN;
	}
	p->py_major = p->py_minor = -1;
	if (o->check_tools)
		tf_pytag_header_version(p->target.python_include, &p->py_major,
					&p->py_minor);
	/* Where it was built must not show in what was built. */
	p->cflags = keepf(p, "%s -ffile-prefix-map=%s=/tfbuild/%s -ffile-prefix-map=%s=/tfbuild/recipe",
			  p->target.cflags, p->dir, target, r->dir);
	p->ldflags = p->target.ldflags;
	if (o->check_tools && (errors = tf_sysroot_resolve(p, o)))
		return errors;
	if (p->sysroot) {
		/* --sysroot: Debian's cross compilers search the build
		 * machine's /usr/include and /usr/include/<triplet> after
		 * their own (the cross toolchain's libc headers, which still
		 * come first); the sysroot makes those two the root's, so no
		 * header of the build machine is found. -idirafter alone did
		 * not: /usr/include came before the root (CMake then also
		 * drops -I<root>/usr/include as an implicit directory). */
		p->cflags = keepf(p, "%s --sysroot=%s", p->cflags, p->sysroot);
		p->ldflags = keepf(p, "%s --sysroot=%s -L%s/usr/lib/%s -Wl,-rpath-link,%s/usr/lib/%s",
				   p->ldflags, p->sysroot, p->sysroot, p->target.triplet,
				   p->sysroot, p->target.triplet);
	}
	tf_toolfiles_plan(p);
	tf_hosttools_plan(p);
	if (tf_launcher_plan(p, o->launcher, o->distcc_hosts, o->check_tools))
		return TF_PLAN_TOOLCHAIN;
	p->sources = tf_calloc(r->nr_sources + 1, sizeof(*p->sources));
	p->steps = tf_calloc(r->nr_steps + 1, sizeof(*p->steps));
	p->wheels = tf_calloc(r->nr_wheels + 1, sizeof(*p->wheels));
	for (i = 0; i < r->nr_sources; i++) {
		p->sources[i].urls = (struct tf_strvec)TF_STRVEC_INIT;
		p->sources[i].shown = (struct tf_strvec)TF_STRVEC_INIT;
		p->sources[i].patches = (struct tf_strvec)TF_STRVEC_INIT;
		p->sources[i].inputs = (struct tf_stamp)TF_STAMP_INIT;
	}
	for (i = 0; i < r->nr_steps; i++)
		p->steps[i].env = (struct tf_strvec)TF_STRVEC_INIT;
	errors = set_vars(p, o);
	for (i = 0; i < r->nr_vars; i++) {
		const char *name = r->vars[i].key.s;
		struct tf_str ref = { NULL, r->vars[i].key.pos, TF_STR_PLAIN, 0 };
		struct tf_buf b = TF_BUF_INIT;

		if (is_builtin(name))
			continue;
		/* Expand each variable once so unused ones are checked too. */
		ref.s = keepf(p, "${%s}", name);
		if (tf_expand(&p->vars, &ref, &b))
			errors++;
		tf_buf_release(&b);
	}
	for (i = 0; i < r->nr_sources; i++)
		errors += plan_source(p, i);
	for (i = 0; i < r->nr_steps; i++)
		errors += plan_step(p, i);
	if (!errors)
		plan_in_place(p);
	for (i = 0; i < r->nr_wheels; i++)
		errors += plan_wheel(p, i);
	if (errors)
		return -1;
	/* Only a recipe without errors gets files written for it. */
	if ((o->check_tools && tf_sysroot_make(p)) ||
	    tf_toolfiles_write(p, o->check_tools) ||
	    (o->check_tools && tf_hosttools_make(p)) ||
	    (o->check_tools && tf_launcher_write(p)))
		return TF_PLAN_TOOLCHAIN;
	return 0;
}

void tf_plan_release(struct tf_plan *p)
{
	size_t i;

	if (!p || !p->recipe)
		return;
	for (i = 0; i < p->recipe->nr_sources && p->sources; i++) {
		tf_strvec_release(&p->sources[i].urls);
		tf_strvec_release(&p->sources[i].shown);
		tf_strvec_release(&p->sources[i].patches);
		tf_stamp_release(&p->sources[i].inputs);
	}
	for (i = 0; i < p->recipe->nr_steps && p->steps; i++) {
		tf_strvec_release(&p->steps[i].env);
		free(p->steps[i].reads);
	}
	for (i = 0; i < p->recipe->nr_wheels && p->wheels; i++) {
		free(p->wheels[i].requires);
		free(p->wheels[i].entry_points);
		free(p->wheels[i].files);
		free(p->wheels[i].allow_needed);
		free(p->wheels[i].exports);
		free(p->wheels[i].libs);
		free(p->wheels[i].library_dirs);
		free(p->wheels[i].license_srcs);
		free(p->wheels[i].license_names);
		free(p->wheels[i].classifiers);
		free(p->wheels[i].project_urls);
	}
	free(p->sources);
	free(p->steps);
	free(p->wheels);
	tf_vars_release(&p->vars);
	tf_buf_release(&p->toolfiles);
	tf_strvec_release(&p->packages);
	tf_strvec_release(&p->package_digests);
	tf_strvec_release(&p->package_files);
	tf_target_release(&p->target);
	tf_launcher_free(p->launcher);
	tf_strvec_release(&p->store);
	memset(p, 0, sizeof(*p));
}
