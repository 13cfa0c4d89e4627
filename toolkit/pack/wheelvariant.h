#ifndef TF_WHEELVARIANT_H
#define TF_WHEELVARIANT_H

/*
 * A variant wheel (PEP 825, docs/variants.md): what its label lets its
 * code need, its variant.json, and the index's variants.json.
 */

#include <stddef.h>

struct tf_buf;
struct tf_isa_policy;
struct tf_isa_usage;
struct tf_plan;
struct tf_plan_wheel;
struct tf_strvec;
struct tf_wheel_spec;

/*
 * The audit policy of wheel pw's variant: the level its properties claim
 * becomes the minimum (an `isa.minimum` above it is not counted, with a
 * warning), the extensions they name are allowed, a declared dispatch
 * counts only where the code shows run-time checks, and what the files
 * need is added to *usage. Nothing for an unlabelled wheel.
 */
void tf_pack_variant_policy(const struct tf_plan *p,
			    const struct tf_plan_wheel *pw,
			    struct tf_isa_policy *pol,
			    struct tf_isa_usage *usage);
/* Warn when the code needs less than the label claims. */
void tf_pack_variant_warn(const struct tf_plan *p,
			  const struct tf_plan_wheel *pw,
			  const struct tf_isa_usage *usage);
/* The label and variant.json (into json) of a variant wheel's spec. */
void tf_pack_variant_spec(const struct tf_plan *p,
			  const struct tf_plan_wheel *pw,
			  struct tf_wheel_spec *spec, struct tf_buf *json);
/*
 * Write {name}-{version}-variants.json into out_dir for every
 * distribution with variant wheels among the plans (written only when
 * its text changes); append each path to paths. 0, or -1 after reporting.
 */
int tf_pack_variants_index(struct tf_plan **plans, size_t nr,
			   const char *out_dir, struct tf_strvec *paths);

#endif
