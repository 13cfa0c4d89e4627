/*
 * A target's roots as planned, none of them made (plan.h): which target
 * packages it asks for, their versions and digests when provisioning
 * has resolved them before (the saved resolution in the roots' cache,
 * or what this run's provisioning gives), the root's path keyed by
 * them, and the emulator's root of a cross target without one. Reads
 * files and directories only: apt is asked by provision/sysroot.c.
 */
#include "internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"
#include "plan.h"
#include "env/env.h"
#include "recipe/recipe.h"

/* Does any step name $TARGET_PYTHON / ${target_python}? */
static int wants_python(const struct tf_recipe *r)
{
	size_t i, j;

	for (i = 0; i < r->nr_steps; i++) {
		const struct tf_step *s = &r->steps[i];

		if (strstr(s->run.s, "TARGET_PYTHON") ||
		    strstr(s->run.s, "target_python"))
			return 1;
		for (j = 0; j < s->nr_env; j++)
			if (strstr(s->env[j].value.s, "TARGET_PYTHON") ||
			    strstr(s->env[j].value.s, "target_python"))
				return 1;
	}
	for (i = 0; i < r->nr_vars; i++)
		if (strstr(r->vars[i].value.s, "target_python"))
			return 1;
	return 0;
}

/* A root package asked for: spec "NAME" or "NAME=PIN", once. */
static void add_root(struct tf_plan *p, const char *spec,
		     const struct tf_pos *pos)
{
	size_t i;

	/* As the closure did: a root whose name is this whole spec. */
	for (i = 0; i < p->package_roots.nr; i++) {
		const char *have = p->package_roots.v[i];
		size_t n = strcspn(have, "=");

		if (strlen(spec) == n && !strncmp(have, spec, n))
			return;
	}
	p->package_root_pos = tf_realloc(p->package_root_pos,
					 (p->package_roots.nr + 1) *
						 sizeof(*p->package_root_pos));
	p->package_root_pos[p->package_roots.nr] = pos;
	tf_strvec_push(&p->package_roots, spec);
}

static const char *root_cache(struct tf_plan *p, const struct tf_plan_opts *o)
{
	const char *env = getenv("TF_SYSROOT_CACHE");

	if (env && *env == '/')
		return tf_plan_keepf(p, "%s", env);
	return tf_plan_keepf(p, "%s/target-roots",
			     o->cache_dir ? o->cache_dir : "/tmp");
}

/* The names, sizes and mtimes of the regular files of dir, into out. */
static void dir_state(const char *dir, struct tf_buf *out)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT;
	size_t i;

	if (tf_list_dir(dir, &names) == 0)
		for (i = 0; i < names.nr; i++) {
			struct stat st;

			tf_buf_setf(&path, "%s/%s", dir, names.v[i]);
			if (stat(path.buf, &st) == 0 && S_ISREG(st.st_mode))
				tf_buf_addf(out, "%s %lld %lld\n", names.v[i],
					    (long long)st.st_size,
					    (long long)st.st_mtime);
		}
	tf_strvec_release(&names);
	tf_buf_release(&path);
}

/*
 * The path of the saved resolution of these roots: what identifies
 * apt's view of the archive (its package lists) for a cross target,
 * what dpkg has installed (its status file) for the native one. A
 * resolution is reused while they stay.
 */
static const char *saved_path(struct tf_plan *p)
{
	struct tf_buf key = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	struct tf_sha256 *h = tf_sha256_new();
	struct stat st;
	size_t i;

	tf_buf_addf(&key, "tfbuild %s\n%s %s\n", TF_VERSION,
		    p->target.native ? "native" : "arch", p->target.debarch);
	for (i = 0; i < p->package_roots.nr; i++) {
		const char *s = p->package_roots.v[i];
		size_t n = strcspn(s, "=");

		tf_buf_addf(&key, "root %.*s=%s\n", (int)n, s,
			    s[n] ? s + n + 1 : "");
	}
	if (!p->target.native)
		dir_state("/var/lib/apt/lists", &key);
	else if (stat("/var/lib/dpkg/status", &st) == 0)
		tf_buf_addf(&key, "dpkg %lld %lld\n", (long long)st.st_size,
			    (long long)st.st_mtime);
	tf_sha256_update(h, key.buf, key.len);
	tf_sha256_final(h, md);
	tf_sha256_hex(md, hex);
	tf_buf_release(&key);
	return tf_plan_keepf(p, "%s/resolved/%.32s", p->package_cache, hex);
}

/* A saved resolution's lines, into out; -1 when there is none. */
static int load_saved(const char *path, struct tf_strvec *out)
{
	struct tf_buf text = TF_BUF_INIT;
	char *s, *nl;

	if (!tf_path_exists(path) || tf_read_file(path, &text)) {
		tf_buf_release(&text);
		return -1;
	}
	for (s = text.buf; *s; s = nl + 1) {
		nl = s + strcspn(s, "\n");
		if (!*nl)
			break;
		tf_strvec_push_take(out, tf_strndup(s, (size_t)(nl - s)));
	}
	tf_buf_release(&text);
	return 0;
}

/*
 * Take resolved lines: "name:arch=version sha256 file" (cross) or
 * "name:arch=version" (native), sorted into the three lists; a cross
 * target's root path is keyed by the names, architectures and versions.
 */
static void take_resolved(struct tf_plan *p, const struct tf_strvec *lines)
{
	struct tf_buf key = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	struct tf_sha256 *h;
	size_t i;

	for (i = 0; i < lines->nr; i++)
		tf_strvec_push(&p->packages, lines->v[i]);
	/* A native target's stay in the recipe's order, as dpkg-query told. */
	if (!p->target.native)
		qsort(p->packages.v, p->packages.nr, sizeof(*p->packages.v),
		      tf_strcmp_ptr);
	for (i = 0; i < p->packages.nr; i++) {
		char *s = p->packages.v[i], *sp = strchr(s, ' '), *sp2;

		if (!sp || !(sp2 = strchr(sp + 1, ' '))) {
			tf_strvec_push(&p->package_digests, "");
			tf_strvec_push(&p->package_files, "");
			continue;
		}
		tf_buf_addf(&key, "%.*s\n", (int)(sp - s), s);
		tf_strvec_push_take(&p->package_digests,
				    tf_strndup(sp + 1, (size_t)(sp2 - sp - 1)));
		tf_strvec_push(&p->package_files, sp2 + 1);
		*sp = '\0';
	}
	if (!p->target.native) {
		h = tf_sha256_new();
		tf_sha256_update(h, key.buf, key.len);
		tf_sha256_final(h, md);
		tf_sha256_hex(md, hex);
		p->sysroot = tf_plan_keepf(p, "%s/%s-%.16s", p->package_cache,
					   p->target.debarch, hex);
	}
	tf_buf_release(&key);
}

/* The roots a target asks for: the recipe's, and what its programs need. */
static void plan_roots(struct tf_plan *p, int python)
{
	const struct tf_recipe *r = p->recipe;
	size_t i;

	for (i = 0; i < r->nr_target_packages; i++)
		add_root(p, r->target_packages[i].s,
			 &r->target_packages[i].pos);
	if (p->target.native)
		return;
	/* What programs built for the target need to run under the emulator
	 * from this root: the C and C++ runtime. */
	add_root(p, "libc6", NULL);
	add_root(p, "libgcc-s1", NULL);
	add_root(p, "libstdc++6", NULL);
	if (python) {
		add_root(p, "python3-minimal", NULL);
		add_root(p, "libpython3-stdlib", NULL);
	}
}

void tf_plan_packages(struct tf_plan *p, const struct tf_plan_opts *o)
{
	struct tf_strvec saved = TF_STRVEC_INIT;
	int python = !p->target.native && wants_python(p->recipe);
	const struct tf_strvec *lines = o->packages;
	size_t i;

	if (!p->recipe->nr_target_packages && !python)
		return;
	plan_roots(p, python);
	p->package_cache = root_cache(p, o);
	p->package_saved = saved_path(p);
	if (!lines && load_saved(p->package_saved, &saved) == 0) {
		verbose("target %s: packages as resolved in %s", p->target.name,
			p->package_saved);
		lines = &saved;
	}
	if (!lines) {
		/* Only provisioning asks apt (or dpkg): `explain` says so. */
		p->would_provision = 1;
	} else {
		take_resolved(p, lines);
		if (python)
			p->target_python_exe = tf_plan_keepf(
				p, "%s/usr/bin/python3", p->sysroot);
	}
	for (i = 0; i < p->packages.nr; i++)
		verbose("target %s: package %s", p->target.name,
			p->packages.v[i]);
	tf_strvec_release(&saved);
}

/* The loaders in PREFIX/lib and PREFIX/lib64, as "lib/ld-..." . */
static void loaders(const char *prefix, struct tf_strvec *out)
{
	static const char *const dirs[] = { "lib", "lib64" };
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		struct dirent *d;
		DIR *dir;

		tf_buf_setf(&b, "%s/%s", prefix, dirs[i]);
		if (!(dir = opendir(b.buf)))
			continue;
		while ((d = readdir(dir)))
			if (!strncmp(d->d_name, "ld-", 3))
				tf_strvec_pushf(out, "%s/%s", dirs[i],
						d->d_name);
		closedir(dir);
	}
	qsort(out->v, out->nr, sizeof(*out->v), tf_strcmp_ptr);
	tf_buf_release(&b);
}

void tf_plan_emulator_root(struct tf_plan *p)
{
	struct tf_target *t = &p->target;
	struct tf_strvec lds = TF_STRVEC_INIT;
	char *dflt = tf_xstrfmt("/usr/%s", t->triplet);

	/* Only the cross toolchain's own prefix: a root of the user's
	 * (toolchains: sysroot) or of target packages is left as it is. */
	if (t->native || p->sysroot || p->would_provision || t->sysroot ||
	    !*t->emulator || strcmp(t->emulator_prefix, dflt))
		goto out;
	loaders(dflt, &lds);
	if (!lds.nr)
		goto out;
	p->emulator_root =
		tf_plan_keepf(p, "%s/toolchain/emulator-root", p->dir);
	p->emulator_loaders = lds;
	lds = (struct tf_strvec)TF_STRVEC_INIT;
	free(t->emulator_prefix);
	t->emulator_prefix = tf_strdup(p->emulator_root);
out:
	tf_strvec_release(&lds);
	free(dflt);
}
