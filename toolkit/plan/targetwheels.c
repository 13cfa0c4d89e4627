/*
 * A target's wheels from the package index (`target-wheels`): their pins
 * read from the lock file beside the recipe when the plan is made, so a
 * requirement without one is a recipe error before anything runs; then,
 * when the run fetches, each wheel got into the download cache (pip
 * only on a miss), and unpacked into ${target_site}, a directory of
 * tfbuild's cache keyed by the target and the pinned digests.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
#include "index/index.h"

void tf_plan_lock_path(const struct tf_recipe *r, struct tf_buf *out)
{
	const char *base = tf_path_basename(r->path);
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	else if (n > 4 && !strcmp(base + n - 4, ".yml"))
		n -= 4;
	tf_buf_setf(out, "%s/%.*s.lock.json", r->dir, (int)n, base);
}

/* The lock file as the user would type it: beside the recipe as given. */
static void lock_shown(const struct tf_recipe *r, struct tf_buf *out)
{
	struct tf_buf full = TF_BUF_INIT, dir = TF_BUF_INIT;

	tf_plan_lock_path(r, &full);
	tf_path_dirname(&dir, r->path);
	if (strchr(r->path, '/'))
		tf_buf_setf(out, "%s/%s", dir.buf, tf_path_basename(full.buf));
	else
		tf_buf_setf(out, "%s", tf_path_basename(full.buf));
	tf_buf_release(&full);
	tf_buf_release(&dir);
}

int tf_plan_wants_wheel(const struct tf_plan *p, size_t i)
{
	const struct tf_target_wheel *w = &p->recipe->target_wheels[i];

	return !w->target || !strcmp(w->target, p->target.name);
}

/* glibc's minor version in the target's features.h; 0 if unknown. */
static unsigned target_glibc(const struct tf_plan *p)
{
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	const char *s;
	unsigned minor = 0;

	if (p->target.native)
		tf_buf_setf(&path, "/usr/include/features.h");
	else
		tf_buf_setf(&path, "/usr/%s/include/features.h",
			    p->target.triplet);
	if (!tf_read_file(path.buf, &text) &&
	    (s = strstr(text.buf, "#define\t__GLIBC_MINOR__")))
		minor = (unsigned)strtoul(s + 23, NULL, 10);
	tf_buf_release(&path);
	tf_buf_release(&text);
	return minor;
}

int tf_plan_compat_target(const struct tf_plan *p, struct tf_compat_target *t)
{
	int major = p->py_major, minor = p->py_minor;

	t->arch = p->target.name;
	t->glibc_minor = target_glibc(p);
	if (major < 0 && p->target.python_include && *p->target.python_include)
		tf_pytag_header_version(p->target.python_include, &major,
					&minor);
	if (major < 0) {
		/* Unchecked plans (fetch): the build Python, the target's
		 * version on Debian for every architecture. */
		char *v = tf_probe_first_line((const char *const[]){
			p->target.python, "-c",
			"import sys; print('%d %d' % sys.version_info[:2])",
			NULL });

		if (!v || sscanf(v, "%d %d", &major, &minor) != 2)
			major = -1;
		free(v);
	}
	if (major < 0 || !t->glibc_minor)
		return error("target %s: cannot tell its %s, for its wheels "
			     "from the package index",
			     p->target.name,
			     major < 0 ? "Python version" : "glibc version");
	t->py_major = major;
	t->py_minor = minor;
	return 0;
}

/* ${target_site}: the cache's site of exactly these pins. */
static const char *site_dir(struct tf_plan *p, const char *cache)
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	const char *root = getenv("TF_SYSROOT_CACHE");
	size_t i;

	tf_sha256_update(h, p->target.name, strlen(p->target.name) + 1);
	for (i = 0; i < p->wheel_pins.nr; i++) {
		tf_sha256_update(h, p->wheel_pins.v[i].file,
				 strlen(p->wheel_pins.v[i].file) + 1);
		tf_sha256_update(h, p->wheel_pins.v[i].sha256,
				 TF_SHA256_HEX_LEN);
	}
	tf_sha256_final(h, md);
	tf_sha256_hex(md, hex);
	if (root && *root == '/')
		return tf_plan_keepf(p, "%s/target-sites/%s-%.16s", root,
				     p->target.name, hex);
	return tf_plan_keepf(p, "%s/target-sites/%s-%.16s", cache,
			     p->target.name, hex);
}

enum tf_plan_result tf_plan_target_wheels(struct tf_plan *p,
					  const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	struct tf_index_pins all = TF_INDEX_PINS_INIT;
	struct tf_buf path = TF_BUF_INIT, shown = TF_BUF_INIT;
	enum tf_plan_result ret = TF_PLAN_OK;
	size_t i, wanted = 0;

	for (i = 0; i < r->nr_target_wheels; i++)
		wanted += tf_plan_wants_wheel(p, i);
	if (!wanted)
		return TF_PLAN_OK;
	tf_plan_lock_path(r, &path);
	lock_shown(r, &shown);
	if (tf_index_pins_read(path.buf, &all))
		ret = TF_PLAN_RECIPE;
	for (i = 0; !ret && i < r->nr_target_wheels; i++) {
		const struct tf_target_wheel *w = &r->target_wheels[i];
		const struct tf_index_pin *pin;

		if (!tf_plan_wants_wheel(p, i))
			continue;
		pin = tf_index_pins_find(&all, p->target.name, w->req.s);
		if (pin)
			tf_index_pins_set(&p->wheel_pins, pin->target,
					  pin->requirement, pin->file,
					  pin->sha256)
				->nth = pin->nth;
		else if (!o->unpinned)
			tf_error_at(&w->req.pos,
				    "target wheel '%s' has no pin for target "
				    "%s in %s; run 'tfbuild lock %s'",
				    w->req.s, p->target.name, shown.buf,
				    r->path);
	}
	if (!ret && p->wheel_pins.nr < wanted && !o->unpinned)
		ret = TF_PLAN_RECIPE;
	if (!ret && o->cache_dir && p->wheel_pins.nr == wanted)
		p->site = site_dir(p, o->cache_dir);
	tf_index_pins_release(&all);
	tf_buf_release(&path);
	tf_buf_release(&shown);
	return ret;
}

int tf_plan_wheels_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo)
{
	struct tf_index_opts io = { .fetch = fo };
	struct tf_compat_target t;
	struct tf_buf path = TF_BUF_INIT, shown = TF_BUF_INIT;
	size_t i, j;
	int ret = 0;

	if (!p->wheel_pins.nr || p->wheel_paths.nr == p->wheel_pins.nr)
		return 0;
	if (tf_plan_compat_target(p, &t))
		return -1;
	lock_shown(p->recipe, &shown);
	io.lock = shown.buf;
	tf_strvec_release(&p->wheel_paths);
	for (i = 0; !ret && i < p->wheel_pins.nr; i++) {
		struct tf_index_pin *pin = &p->wheel_pins.v[i];

		for (j = 0; j < p->recipe->nr_target_wheels &&
			    strcmp(p->recipe->target_wheels[j].req.s,
				   pin->requirement);
		     j++)
			;
		tf_buf_reset(&path);
		ret = tf_index_get(&io, &t, p->recipe->target_wheels[j].name,
				   p->recipe->target_wheels[j].version, pin,
				   &path);
		if (!ret)
			tf_strvec_push(&p->wheel_paths, path.buf);
	}
	tf_buf_release(&path);
	tf_buf_release(&shown);
	return ret;
}

int tf_plan_site_make(struct tf_plan *p)
{
	struct tf_index_wheel *w;
	size_t i;
	int ret;

	if (!p->site)
		return 0;
	if (p->wheel_paths.nr != p->wheel_pins.nr)
		BUG("target wheels unpacked before they were fetched");
	w = tf_calloc(p->wheel_pins.nr + 1, sizeof(*w));
	for (i = 0; i < p->wheel_pins.nr; i++) {
		w[i].path = p->wheel_paths.v[i];
		w[i].file = p->wheel_pins.v[i].file;
		w[i].sha256 = p->wheel_pins.v[i].sha256;
	}
	ret = tf_index_site_make(p->site, w, p->wheel_pins.nr);
	free(w);
	return ret;
}
