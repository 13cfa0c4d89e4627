/*
 * What a variant's properties (PEP 825) claim of the CPU, turned into
 * the audit's policy (isa.h): the level a label promises and the
 * extensions it names, so that a wheel labelled `x86_64 :: level :: v1`
 * whose code uses AVX2 is refused like any plain wheel would be, and one
 * labelled v3 may use AVX2 without declaring dispatch (docs/variants.md).
 */
#include "isa.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* "sse4.1" as a PEP 825 feature name: "sse4_1". */
static int feature_matches(int f, const char *feature)
{
	const char *n = tf_isa_feature_name(f);

	for (; *n && *feature; n++, feature++)
		if (*n != *feature && !(*n == '.' && *feature == '_'))
			return 0;
	return !*n && !*feature;
}

static int claim_family(struct tf_isa_claim *c, enum tf_isa_family fam)
{
	if (c->family == TF_ISA_NONE) {
		c->family = fam;
		c->level = tf_isa_baseline(fam);
	}
	return c->family == fam;
}

int tf_isa_claim_add(struct tf_isa_claim *c, const char *ns,
		     const char *feature, const char *value, struct tf_buf *why)
{
	enum tf_isa_family fam = !strcmp(ns, "x86_64")    ? TF_ISA_X86_64
				 : !strcmp(ns, "aarch64") ? TF_ISA_AARCH64
							  : TF_ISA_NONE;
	int f, level = -1;

	if (fam == TF_ISA_NONE)
		return 0;
	if (!claim_family(c, fam)) {
		tf_buf_addf(why, "a variant cannot claim both x86_64 and "
				 "aarch64 properties");
		return -1;
	}
	if (fam == TF_ISA_X86_64 && !strcmp(feature, "level")) {
		if (value[0] == 'v' && value[1] >= '1' && value[1] <= '4' &&
		    !value[2])
			level = value[1] - '0';
		if (level < 0) {
			tf_buf_addf(why,
				    "x86_64 :: level :: %s: the levels are "
				    "v1, v2, v3, v4",
				    value);
			return -1;
		}
	} else if (fam == TF_ISA_AARCH64 && !strcmp(feature, "version")) {
		if (value[0] == '8' && value[1] == '.' && value[2] >= '0' &&
		    value[2] <= '4' && value[3] == 'a' && !value[4])
			level = value[2] - '0';
		if (level < 0) {
			tf_buf_addf(why,
				    "aarch64 :: version :: %s: the audit "
				    "knows 8.0a to 8.4a",
				    value);
			return -1;
		}
	}
	if (level >= 0) {
		if (level > c->level)
			c->level = level;
		return 1;
	}
	for (f = 0; f < TF_ISA_NR; f++)
		if (tf_isa_feature_family(f) == fam &&
		    feature_matches(f, feature))
			break;
	if (f == TF_ISA_NR || strcmp(value, "on")) {
		tf_buf_addf(why,
			    "%s :: %s :: %s: not an extension the ISA audit "
			    "can check (%s), or its value is not 'on'",
			    ns, feature, value,
			    fam == TF_ISA_X86_64
				    ? "avx2, fma, avx512f, ..., or level"
				    : "lse, crc, rdm, dotprod, fp16, sve, "
				      "i8mm, bf16, ..., or version");
		return -1;
	}
	c->extra |= 1ULL << f;
	return 1;
}

void tf_isa_claim_policy(const struct tf_isa_claim *c,
			 enum tf_isa_family family, struct tf_isa_policy *pol)
{
	pol->allow = 0;
	if (c->family != family || c->level < 0)
		return;
	if (c->level > tf_isa_baseline(family))
		pol->minimum = tf_isa_level_name(family, c->level);
	pol->allow = c->extra;
}

int tf_isa_claim_check_used(const struct tf_isa_claim *c,
			    const struct tf_isa_usage *u, struct tf_buf *why)
{
	int f, n = 0;

	if (c->family == TF_ISA_NONE)
		return 0;
	if (c->level > tf_isa_baseline(c->family) && u->level < c->level) {
		int need = u->level > tf_isa_baseline(c->family)
				   ? u->level
				   : tf_isa_baseline(c->family);

		/* Extensions the label names beside the level count too. */
		for (f = 0; f < TF_ISA_NR; f++)
			if ((c->extra >> f & 1) && (u->used >> f & 1))
				need = c->level;
		if (need < c->level) {
			tf_buf_addf(why,
				    "it claims %s, but no file needs more "
				    "than %s",
				    tf_isa_level_name(c->family, c->level),
				    tf_isa_level_name(c->family, need));
			n++;
		}
	}
	for (f = 0; f < TF_ISA_NR; f++)
		if ((c->extra >> f & 1) && !(u->used >> f & 1)) {
			tf_buf_addf(why, "%s%s is claimed but no file uses it",
				    n++ ? "; " : "", tf_isa_feature_name(f));
		}
	return n ? 1 : 0;
}
