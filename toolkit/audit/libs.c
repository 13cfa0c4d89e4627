/*
 * Library resolutions and their record in the wheel. jansson writes and
 * reads the record (attest.c is the other file using it, for its own
 * JSON); the keys are sorted so the bytes are reproducible.
 */
#include "libs.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "metadata/metadata.h"

/* "vendor", "provided", "system". */
static const char *tf_lib_kind_name(enum tf_lib_kind kind)
{
	switch (kind) {
	case TF_LIB_VENDOR:
		return "vendor";
	case TF_LIB_PROVIDED:
		return "provided";
	case TF_LIB_SYSTEM:
		return "system";
	case TF_LIB_FRAMEWORK:
		return "framework";
	case TF_LIB_EXTERNAL:
		return "external";
	}
	return "unknown";
}

const struct tf_lib *tf_libs_find(const struct tf_lib *libs, size_t n,
				  const char *soname)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(libs[i].soname, soname))
			return &libs[i];
	return NULL;
}

static int cmp_libs(const void *a, const void *b)
{
	const struct tf_lib *const *x = a, *const *y = b;

	return strcmp((*x)->soname, (*y)->soname);
}

static json_t *lib_json(const struct tf_lib *l)
{
	json_t *o = json_object();

	json_object_set_new(o, "soname", json_string(l->soname));
	json_object_set_new(o, "resolution",
			    json_string(tf_lib_kind_name(l->kind)));
	if (l->from)
		json_object_set_new(o, "requirement", json_string(l->from));
	if (l->runpath)
		json_object_set_new(o, "runpath", json_string(l->runpath));
	if (l->file)
		json_object_set_new(o, "file", json_string(l->file));
	if (l->package)
		json_object_set_new(o, "package", json_string(l->package));
	if (l->dist)
		json_object_set_new(o, "distribution", json_string(l->dist));
	if (l->version)
		json_object_set_new(o, "version", json_string(l->version));
	if (l->hash)
		json_object_set_new(o, "hash", json_string(l->hash));
	return o;
}

void tf_libs_record_write(const struct tf_lib *libs, size_t n,
			  struct tf_buf *out)
{
	const struct tf_lib **sorted = tf_calloc(n + 1, sizeof(*sorted));
	json_t *root = json_object(), *arr = json_array();
	char *text;
	size_t i;

	for (i = 0; i < n; i++)
		sorted[i] = &libs[i];
	qsort(sorted, n, sizeof(*sorted), cmp_libs);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, lib_json(sorted[i]));
	json_object_set_new(root, "libraries", arr);
	json_object_set_new(root, "version", json_integer(1));
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2));
	if (!text)
		tf_out_of_memory(0);
	tf_buf_addstr(out, text);
	tf_buf_addch(out, '\n');
	free(text);
	json_decref(root);
	free(sorted);
}

static int kind_from_name(const char *s, enum tf_lib_kind *out)
{
	static const enum tf_lib_kind kinds[] = {
		TF_LIB_SYSTEM,    TF_LIB_VENDOR,   TF_LIB_PROVIDED,
		TF_LIB_FRAMEWORK, TF_LIB_EXTERNAL,
	};
	size_t i;

	for (i = 0; s && i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strcmp(s, tf_lib_kind_name(kinds[i]))) {
			*out = kinds[i];
			return 0;
		}
	return -1;
}

/* A string member, kept in the store; NULL when absent. */
static const char *member(struct tf_libs_record *rec, json_t *o,
			  const char *key, int *bad)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return NULL;
	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		*bad = 1;
		return NULL;
	}
	tf_strvec_push(&rec->store, json_string_value(v));
	return rec->store.v[rec->store.nr - 1];
}

static int parse_entry(struct tf_libs_record *rec, json_t *o, size_t i,
		       struct tf_buf *why)
{
	struct tf_lib *l = &rec->v[i];
	const char *kind;
	int bad = 0;

	if (!json_is_object(o)) {
		tf_buf_addf(why, "libraries[%zu] is not an object", i);
		return -1;
	}
	l->soname = member(rec, o, "soname", &bad);
	kind = member(rec, o, "resolution", &bad);
	l->from = member(rec, o, "requirement", &bad);
	l->runpath = member(rec, o, "runpath", &bad);
	l->file = member(rec, o, "file", &bad);
	l->package = member(rec, o, "package", &bad);
	l->dist = member(rec, o, "distribution", &bad);
	l->version = member(rec, o, "version", &bad);
	l->hash = member(rec, o, "hash", &bad);
	if (bad || !l->soname || !*l->soname ||
	    kind_from_name(kind, &l->kind)) {
		tf_buf_addf(why,
			    "libraries[%zu] needs a string 'soname' and a "
			    "'resolution' of vendor, provided, system, "
			    "framework or external",
			    i);
		return -1;
	}
	if (l->kind == TF_LIB_PROVIDED && (!l->from || !l->runpath)) {
		tf_buf_addf(why,
			    "libraries[%zu] ('%s') is provided but lacks "
			    "'requirement' or 'runpath'",
			    i, l->soname);
		return -1;
	}
	if (l->kind == TF_LIB_FRAMEWORK && !l->from) {
		tf_buf_addf(why,
			    "libraries[%zu] ('%s') is the framework's but "
			    "lacks 'requirement'",
			    i, l->soname);
		return -1;
	}
	if (l->kind == TF_LIB_EXTERNAL &&
	    (!l->from || !l->file || !l->dist || !l->version)) {
		tf_buf_addf(why,
			    "libraries[%zu] ('%s') is external but lacks "
			    "'requirement', 'file', 'distribution' or "
			    "'version'",
			    i, l->soname);
		return -1;
	}
	if (l->kind == TF_LIB_VENDOR && !l->file) {
		tf_buf_addf(why,
			    "libraries[%zu] ('%s') is vendored but lacks "
			    "'file'",
			    i, l->soname);
		return -1;
	}
	return 0;
}

int tf_libs_record_parse(const char *text, size_t len,
			 struct tf_libs_record *out, struct tf_buf *why)
{
	json_error_t err;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	json_t *arr;
	size_t i;
	int ret = -1;

	if (!root) {
		tf_buf_addf(why, "line %d: %s", err.line, err.text);
		return -1;
	}
	arr = json_object_get(root, "libraries");
	if (!json_is_object(root) || !json_is_array(arr) ||
	    json_integer_value(json_object_get(root, "version")) != 1) {
		tf_buf_addstr(why,
			      "not a version 1 record with a 'libraries' list");
		goto out;
	}
	out->nr = json_array_size(arr);
	out->v = tf_calloc(out->nr + 1, sizeof(*out->v));
	for (i = 0; i < out->nr; i++)
		if (parse_entry(out, json_array_get(arr, i), i, why))
			goto out;
	ret = 0;
out:
	json_decref(root);
	return ret;
}

void tf_libs_record_release(struct tf_libs_record *rec)
{
	if (!rec)
		return;
	free(rec->v);
	rec->v = NULL;
	rec->nr = 0;
	tf_strvec_release(&rec->store);
}

/* The project name at the start of a PEP 508 requirement, normalized. */
static void requirement_name(const char *req, struct tf_buf *out)
{
	size_t n = 0;

	while (isspace((unsigned char)*req))
		req++;
	while (req[n] &&
	       (isalnum((unsigned char)req[n]) || strchr("-_.", req[n])))
		n++;
	{
		char *name = tf_strndup(req, n);

		tf_pyname_normalize(name, out);
		free(name);
	}
}

int tf_libs_requirement_listed(const char *req, const char *const *reqs,
			       size_t n)
{
	struct tf_buf want = TF_BUF_INIT, have = TF_BUF_INIT;
	size_t i;
	int found = 0;

	requirement_name(req, &want);
	for (i = 0; !found && i < n; i++) {
		tf_buf_reset(&have);
		requirement_name(reqs[i], &have);
		found = want.len && !strcmp(want.buf, have.buf);
	}
	tf_buf_release(&want);
	tf_buf_release(&have);
	return found;
}

void tf_libs_external_runpath(const char *file_in_wheel, const char *lib_file,
			      struct tf_buf *out)
{
	const char *p, *slash = strrchr(lib_file, '/');

	tf_buf_addstr(out, "$ORIGIN");
	for (p = file_in_wheel; (p = strchr(p, '/')); p++)
		tf_buf_addstr(out, "/..");
	if (slash)
		tf_buf_addf(out, "/%.*s", (int)(slash - lib_file), lib_file);
}

int tf_libs_runpath_has(const char *list, const char *entry)
{
	size_t n = strlen(entry);

	while (list && *list) {
		size_t len = strcspn(list, ":");

		if (len == n && !strncmp(list, entry, n))
			return 1;
		list += len + (list[len] == ':');
	}
	return 0;
}
