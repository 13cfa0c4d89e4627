/*
 * A framework's installation: its metadata's name and version, its
 * headers' version, and the release checked against the recipe's
 * (install.h, docs/frameworks.md).
 */
#include "install.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "fwbuild.h"

/* Where a framework's C++ headers say which version they are. */
struct header_rule {
	const char *framework;             /* normalized distribution name */
	const char *file;                  /* below an include directory */
	const char *major, *minor, *patch; /* macros */
};

static const struct header_rule header_rules[] = {
	{ "torch", "torch/csrc/api/include/torch/version.h",
	  "TORCH_VERSION_MAJOR", "TORCH_VERSION_MINOR", "TORCH_VERSION_PATCH" },
};

/* ------------------------------------------------------------------ metadata */

/* The value of header `key` in an email-style header block, or NULL. */
static char *header_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (*p && *p != '\n') {
		size_t n = strcspn(p, "\n");

		if (n > klen && !strncasecmp(p, key, klen) && p[klen] == ':') {
			const char *v = p + klen + 1;
			size_t vn = n - klen - 1;

			while (vn && (*v == ' ' || *v == '\t'))
				v++, vn--;
			while (vn && (v[vn - 1] == '\r' || v[vn - 1] == ' '))
				vn--;
			return tf_strndup(v, vn);
		}
		p += n + (p[n] == '\n');
	}
	return NULL;
}

/* "torch-1.13.0a0+gitunknown.egg-info": 1 if it names the framework. */
static int metadata_dir_of(const char *entry, const char *want_norm)
{
	struct tf_buf n = TF_BUF_INIT;
	const char *dash = strchr(entry, '-');
	size_t len = strlen(entry);
	char *name;
	int yes;

	if (!dash || (!(len > 10 && !strcmp(entry + len - 10, ".dist-info")) &&
		      !(len > 9 && !strcmp(entry + len - 9, ".egg-info"))))
		return 0;
	name = tf_strndup(entry, (size_t)(dash - entry));
	tf_pyname_normalize(name, &n);
	yes = !strcmp(n.buf, want_norm);
	free(name);
	tf_buf_release(&n);
	return yes;
}

/*
 * The metadata of the distribution whose normalized name is norm: 1
 * found, 0 not there, -1 after printing.
 */
static int find_metadata(struct tf_framework *fw, const char *name,
			 const char *norm_name, const char *context)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	const char *norm = norm_name;
	size_t i;
	int ret = -1;

	if (tf_list_dir(fw->site, &names) < 0)
		goto out;
	for (i = 0; i < names.nr; i++) {
		if (!metadata_dir_of(names.v[i], norm))
			continue;
		tf_buf_reset(&path);
		tf_buf_addf(&path, "%s/%s/%s", fw->site, names.v[i],
			    strstr(names.v[i], ".dist-info") ? "METADATA"
							     : "PKG-INFO");
		if (tf_read_file(path.buf, &text) < 0)
			goto out;
		fw->name = header_value(text.buf, "Name");
		fw->version = header_value(text.buf, "Version");
		if (!fw->name || !fw->version) {
			error("%s: framework '%s': %s has no Name or Version",
			      context, name, path.buf);
			goto out;
		}
		ret = 1;
		goto out;
	}
	ret = 0;
out:
	tf_strvec_release(&names);
	tf_buf_release(&path);
	tf_buf_release(&text);
	return ret;
}

/*
 * The framework's metadata. TensorFlow is either distribution; JAX's
 * jaxlib may be absent (the recipe's version is then the release).
 */
static int read_metadata(struct tf_framework *fw, const char *name,
			 const char *context)
{
	struct tf_buf norm = TF_BUF_INIT;
	int ret;

	tf_pyname_normalize(name, &norm);
	if (fw->kind == TF_FRAMEWORK_TENSORFLOW) {
		ret = find_metadata(fw, name, "tensorflow", context);
		if (!ret)
			ret = find_metadata(fw, name, "tensorflow-cpu",
					    context);
	} else if (fw->kind == TF_FRAMEWORK_JAX) {
		ret = find_metadata(fw, name, "jaxlib", context);
		if (!ret)
			fw->name = tf_strdup("jaxlib");
		ret = ret < 0 ? -1 : 1;
	} else {
		ret = find_metadata(fw, name, norm.buf, context);
	}
	if (!ret)
		error("%s: framework '%s': no %s-*.dist-info or .egg-info in "
		      "'%s' (is the framework installed for this target?)",
		      context, name,
		      fw->kind == TF_FRAMEWORK_TENSORFLOW ? "tensorflow{,_cpu}"
							  : norm.buf,
		      fw->site);
	tf_buf_release(&norm);
	return ret > 0 ? 0 : -1;
}

/* "#define MACRO 13" in text: the number, or -1. */
static long macro_value(const char *text, const char *macro)
{
	const char *p = text;
	size_t n = strlen(macro);

	while ((p = strstr(p, macro))) {
		const char *q = p + n;

		p = q;
		if (*q != ' ' && *q != '\t')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q >= '0' && *q <= '9')
			return strtol(q, NULL, 10);
	}
	return -1;
}

/*
 * The headers' version: in the framework's own include directory
 * (NAME/include, as PyPI wheels ship it), or the system's next to the
 * site-packages directory (ROOT/usr/include for ROOT/usr/lib/python3/
 * dist-packages, as Debian's libtorch-dev ships it).
 */
static void read_header_version(struct tf_framework *fw)
{
	struct tf_buf norm = TF_BUF_INIT, path = TF_BUF_INIT,
		      text = TF_BUF_INIT;
	const char *usr;
	size_t i;
	long maj, min, pat;

	tf_pyname_normalize(fw->name, &norm);
	for (i = 0; i < sizeof(header_rules) / sizeof(header_rules[0]); i++) {
		const struct header_rule *h = &header_rules[i];

		if (strcmp(h->framework, norm.buf))
			continue;
		tf_buf_setf(&path, "%s/%s/include/%s", fw->site, fw->name,
			    h->file);
		if (!tf_path_exists(path.buf) &&
		    (usr = strstr(fw->site, "/usr/lib/"))) {
			tf_buf_setf(&path, "%.*s/usr/include/%s",
				    (int)(usr - fw->site), fw->site, h->file);
		}
		/* No headers (a runtime-only install): nothing to compare. */
		if (!tf_path_exists(path.buf) ||
		    tf_read_file(path.buf, &text) < 0)
			break;
		maj = macro_value(text.buf, h->major);
		min = macro_value(text.buf, h->minor);
		pat = macro_value(text.buf, h->patch);
		if (maj >= 0 && min >= 0) {
			fw->header_version =
				pat >= 0 ? tf_xstrfmt("%ld.%ld.%ld", maj, min,
						      pat)
					 : tf_xstrfmt("%ld.%ld", maj, min);
			fw->header_file = tf_strdup(path.buf);
		}
		break;
	}
	tf_buf_release(&norm);
	tf_buf_release(&path);
	tf_buf_release(&text);
}
int tf_framework_read_install(struct tf_framework *fw, const char *name,
			      const char *context)
{
	if (read_metadata(fw, name, context) < 0)
		return -1;
	read_header_version(fw);
	return 0;
}

/* ------------------------------------------------------------------ versions */

/* The leading release numbers of a PEP 440 version: "1.13.0a0+x" -> 1,13,0. */
static size_t release(const char *v, long out[4])
{
	size_t n = 0;
	char *end;

	while (n < 4 && *v >= '0' && *v <= '9') {
		out[n++] = strtol(v, &end, 10);
		v = end;
		if (*v != '.')
			break;
		v++;
	}
	return n;
}

/* 1 if every release number of `prefix` matches the start of `v`'s. */
static int release_matches(const char *prefix, const char *v)
{
	long a[4], b[4];
	size_t na = release(prefix, a), nb = release(v, b), i;

	if (!na)
		return 0;
	for (i = 0; i < na; i++)
		if (i >= nb || a[i] != b[i])
			return 0;
	return 1;
}

int tf_framework_check_version(struct tf_framework *fw, const char *declared,
			       const char *context)
{
	struct tf_buf norm = TF_BUF_INIT;

	/* JAX without jaxlib in the site: the recipe names the release. */
	if (!fw->version && (!declared || tf_pep440_normalize(declared, &norm)))
		return error("%s: framework %s: no jaxlib in '%s' and no "
			     "release in the recipe's framework.version: the "
			     "release the plugin targets is unknown",
			     context, fw->name, fw->site);
	if (!fw->version)
		fw->version = tf_buf_detach(&norm);
	tf_buf_release(&norm);
	if (fw->header_version) {
		long h[4];
		char mm[64];
		size_t n = release(fw->header_version, h);

		snprintf(mm, sizeof(mm), "%ld.%ld", h[0], n > 1 ? h[1] : 0);
		if (declared && !release_matches(declared, fw->header_version))
			return error(
				"%s: framework %s: the recipe declares version %s, "
				"but the headers the backend was compiled against "
				"are %s %s (%s)",
				context, fw->name, declared, fw->name,
				fw->header_version, fw->header_file);
		if (!release_matches(mm, fw->version))
			return error(
				"%s: framework %s: the headers are %s %s (%s), "
				"but the installed framework is %s %s",
				context, fw->name, fw->name, fw->header_version,
				fw->header_file, fw->name, fw->version);
	}
	if (declared && !release_matches(declared, fw->version))
		return error(
			"%s: framework %s: the recipe declares version %s, "
			"but the framework in '%s' is %s %s",
			context, fw->name, declared, fw->site, fw->name,
			fw->version);
	return 0;
}
