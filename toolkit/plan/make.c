/*
 * Making a plan (plan.h): the target's toolchain and Python headers, its
 * build environment, then the recipe's variables, sources, steps and
 * wheels, in that order; the files a plan needs are listed last, for
 * provisioning to write (provision.h). Nothing is written here.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "isa/isa.h"
#include "base/base.h"
#include "hosttools.h"
#include "launcher.h"
#include "ziglinux.h"
#include "zigtools.h"
#include "recipe/recipe.h"
#include "toolfiles.h"
#include "plan.h"
#include "vars.h"
#include "env/env.h"
#include "index/index.h"
#include "stamp/stamp.h"

/*
 * qemu-ARCH -cpu MODEL for the oldest CPU the target's wheels allow: the
 * baseline, or the highest minimum the recipe declares for the family.
 */
static const char *baseline_emulator(struct tf_plan *p)
{
	const struct tf_recipe *r = p->recipe;
	enum tf_isa_family want = !strcmp(p->target.name, "aarch64")
					  ? TF_ISA_AARCH64
					  : TF_ISA_X86_64,
			   fam;
	int level = tf_isa_baseline(want), l;
	size_t i, j;

	if (p->target.macos) /* no emulator: its tests are skipped */
		return "";
	for (i = 0; i < r->nr_wheels; i++)
		for (j = 0; j < r->wheels[i].nr_isa_minimum; j++)
			if (!tf_isa_level_parse(r->wheels[i].isa_minimum[j].s,
						&fam, &l) &&
			    fam == want && l > level)
				level = l;
	return tf_plan_keepf(p, "qemu-%s -cpu %s", p->target.name,
			     tf_isa_cpu_model(want, level));
}

/*
 * The recipe file's name without .yaml/.yml, not its `name:`: unique
 * within its folder, where two recipes may share a name, so no two share
 * a tree or stamps (docs/recipe.md#build-tree).
 */
static const char *recipe_stem(struct tf_plan *p)
{
	const char *base = tf_path_basename(p->recipe->path);
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	else if (n > 4 && !strcmp(base + n - 4, ".yml"))
		n -= 4;
	return tf_plan_keep(p, tf_strndup(base, n));
}

/* path as part of a shell word in a flags string (toolfiles.h). */
static const char *sh_word(struct tf_plan *p, const char *path)
{
	struct tf_buf b = TF_BUF_INIT;

	tf_toolfiles_sh_escape(path, &b);
	return tf_plan_keep(p, tf_buf_detach(&b));
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
	const struct tf_toolchain_def *d =
		tf_recipe_toolchain(p->recipe, target);
	struct tf_toolchain over;

	if (!d)
		return tf_target_setup(target, &p->target, check, NULL);
	over = (struct tf_toolchain){
		.cc = d->cc.s,
		.ar = d->ar.s,
		.strip = d->strip.s,
		.cflags = d->cflags.s,
		.ldflags = d->ldflags.s,
		.sysroot = d->sysroot.s,
		.python_include = d->python_include.s,
		.emulator = d->emulator.s,
		.glibc_minor = d->glibc_minor,
	};
	return tf_target_setup(target, &p->target, check, &over);
}

/*
 * A step with `shell: bash` needs bash on the fixed PATH: missing, it is
 * said once, at the first such `shell`, before anything runs.
 */
static int need_bash(const struct tf_recipe *r)
{
	char *path;
	size_t i;

	for (i = 0; i < r->nr_steps; i++)
		if (r->steps[i].shell_kind == TF_SHELL_BASH)
			break;
	if (i == r->nr_steps)
		return 0;
	path = tf_run_which("bash");
	if (path) {
		free(path);
		return 0;
	}
	return tf_error_at(
		&r->steps[i].shell.pos,
		"step '%s' runs in bash ('shell: bash'), but there is no bash in %s (apt-get install bash)",
		r->steps[i].name.s, tf_run_path);
}

/* p empty, for recipe r (or its copy for target) and every list owned. */
static void plan_init(struct tf_plan *p, const struct tf_recipe *r,
		      const char *target, const struct tf_plan_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->recipe = r;
	/* A target with variants builds its own copy of the recipe: the
	 * steps that depend on the variant once per build (recipe.h). */
	p->own_recipe = tf_calloc(1, sizeof(*p->own_recipe));
	if (!tf_recipe_for_target(r, target, p->own_recipe)) {
		p->recipe = p->own_recipe;
	} else {
		free(p->own_recipe);
		p->own_recipe = NULL;
	}
	p->jobs = o->jobs;
	p->store = (struct tf_strvec)TF_STRVEC_INIT;
	p->toolfiles = (struct tf_buf)TF_BUF_INIT;
	p->packages = (struct tf_strvec)TF_STRVEC_INIT;
	p->package_digests = (struct tf_strvec)TF_STRVEC_INIT;
	p->package_files = (struct tf_strvec)TF_STRVEC_INIT;
	p->emulator_loaders = (struct tf_strvec)TF_STRVEC_INIT;
	p->wheel_pins = (struct tf_index_pins)TF_INDEX_PINS_INIT;
	p->host_pins = (struct tf_index_pins)TF_INDEX_PINS_INIT;
	p->package_roots = (struct tf_strvec)TF_STRVEC_INIT;
	p->writes = (struct tf_strvec)TF_STRVEC_INIT;
	p->host_links = (struct tf_strvec)TF_STRVEC_INIT;
	p->host_guards = (struct tf_strvec)TF_STRVEC_INIT;
	p->host_manifest = (struct tf_buf)TF_BUF_INIT;
}

/*
 * An unchecked plan (lock, fetch) still expands ${python_tag} as the
 * build will, so its wheels pass the checks they pass in `recipe`: the
 * build Python's version, the target's on Debian for every
 * architecture (the one lock picks wheels for, targetwheels.c). Left
 * unknown (-1) when there is no python3.
 */
static void unchecked_python(struct tf_plan *p)
{
	char *v = tf_probe_first_line((const char *const[]){
		p->target.python, "-c",
		"import sys; print('%d %d' % sys.version_info[:2])", NULL });

	if (!v || sscanf(v, "%d %d", &p->py_major, &p->py_minor) != 2)
		p->py_major = p->py_minor = -1;
	free(v);
}

/*
 * The target's toolchain, tree, Python headers and emulators: 0 or
 * TF_PLAN_TOOLCHAIN (reported).
 */
static enum tf_plan_result plan_toolchain(struct tf_plan *p, const char *target,
					  const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;

	if (setup_target(p, target, o->check_tools))
		return TF_PLAN_TOOLCHAIN;
	if (o->check_tools && need_bash(r))
		return TF_PLAN_TOOLCHAIN;
	/* Each recipe its own tree: two recipes in one folder never share
	 * stamps, so building them alternately rebuilds nothing. */
	p->dir = tf_plan_keepf(p, "%s/%s/%s", o->build_dir, recipe_stem(p),
			       target);
	p->stamps = tf_plan_keepf(p, "%s/stamps", p->dir);
	if (p->target.macos && tf_macos_plan(p, o))
		return TF_PLAN_RECIPE;
	if (p->target.glibc_minor && tf_ziglinux_plan(p, o))
		return TF_PLAN_RECIPE;
	/* A cross target's Python include directory: the host's headers
	 * with the target's pyconfig.h, made by provisioning. */
	if (o->check_tools && p->target.pyconfig) {
		p->python_include_src =
			tf_plan_keepf(p, "%s", p->target.python_include);
		free(p->target.python_include);
		p->target.python_include =
			tf_xstrfmt("%s/python-include", p->dir);
	}
	if (o->check_tools && has_tests(r) &&
	    tf_target_need_emulator(&p->target))
		return TF_PLAN_TOOLCHAIN;
	p->baseline_emulator = baseline_emulator(p);
	if (o->check_tools && has_tests(r) && !p->target.macos) {
		struct tf_target base = p->target;

		base.emulator = (char *)p->baseline_emulator;
		if (tf_target_need_emulator(&base))
			return TF_PLAN_TOOLCHAIN;
	}
	p->py_major = p->py_minor = -1;
	/* macOS's CPython is the build machine's version (no headers of
	 * its own here): what ${python_tag} says of a cp wheel. */
	if (o->check_tools && !p->target.macos)
		tf_pytag_header_version(p->python_include_src
						? p->python_include_src
						: p->target.python_include,
					&p->py_major, &p->py_minor);
	else
		unchecked_python(p);
	return TF_PLAN_OK;
}

/* The target's flags, with its root's when it has target packages. */
static void plan_flags(struct tf_plan *p, const char *target,
		       const struct tf_plan_opts *o)
{
	/* Where it was built must not show in what was built. A path
	 * with a space or a quote is a quoted shell word (docs/recipe.md). */
	p->cflags = tf_plan_keepf(
		p,
		"%s -ffile-prefix-map=%s=/tfbuild/%s -ffile-prefix-map=%s=/tfbuild/recipe",
		p->target.cflags, sh_word(p, p->dir), target,
		sh_word(p, p->recipe->dir));
	p->ldflags = p->target.ldflags;
	if (o->check_tools)
		tf_plan_packages(p, o);
	if (o->check_tools)
		tf_plan_emulator_root(p);
	if (p->sysroot) {
		/* --sysroot: Debian's cross compilers search the build
		 * machine's /usr/include and /usr/include/<triplet> after
		 * their own (the cross toolchain's libc headers, which still
		 * come first); the sysroot makes those two the root's, so no
		 * header of the build machine is found. -idirafter alone did
		 * not: /usr/include came before the root (CMake then also
		 * drops -I<root>/usr/include as an implicit directory). */
		const char *root = sh_word(p, p->sysroot);

		p->cflags =
			tf_plan_keepf(p, "%s --sysroot=%s", p->cflags, root);
		p->ldflags = tf_plan_keepf(
			p,
			"%s --sysroot=%s -L%s/usr/lib/%s -Wl,-rpath-link,%s/usr/lib/%s",
			p->ldflags, root, root, p->target.triplet, root,
			p->target.triplet);
	}
}

/* The recipe's variables, sources, steps and wheels: 0 or TF_PLAN_RECIPE. */
static enum tf_plan_result plan_recipe(struct tf_plan *p,
				       const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	size_t i;
	int errors;

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
	/* Every problem of the recipe is reported, not only the first. */
	if ((errors = tf_plan_set_vars(p, o)) == -2)
		return TF_PLAN_RECIPE; /* a target wheel's, reported */
	errors = errors < 0;
	for (i = 0; i < r->nr_sources; i++)
		errors += tf_plan_make_source(p, i) < 0;
	for (i = 0; i < r->nr_steps; i++)
		errors += tf_plan_make_step(p, i) < 0;
	if (!errors)
		tf_plan_set_in_place(p);
	for (i = 0; i < r->nr_wheels; i++)
		errors += tf_plan_make_wheel(p, i) < 0;
	return errors ? TF_PLAN_RECIPE : TF_PLAN_OK;
}

enum tf_plan_result tf_plan_make(const struct tf_recipe *r, const char *target,
				 const struct tf_plan_opts *o,
				 struct tf_plan *p)
{
	enum tf_plan_result ret;

	plan_init(p, r, target, o);
	if ((ret = plan_toolchain(p, target, o)) != TF_PLAN_OK)
		return ret;
	plan_flags(p, target, o);
	tf_toolfiles_plan(p);
	tf_hosttools_plan(p);
	if (tf_launcher_plan(p, o->launcher, o->distcc_hosts, o->check_tools))
		return TF_PLAN_TOOLCHAIN;
	if ((ret = plan_recipe(p, o)) != TF_PLAN_OK)
		return ret;
	/* Only a recipe without errors gets files listed for it. */
	if (tf_toolfiles_list(p, o->check_tools) ||
	    (o->check_tools && tf_hosttools_list(p)) ||
	    (o->check_tools && tf_launcher_list(p)))
		return TF_PLAN_TOOLCHAIN;
	return TF_PLAN_OK;
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
		free(p->steps[i].extra_reads);
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
		free(p->wheels[i].cuda_archs);
		free(p->wheels[i].externals);
	}
	free(p->sources);
	free(p->target_wheels);
	free(p->host_wheels);
	free(p->steps);
	free(p->wheels);
	tf_vars_release(&p->vars);
	tf_buf_release(&p->toolfiles);
	tf_strvec_release(&p->packages);
	tf_strvec_release(&p->package_digests);
	tf_strvec_release(&p->package_files);
	tf_strvec_release(&p->package_roots);
	free(p->package_root_pos);
	tf_strvec_release(&p->writes);
	tf_strvec_release(&p->host_links);
	tf_strvec_release(&p->host_guards);
	tf_buf_release(&p->host_manifest);
	tf_strvec_release(&p->emulator_loaders);
	tf_index_pins_release(&p->wheel_pins);
	tf_index_pins_release(&p->host_pins);
	tf_target_release(&p->target);
	tf_launcher_free(p->launcher);
	tf_strvec_release(&p->store);
	if (p->own_recipe) {
		tf_recipe_release(p->own_recipe);
		free(p->own_recipe);
	}
	memset(p, 0, sizeof(*p));
}
