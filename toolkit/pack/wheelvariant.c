/*
 * Variant wheels (wheelvariant.h): the label's claim as the ISA audit's
 * policy, the wheel's variant.json and the index's variants.json, all
 * from the recipe's `variants` (docs/variants.md).
 */
#include "wheelvariant.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "isa/isa.h"
#include "plan/plan.h"
#include "recipe/recipe.h"
#include "wheel/wheel.h"

static enum tf_isa_family family_of(const struct tf_plan *p)
{
	return !strcmp(p->target.name, "aarch64") ? TF_ISA_AARCH64
						  : TF_ISA_X86_64;
}

void tf_pack_variant_policy(const struct tf_plan *p,
			    const struct tf_plan_wheel *pw,
			    struct tf_isa_policy *pol,
			    struct tf_isa_usage *usage)
{
	struct tf_isa_claim c;
	enum tf_isa_family fam;
	int lm;

	if (!pw->def->variant || tf_plan_variant_claim(pw->def->variant, &c) ||
	    c.family == TF_ISA_NONE)
		return;
	/* The label alone: an installer reads it, not `isa.minimum`, and
	   verify holds the code to it the same way (verify/distvariant.c). */
	if (pol->minimum && !tf_isa_level_parse(pol->minimum, &fam, &lm) &&
	    fam == c.family && lm > c.level)
		warning("wheel '%s' for %s, variant '%s': isa.minimum %s is "
			"above the label's level and is not counted: a "
			"variant's code is held to its label",
			pw->spec.name, p->target.name,
			pw->def->variant->label.s, pol->minimum);
	pol->minimum = NULL;
	tf_isa_claim_policy(&c, family_of(p), pol);
	pol->dispatch_shown = 1;
	memset(usage, 0, sizeof(*usage));
	pol->usage = usage;
}

void tf_pack_variant_warn(const struct tf_plan *p,
			  const struct tf_plan_wheel *pw,
			  const struct tf_isa_usage *usage)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_isa_claim c;

	if (!pw->def->variant || tf_plan_variant_claim(pw->def->variant, &c))
		return;
	if (c.family == family_of(p) &&
	    tf_isa_claim_check_used(&c, usage, &why))
		warning("wheel '%s' for %s, variant '%s': %s; it could serve more CPUs with a lower label",
			pw->spec.name, p->target.name,
			pw->def->variant->label.s, why.buf);
	tf_buf_release(&why);
}

/* The recipe's priorities and providers, and the given variants. */
static void info_of(const struct tf_recipe *r, const struct tf_variant_one *v,
		    size_t nr, struct tf_variant_info *vi,
		    struct tf_variant_provider_info *provs, const char **prio,
		    const char **reqs)
{
	size_t i, j, k = 0;

	for (i = 0; i < r->nr_variant_priorities; i++)
		prio[i] = r->variant_priorities[i].s;
	for (i = 0; i < r->nr_variant_providers; i++) {
		const struct tf_variant_provider *d = &r->variant_providers[i];

		provs[i].ns = d->ns.s;
		provs[i].requires = &reqs[k];
		provs[i].nr_requires = d->nr_requires;
		provs[i].plugin_api = d->plugin_api.s;
		for (j = 0; j < d->nr_requires; j++)
		reqs[k++] = d->requires[j].s;
	}
	vi->priorities = prio;
	vi->nr_priorities = r->nr_variant_priorities;
	vi->providers = provs;
	vi->nr_providers = r->nr_variant_providers;
	vi->variants = v;
	vi->nr_variants = nr;
}

static const char **triples(const struct tf_variant_def *d)
{
	const char **t = tf_calloc(3 * d->nr_props + 1, sizeof(*t));
	size_t i;

	for (i = 0; i < d->nr_props; i++) {
		t[3 * i] = d->props[i].ns;
		t[3 * i + 1] = d->props[i].feature;
		t[3 * i + 2] = d->props[i].value;
	}
	return t;
}

static size_t nr_requires(const struct tf_recipe *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_variant_providers; i++)
		n += r->variant_providers[i].nr_requires;
	return n;
}

/* Format the variants v[0..nr) of recipe r into out. */
static void format(const struct tf_recipe *r, const struct tf_variant_one *v,
		   size_t nr, struct tf_buf *out)
{
	struct tf_variant_info vi;
	struct tf_variant_provider_info *provs =
		tf_calloc(r->nr_variant_providers + 1, sizeof(*provs));
	const char **prio =
		tf_calloc(r->nr_variant_priorities + 1, sizeof(*prio));
	const char **reqs = tf_calloc(nr_requires(r) + 1, sizeof(*reqs));

	info_of(r, v, nr, &vi, provs, prio, reqs);
	tf_variant_json_format(&vi, out);
	free(provs);
	free(prio);
	free(reqs);
}

void tf_pack_variant_spec(const struct tf_plan *p,
			  const struct tf_plan_wheel *pw,
			  struct tf_wheel_spec *spec, struct tf_buf *json)
{
	const struct tf_variant_def *d = pw->def->variant;
	struct tf_variant_one one;
	const char **t;

	if (!d)
		return;
	t = triples(d);
	one.label = d->label.s;
	one.props = t;
	one.nr_props = d->nr_props;
	format(p->recipe, &one, 1, json);
	free(t);
	spec->variant_label = d->label.s;
	spec->variant_json = json->buf;
}

/* Variants of one distribution: normalized name-version, sorted labels. */
static int one_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tf_variant_one *)a)->label,
		      ((const struct tf_variant_one *)b)->label);
}

static int write_index(const struct tf_recipe *r, const char *path,
		       struct tf_variant_one *v, size_t nr)
{
	struct tf_buf text = TF_BUF_INIT, old = TF_BUF_INIT;
	size_t i, k = 0;
	int ret = 0;

	qsort(v, nr, sizeof(*v), one_cmp);
	for (i = 0; i < nr; i++)
		if (!k || strcmp(v[k - 1].label, v[i].label))
			v[k++] = v[i];
	format(r, v, k, &text);
	/* An unchanged run rewrites nothing. */
	if (!(access(path, F_OK) == 0 && !tf_read_file(path, &old) &&
	      old.len == text.len && !memcmp(old.buf, text.buf, text.len)))
		ret = tf_write_file_atomic(path, text.buf, text.len, 0);
	tf_buf_release(&text);
	tf_buf_release(&old);
	return ret;
}

int tf_pack_variants_index(struct tf_plan **plans, size_t nr,
			   const char *out_dir, struct tf_strvec *paths)
{
	struct tf_strvec keys = TF_STRVEC_INIT;
	struct tf_buf key = TF_BUF_INIT, path = TF_BUF_INIT;
	size_t i, j, k, n, total = 0;
	int ret = 0;

	for (i = 0; i < nr; i++)
		total += plans[i]->recipe->nr_wheels;
	/* Each distribution's name-version, once, in first-seen order. */
	for (i = 0; i < nr; i++)
		for (j = 0; j < plans[i]->recipe->nr_wheels; j++) {
			const struct tf_plan_wheel *pw = &plans[i]->wheels[j];

			if (!pw->def->variant)
				continue;
			tf_buf_reset(&key);
			tf_pyname_wheel_escape(pw->spec.name, &key);
			tf_buf_addch(&key, '-');
			if (tf_pep440_normalize(pw->spec.version, &key) < 0)
				continue;
			for (k = 0; k < keys.nr && strcmp(keys.v[k], key.buf);
			     k++)
				;
			if (k == keys.nr)
				tf_strvec_push(&keys, key.buf);
		}
	for (k = 0; !ret && k < keys.nr; k++) {
		struct tf_variant_one *v = tf_calloc(total + 1, sizeof(*v));
		const struct tf_recipe *r = NULL;

		n = 0;
		for (i = 0; i < nr; i++)
			for (j = 0; j < plans[i]->recipe->nr_wheels; j++) {
				const struct tf_plan_wheel *pw =
					&plans[i]->wheels[j];
				const struct tf_variant_def *d =
					pw->def->variant;

				if (!d)
					continue;
				tf_buf_reset(&key);
				tf_pyname_wheel_escape(pw->spec.name, &key);
				tf_buf_addch(&key, '-');
				tf_pep440_normalize(pw->spec.version, &key);
				if (strcmp(key.buf, keys.v[k]))
					continue;
				r = plans[i]->recipe;
				v[n].label = d->label.s;
				v[n].props = triples(d);
				v[n++].nr_props = d->nr_props;
			}
		tf_buf_reset(&path);
		tf_buf_addf(&path, "%s/%s-variants.json", out_dir, keys.v[k]);
		/* Free the triples through a copy: write_index dedupes v. */
		{
			const char ***all = tf_calloc(n + 1, sizeof(*all));

			for (i = 0; i < n; i++)
				all[i] = (const char **)v[i].props;
			ret = write_index(r, path.buf, v, n);
			for (i = 0; i < n; i++)
				free(all[i]);
			free(all);
		}
		if (!ret)
			tf_strvec_push(paths, path.buf);
		free(v);
	}
	tf_strvec_release(&keys);
	tf_buf_release(&key);
	tf_buf_release(&path);
	return ret;
}
