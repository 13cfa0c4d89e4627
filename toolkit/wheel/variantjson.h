#ifndef TF_VARIANTJSON_H
#define TF_VARIANTJSON_H

/*
 * PEP 825 variant metadata: a wheel's `*.dist-info/variant.json` (one
 * variant) and the index's `{name}-{version}-variants.json` (all of a
 * version's), written and read with jansson (docs/variants.md).
 */

#include <stddef.h>

struct tf_buf;
struct tf_strvec;

/* The schema of PEP 825's draft format this writes and reads. */
#define TF_VARIANT_SCHEMA \
	"https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"

/* A provider plugin (WheelNext), written under `providers`. */
struct tf_variant_provider_info {
	const char *ns;
	const char *const *requires; /* nr_requires strings */
	size_t nr_requires;
	const char *plugin_api; /* NULL: none */
};

/* One variant: its label and properties as (ns, feature, value) triples. */
struct tf_variant_one {
	const char *label;
	const char *const *props; /* 3 * nr_props strings, sorted */
	size_t nr_props;
};

struct tf_variant_info {
	const char *const *priorities; /* default-priorities.namespace */
	size_t nr_priorities;
	const struct tf_variant_provider_info *providers;
	size_t nr_providers;
	const struct tf_variant_one *variants; /* by label, sorted */
	size_t nr_variants;
};

/* 1 if label is a PEP 825 label: 1-16 of 0-9, a-z, '_', '.'. */
int tf_wheel_label_is_valid(const char *label);

/* Append the JSON (keys sorted, two-space indent, final newline). */
void tf_variant_json_format(const struct tf_variant_info *vi,
			    struct tf_buf *out);

/*
 * Read variant metadata in text: the schema, default-priorities naming
 * every namespace used, names and values of PEP 825's characters; with
 * one (a wheel's), exactly one variant. The properties of label go to
 * props as triples (sorted). 0, or -1 with why filled (label absent too).
 */
int tf_variant_json_read(const char *text, const char *label, int one,
			 struct tf_strvec *props, struct tf_buf *why);

#endif
