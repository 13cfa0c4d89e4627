/*
 * A target's wheels from the package index (`target-wheels`), as
 * planned: their pins read from the lock file beside the recipe, so a
 * requirement without one is a recipe error before anything runs, and
 * ${target_site}, a directory of tfbuild's cache keyed by the target and
 * the pinned digests. provision/targetwheels.c fetches and unpacks them.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "index/index.h"
#include "plan.h"
#include "vars.h"
#include "recipe/recipe.h"

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

void tf_plan_lock_shown(const struct tf_recipe *r, struct tf_buf *out)
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

/*
 * p->target_wheels: the recipe's, an entry with ${...} expanded and
 * split as the recipe loader splits a literal one, its errors at its
 * place. The number of errors.
 */
static int expand_wheels(struct tf_plan *p)
{
	const struct tf_recipe *r = p->recipe;
	struct tf_buf name = TF_BUF_INIT, version = TF_BUF_INIT,
		      why = TF_BUF_INIT;
	size_t i, j;
	int errors = 0;

	p->target_wheels =
		tf_calloc(r->nr_target_wheels + 1, sizeof(*p->target_wheels));
	for (i = 0; i < r->nr_target_wheels; i++) {
		const struct tf_target_wheel *w = &r->target_wheels[i];
		struct tf_target_wheel *pw = &p->target_wheels[i];
		const char *v;

		*pw = *w;
		if (w->name || !tf_plan_wants_wheel(p, i) ||
		    !(v = tf_plan_expand(p, &w->req, &errors)))
			continue;
		tf_buf_reset(&name);
		tf_buf_reset(&version);
		tf_buf_reset(&why);
		if (tf_target_wheel_split(v, &name, &version, &why)) {
			errors++;
			tf_error_at(&w->req.pos,
				    "target wheel '%s' is '%s': %s (as "
				    "'tensorflow-cpu==2.21.0')",
				    w->req.s, v, why.buf);
			continue;
		}
		pw->req.s = v;
		pw->name = tf_plan_keep(p, tf_buf_detach(&name));
		pw->version = tf_plan_keep(p, tf_buf_detach(&version));
		for (j = 0; j < i; j++)
			if (p->target_wheels[j].name &&
			    tf_plan_wants_wheel(p, j) &&
			    !strcmp(p->target_wheels[j].req.s, v))
				break;
		if (j < i) {
			errors++;
			tf_error_at(&w->req.pos,
				    "target wheel '%s' is '%s', listed twice",
				    w->req.s, v);
		}
	}
	tf_buf_release(&name);
	tf_buf_release(&version);
	tf_buf_release(&why);
	return errors;
}

/* The pins of p's target wheels from the lock file, and ${target_site}. */
static enum tf_plan_result read_pins(struct tf_plan *p,
				     const struct tf_plan_opts *o,
				     size_t wanted)
{
	const struct tf_recipe *r = p->recipe;
	struct tf_index_pins all = TF_INDEX_PINS_INIT;
	struct tf_buf path = TF_BUF_INIT, shown = TF_BUF_INIT;
	enum tf_plan_result ret = TF_PLAN_OK;
	size_t i;

	tf_plan_lock_path(r, &path);
	tf_plan_lock_shown(r, &shown);
	if (tf_index_pins_read(path.buf, &all))
		ret = TF_PLAN_RECIPE;
	for (i = 0; !ret && i < r->nr_target_wheels; i++) {
		const struct tf_target_wheel *w = &p->target_wheels[i];
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

enum tf_plan_result tf_plan_target_wheels(struct tf_plan *p,
					  const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	enum tf_plan_result ret = TF_PLAN_OK;
	size_t i, wanted = 0;

	if (expand_wheels(p))
		return TF_PLAN_RECIPE;
	for (i = 0; i < r->nr_target_wheels; i++)
		wanted += tf_plan_wants_wheel(p, i);
	if (wanted)
		ret = read_pins(p, o, wanted);
	/* The target's wheels from the package index, unpacked
	 * (targetwheels.c); "" without them. */
	tf_vars_set_path(&p->vars, "target_site", p->site ? p->site : "");
	return ret;
}
