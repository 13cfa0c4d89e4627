/*
 * A wheel's external libraries (`external-libraries`; libs.h's
 * "external" resolution), checked on the wheel alone: the record names
 * each library's distribution, the version the build was pinned to and
 * the path its RECORD gives. Here the wheel as a whole: it must not
 * carry the library itself, and must require the distribution in a
 * window that admits that version. Each ELF file's RUNPATH is checked
 * against the path by audit/elf_verify.c, at pack time and here alike.
 */
#include "verify.h"
#include "verifier.h"

#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/base.h"
#include "metadata/metadata.h"

/* The soname's stem: "libcudart" of "libcudart.so.13", into out. */
static void stem(const char *name, struct tf_buf *out)
{
	const char *so = strstr(name, ".so");

	tf_buf_add(out, name, so ? (size_t)(so - name) : strlen(name));
}

/*
 * 1 if the file at path is a copy of the library: its name is the
 * soname or its stem followed by '.' or '-' and ".so" ("libcudart.so.13.0.96",
 * auditwheel's "libcudart-0123abcd.so.13").
 */
static int is_copy(const char *path, const char *soname)
{
	const char *base = tf_path_basename(path);
	struct tf_buf s = TF_BUF_INIT;
	int copy;

	stem(soname, &s);
	copy = !strcmp(base, soname) ||
	       (!strncmp(base, s.buf, s.len) &&
		(base[s.len] == '.' || base[s.len] == '-') &&
		strstr(base + s.len, ".so"));
	tf_buf_release(&s);
	return copy;
}

/* The Requires-Dist naming l's distribution, or NULL. */
static const char *required(const struct verifier *v, const struct tf_lib *l)
{
	size_t i;

	for (i = 0; i < v->nr_requires; i++)
		if (tf_libs_requirement_listed(l->dist, &v->requires[i], 1))
	return v->requires[i];
	return NULL;
}

/* 1 if requirement req admits version. */
static int admits(const char *req, const char *version)
{
	struct tf_buf name = TF_BUF_INIT, spec = TF_BUF_INIT,
		      marker = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_version_range range;
	struct tf_version ver;
	int ok = !tf_requirement_split(req, &name, &spec, &marker) &&
		 !tf_specifiers_range(spec.buf, &range, &why) &&
		 !tf_version_parse(version, &ver, &why) &&
		 tf_version_range_has(&range, &ver);

	tf_buf_release(&name);
	tf_buf_release(&spec);
	tf_buf_release(&marker);
	tf_buf_release(&why);
	return ok;
}

int tf_verify_external(const struct verifier *v, const struct tf_lib *l,
		       const char *entry)
{
	const char *req = required(v, l);
	size_t i;

	for (i = 0; i < v->nr_rows; i++)
		if (is_copy(v->rows[i].path, l->soname))
			return tf_verify_defect(v, v->rows[i].path,
						"the wheel carries '%s', which "
						"it declares external (from "
						"%s %s at '%s'): it must not "
						"vendor it",
						l->soname, l->dist, l->version,
						l->file);
	if (!req)
		return tf_verify_defect(v, entry,
					"external library '%s' is from %s, "
					"which is not in Requires-Dist",
					l->soname, l->dist);
	if (!admits(req, l->version))
		return tf_verify_defect(v, entry,
					"external library '%s' is from %s "
					"%s, which Requires-Dist '%s' does "
					"not admit",
					l->soname, l->dist, l->version, req);
	verbose("%s: '%s' external: %s from %s %s (%s), required as '%s'",
		v->path, l->soname, l->file, l->dist, l->version,
		l->hash && *l->hash ? l->hash : "no hash", req);
	return 0;
}
