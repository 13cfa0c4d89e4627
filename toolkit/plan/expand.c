/*
 * Expanding a recipe's variables, sources and steps for one target: the
 * plan's store, ${...} built-ins, URLs, local paths, scripts and step
 * environments. Errors are counted, not returned at the first one, so a
 * user sees every undefined variable at once.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "confine.h"
#include "fetch/fetch.h"
#include "recipe/recipe.h"
#include "plan.h"
#include "vars.h"
#include "env/env.h"

/* Keep s in the plan's store and return the stored copy. */
const char *tf_plan_keep(struct tf_plan *p, char *s)
{
	tf_strvec_push_take(&p->store, s);
	return s;
}

const char *tf_plan_keepf(struct tf_plan *p, const char *fmt, ...)
{
	struct tf_buf b = TF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return tf_plan_keep(p, tf_buf_detach(&b));
}

void tf_plan_write_later(struct tf_plan *p, const char *path, const char *data,
			 size_t len, unsigned mode)
{
	tf_strvec_push(&p->writes, path);
	tf_strvec_pushf(&p->writes, "%o", mode);
	tf_strvec_push_take(&p->writes, tf_strndup(data, len));
}

/* Expand s into the store; NULL (and *errors bumped) if it fails. */
const char *tf_plan_expand(struct tf_plan *p, const struct tf_str *s,
			   int *errors)
{
	char *v;

	if (!s->s)
		return NULL;
	v = tf_expand_dup(&p->vars, s);
	if (!v) {
		(*errors)++;
		return NULL;
	}
	return tf_plan_keep(p, v);
}

static const char *const builtins[] = {
	"name",           "version",     "target",      "jobs",
	"recipe_dir",     "build_dir",   "cc",          "ar",
	"strip",          "cflags",      "ldflags",     "python",
	"python_include", "emulator",    "cxx",         "cmake_toolchain",
	"meson_cross",    "meson_args",  "host_triple", "build_triple",
	"target_python",  "python_tag",  "ext_suffix",  "shlib_suffix",
	"target_root",    "target_site", "host_site",   "variant",
	"variant_cflags", NULL,
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
		p->sources[i].dir = tf_plan_keepf(p, "%s/src/%s", p->dir,
						  r->sources[i].name.s);
		tf_vars_set_path(
			&p->vars,
			tf_plan_keepf(p, "src.%s", r->sources[i].name.s),
			p->sources[i].dir);
	}
	for (i = 0; i < r->nr_steps; i++) {
		struct tf_plan_step *s = &p->steps[i];
		const char *n = r->steps[i].name.s;

		s->work = tf_plan_keepf(p, "%s/work/%s", p->dir, n);
		s->stage = tf_plan_keepf(p, "%s/stage/%s", p->dir, n);
		s->log = tf_plan_keepf(p, "%s/logs/%s.log", p->dir, n);
		s->stamp = tf_plan_keepf(p, "%s/step-%s", p->stamps, n);
		tf_vars_set_path(&p->vars, tf_plan_keepf(p, "stage.%s", n),
				 s->stage);
		tf_vars_set_path(&p->vars, tf_plan_keepf(p, "work.%s", n),
				 s->work);
	}
}

/* "cp311" from the target's headers; "" when they are not known. */
static const char *python_tag(struct tf_plan *p)
{
	if (p->py_minor < 0)
		return "";
	return tf_plan_keepf(p, "cp%d%d", p->py_major, p->py_minor);
}

/* What CPython for the target looks for: ".cpython-311-aarch64-linux-gnu.so". */
static const char *ext_suffix(struct tf_plan *p)
{
	if (p->py_minor < 0)
		return "";
	return tf_plan_keepf(p, ".cpython-%d%d-%s.so", p->py_major, p->py_minor,
			     p->target.macos ? "darwin" : p->target.triplet);
}

static void tf_plan_variant_vars(struct tf_plan *p,
				 const struct tf_variant_def *v);

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
	tf_vars_set(v, "jobs", tf_plan_keepf(p, "%d", o->jobs));
	/* The directories are paths: encoded in a URL (vars.h). */
	tf_vars_set_path(v, "recipe_dir", r->dir);
	tf_vars_set_path(v, "build_dir", p->dir);
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
	/* What a shared library's name ends with: dlopen's loaders (TensorFlow
	 * lists a plugin folder by it) take .so on Linux, .dylib on macOS. */
	tf_vars_set(v, "shlib_suffix", t->macos ? ".dylib" : ".so");
	/* Where the target's packages are: their unpacked root for a cross
	 * target, "" natively (the build machine's own /). */
	tf_vars_set_path(v, "target_root", p->sysroot ? p->sysroot : "");
	/* ${target_site}: set with the target wheels' pins (wheelpins.c). */
	tf_plan_variant_vars(p, NULL);
	set_dirs(p);
	for (i = 0; i < r->nr_vars; i++) {
		const struct tf_kv *kv = &r->vars[i];

		if (is_builtin(kv->key.s)) {
			errors++;
			tf_error_at(
				&kv->key.pos,
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

		for (j = 0; j < r->nr_vars && strcmp(r->vars[j].key.s, name);
		     j++)
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

/*
 * The built-ins, the recipe's variables and --set (set_vars), then each
 * recipe variable expanded once.
 */
int tf_plan_set_vars(struct tf_plan *p, const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	size_t i;
	int errors = set_vars(p, o);

	/* `target-wheels` expanded first: their pins make ${target_site},
	 * which a variable expanded (and kept) below may use. */
	if (tf_plan_target_wheels(p, o) != TF_PLAN_OK)
		return -2;
	for (i = 0; i < r->nr_vars; i++) {
		const char *name = r->vars[i].key.s;
		struct tf_str ref = { NULL, r->vars[i].key.pos, TF_STR_PLAIN,
				      0 };
		struct tf_buf b = TF_BUF_INIT;

		if (is_builtin(name))
			continue;
		/* Expand each variable once so unused ones are checked too. */
		ref.s = tf_plan_keepf(p, "${%s}", name);
		if (tf_expand(&p->vars, &ref, &b))
			errors++;
		tf_buf_release(&b);
	}
	return errors ? -1 : 0;
}

static int url_ok(const char *url)
{
	return !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8) ||
	       !strncmp(url, "file://", 7);
}

/* A path in the recipe is relative to the recipe's directory. */
const char *tf_plan_recipe_path(struct tf_plan *p, const char *path)
{
	if (path[0] == '/')
		return path;
	return tf_plan_keepf(p, "%s/%s", p->recipe->dir, path);
}

/*
 * "file:PATH" without "//": the form the provenance and messages show a
 * file URL in (tf_url_canonical), PATH relative to the recipe's
 * directory; taken back as that, so a recorded --set value reruns.
 */
static void recipe_relative_url(struct tf_plan *p, struct tf_buf *url)
{
	struct tf_buf abs = TF_BUF_INIT;

	if (strncmp(url->buf, "file:", 5) || url->buf[5] == '/')
		return;
	tf_buf_addstr(&abs, "file://");
	tf_url_encode_path(p->recipe->dir, &abs);
	tf_buf_addf(&abs, "/%s", url->buf + 5);
	tf_buf_release(url);
	*url = abs;
}

/*
 * A source URL: its directory built-ins percent-encoded as they are
 * expanded (vars.h), then what no URL may hold escaped (fetch/url.h):
 * the URL libcurl is given, and its canonical form, shown and recorded.
 */
static int plan_url(struct tf_plan *p, struct tf_plan_source *ps,
		    const struct tf_str *u)
{
	struct tf_buf url = TF_BUF_INIT, shown = TF_BUF_INIT;
	char *expanded;

	if (!u->s)
		return 0;
	expanded = tf_expand_url_dup(&p->vars, u);
	if (!expanded)
		return 1;
	tf_url_normalize(expanded, &url);
	free(expanded);
	recipe_relative_url(p, &url);
	if (!url_ok(url.buf)) {
		tf_error_at(&u->pos, "'%s' is not an http, https or file URL",
			    url.buf);
		tf_buf_release(&url);
		return 1;
	}
	tf_url_canonical(url.buf, p->recipe->dir, &shown);
	tf_strvec_push_take(&ps->urls, tf_buf_detach(&url));
	tf_strvec_push_take(&ps->shown, tf_buf_detach(&shown));
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

int tf_plan_make_source(struct tf_plan *p, size_t i)
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
	} else if ((v = tf_plan_expand(p, &s->path, &errors))) {
		ps->local = tf_plan_recipe_path(p, v);
		if (!tf_path_is_dir(ps->local)) {
			errors++;
			tf_error_at(&s->path.pos,
				    "source directory '%s' does not exist", v);
		} else {
			errors += confined(p, &s->path, ps->local,
					   "source directory");
		}
	}
	for (j = 0; j < s->nr_patches; j++) {
		if (!(v = tf_plan_expand(p, &s->patches[j], &errors)))
			continue;
		v = tf_plan_recipe_path(p, v);
		if (!tf_path_exists(v)) {
			errors++;
			tf_error_at(&s->patches[j].pos,
				    "patch '%s' does not exist",
				    s->patches[j].s);
		} else {
			errors += confined(p, &s->patches[j], v, "patch");
		}
		tf_strvec_push(&ps->patches, v);
	}
	return errors ? -1 : 0;
}

/*
 * The build machine's binutils by full path, for generators (Meson and
 * autotools read NAME_FOR_BUILD): in a cross step the bare names are
 * the guards.
 */
static void build_binutils(struct tf_strvec *e)
{
	static const char *const tools[][2] = {
		{ "AR_FOR_BUILD", "ar" },
		{ "RANLIB_FOR_BUILD", "ranlib" },
		{ "NM_FOR_BUILD", "nm" },
		{ "STRIP_FOR_BUILD", "strip" },
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
static void tool_env(struct tf_plan *p, struct tf_strvec *e, int base)
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
	tf_strvec_pushf(e, "CMAKE_TOOLCHAIN_FILE=%s",
			base ? p->baseline_cmake : p->cmake_toolchain);
	tf_strvec_pushf(e, "MESON_CROSS_FILE=%s", p->meson_file);
	tf_strvec_pushf(e, "TARGET_PYTHON=%s",
			base ? p->baseline_python : p->target_python);
	tf_strvec_pushf(e, "PYTHON_TAG=%s", python_tag(p));
	tf_strvec_pushf(e, "EXT_SUFFIX=%s", ext_suffix(p));
}

/*
 * The baseline CPU of a test: the oldest the wheels allow, or for a
 * per-variant test the oldest its variant's properties claim.
 */
static const char *baseline_of(struct tf_plan *p, const struct tf_step *s)
{
	const char *cpu = s->variant ? tf_plan_variant_cpu(s->variant) : NULL;

	return cpu ? tf_plan_keepf(p, "qemu-%s -cpu %s", p->target.name, cpu)
		   : p->baseline_emulator;
}

/*
 * ${variant} and ${variant_cflags} of v ("" for NULL), and
 * ${stage.NAME} / ${work.NAME} of each per-variant step as v's copy.
 */
static void tf_plan_variant_vars(struct tf_plan *p,
				 const struct tf_variant_def *v)
{
	const struct tf_recipe *r = p->recipe;
	size_t i;

	tf_vars_set(&p->vars, "variant", v ? v->label.s : "");
	tf_vars_set(&p->vars, "variant_cflags",
		    v && v->cflags.s ? v->cflags.s : "");
	/* ${stage.NAME} of a per-variant step is its copy for v. */
	for (i = 0; v && i < r->nr_steps; i++) {
		const char *n = r->steps[i].name.s, *at = strrchr(n, '@');

		if (r->steps[i].variant != v || !at ||
		    strcmp(at + 1, v->label.s))
			continue;
		tf_vars_set_path(
			&p->vars,
			tf_plan_keepf(p, "stage.%.*s", (int)(at - n), n),
			p->steps[i].stage);
		tf_vars_set_path(
			&p->vars,
			tf_plan_keepf(p, "work.%.*s", (int)(at - n), n),
			p->steps[i].work);
	}
}

/*
 * A NAME@baseline test's environment names the baseline CPU for every
 * way a target program starts: $EMULATOR, and QEMU_CPU, which the qemu
 * behind $TARGET_PYTHON, CMake's emulator and Meson's exe wrapper obeys
 * (they name no -cpu), even in a build tree configured by NAME; natively,
 * nothing starts under qemu, so $TARGET_PYTHON and $CMAKE_TOOLCHAIN_FILE
 * name files that add the baseline emulator (toolfiles.c). `build` is
 * $BUILDDIR: NAME's work directory for `baseline: COMMAND`.
 */
static void step_env(struct tf_plan *p, struct tf_plan_step *ps,
		     const char *build)
{
	const struct tf_target *t = &p->target;
	struct tf_strvec *e = &ps->env;
	int base = ps->def->is_test == TF_TEST_BASELINE;

	tf_strvec_pushf(e, "PATH=%s",
			p->host_tools ? p->host_tools : tf_run_path);
	tf_strvec_pushf(e, "HOME=%s/home", p->dir);
	tf_strvec_pushf(e, "TMPDIR=%s/tmp", p->dir);
	tf_strvec_push(e, "LC_ALL=C");
	tf_strvec_push(e, "TZ=UTC");
	tf_strvec_pushf(e, "SOURCE_DATE_EPOCH=%lld",
			p->recipe->source_date_epoch);
	tf_strvec_pushf(e, "TARGET=%s", t->name);
	tf_strvec_pushf(e, "JOBS=%d", p->jobs);
	tf_strvec_pushf(e, "CC=%s", t->cc);
	tf_strvec_pushf(e, "AR=%s", t->ar);
	tf_strvec_pushf(e, "STRIP=%s", t->strip);
	if (ps->def->variant && ps->def->variant->cflags.s) {
		tf_strvec_pushf(e, "CFLAGS=%s %s", p->cflags,
				ps->def->variant->cflags.s);
		tf_strvec_pushf(e, "CXXFLAGS=%s %s", p->cflags,
				ps->def->variant->cflags.s);
	} else {
		tf_strvec_pushf(e, "CFLAGS=%s", p->cflags);
		tf_strvec_pushf(e, "CXXFLAGS=%s", p->cflags);
	}
	if (ps->def->variant) {
		tf_strvec_pushf(e, "VARIANT=%s", ps->def->variant->label.s);
		tf_strvec_pushf(e, "VARIANT_CFLAGS=%s",
				ps->def->variant->cflags.s
					? ps->def->variant->cflags.s
					: "");
	}
	tf_strvec_pushf(e, "LDFLAGS=%s", p->ldflags);
	tool_env(p, e, base);
	tf_strvec_pushf(e, "PYTHON=%s", t->python);
	tf_strvec_pushf(e, "PYTHON_INCLUDE=%s", t->python_include);
	/* Build systems that read it (CMake, setuptools); zig does not,
	 * its launchers pass the minimum in -target (plan/zigtools.h). */
	if (t->macos)
		tf_strvec_pushf(e, "MACOSX_DEPLOYMENT_TARGET=%s",
				p->recipe->macos_minimum.s);
	if (ps->def->is_test == TF_TEST_BASELINE && !t->macos) {
		const char *emu = baseline_of(p, ps->def);

		tf_strvec_pushf(e, "EMULATOR=%s", emu);
		tf_strvec_pushf(e, "BASELINE_CPU=%s", strrchr(emu, ' ') + 1);
		tf_strvec_pushf(e, "QEMU_CPU=%s", strrchr(emu, ' ') + 1);
	} else {
		tf_strvec_pushf(e, "EMULATOR=%s", t->emulator);
	}
	if (p->sysroot)
		tf_strvec_pushf(e, "QEMU_LD_PREFIX=%s", p->sysroot);
	else if (*t->emulator_prefix)
		tf_strvec_pushf(e, "QEMU_LD_PREFIX=%s", t->emulator_prefix);
	tf_strvec_pushf(e, "SRCDIR=%s", ps->cwd);
	tf_strvec_pushf(e, "BUILDDIR=%s", build);
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
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
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
			    (ps->script &&
			     names_dir(ps->script, p->sources[k].dir));

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
void tf_plan_set_in_place(struct tf_plan *p)
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
		tf_vars_set_path(
			&p->vars,
			tf_plan_keepf(p, "src.%s", r->sources[k].name.s),
			s->dir);
	}
}

/* The recipe's `sandbox.read` and the step's, made absolute. */
static void find_extra_reads(struct tf_plan *p, struct tf_plan_step *ps)
{
	const struct tf_sandbox_def *d[] = { &p->recipe->sandbox,
					     &ps->def->sandbox };
	struct tf_buf b = TF_BUF_INIT;
	size_t k, j;

	ps->nr_extra_reads = 0;
	ps->extra_reads = tf_calloc(d[0]->nr_read + d[1]->nr_read + 1,
				    sizeof(*ps->extra_reads));
	for (k = 0; k < 2; k++)
		for (j = 0; j < d[k]->nr_read; j++) {
			const struct tf_str *t = &d[k]->read[j];

			if (*t->s == '/')
				tf_buf_setf(&b, "%s", t->s);
			else {
				tf_buf_reset(&b);
				tf_path_join(&b, p->recipe->dir, t->s);
			}
			ps->extra_reads[ps->nr_extra_reads++] =
				(struct tf_plan_read){
					.path = tf_plan_keep(p,
							     tf_buf_detach(&b)),
					.pos = &t->pos,
				};
		}
	tf_buf_release(&b);
}

int tf_plan_make_step(struct tf_plan *p, size_t i)
{
	const struct tf_step *s = &p->recipe->steps[i];
	struct tf_plan_step *ps = &p->steps[i];
	const char *build = ps->work;
	size_t j;
	int errors = 0;

	ps->def = s;
	ps->cwd = s->source_index >= 0 ? p->sources[s->source_index].dir
				       : ps->work;
	if (s->baseline_cmd) {
		/* Its test (needed last) ran before it, and set up first. */
		build = p->steps[s->need_index[s->nr_needs - 1]].work;
		ps->cwd = p->steps[s->need_index[s->nr_needs - 1]].cwd;
	}
	if (s->variant)
		tf_plan_variant_vars(p, s->variant);
	if (s->is_test == TF_TEST_BASELINE) {
		/* ${emulator} and ${target_python} as in its environment. */
		tf_vars_set(&p->vars, "emulator", baseline_of(p, s));
		tf_vars_set(&p->vars, "target_python", p->baseline_python);
		tf_vars_set(&p->vars, "cmake_toolchain", p->baseline_cmake);
	}
	ps->script = tf_plan_expand(p, &s->run, &errors);
	step_env(p, ps, build);
	for (j = 0; j < s->nr_env; j++) {
		const char *v = tf_plan_expand(p, &s->env[j].value, &errors);

		if (v)
			tf_strvec_pushf(&ps->env, "%s=%s", s->env[j].key.s, v);
	}
	if (s->is_test == TF_TEST_BASELINE) {
		tf_vars_set(&p->vars, "emulator", p->target.emulator);
		tf_vars_set(&p->vars, "target_python", p->target_python);
		tf_vars_set(&p->vars, "cmake_toolchain", p->cmake_toolchain);
	}
	if (s->variant)
		tf_plan_variant_vars(p, NULL);
	find_reads(p, ps);
	find_extra_reads(p, ps);
	return errors ? -1 : 0;
}
