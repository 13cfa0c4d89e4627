/*
 * A target's wheels from the package index (`target-wheels`), as
 * planned: their pins read from the lock file beside the recipe, so a
 * requirement without one is a recipe error before anything runs, and
 * ${target_site}, a directory of tfbuild's cache keyed by the target and
 * the pinned digests. provision/targetwheels.c fetches and unpacks them.
 * The build machine's (`host-wheels`) likewise: pinned in the same lock
 * under the target "host-ARCH" (the build machine's architecture), so
 * every target of a run shares them and their ${host_site}.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
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

/* One list of wheels as planned: the target's, or the build machine's. */
struct wheelset {
	const struct tf_target_wheel *list; /* the recipe's entries */
	size_t nr;
	struct tf_target_wheel **out; /* the plan's, expanded */
	struct tf_index_pins *pins;   /* the plan's pins of them */
	const char **site;            /* the plan's site of them */
	const char *lock_target;      /* their pins' target in the lock */
	const char *what;             /* "target wheel", for messages */
	int host;                     /* 1: every entry is wanted */
};

static int wants(const struct tf_plan *p, const struct wheelset *ws, size_t i)
{
	return ws->host || tf_plan_wants_wheel(p, i);
}

/* ${target_site} or ${host_site}: the cache's site of exactly these pins. */
static const char *site_dir(struct tf_plan *p, const struct wheelset *ws,
			    const char *cache)
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	const char *root = getenv("TF_SYSROOT_CACHE");
	size_t i;

	tf_sha256_update(h, ws->lock_target, strlen(ws->lock_target) + 1);
	for (i = 0; i < ws->pins->nr; i++) {
		tf_sha256_update(h, ws->pins->v[i].file,
				 strlen(ws->pins->v[i].file) + 1);
		tf_sha256_update(h, ws->pins->v[i].sha256, TF_SHA256_HEX_LEN);
	}
	tf_sha256_final(h, md);
	tf_sha256_hex(md, hex);
	if (root && *root == '/')
		return tf_plan_keepf(p, "%s/target-sites/%s-%.16s", root,
				     ws->lock_target, hex);
	return tf_plan_keepf(p, "%s/target-sites/%s-%.16s", cache,
			     ws->lock_target, hex);
}

/*
 * *ws->out: the recipe's entries, one with ${...} expanded and split as
 * the recipe loader splits a literal one, its errors at its place. The
 * number of errors.
 */
static int expand_wheels(struct tf_plan *p, const struct wheelset *ws)
{
	struct tf_buf name = TF_BUF_INIT, version = TF_BUF_INIT,
		      why = TF_BUF_INIT;
	struct tf_target_wheel *out;
	size_t i, j;
	int errors = 0;

	out = *ws->out = tf_calloc(ws->nr + 1, sizeof(*out));
	for (i = 0; i < ws->nr; i++) {
		const struct tf_target_wheel *w = &ws->list[i];
		struct tf_target_wheel *pw = &out[i];
		const char *v;

		*pw = *w;
		if (w->name || !wants(p, ws, i) ||
		    !(v = tf_plan_expand(p, &w->req, &errors)))
			continue;
		tf_buf_reset(&name);
		tf_buf_reset(&version);
		tf_buf_reset(&why);
		if (tf_target_wheel_split(v, &name, &version, &why)) {
			errors++;
			tf_error_at(&w->req.pos,
				    "%s '%s' is '%s': %s (as "
				    "'tensorflow-cpu==2.21.0')",
				    ws->what, w->req.s, v, why.buf);
			continue;
		}
		pw->req.s = v;
		pw->name = tf_plan_keep(p, tf_buf_detach(&name));
		pw->version = tf_plan_keep(p, tf_buf_detach(&version));
		for (j = 0; j < i; j++)
			if (out[j].name && wants(p, ws, j) &&
			    !strcmp(out[j].req.s, v))
				break;
		if (j < i) {
			errors++;
			tf_error_at(&w->req.pos,
				    "%s '%s' is '%s', listed twice", ws->what,
				    w->req.s, v);
		}
	}
	tf_buf_release(&name);
	tf_buf_release(&version);
	tf_buf_release(&why);
	return errors;
}

/* The pins of ws's wheels from the lock file, and their site. */
static enum tf_plan_result read_pins(struct tf_plan *p,
				     const struct tf_plan_opts *o,
				     const struct wheelset *ws, size_t wanted)
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
	for (i = 0; !ret && i < ws->nr; i++) {
		const struct tf_target_wheel *w = &(*ws->out)[i];
		const struct tf_index_pin *pin;

		if (!wants(p, ws, i))
			continue;
		pin = tf_index_pins_find(&all, ws->lock_target, w->req.s);
		if (pin)
			tf_index_pins_set(ws->pins, pin->target,
					  pin->requirement, pin->file,
					  pin->sha256)
				->nth = pin->nth;
		else if (!o->unpinned)
			tf_error_at(&w->req.pos,
				    "%s '%s' has no pin for %s %s in %s; run "
				    "'tfbuild lock %s'",
				    ws->what, w->req.s,
				    ws->host ? "the build machine," : "target",
				    ws->lock_target, shown.buf, r->path);
	}
	if (!ret && ws->pins->nr < wanted && !o->unpinned)
		ret = TF_PLAN_RECIPE;
	if (!ret && o->cache_dir && ws->pins->nr == wanted)
		*ws->site = site_dir(p, ws, o->cache_dir);
	tf_index_pins_release(&all);
	tf_buf_release(&path);
	tf_buf_release(&shown);
	return ret;
}

static enum tf_plan_result plan_set(struct tf_plan *p,
				    const struct tf_plan_opts *o,
				    const struct wheelset *ws)
{
	size_t i, wanted = 0;

	if (expand_wheels(p, ws))
		return TF_PLAN_RECIPE;
	for (i = 0; i < ws->nr; i++)
		wanted += wants(p, ws, i);
	return wanted ? read_pins(p, o, ws, wanted) : TF_PLAN_OK;
}

/* The build machine's wheels: pinned as "host-ARCH", their ${host_site}. */
static enum tf_plan_result host_wheels(struct tf_plan *p,
				       const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	const char *arch = tf_target_host();
	struct wheelset ws = { r->host_wheels,  r->nr_host_wheels,
			       &p->host_wheels, &p->host_pins,
			       &p->host_site,   NULL,
			       "host wheel",    1 };

	if (!r->nr_host_wheels)
		return TF_PLAN_OK;
	if (!arch) {
		tf_error_at(&r->host_wheels[0].req.pos,
			    "host wheel '%s': the build machine is none of "
			    "the architectures tfbuild builds on, so its "
			    "wheels have no platform",
			    r->host_wheels[0].req.s);
		return TF_PLAN_RECIPE;
	}
	ws.lock_target = p->host_target = tf_plan_keepf(p, "host-%s", arch);
	return plan_set(p, o, &ws);
}

enum tf_plan_result tf_plan_target_wheels(struct tf_plan *p,
					  const struct tf_plan_opts *o)
{
	const struct tf_recipe *r = p->recipe;
	struct wheelset ws = { r->target_wheels,  r->nr_target_wheels,
			       &p->target_wheels, &p->wheel_pins,
			       &p->site,          p->target.name,
			       "target wheel",    0 };
	enum tf_plan_result ret = plan_set(p, o, &ws);
	enum tf_plan_result host = host_wheels(p, o);

	if (!ret)
		ret = host;
	/* The target's wheels from the package index, unpacked
	 * (targetwheels.c); "" without them. */
	tf_vars_set_path(&p->vars, "target_site", p->site ? p->site : "");
	/* The build machine's, shared by every target of the run. */
	tf_vars_set_path(&p->vars, "host_site",
			 p->host_site ? p->host_site : "");
	return ret;
}
