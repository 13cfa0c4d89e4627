/*
 * A wheel's `external-libraries`, planned: each library's distribution
 * must be a target wheel of the target, pinned in the lock (read_pins()
 * in wheelpins.c refuses a target wheel without a pin), so the version
 * the build used, and at pack time its RECORD, are known. What the
 * wheel then requires follows from that version: the same major release
 * from the pinned one on (docs/libraries.md#external), or the recipe's
 * own requires-dist entry on the distribution if it admits the pin.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/base.h"
#include "metadata/metadata.h"
#include "recipe/recipe.h"
#include "plan.h"

/* The target wheel for p's target that is distribution dist, or NULL. */
static const struct tf_target_wheel *target_wheel(const struct tf_plan *p,
						  const char *dist)
{
	struct tf_buf want = TF_BUF_INIT, have = TF_BUF_INIT;
	const struct tf_target_wheel *found = NULL;
	size_t i;

	tf_pyname_normalize(dist, &want);
	for (i = 0; !found && i < p->recipe->nr_target_wheels; i++) {
		const struct tf_target_wheel *w = &p->target_wheels[i];

		if (!w->name || !tf_plan_wants_wheel(p, i))
			continue;
		tf_buf_reset(&have);
		tf_pyname_normalize(w->name, &have);
		if (!strcmp(want.buf, have.buf))
			found = w;
	}
	tf_buf_release(&want);
	tf_buf_release(&have);
	return found;
}

/* 1 if the requirement's specifiers admit version v. */
static int admits(const char *req, const struct tf_version *v)
{
	struct tf_buf name = TF_BUF_INIT, spec = TF_BUF_INIT,
		      marker = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_version_range range;
	int ok = !tf_requirement_split(req, &name, &spec, &marker) &&
		 !tf_specifiers_range(spec.buf, &range, &why) &&
		 tf_version_range_has(&range, v);

	tf_buf_release(&name);
	tf_buf_release(&spec);
	tf_buf_release(&marker);
	tf_buf_release(&why);
	return ok;
}

/*
 * What e's Requires-Dist is: the recipe's entry on the distribution, if
 * it has one (it must admit the pinned version), else the pin's major.
 */
static int requirement(struct tf_plan *p, const struct tf_plan_wheel *pw,
		       struct tf_plan_external *e, const struct tf_version *v)
{
	const struct tf_wheel_def *w = pw->def;
	size_t j;

	for (j = 0; j < w->nr_requires_dist; j++) {
		const char *r = pw->requires[j];

		if (!r || !tf_libs_requirement_listed(e->dist, &r, 1))
			continue;
		if (!admits(r, v)) {
			tf_error_at(&w->requires_dist[j].pos,
				    "requires-dist '%s' does not admit %s %s, "
				    "which provides external library '%s' "
				    "and was pinned for the build",
				    r, e->dist, e->version, e->soname);
			return 1;
		}
		e->requirement = r;
		return 0;
	}
	e->requirement = tf_plan_keepf(p, "%s<%lu,>=%s", e->dist,
				       v->release[0] + 1, e->version);
	return 0;
}

static int plan_one(struct tf_plan *p, struct tf_plan_wheel *pw,
		    const struct tf_external_def *d, struct tf_plan_external *e)
{
	const struct tf_target_wheel *tw = target_wheel(p, d->dist.s);
	struct tf_buf lock = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_version v;
	int errors = 0;

	e->soname = d->soname.s;
	e->dist = d->dist.s;
	e->pos = &d->dist.pos;
	if (!tw) {
		tf_plan_lock_shown(p->recipe, &lock);
		tf_error_at(&d->dist.pos,
			    "external library '%s' is from '%s', which is not "
			    "a target wheel of target %s (add '%s==VERSION' to "
			    "target-wheels and pin it in %s with 'tfbuild "
			    "lock')",
			    d->soname.s, d->dist.s, p->target.name, d->dist.s,
			    lock.buf);
		errors = 1;
	} else if (tf_version_parse(tw->version, &v, &why) || v.epoch) {
		tf_error_at(&tw->req.pos,
			    "target wheel '%s' provides external library "
			    "'%s', but its version '%s' has %s",
			    tw->req.s, d->soname.s, tw->version,
			    why.len ? why.buf : "an epoch");
		errors = 1;
	} else {
		e->version = tw->version;
		errors = requirement(p, pw, e, &v);
	}
	tf_buf_release(&lock);
	tf_buf_release(&why);
	return errors;
}

int tf_plan_externals(struct tf_plan *p, struct tf_plan_wheel *pw)
{
	const struct tf_wheel_def *w = pw->def;
	size_t j;
	int errors = 0;

	pw->externals = tf_calloc(w->nr_externals + 1, sizeof(*pw->externals));
	pw->nr_externals = w->nr_externals;
	for (j = 0; j < w->nr_externals; j++)
		errors += plan_one(p, pw, &w->externals[j], &pw->externals[j]);
	return errors;
}
