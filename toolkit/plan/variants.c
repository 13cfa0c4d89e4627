/*
 * A variant's properties as a claim on the CPU (audit.h), for the audit
 * of its wheels and the baseline run of its tests (docs/variants.md).
 */

#include "isa/isa.h"
#include "base/base.h"
#include "plan.h"
#include "recipe/recipe.h"

int tf_plan_variant_claim(const struct tf_variant_def *v,
			  struct tf_isa_claim *c)
{
	struct tf_buf why = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	*c = (struct tf_isa_claim)TF_ISA_CLAIM_INIT;
	for (i = 0; !ret && i < v->nr_props; i++)
		if (tf_isa_claim_add(c, v->props[i].ns, v->props[i].feature,
				     v->props[i].value, &why) < 0)
			ret = -1; /* checked when the recipe loaded */
	tf_buf_release(&why);
	return ret;
}

const char *tf_plan_variant_cpu(const struct tf_variant_def *v)
{
	struct tf_isa_claim c;
	int f, level;

	if (tf_plan_variant_claim(v, &c) || c.family == TF_ISA_NONE)
		return NULL;
	level = c.level;
	for (f = 0; f < TF_ISA_NR; f++)
		if ((c.extra >> f & 1) && tf_isa_feature_level(f) > level)
			level = tf_isa_feature_level(f);
	return tf_isa_cpu_model(c.family, level);
}
