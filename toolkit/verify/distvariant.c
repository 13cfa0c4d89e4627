/*
 * A variant wheel (PEP 825, docs/variants.md): the label in its filename,
 * its .dist-info/variant.json, the index's variants.json beside it, and
 * the ISA its properties claim, which the audit then holds its code to.
 */
#include "verifier.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"
#include "base/base.h"
#include "metadata/metadata.h"
#include "wheel/wheel.h"

/* Do a and b hold the same triples (each sorted by the reader)? */
static int same_props(const struct tf_strvec *a, const struct tf_strvec *b)
{
	size_t i;

	if (a->nr != b->nr)
		return 0;
	for (i = 0; i < a->nr; i++)
		if (strcmp(a->v[i], b->v[i]))
			return 0;
	return 1;
}

/* {name}-{version}-variants.json beside the wheel, when there is one. */
static int check_index(struct verifier *v, const struct tf_strvec *props)
{
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_strvec there = TF_STRVEC_INIT;
	const char *slash = strrchr(v->path, '/');
	int ret = 0;

	if (slash)
		tf_buf_add(&path, v->path, (size_t)(slash - v->path + 1));
	tf_buf_addf(&path, "%s-", v->wn.name);
	tf_pep440_normalize(v->wn.version, &path);
	tf_buf_addstr(&path, "-variants.json");
	if (access(path.buf, F_OK))
		goto out;
	/* Opened without blocking first: a FIFO there would hang verify. */
	if (tf_path_regular_check(path.buf, &why))
		ret = tf_verify_defect(v, NULL, "%s", why.buf);
	else if (tf_read_file(path.buf, &text))
		ret = -1;
	else if (tf_variant_json_read(text.buf, v->wn.label, 0, &there, &why))
		ret = tf_verify_defect(v, NULL, "%s: %s", path.buf, why.buf);
	else if (!same_props(props, &there))
		ret = tf_verify_defect(
			v, NULL,
			"variant '%s' has other properties in %s than in the wheel's variant.json",
			v->wn.label, path.buf);
	else
		verbose("%s: variant '%s' as in %s", v->path, v->wn.label,
			path.buf);
out:
	tf_strvec_release(&there);
	tf_buf_release(&path);
	tf_buf_release(&text);
	tf_buf_release(&why);
	return ret;
}

/*
 * The label's claim on the CPU is the level the code is held to, and
 * nothing else: tfbuild-isa is a file in the wheel like variant.json,
 * and a Minimum above the label (a wheel built for x86-64-v3, relabelled
 * x86_64_v1) would let the code through while an installer reads the
 * label and gives the wheel to older CPUs. Its dispatch declarations
 * count only for files whose code shows run-time checks of the CPU.
 * A label that claims nothing of the CPU leaves the record's rules.
 */
static void label_policy(struct verifier *v, struct tf_isa_claim *c,
			 enum tf_isa_family want)
{
	enum tf_isa_family fam;
	int lm;

	if (c->family != want) {
		verbose("%s: variant '%s'", v->path, v->wn.label);
		return;
	}
	if (v->isa.minimum && !tf_isa_level_parse(v->isa.minimum, &fam, &lm) &&
	    fam == want && lm > c->level)
		verbose("%s: %s/%s: Minimum %s is above variant '%s': not "
			"counted, the code is held to the label",
			v->path, v->distinfo.buf, TF_ISA_RECORD, v->isa.minimum,
			v->wn.label);
	v->isa.minimum = NULL;
	tf_isa_claim_policy(c, want, &v->isa);
	v->isa.dispatch_shown = 1;
	v->elf.isa_level = v->platform_isa_level;
	if (want == TF_ISA_X86_64 && c->level > v->elf.isa_level)
		v->elf.isa_level = c->level;
	verbose("%s: variant '%s'%s%s", v->path, v->wn.label,
		v->isa.minimum ? ", claiming " : "",
		v->isa.minimum ? v->isa.minimum : "");
}

int tf_verify_variant(struct verifier *v)
{
	struct tf_buf why = TF_BUF_INIT, entry = TF_BUF_INIT;
	struct tf_strvec props = TF_STRVEC_INIT;
	struct tf_isa_claim c = TF_ISA_CLAIM_INIT;
	enum tf_isa_family want;
	size_t n = strlen(v->wn.platform), i;
	int ret = 0;

	tf_buf_addf(&entry, "%s/variant.json", v->distinfo.buf);
	if (!v->wn.label && !v->have_variant)
		goto out;
	if (!v->wn.label) {
		ret = tf_verify_defect(v, entry.buf,
				       "present, but the filename has no "
				       "variant label");
		goto out;
	}
	if (!v->have_variant) {
		ret = tf_verify_defect(v, entry.buf,
				       "missing: the filename has variant "
				       "label '%s' (PEP 825)",
				       v->wn.label);
		goto out;
	}
	if (tf_variant_json_read(v->variant_text.buf, v->wn.label, 1, &props,
				 &why)) {
		ret = tf_verify_defect(v, entry.buf, "%s", why.buf);
		goto out;
	}
	for (i = 0; i + 2 < props.nr; i += 3) {
		tf_buf_reset(&why);
		if (tf_isa_claim_add(&c, props.v[i], props.v[i + 1],
				     props.v[i + 2], &why) < 0) {
			ret = tf_verify_defect(v, entry.buf, "%s", why.buf);
			goto out;
		}
	}
	want = n >= 7 && !strcmp(v->wn.platform + n - 7, "aarch64")
		       ? TF_ISA_AARCH64
		       : TF_ISA_X86_64;
	if (c.family != TF_ISA_NONE && c.family != want) {
		ret = tf_verify_defect(v, entry.buf,
				       "claims properties of another CPU than "
				       "the platform tag's");
		goto out;
	}
	label_policy(v, &c, want);
	ret = check_index(v, &props);
out:
	tf_strvec_release(&props);
	tf_buf_release(&why);
	tf_buf_release(&entry);
	return ret;
}
