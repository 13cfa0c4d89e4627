/*
 * The SBOM in a wheel (verifier.h): every wheel tfbuild packs carries
 * .dist-info/sboms/tfbuild.cdx.json (docs/sbom.md); one that lacks it,
 * or whose SBOM names another package, was not packed by this tfbuild
 * or was changed since. jansson parses it.
 */
#include "verifier.h"
#include "verify.h"

#include <string.h>

#include <jansson.h>

#include "base/base.h"
#include "metadata/metadata.h"

/* The name and version the document's primary component gives. */
static int primary(const struct verifier *v, const char *entry, json_t *doc,
		   const char **name, const char **version, const char **purl)
{
	json_t *c =
		json_object_get(json_object_get(doc, "metadata"), "component");
	const char *format =
		json_string_value(json_object_get(doc, "bomFormat"));

	if (!format || strcmp(format, "CycloneDX") ||
	    !json_is_string(json_object_get(doc, "specVersion")))
		return tf_verify_defect(v, entry,
					"not a CycloneDX document "
					"(bomFormat, specVersion)");
	*name = json_string_value(json_object_get(c, "name"));
	*version = json_string_value(json_object_get(c, "version"));
	*purl = json_string_value(json_object_get(c, "purl"));
	if (!*name || !*version)
		return tf_verify_defect(v, entry,
					"no primary component with a name and "
					"version (metadata.component)");
	return 0;
}

int tf_verify_sbom(const struct verifier *v)
{
	struct tf_buf entry = TF_BUF_INIT, a = TF_BUF_INIT, b = TF_BUF_INIT,
		      va = TF_BUF_INIT, vb = TF_BUF_INIT, want = TF_BUF_INIT;
	const char *name = NULL, *version = NULL, *purl = NULL;
	json_error_t err;
	json_t *doc = NULL;
	int ret = 0;

	tf_buf_addf(&entry, "%s/%s", v->distinfo.buf, TF_SBOM_RECORD);
	if (!v->have_sbom) {
		if (v->by_tfbuild)
			ret = tf_verify_defect(
				v, NULL,
				"made by tfbuild but has no %s (every wheel "
				"tfbuild packs carries its SBOM: docs/sbom.md)",
				entry.buf);
		goto out;
	}
	doc = json_loadb(v->sbom_text.buf, v->sbom_text.len, 0, &err);
	if (!doc) {
		ret = tf_verify_defect(v, entry.buf,
				       "not valid JSON: %d:%d: %s", err.line,
				       err.column, err.text);
		goto out;
	}
	ret = primary(v, entry.buf, doc, &name, &version, &purl);
	if (ret)
		goto out;
	tf_pyname_normalize(name, &a);
	tf_pyname_normalize(v->wn.name, &b);
	if (tf_pep440_normalize(version, &va))
		tf_buf_addstr(&va, version);
	if (tf_pep440_normalize(v->wn.version, &vb))
		tf_buf_addstr(&vb, v->wn.version);
	if (strcmp(a.buf, b.buf) || strcmp(va.buf, vb.buf)) {
		ret = tf_verify_defect(v, entry.buf,
				       "its primary component is %s %s, not "
				       "the wheel's %s %s",
				       name, version, v->wn.name,
				       v->wn.version);
		goto out;
	}
	tf_buf_addf(&want, "pkg:pypi/%s@", b.buf);
	if (purl && strncmp(purl, want.buf, want.len))
		ret = tf_verify_defect(v, entry.buf,
				       "its primary component's purl is '%s', "
				       "not one of the wheel's (%s...)",
				       purl, want.buf);
out:
	json_decref(doc);
	tf_buf_release(&entry);
	tf_buf_release(&a);
	tf_buf_release(&b);
	tf_buf_release(&va);
	tf_buf_release(&vb);
	tf_buf_release(&want);
	return ret;
}
