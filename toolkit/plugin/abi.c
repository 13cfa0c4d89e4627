/*
 * The ABI a framework plugin was built against, its window of releases
 * and verify's refusals that follow from it (abi.h, docs/frameworks.md).
 */
#include "abi.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "wheel/wheel.h"
#include "fwbuild.h"

#define SE_HEADER "tensorflow/c/experimental/stream_executor/stream_executor.h"
#define PJRT_HEADER "xla/pjrt/c/pjrt_c_api.h"
#define HEADER_CAP (8u << 20)

/* Each kind's distributions, the C API it names, and the macros. */
static const struct kind_info {
	const char *dists[3];
	const char *api; /* as verify says it */
	const char *macros[3];
	size_t nr_macros;
	const char *plugin; /* what a plugin of it is */
} kinds[] = {
	[TF_FRAMEWORK_TENSORFLOW] = { { "tensorflow", "tensorflow-cpu", NULL },
				      "StreamExecutor C API",
				      { "SE_MAJOR", "SE_MINOR", "SE_PATCH" },
				      3,
				      "a TensorFlow PluggableDevice" },
	[TF_FRAMEWORK_JAX] = { { "jax", "jaxlib", NULL },
			       "PJRT C API",
			       { "PJRT_API_MAJOR", "PJRT_API_MINOR", NULL },
			       2,
			       "a PJRT plugin" },
};

int tf_framework_kind_of(const char *name)
{
	struct tf_buf n = TF_BUF_INIT;
	int kind = TF_FRAMEWORK_OTHER, k, i;

	tf_pyname_normalize(name, &n);
	for (k = TF_FRAMEWORK_TENSORFLOW; k <= TF_FRAMEWORK_JAX; k++)
		for (i = 0; kinds[k].dists[i]; i++)
			if (!strcmp(n.buf, kinds[k].dists[i]))
				kind = k;
	tf_buf_release(&n);
	return kind;
}

/* ------------------------------------------------------------------ headers */

/* "NAME" at p followed by a blank: its length, else 0. */
static size_t word_at(const char *p, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\t') ? n : 0;
}

/* One "#define NAME NUMBER" line for names[i], or -1 with why. */
static int define_line(const char *path, size_t line_no, const char *p,
		       const char *name, long *value, struct tf_buf *why)
{
	char *end;
	long v;

	p += strspn(p, " \t");
	if (!isdigit((unsigned char)*p))
		return tf_why(why, "%s:%zu: %s is not defined as a number",
			      path, line_no, name);
	v = strtol(p, &end, 10);
	end += strspn(end, " \t");
	if (*end && *end != '\n' && strncmp(end, "//", 2) &&
	    strncmp(end, "/*", 2))
		return tf_why(why, "%s:%zu: %s is not defined as a number",
			      path, line_no, name);
	if (*value >= 0 && *value != v)
		return tf_why(why, "%s:%zu: %s defined again, as %ld (was %ld)",
			      path, line_no, name, v, *value);
	*value = v;
	return 0;
}

/*
 * Scan path for "#define NAME NUMBER" lines, one per name (a name
 * defined twice with two values is refused): values[i] for names[i].
 * Not a C preprocessor: a line that defines a name any other way is
 * refused. Returns 0, or -1 with why.
 */
static int tf_header_macros(const char *path, const char *const *names,
			    long *values, size_t n, struct tf_buf *why)
{
	struct tf_buf text = TF_BUF_INIT;
	const char *p;
	size_t i, line_no = 0;
	int ret = 0;

	for (i = 0; i < n; i++)
		values[i] = -1;
	text.cap = HEADER_CAP;
	if (tf_read_file(path, &text) < 0) {
		tf_buf_release(&text);
		return tf_why(why, "cannot read '%s'", path);
	}
	for (p = text.buf; *p && !ret; p += strcspn(p, "\n"), p += *p == '\n') {
		const char *q = p + strspn(p, " \t");
		size_t k;

		line_no++;
		if (*q != '#')
			continue;
		q++;
		q += strspn(q, " \t");
		if (!(k = word_at(q, "define")))
			continue;
		q += k;
		q += strspn(q, " \t");
		for (i = 0; i < n && !ret; i++)
			if ((k = word_at(q, names[i])))
				ret = define_line(path, line_no, q + k,
						  names[i], &values[i], why);
	}
	for (i = 0; i < n && !ret; i++)
		if (values[i] < 0)
			ret = tf_why(why, "%s: no '#define %s NUMBER' line",
				     path, names[i]);
	tf_buf_release(&text);
	return ret;
}

/* The header as recorded: no path of this machine. */
static char *shown_header(const struct tf_framework *fw, const char *path)
{
	size_t n = strlen(fw->site);
	const char *p;

	if (!strncmp(path, fw->site, n) && path[n] == '/')
		return tf_strdup(path + n + 1);
	if ((p = strstr(path, "/" PJRT_HEADER)) ||
	    (p = strstr(path, "/" SE_HEADER)))
		return tf_strdup(p + 1);
	return tf_strdup(tf_path_basename(path));
}

/* The PJRT header: the recipe's, or the first one the site has. */
static char *pjrt_header_path(const struct tf_framework *fw)
{
	static const char *const under[] = { "jaxlib", "tensorflow" };
	size_t i;

	if (fw->pjrt_header)
		return tf_strdup(fw->pjrt_header);
	for (i = 0; i < sizeof(under) / sizeof(*under); i++) {
		char *p = tf_xstrfmt("%s/%s/include/" PJRT_HEADER, fw->site,
				     under[i]);

		if (tf_path_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

int tf_framework_read_api(struct tf_framework *fw, const char *context)
{
	const struct kind_info *k = &kinds[fw->kind];
	struct tf_buf why = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	long v[3];
	char *path;
	int ret = 0;

	if (fw->kind == TF_FRAMEWORK_OTHER)
		return 0;
	path = fw->kind == TF_FRAMEWORK_TENSORFLOW
		       ? tf_xstrfmt("%s/tensorflow/include/" SE_HEADER,
				    fw->site)
		       : pjrt_header_path(fw);
	if (!path)
		return error(
			"%s: framework %s: no %s in '%s/jaxlib/include' or "
			"'%s/tensorflow/include' (name the header the "
			"plugin was built with in the recipe's "
			"framework.pjrt-header)",
			context, fw->name, PJRT_HEADER, fw->site, fw->site);
	if (tf_header_macros(path, k->macros, v, k->nr_macros, &why) < 0 ||
	    tf_sha256_file(path, md, NULL) < 0) {
		ret = error("%s: framework %s: %s", context, fw->name,
			    why.len ? why.buf : path);
		goto out;
	}
	fw->api_version = k->nr_macros == 3
				  ? tf_xstrfmt("%ld.%ld.%ld", v[0], v[1], v[2])
				  : tf_xstrfmt("%ld.%ld", v[0], v[1]);
	fw->api_file = tf_strdup(path);
	fw->api_shown = shown_header(fw, path);
	tf_sha256_hex(md, fw->api_sha256);
out:
	free(path);
	tf_buf_release(&why);
	return ret;
}

/* ------------------------------------------------------------------ window */

void tf_framework_window(const struct tf_framework *fw, struct tf_buf *out)
{
	struct tf_buf name = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_version v;

	tf_pyname_normalize(fw->name, &name);
	if (fw->kind == TF_FRAMEWORK_JAX) {
		/* The framework side of the PJRT C API is jaxlib's. */
		tf_buf_addf(out, "jaxlib==%s", fw->version);
	} else if (fw->kind == TF_FRAMEWORK_TENSORFLOW &&
		   !tf_version_parse(fw->version, &v, &why) &&
		   v.nr_release >= 2) {
		/* Sorted as packaging writes a SpecifierSet: "<" first. */
		tf_buf_addf(out, "%s<", name.buf);
		if (v.epoch)
			tf_buf_addf(out, "%lu!", v.epoch);
		tf_buf_addf(out, "%lu.%lu,>=%s", v.release[0], v.release[1] + 1,
			    fw->version);
	} else {
		tf_buf_addf(out, "%s==%s", fw->name, fw->version);
	}
	tf_buf_release(&name);
	tf_buf_release(&why);
}

/* 1 if the normalized name is one of kind's distributions. */
static int names_kind(int kind, const char *norm)
{
	size_t i;

	for (i = 0; kind != TF_FRAMEWORK_OTHER && kinds[kind].dists[i]; i++)
		if (!strcmp(norm, kinds[kind].dists[i]))
			return 1;
	return 0;
}

/*
 * Judge requirement req against the window's specifiers and the release
 * built against: 0, or -1 with why.
 */
static int judge(const char *req, const char *spec, const char *window,
		 const char *release, struct tf_buf *why)
{
	struct tf_version_range have, want;
	struct tf_version v;

	if (!*spec)
		return tf_why(why, "'%s' admits every release", req);
	if (tf_specifiers_range(spec, &have, why) < 0)
		return -1;
	if (tf_specifiers_range(window, &want, why) < 0 ||
	    tf_version_parse(release, &v, why) < 0)
		return -1;
	if (!tf_version_range_has(&have, &v))
		return tf_why(why,
			      "'%s' excludes %s, the release it was built "
			      "against",
			      req, release);
	if (!tf_version_range_within(&have, &want))
		return tf_why(why, "'%s' is wider than the window '%s'", req,
			      window);
	return 0;
}

/* The specifiers of a "NAME SPEC" requirement, or NULL. */
static const char *spec_of(const char *req, struct tf_buf *name,
			   struct tf_buf *spec, struct tf_buf *marker)
{
	tf_buf_reset(name);
	tf_buf_reset(spec);
	tf_buf_reset(marker);
	return tf_requirement_split(req, name, spec, marker) < 0 ? NULL
								 : spec->buf;
}

int tf_framework_requirement_check(const struct tf_framework *fw,
				   const char *req, struct tf_buf *why)
{
	struct tf_buf name = TF_BUF_INIT, spec = TF_BUF_INIT,
		      marker = TF_BUF_INIT, window = TF_BUF_INIT,
		      wname = TF_BUF_INIT, wspec = TF_BUF_INIT;
	const char *s = spec_of(req, &name, &spec, &marker);
	int ret = 0;

	if (fw->kind == TF_FRAMEWORK_OTHER || !names_kind(fw->kind, name.buf))
		goto out;
	tf_framework_window(fw, &window);
	spec_of(window.buf, &wname, &wspec, &marker);
	if (!s)
		ret = tf_why(why,
			     "'%s' (by URL) cannot be judged against the "
			     "window '%s'",
			     req, wspec.buf);
	else
		ret = judge(req, s, wspec.buf, fw->version, why);
	if (ret)
		tf_buf_addf(why,
			    " (%s built against %s %s; the derived requirement "
			    "is '%s')",
			    kinds[fw->kind].plugin, fw->name, fw->version,
			    window.buf);
out:
	tf_buf_release(&name);
	tf_buf_release(&spec);
	tf_buf_release(&marker);
	tf_buf_release(&window);
	tf_buf_release(&wname);
	tf_buf_release(&wspec);
	return ret;
}

void tf_framework_abi_record(const struct tf_framework *fw, json_t *fwj)
{
	struct tf_buf window = TF_BUF_INIT;

	if (fw->kind == TF_FRAMEWORK_OTHER)
		return;
	tf_framework_window(fw, &window);
	json_object_set_new(fwj, "c-api",
			    json_pack("{s:s, s:s, s:s, s:s}", "name",
				      kinds[fw->kind].api, "version",
				      fw->api_version, "header", fw->api_shown,
				      "header-sha256", fw->api_sha256));
	json_object_set_new(fwj, "requires-dist", json_string(window.buf));
	if (fw->library)
		json_object_set_new(fwj, "library", json_string(fw->library));
	tf_buf_release(&window);
}

/* ------------------------------------------------------------------ verify */

char *tf_framework_record_library(const char *record)
{
	json_t *root = record ? json_loads(record, 0, NULL) : NULL;
	const char *lib = json_string_value(
		json_object_get(json_object_get(root, "framework"), "library"));
	char *ret = lib ? tf_strdup(lib) : NULL;

	json_decref(root);
	return ret;
}

/* "tensorflow 2.21.0 (StreamExecutor C API 0.0.1, cxx11 ABI)" */
static void summary(json_t *fwj, struct tf_buf *out)
{
	json_t *api = json_object_get(fwj, "c-api"),
	       *cxx = json_object_get(fwj, "cxx11-abi");

	tf_buf_addf(out, "%s %s",
		    json_string_value(json_object_get(fwj, "name")),
		    json_string_value(json_object_get(fwj, "version")));
	if (api)
		tf_buf_addf(out, " (%s %s%s",
			    json_string_value(json_object_get(api, "name")),
			    json_string_value(json_object_get(api, "version")),
			    cxx ? (json_is_true(cxx) ? ", cxx11 ABI"
						     : ", pre-cxx11 ABI")
				: "");
	else if (cxx)
		tf_buf_addf(out, " (%s",
			    json_is_true(cxx) ? "cxx11 ABI" : "pre-cxx11 ABI");
	if (api || cxx)
		tf_buf_addch(out, ')');
}

/* The Requires-Dist values of METADATA's header block, pushed on out. */
static void requires_dist(const char *metadata, struct tf_strvec *out)
{
	const char *p = metadata;

	while (*p && *p != '\n' && strncmp(p, "\r\n", 2)) {
		size_t n = strcspn(p, "\n");

		if (n > 14 && !strncasecmp(p, "Requires-Dist:", 14)) {
			const char *v = p + 14;
			size_t vn = n - 14;

			while (vn && (*v == ' ' || *v == '\t'))
				v++, vn--;
			while (vn && (v[vn - 1] == '\r' || v[vn - 1] == ' '))
				vn--;
			tf_strvec_pushf(out, "%.*s", (int)vn, v);
		}
		p += n + (p[n] == '\n');
	}
}

/* 1 if a requirement's marker makes it optional (an extra's). */
static int optional(const char *marker)
{
	return strstr(marker, "extra") != NULL;
}

/*
 * Judge each Requires-Dist of w naming kind's distributions against the
 * record's window (fwj, when its kind is that): 0, or -1 after printing.
 */
static int check_requires(const struct tf_plugin_wheel *w, int kind,
			  const char *lib, json_t *fwj)
{
	const struct kind_info *k = &kinds[kind];
	struct tf_strvec reqs = TF_STRVEC_INIT;
	struct tf_buf name = TF_BUF_INIT, spec = TF_BUF_INIT,
		      marker = TF_BUF_INIT, why = TF_BUF_INIT,
		      wname = TF_BUF_INIT, wspec = TF_BUF_INIT;
	const char *window =
		json_string_value(json_object_get(fwj, "requires-dist"));
	const char *release =
		json_string_value(json_object_get(fwj, "version"));
	size_t i, found = 0;
	int ret = 0;

	if (window && (!release || !spec_of(window, &wname, &wspec, &marker) ||
		       tf_framework_kind_of(wname.buf) != kind))
		window = NULL;
	requires_dist(w->metadata, &reqs);
	for (i = 0; i < reqs.nr && !ret; i++) {
		const char *s = spec_of(reqs.v[i], &name, &spec, &marker);

		if (!names_kind(kind, name.buf) || optional(marker.buf))
			continue;
		found++;
		if (!window) {
			verbose("%s: Requires-Dist '%s': its width cannot be "
				"judged: no .dist-info/%s says which release "
				"%s was built against",
				w->path, reqs.v[i], TF_FRAMEWORK_RECORD, lib);
			continue;
		}
		tf_buf_reset(&why);
		if (!s)
			ret = tf_why(&why, "'%s' (by URL) cannot be judged",
				     reqs.v[i]);
		else
			ret = judge(reqs.v[i], s, wspec.buf, release, &why);
		if (ret)
			error("%s: METADATA: Requires-Dist %s: %s (%s) was "
			      "built against %s %s, whose ABI holds for '%s' "
			      "only",
			      w->path, why.buf, lib, k->plugin,
			      json_string_value(json_object_get(fwj, "name")),
			      release, window);
	}
	if (!ret && !found)
		ret = error(
			"%s: %s is %s, but METADATA has no Requires-Dist on "
			"%s or %s: a resolver may pair it with any release, "
			"whose %s it was not built for",
			w->path, lib, k->plugin, k->dists[0], k->dists[1],
			k->api);
	tf_strvec_release(&reqs);
	tf_buf_release(&name);
	tf_buf_release(&spec);
	tf_buf_release(&marker);
	tf_buf_release(&why);
	tf_buf_release(&wname);
	tf_buf_release(&wspec);
	return ret;
}

int tf_framework_plugin_verify(const struct tf_plugin_wheel *w)
{
	json_error_t err;
	json_t *root = NULL, *fwj = NULL;
	struct tf_buf line = TF_BUF_INIT;
	int ret = 0;

	if (w->record) {
		root = json_loads(w->record, 0, &err);
		fwj = json_object_get(root, "framework");
		if (!json_string_value(json_object_get(fwj, "name")) ||
		    !json_string_value(json_object_get(fwj, "version"))) {
			ret = error("%s: .dist-info/%s: malformed framework "
				    "record",
				    w->path, TF_FRAMEWORK_RECORD);
			goto out;
		}
		summary(fwj, &line);
		if (w->report)
			info("%s: built for %s", w->path, line.buf);
	}
	if (w->tf_lib)
		ret = check_requires(w, TF_FRAMEWORK_TENSORFLOW, w->tf_lib,
				     fwj);
	if (!ret && w->pjrt_lib)
		ret = check_requires(w, TF_FRAMEWORK_JAX, w->pjrt_lib, fwj);
out:
	json_decref(root);
	tf_buf_release(&line);
	return ret;
}

int tf_framework_record_read(const char *path, struct tf_buf *out)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_wheel_reader *r =
		tf_wheel_open(path, TF_WHEEL_STREAMABLE, 65536, &why);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	char chunk[65536];
	ssize_t n = 0;
	int found = 0;

	if (!r) {
		error("%s: cannot read the zip archive: %s", path, why.buf);
		tf_buf_release(&why);
		return -1;
	}
	while (!found && (step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER) {
		const char *slash = m->name ? strchr(m->name, '/') : NULL;

		if (m->type != TF_WHEEL_FILE || !slash ||
		    slash - m->name <= 10 ||
		    strncmp(slash - 10, ".dist-info", 10) ||
		    strcmp(slash + 1, TF_FRAMEWORK_RECORD))
			continue;
		found = 1;
		while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0)
			tf_buf_add(out, chunk, (size_t)n);
	}
	if (n < 0 || (!found && step != TF_WHEEL_END)) {
		error("%s: cannot read the zip archive: %s", path,
		      tf_wheel_error(r));
		found = -1;
	}
	tf_wheel_close(r);
	tf_buf_release(&why);
	return found;
}
