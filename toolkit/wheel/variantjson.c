/*
 * PEP 825 variant metadata (variantjson.h), with jansson: the wheel's
 * variant.json and the index's variants.json have one format.
 */
#include "variantjson.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int chars_ok(const char *s, int dot, size_t max)
{
	size_t n = 0;

	if (!*s)
		return 0;
	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || (dot && *s == '.')))
			return 0;
	return !max || n <= max;
}

int tf_wheel_label_is_valid(const char *label)
{
	return chars_ok(label, 1, 16);
}

static json_t *str_list(const char *const *v, size_t nr)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < nr; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

void tf_variant_json_format(const struct tf_variant_info *vi,
			    struct tf_buf *out)
{
	json_t *doc = json_object(), *prio = json_object(),
	       *variants = json_object();
	size_t i, j;
	char *text;

	json_object_set_new(doc, "$schema", json_string(TF_VARIANT_SCHEMA));
	json_object_set_new(prio, "namespace",
			    str_list(vi->priorities, vi->nr_priorities));
	json_object_set_new(doc, "default-priorities", prio);
	if (vi->nr_providers) {
		json_t *provs = json_object();

		for (i = 0; i < vi->nr_providers; i++) {
			const struct tf_variant_provider_info *p =
				&vi->providers[i];
			json_t *o = json_object();

			json_object_set_new(
				o, "requires",
				str_list(p->requires, p->nr_requires));
			if (p->plugin_api)
				json_object_set_new(o, "plugin-api",
						    json_string(p->plugin_api));
			json_object_set_new(provs, p->ns, o);
		}
		json_object_set_new(doc, "providers", provs);
	}
	for (i = 0; i < vi->nr_variants; i++) {
		const struct tf_variant_one *v = &vi->variants[i];
		json_t *o = json_object();

		for (j = 0; j < v->nr_props; j++) {
			const char *ns = v->props[3 * j],
				   *f = v->props[3 * j + 1];
			json_t *n = json_object_get(o, ns), *vals;

			if (!n) {
				n = json_object();
				json_object_set_new(o, ns, n);
			}
			vals = json_object_get(n, f);
			if (!vals) {
				vals = json_array();
				json_object_set_new(n, f, vals);
			}
			json_array_append_new(vals,
					      json_string(v->props[3 * j + 2]));
		}
		json_object_set_new(variants, v->label, o);
	}
	json_object_set_new(doc, "variants", variants);
	text = json_dumps(doc,
			  JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	if (!text)
		tf_out_of_memory(0);
	tf_buf_addstr(out, text);
	tf_buf_addch(out, '\n');
	free(text);
	json_decref(doc);
}

static int in_list(json_t *list, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i,
			   v) if (json_is_string(v) &&
				  !strcmp(json_string_value(v), s)) return 1;
	return 0;
}

/* One variant's properties, checked; triples into props when wanted. */
static int read_variant(const char *label, json_t *o, json_t *prio,
			struct tf_strvec *props, struct tf_buf *why)
{
	const char *ns, *f;
	json_t *feats, *vals, *v;
	size_t i;

	if (!tf_wheel_label_is_valid(label)) {
		tf_buf_addf(why,
			    "variant label '%s' is not 1-16 of 0-9, a-z, "
			    "'_', '.'",
			    label);
		return -1;
	}
	if (!json_is_object(o)) {
		tf_buf_addf(why, "variants.%s is not an object", label);
		return -1;
	}
	if (!strcmp(label, "null") && json_object_size(o)) {
		tf_buf_addstr(why, "the null variant has properties");
		return -1;
	}
	json_object_foreach(o, ns, feats)
	{
		if (!chars_ok(ns, 0, 0) || !json_is_object(feats)) {
			tf_buf_addf(why, "variants.%s: bad namespace '%s'",
				    label, ns);
			return -1;
		}
		if (!in_list(prio, ns)) {
			tf_buf_addf(why,
				    "namespace '%s' is not in "
				    "default-priorities.namespace",
				    ns);
			return -1;
		}
		json_object_foreach(feats, f, vals)
		{
			if (!chars_ok(f, 0, 0) || !json_is_array(vals) ||
			    !json_array_size(vals)) {
				tf_buf_addf(why,
					    "variants.%s.%s: bad feature '%s' "
					    "(a non-empty list of values)",
					    label, ns, f);
				return -1;
			}
			json_array_foreach(vals, i, v)
			{
				if (!json_is_string(v) ||
				    !chars_ok(json_string_value(v), 1, 0)) {
					tf_buf_addf(why,
						    "variants.%s.%s.%s: bad "
						    "value",
						    label, ns, f);
					return -1;
				}
				if (props) {
					tf_strvec_push(props, ns);
					tf_strvec_push(props, f);
					tf_strvec_push(props,
						       json_string_value(v));
				}
			}
		}
	}
	return 0;
}

int tf_variant_json_read(const char *text, const char *label, int one,
			 struct tf_strvec *props, struct tf_buf *why)
{
	json_error_t err;
	json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &err), *prio,
	       *variants, *o;
	const char *l;
	int ret = -1, found = 0;

	if (!doc) {
		tf_buf_addf(why, "not JSON: line %d: %s", err.line, err.text);
		return -1;
	}
	prio = json_object_get(json_object_get(doc, "default-priorities"),
			       "namespace");
	variants = json_object_get(doc, "variants");
	if (!json_is_string(json_object_get(doc, "$schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "$schema")),
		   TF_VARIANT_SCHEMA))
		tf_buf_addf(why, "$schema is not %s", TF_VARIANT_SCHEMA);
	else if (!json_is_array(prio) || !json_array_size(prio))
		tf_buf_addstr(why, "default-priorities.namespace is not a "
				   "non-empty list");
	else if (!json_is_object(variants))
		tf_buf_addstr(why, "no 'variants' object");
	else if (one && json_object_size(variants) != 1)
		tf_buf_addf(why, "%zu variants, expected exactly one",
			    json_object_size(variants));
	else
		ret = 0;
	if (!ret)
		json_object_foreach(variants, l, o)
		{
			int mine = label && !strcmp(l, label);

			found |= mine;
			if (read_variant(l, o, prio, mine ? props : NULL,
					 why)) {
				ret = -1;
				break;
			}
		}
	if (!ret && label && !found) {
		tf_buf_addf(why, "no variant '%s'", label);
		ret = -1;
	}
	json_decref(doc);
	return ret;
}
