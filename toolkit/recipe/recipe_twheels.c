/*
 * `target-wheels`: wheels from the package index, unpacked into each
 * target's ${target_site} (docs/recipe.md). Each entry is an exact
 * NAME==VERSION, for every target (a list) or per target (a mapping of
 * target to list); the pins are in the lock file, read by the plan.
 * An entry with ${...} is split and checked by the plan, expanded.
 * `host-wheels`: a list of the same entries, the build machine's tools
 * (pinned for its platform), unpacked into ${host_site}.
 */
#include "recipe_internal.h"

#include <string.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "recipe.h"

int tf_target_wheel_split(const char *req, struct tf_buf *name,
			  struct tf_buf *version, struct tf_buf *why)
{
	const char *eq = strstr(req, "==");
	struct tf_buf norm = TF_BUF_INIT;
	int ret = -1;

	if (!eq || eq[2] == '=') {
		tf_buf_addstr(why, "want an exact NAME==VERSION");
		return -1;
	}
	tf_buf_add(name, req, (size_t)(eq - req));
	tf_buf_addstr(version, eq + 2);
	if (!tf_pyname_is_valid(name->buf))
		tf_buf_addf(why, "'%s' is not a PEP 508 name", name->buf);
	else if (strpbrk(version->buf, "*,;@ <>=!~") ||
		 tf_pep440_normalize(version->buf, &norm))
		tf_buf_addf(why, "'%s' is not an exact PEP 440 version",
			    version->buf);
	else
		ret = 0;
	tf_buf_release(&norm);
	return ret;
}

/*
 * Append the entries of list node v, for target (NULL: every target),
 * to *list (*nr entries): the recipe's target wheels, or with what
 * "host wheel", its host wheels.
 */
static int add_list(struct loader *l, yaml_node_t *v, const char *target,
		    const char *key, const char *what)
{
	struct tf_recipe *r = l->r;
	int host = !strcmp(what, "host wheel");
	struct tf_target_wheel **list =
		host ? &r->host_wheels : &r->target_wheels;
	size_t *count = host ? &r->nr_host_wheels : &r->nr_target_wheels;
	struct tf_str *reqs;
	struct tf_target_wheel *all;
	struct tf_buf name = TF_BUF_INIT, version = TF_BUF_INIT,
		      why = TF_BUF_INIT;
	size_t nr, i, j;
	int ret = 0;

	if (tf_load_str_list(l, key, v, &reqs, &nr))
		return -1;
	all = tf_arena_alloc(r, (*count + nr + 1) * sizeof(*all));
	if (*count)
		memcpy(all, *list, *count * sizeof(*all));
	*list = all;
	for (i = 0; i < nr; i++) {
		struct tf_target_wheel *w = &all[*count];

		tf_buf_reset(&name);
		tf_buf_reset(&version);
		tf_buf_reset(&why);
		/* With ${...}, checked once expanded, per target (plan). */
		if (!strstr(reqs[i].s, "${") &&
		    tf_target_wheel_split(reqs[i].s, &name, &version, &why)) {
			l->errors++;
			ret = tf_error_at(&reqs[i].pos,
					  "%s '%s': %s (as "
					  "'tensorflow-cpu==2.21.0')",
					  what, reqs[i].s, why.buf);
			continue;
		}
		for (j = 0; j < *count; j++)
			if (!strcmp(all[j].req.s, reqs[i].s) &&
			    (!all[j].target || !target ||
			     !strcmp(all[j].target, target)))
				break;
		if (j < *count) {
			l->errors++;
			ret = tf_error_at(&reqs[i].pos,
					  "%s '%s' is listed twice", what,
					  reqs[i].s);
			continue;
		}
		w->req = reqs[i];
		w->target = target;
		w->name = name.len ? tf_arena_strdup(r, name.buf) : NULL;
		w->version = name.len ? tf_arena_strdup(r, version.buf) : NULL;
		(*count)++;
	}
	tf_buf_release(&name);
	tf_buf_release(&version);
	tf_buf_release(&why);
	return ret;
}

int tf_load_target_wheels(struct loader *l, yaml_node_t *v, void *obj,
			  const char *where)
{
	yaml_node_pair_t *p;
	int ret = 0;

	(void)obj;
	(void)where;
	if (v->type == YAML_SEQUENCE_NODE)
		return add_list(l, v, NULL, "target-wheels", "target wheel");
	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(l, v,
				   "'target-wheels' must be a list of "
				   "NAME==VERSION, or a mapping of target to "
				   "such lists, not %s",
				   kind_name(v));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_str t;

		if (tf_load_target(l, "target-wheels", node(l, p->key), &t)) {
			ret = -1;
			continue;
		}
		if (add_list(l, node(l, p->value), t.s, t.s, "target wheel"))
			ret = -1;
	}
	return ret;
}

int tf_load_host_wheels(struct loader *l, yaml_node_t *v, void *obj,
			const char *where)
{
	(void)obj;
	(void)where;
	if (v->type != YAML_SEQUENCE_NODE)
		return tf_load_bad(l, v,
				   "'host-wheels' must be a list of "
				   "NAME==VERSION, not %s",
				   kind_name(v));
	return add_list(l, v, NULL, "host-wheels", "host wheel");
}
