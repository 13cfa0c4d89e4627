/* tfbuild lock: pin a recipe's target wheels from the package index. */
#include <stdio.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>

#include "cli.h"
#include "base/base.h"
#include "index/index.h"
#include "provision/provision.h"
#include "session.h"
#include "opt.h"
#include "env/env.h"
#include "metadata/metadata.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

const char tf_usage_lock[] =
	"Pin the recipe's target-wheels: for each target, pip picks the\n"
	"wheel of each NAME==VERSION that fits the target (its manylinux\n"
	"platform, CPython and ABI), tfbuild hashes it and writes its file\n"
	"name and sha256 to the lock file beside the recipe\n"
	"(RECIPE.lock.json). The host-wheels are pinned once, for the\n"
	"build machine (its platform and Python), as the target host-ARCH.\n"
	"Pins already there are kept unless the\n"
	"requirement changed or --upgrade is given; a pin whose requirement\n"
	"left the recipe is dropped, but one an entry with ${...} may\n"
	"expand to stays: one lock holds a pin for each --set NAME=VALUE.\n"
	"The index is the one pip is configured for (PIP_INDEX_URL,\n"
	"pip.conf), or --index-url; the Python that runs\n"
	"pip is $TFBUILD_PIP_PYTHON, else python3 in the fixed PATH; each\n"
	"run of pip is stopped after $TFBUILD_PIP_MAX_TIME seconds (3600).\n"
	"Prints one line per pin: TARGET REQUIREMENT: pinned|kept FILE.\n";

const struct tf_opt tf_opts_lock[] = {
	TF_OPT_CACHE,
	TF_OPT_SET,
	{ 't', "target", TF_OPT_CHOICES, TF_ARG(targets), "NAME",
	  "pin for NAME, repeatable; default: all the recipe's targets",
	  tf_target_choices, 0, 0 },
	{ 0, "index-url", TF_OPT_STRING, TF_ARG(index_url), "URL",
	  "the package index pip reads (default: pip's configuration)", NULL, 0,
	  0 },
	{ 0, "upgrade", TF_OPT_FLAG, TF_ARG(upgrade), NULL,
	  "pin every requirement again, even those already pinned", NULL, 0,
	  0 },
	TF_OPT_END,
};

/*
 * 1 if req is what the entry w with ${...} may expand to: each ${...}
 * any text ("tensorflow==${tf}" wants "tensorflow==2.20.0").
 */
static int template_matches(const char *w, const char *req)
{
	struct tf_buf glob = TF_BUF_INIT;
	const char *end;
	int ret;

	for (; *w; w++) {
		if (w[0] == '$' && w[1] == '{' && (end = strchr(w, '}'))) {
			tf_buf_addch(&glob, '*');
			w = end;
			continue;
		}
		if (strchr("*?[\\", *w))
			tf_buf_addch(&glob, '\\');
		tf_buf_addch(&glob, *w);
	}
	ret = !fnmatch(glob.buf, req, 0);
	tf_buf_release(&glob);
	return ret;
}

/*
 * 1 if r still asks for requirement on target; with templates, only
 * by an entry with ${...}: the pins of the other values of a variable
 * (--set tf=2.20.0, then tf=2.21.0) stay, one lock for every release.
 */
static int still_wanted(const struct tf_recipe *r, const char *target,
			const char *req, int templates)
{
	int host = !strncmp(target, "host-", 5);
	const struct tf_target_wheel *list =
		host ? r->host_wheels : r->target_wheels;
	size_t i, nr = host ? r->nr_host_wheels : r->nr_target_wheels;

	for (i = 0; i < nr; i++) {
		const struct tf_target_wheel *w = &list[i];

		if (w->target && strcmp(w->target, target))
			continue;
		if (w->name ? !templates && !strcmp(w->req.s, req)
			    : template_matches(w->req.s, req))
			return 1;
	}
	return 0;
}

static int chosen(const struct tf_session *s, const char *target)
{
	size_t i;

	for (i = 0; i < s->nr_plans; i++)
		if (!strcmp(s->plans[i].target.name, target) ||
		    (s->plans[i].host_target &&
		     !strcmp(s->plans[i].host_target, target)))
			return 1;
	return 0;
}

/*
 * Pin (or keep) wheel w into pins, for target (a target's name, or
 * "host-ARCH" for a host wheel), whose wheels t accepts.
 */
static int lock_one(const struct tf_args *a, struct tf_index_opts *io,
		    const struct tf_index_pins *old, struct tf_index_pins *pins,
		    const char *target, const struct tf_target_wheel *w,
		    const struct tf_compat_target *t)
{
	struct tf_index_pin *have, pin = { 0 };
	struct tf_buf path = TF_BUF_INIT;
	int ret;

	have = tf_index_pins_find(old, target, w->req.s);
	if (have && !a->upgrade) {
		tf_index_pins_set(pins, have->target, have->requirement,
				  have->file, have->sha256);
		printf("%s %s: kept %s\n", target, w->req.s, have->file);
		return 0;
	}
	pin.target = (char *)target;
	pin.requirement = (char *)w->req.s;
	ret = tf_index_get(io, t, w->name, w->version, &pin, &path);
	if (!ret) {
		tf_index_pins_set(pins, target, w->req.s, pin.file, pin.sha256);
		printf("%s %s: pinned %s (sha256 %s)\n", target, w->req.s,
		       pin.file, pin.sha256);
	}
	free(pin.file);
	free(pin.sha256);
	tf_buf_release(&path);
	return ret;
}

/*
 * Pin (or keep) every target wheel of plan p into pins, then its host
 * wheels: once a run, in done, for the build machine's platform.
 */
static int lock_plan(struct tf_session *s, const struct tf_args *a,
		     struct tf_plan *p, const struct tf_index_pins *old,
		     struct tf_index_pins *pins, struct tf_strvec *done)
{
	struct tf_index_opts io = { .index_url = a->index_url,
				    .fetch = &s->fetch };
	struct tf_compat_target t = { 0 }, h = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < s->recipe.nr_target_wheels; i++) {
		if (!tf_plan_wants_wheel(p, i))
			continue;
		if (!t.arch && tf_provision_compat_target(p, &t))
			return -1;
		ret = lock_one(a, &io, old, pins, p->target.name,
			       &p->target_wheels[i], &t);
	}
	for (i = 0; !ret && i < s->recipe.nr_host_wheels; i++) {
		const struct tf_target_wheel *w = &p->host_wheels[i];

		if (tf_strvec_has(done, w->req.s))
			continue;
		tf_strvec_push(done, w->req.s);
		if (!h.arch && tf_provision_compat_host(p, &h))
			return -1;
		ret = lock_one(a, &io, old, pins, p->host_target, w, &h);
	}
	return ret;
}

int cmd_lock(struct tf_args *a)
{
	struct tf_session s;
	struct tf_index_pins old = TF_INDEX_PINS_INIT,
			     pins = TF_INDEX_PINS_INIT;
	struct tf_buf path = TF_BUF_INIT;
	struct tf_strvec done = TF_STRVEC_INIT;
	size_t i;
	int ret;

	ret = tf_session_setup(&s, a, tf_cmd_find("lock"));
	if (!ret && !a->targets.nr)
		tf_strvec_push(&s.opt.targets, "all");
	s.opt.unpinned = 1;
	if (!ret)
		ret = tf_session_open(&s, 0);
	if (!ret) {
		tf_plan_lock_path(&s.recipe, &path);
		if (tf_index_pins_read(path.buf, &old))
			ret = TF_EXIT_RECIPE;
	}
	/* Other targets' pins stay while the recipe still wants them;
	 * this target's, while an entry with ${...} may want them. */
	for (i = 0; !ret && i < old.nr; i++)
		if (still_wanted(&s.recipe, old.v[i].target,
				 old.v[i].requirement,
				 chosen(&s, old.v[i].target)))
			tf_index_pins_set(&pins, old.v[i].target,
					  old.v[i].requirement, old.v[i].file,
					  old.v[i].sha256);
	for (i = 0; !ret && i < s.nr_plans; i++)
		if (lock_plan(&s, a, &s.plans[i], &old, &pins, &done))
			ret = TF_EXIT_FETCH;
	if (!ret && tf_index_pins_write(path.buf, &pins))
		ret = TF_EXIT_FAILURE;
	if (!ret) {
		/* Named beside the recipe as the user gave it. */
		struct tf_buf dir = TF_BUF_INIT, shown = TF_BUF_INIT;

		if (strchr(s.recipe.path, '/')) {
			tf_path_dirname(&dir, s.recipe.path);
			tf_buf_addf(&shown, "%s/", dir.buf);
		}
		tf_buf_addstr(&shown, tf_path_basename(path.buf));
		info("wrote %s (%zu pin%s)", shown.buf, pins.nr,
		     pins.nr == 1 ? "" : "s");
		tf_buf_release(&dir);
		tf_buf_release(&shown);
	}
	fflush(stdout);
	tf_index_pins_release(&old);
	tf_index_pins_release(&pins);
	tf_strvec_release(&done);
	tf_buf_release(&path);
	tf_session_release(&s);
	return ret;
}
