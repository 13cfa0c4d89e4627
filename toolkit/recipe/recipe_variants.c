/*
 * `variants` (docs/variants.md): per target, named builds with their
 * PEP 825 properties and the flags they add; `variant-priorities` and
 * `variant-providers` for variant.json. A target's recipe
 * (tf_recipe_for_target) copies every step that depends on the variant
 * once per build, and every wheel that takes files from such a step.
 */
#include "recipe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "base/base.h"
#include "recipe.h"

static int name_ok(const char *s, int dot)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || (dot && *s == '.')))
			return 0;
	return 1;
}

/* "ns :: feature :: value" into its parts; 0, or -1. */
static int split_prop(struct tf_recipe *r, const char *s,
		      struct tf_variant_prop *p)
{
	const char *part[3];
	char *copy = tf_strdup(s), *at = copy, *sep;
	int i, ret = 0;

	for (i = 0; i < 3; i++) {
		char *end;

		while (*at == ' ')
			at++;
		sep = i < 2 ? strstr(at, "::") : NULL;
		if (i < 2 && !sep) {
			ret = -1;
			break;
		}
		end = sep ? sep : at + strlen(at);
		while (end > at && end[-1] == ' ')
			end--;
		*end = '\0';
		part[i] = at;
		if (!name_ok(at, i == 2)) {
			ret = -1;
			break;
		}
		if (sep)
			at = sep + 2;
	}
	if (!ret) {
		p->ns = tf_arena_strdup(r, part[0]);
		p->feature = tf_arena_strdup(r, part[1]);
		p->value = tf_arena_strdup(r, part[2]);
	}
	free(copy);
	return ret;
}

static int prop_cmp(const void *a, const void *b)
{
	const struct tf_variant_prop *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	if (!c)
		c = strcmp(x->feature, y->feature);
	return c ? c : strcmp(x->value, y->value);
}

struct variant_item {
	struct tf_str label, cflags;
	struct tf_str *props;
	size_t nr_props;
};

static int parse_label(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	(void)where;
	return tf_load_str(l, "label", v, &((struct variant_item *)obj)->label);
}

static int parse_cflags(struct loader *l, yaml_node_t *v, void *obj,
			const char *where)
{
	(void)where;
	return tf_load_str(l, "cflags", v,
			   &((struct variant_item *)obj)->cflags);
}

static int parse_props(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct variant_item *it = obj;

	(void)where;
	return tf_load_str_list(l, "properties", v, &it->props, &it->nr_props);
}

static const struct field variant_fields[] = {
	{ "label", 1, parse_label },
	{ "properties", 0, parse_props },
	{ "cflags", 0, parse_cflags },
	{ NULL, 0, NULL },
};

/*
 * 0 if the label of it, a build of target t, is well formed, new to
 * the target and has properties unless it is 'null'; else -1 after
 * naming it.
 */
static int check_label(struct loader *l, const struct tf_str *t,
		       const struct variant_item *it)
{
	struct tf_recipe *r = l->r;
	const char *lab = it->label.s;
	size_t j;

	if (strlen(lab) > 16 || !name_ok(lab, 1))
		return tf_error_at(&it->label.pos,
				   "variant label '%s' must be 1-16 of "
				   "0-9, a-z, '_' and '.' (PEP 825)",
				   lab);
	for (j = 0; j < r->nr_variants; j++)
		if (!strcmp(r->variants[j].target, t->s) &&
		    !strcmp(r->variants[j].label.s, lab))
			return tf_error_at(
				&it->label.pos,
				"variant '%s' of %s is declared twice", lab,
				t->s);
	if (!strcmp(lab, "null") != !it->nr_props)
		return tf_error_at(
			&it->label.pos,
			!strcmp(lab, "null")
				? "the null variant has no properties (PEP 825)"
				: "variant '%s' needs 'properties' (only 'null' has none)",
			lab);
	return 0;
}

/*
 * Appends property j of it to d->props, split and claimed in claim:
 * 0, or -1 after naming it.
 */
static int add_prop(struct loader *l, const struct tf_str *t,
		    const struct variant_item *it, size_t j,
		    struct tf_variant_def *d, struct tf_isa_claim *claim)
{
	struct tf_variant_prop *p = &d->props[d->nr_props];
	struct tf_buf why = TF_BUF_INIT;
	int isa, ret = 0;

	p->pos = it->props[j].pos;
	if (split_prop(l->r, it->props[j].s, p))
		return tf_error_at(
			&p->pos,
			"variant property '%s' is not NAMESPACE :: FEATURE :: VALUE (names of a-z, 0-9, '_'; values also '.')",
			it->props[j].s);
	isa = tf_isa_claim_add(claim, p->ns, p->feature, p->value, &why);
	if (isa > 0 && strcmp(p->ns, t->s)) {
		tf_buf_setf(&why,
			    "a variant of %s cannot claim %s "
			    "properties",
			    t->s, p->ns);
		isa = -1;
	}
	if (isa < 0)
		ret = tf_error_at(&p->pos, "variant property '%s': %s",
				  it->props[j].s, why.buf);
	else
		d->nr_props++;
	tf_buf_release(&why);
	return ret;
}

/*
 * d's properties from it, sorted, each given once: 0, or -1 after
 * naming each bad one (counted in l->errors).
 */
static int add_props(struct loader *l, const struct tf_str *t,
		     const struct variant_item *it, struct tf_variant_def *d)
{
	struct tf_isa_claim claim = TF_ISA_CLAIM_INIT;
	size_t j;
	int ret = 0;

	d->props = tf_arena_alloc(l->r, (it->nr_props + 1) * sizeof(*d->props));
	for (j = 0; j < it->nr_props; j++)
		if (add_prop(l, t, it, j, d, &claim)) {
			l->errors++;
			ret = -1;
		}
	qsort(d->props, d->nr_props, sizeof(*d->props), prop_cmp);
	for (j = 1; j < d->nr_props; j++)
		if (!prop_cmp(&d->props[j - 1], &d->props[j])) {
			l->errors++;
			ret = tf_error_at(&d->props[j].pos,
					  "variant property given twice");
		}
	return ret;
}

/* One target's list of builds, appended to r->variants. */
static int add_target(struct loader *l, const struct tf_str *t, yaml_node_t *v)
{
	struct tf_recipe *r = l->r;
	struct variant_item *items;
	struct tf_variant_def *all;
	size_t nr, i;
	int ret;

	ret = tf_load_list(l, v, t->s, variant_fields, sizeof(*items),
			   (void **)&items, &nr, NULL);
	if (ret)
		return -1;
	all = tf_arena_alloc(r, (r->nr_variants + nr + 1) * sizeof(*all));
	if (r->nr_variants)
		memcpy(all, r->variants, r->nr_variants * sizeof(*all));
	r->variants = all;
	for (i = 0; i < nr; i++) {
		struct tf_variant_def *d = &all[r->nr_variants];

		d->target = t->s;
		d->label = items[i].label;
		d->cflags = items[i].cflags;
		d->pos = items[i].label.pos;
		if (check_label(l, t, &items[i])) {
			l->errors++;
			ret = -1;
			continue;
		}
		if (add_props(l, t, &items[i], d))
			ret = -1;
		r->nr_variants++;
	}
	return ret;
}

int tf_load_variants(struct loader *l, yaml_node_t *v, void *obj,
		     const char *where)
{
	yaml_node_pair_t *p;
	int ret = 0;

	(void)obj;
	(void)where;
	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(l, v,
				   "'variants' must be a mapping of target to "
				   "its list of builds, not %s",
				   kind_name(v));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_str t;

		if (tf_load_target(l, "variants", node(l, p->key), &t)) {
			ret = -1;
			continue;
		}
		if (add_target(l, &t, node(l, p->value)))
			ret = -1;
	}
	return ret;
}

int tf_load_variant_priorities(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_recipe *r = obj;

	(void)where;
	return tf_load_str_list(l, "variant-priorities", v,
				&r->variant_priorities,
				&r->nr_variant_priorities);
}

struct provider_item {
	struct tf_str *requires;
	size_t nr_requires;
	struct tf_str plugin_api;
};

static int parse_requires(struct loader *l, yaml_node_t *v, void *obj,
			  const char *where)
{
	struct provider_item *it = obj;

	(void)where;
	return tf_load_str_list(l, "requires", v, &it->requires,
				&it->nr_requires);
}

static int parse_plugin_api(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	(void)where;
	return tf_load_str(l, "plugin-api", v,
			   &((struct provider_item *)obj)->plugin_api);
}

static const struct field provider_fields[] = {
	{ "requires", 1, parse_requires },
	{ "plugin-api", 0, parse_plugin_api },
	{ NULL, 0, NULL },
};

int tf_load_variant_providers(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_recipe *r = obj;
	yaml_node_pair_t *p;
	size_t n;
	int ret = 0;

	(void)where;
	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(
			l, v,
			"'variant-providers' must be a mapping of "
			"namespace to {requires, plugin-api}, not %s",
			kind_name(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	r->variant_providers =
		tf_arena_alloc(r, (n + 1) * sizeof(*r->variant_providers));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_variant_provider *d =
			&r->variant_providers[r->nr_variant_providers];
		struct provider_item it;

		memset(&it, 0, sizeof(it));
		if (tf_load_str(l, "namespace", node(l, p->key), &d->ns) ||
		    tf_load_map(l, node(l, p->value), provider_fields, &it,
				"variant-providers")) {
			ret = -1;
			continue;
		}
		if (!name_ok(d->ns.s, 0)) {
			l->errors++;
			ret = tf_error_at(&d->ns.pos,
					  "variant namespace '%s' must be of "
					  "a-z, 0-9 and '_'",
					  d->ns.s);
			continue;
		}
		d->requires = it.requires;
		d->nr_requires = it.nr_requires;
		d->plugin_api = it.plugin_api;
		r->nr_variant_providers++;
	}
	return ret;
}

static int has_str(const struct tf_str *v, size_t nr, const char *s)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i].s, s))
			return 1;
	return 0;
}

/* One label means the same properties on every target (PEP 825). */
static int same_props(const struct tf_variant_def *a,
		      const struct tf_variant_def *b)
{
	size_t i;

	if (a->nr_props != b->nr_props)
		return 0;
	for (i = 0; i < a->nr_props; i++)
		if (prop_cmp(&a->props[i], &b->props[i]))
			return 0;
	return 1;
}

int tf_load_variants_finish(struct loader *l)
{
	struct tf_recipe *r = l->r;
	struct tf_str *used;
	size_t i, j, nr = 0, total = 0;
	int ret = 0;

	for (i = 0; i < r->nr_variants; i++)
		total += r->variants[i].nr_props;
	used = tf_arena_alloc(r, (total + 1) * sizeof(*used));
	for (i = 0; i < r->nr_variants; i++) {
		const struct tf_variant_def *d = &r->variants[i];

		for (j = 0; j < i; j++)
			if (!strcmp(r->variants[j].label.s, d->label.s) &&
			    !same_props(&r->variants[j], d)) {
				l->errors++;
				ret = tf_error_at(
					&d->label.pos,
					"variant label '%s' has other properties than on %s (line %d): one label always means the same properties",
					d->label.s, r->variants[j].target,
					r->variants[j].label.pos.line);
			}
		for (j = 0; j < d->nr_props; j++) {
			if (has_str(used, nr, d->props[j].ns))
				continue;
			used[nr].s = d->props[j].ns;
			used[nr].pos = d->props[j].pos;
			nr++;
		}
	}
	for (i = 0; i < r->nr_variant_priorities; i++)
		if (!has_str(used, nr, r->variant_priorities[i].s)) {
			l->errors++;
			ret = tf_error_at(&r->variant_priorities[i].pos,
					  "variant namespace '%s' is not used "
					  "by any variant",
					  r->variant_priorities[i].s);
		}
	for (i = 0; i < nr; i++) {
		if (r->nr_variant_priorities &&
		    !has_str(r->variant_priorities, r->nr_variant_priorities,
			     used[i].s)) {
			l->errors++;
			ret = tf_error_at(&used[i].pos,
					  "variant namespace '%s' is missing "
					  "from 'variant-priorities'",
					  used[i].s);
		}
		if (r->nr_variant_providers) {
			for (j = 0; j < r->nr_variant_providers; j++)
				if (!strcmp(r->variant_providers[j].ns.s,
					    used[i].s))
					break;
			if (j == r->nr_variant_providers) {
				l->errors++;
				ret = tf_error_at(
					&used[i].pos,
					"variant namespace '%s' has no entry in 'variant-providers'",
					used[i].s);
			}
		}
	}
	for (i = 0; i < r->nr_variant_providers; i++)
		if (!has_str(used, nr, r->variant_providers[i].ns.s)) {
			l->errors++;
			ret = tf_error_at(&r->variant_providers[i].ns.pos,
					  "variant namespace '%s' is not used "
					  "by any variant",
					  r->variant_providers[i].ns.s);
		}
	if (!r->nr_variant_priorities) {
		r->variant_priorities = used;
		r->nr_variant_priorities = nr;
	}
	return ret;
}

/* ---- a target's recipe ---- */

/* 1 if step s depends on the variant by its own text or key. */
static int tf_step_uses_variant(const struct tf_step *s)
{
	size_t i;

	if (s->per_variant || (s->run.s && strstr(s->run.s, "${variant")))
		return 1;
	for (i = 0; i < s->nr_env; i++)
		if (strstr(s->env[i].value.s, "${variant"))
			return 1;
	return 0;
}

static const char *at_label(struct tf_recipe *out, const char *name,
			    const struct tf_variant_def *v)
{
	size_t n = strlen(name) + strlen(v->label.s) + 2;
	char *s = tf_arena_alloc(out, n);

	snprintf(s, n, "%s@%s", name, v->label.s);
	return s;
}

static size_t find_step(const struct tf_recipe *r, const char *name)
{
	int i = tf_recipe_find_step(r, name);

	if (i < 0)
		BUG("step '%s' lost in a target's recipe", name);
	return (size_t)i;
}

static void copy_wheel(struct tf_recipe *out, const struct tf_recipe *r,
		       const struct tf_wheel_def *w, const char *per,
		       const struct tf_variant_def *v)
{
	struct tf_wheel_def *c = &out->wheels[out->nr_wheels++];
	size_t j;

	*c = *w;
	c->variant = v;
	c->files = tf_arena_alloc(out, (w->nr_files + 1) * sizeof(*c->files));
	for (j = 0; j < w->nr_files; j++) {
		struct tf_file_rule *f = &c->files[j];
		const char *from;

		*f = w->files[j];
		if (f->step_index < 0)
			continue;
		from = r->steps[f->step_index].name.s;
		f->step_index = (int)find_step(
			out, v && per[f->step_index] ? at_label(out, from, v)
						     : from);
	}
}

int tf_recipe_for_target(const struct tf_recipe *r, const char *target,
			 struct tf_recipe *out)
{
	const struct tf_variant_def **vs;
	char *per;
	size_t nv = 0, i, j, k, changed;

	for (i = 0; i < r->nr_variants; i++)
		nv += !strcmp(r->variants[i].target, target);
	if (!nv)
		return 1;
	*out = *r;
	out->arena = NULL;
	vs = tf_arena_alloc(out, nv * sizeof(*vs));
	for (i = 0, k = 0; i < r->nr_variants; i++)
		if (!strcmp(r->variants[i].target, target))
			vs[k++] = &r->variants[i];
	per = tf_arena_alloc(out, r->nr_steps + 1);
	for (i = 0; i < r->nr_steps; i++)
		per[i] = (char)tf_step_uses_variant(&r->steps[i]);
	do {
		changed = 0;
		for (i = 0; i < r->nr_steps; i++)
			for (j = 0; !per[i] && j < r->steps[i].nr_needs; j++)
				if (per[r->steps[i].need_index[j]])
					per[i] = 1, changed = 1;
	} while (changed);
	out->steps = tf_arena_alloc(out, (r->nr_steps * nv + 1) *
						 sizeof(*out->steps));
	out->nr_steps = 0;
	for (i = 0; i < r->nr_steps; i++) {
		const struct tf_step *s = &r->steps[i];

		for (k = 0; k < (per[i] ? nv : 1); k++) {
			struct tf_step *c = &out->steps[out->nr_steps++];

			*c = *s;
			if (!per[i])
				continue;
			c->variant = vs[k];
			c->name.s = at_label(out, s->name.s, vs[k]);
			c->needs = tf_arena_alloc(
				out, (s->nr_needs + 1) * sizeof(*c->needs));
			for (j = 0; j < s->nr_needs; j++) {
				c->needs[j] = s->needs[j];
				if (per[s->need_index[j]])
					c->needs[j].s = at_label(
						out,
						r->steps[s->need_index[j]]
							.name.s,
						vs[k]);
			}
		}
	}
	for (i = 0; i < out->nr_steps; i++) {
		struct tf_step *c = &out->steps[i];

		c->need_index =
			tf_arena_alloc(out, (c->nr_needs + 1) * sizeof(size_t));
		for (j = 0; j < c->nr_needs; j++)
			c->need_index[j] = find_step(out, c->needs[j].s);
	}
	out->wheels = tf_arena_alloc(out, (r->nr_wheels * nv + 1) *
						  sizeof(*out->wheels));
	out->nr_wheels = 0;
	for (i = 0; i < r->nr_wheels; i++) {
		const struct tf_wheel_def *w = &r->wheels[i];
		int wper = 0;

		for (j = 0; j < w->nr_files; j++)
			if (w->files[j].step_index >= 0 &&
			    per[w->files[j].step_index])
				wper = 1;
		for (k = 0; k < (wper ? nv : 1); k++)
			copy_wheel(out, r, w, per, wper ? vs[k] : NULL);
	}
	return 0;
}
