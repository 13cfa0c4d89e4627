/*
 * The lock file (index.h): JSON, read and written with jansson.
 *
 *   {"pins": [{"file": ..., "requirement": ..., "sha256": ...,
 *              "target": ...}, ...], "version": 1}
 *
 * No index URL: the index is the user's configuration, the digest pins
 * the bytes.
 */
#include "index.h"
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#define LOCK_VERSION 1
/* A lock of a thousand pins is 300 KiB; past this it is not one. */
#define LOCK_MAX_BYTES (64 << 20)

static int by_target(const void *a, const void *b)
{
	const struct tf_index_pin *x = a, *y = b;
	int c = strcmp(x->target, y->target);

	return c ? c : strcmp(x->requirement, y->requirement);
}

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * The lock file's bytes into out: 1 if there is none, 0, or -1 after
 * reporting. Only a regular file is read, and that is looked at first
 * (base/path.c's tf_read_regular): a FIFO would block for ever.
 */
static int read_lock_file(const char *path, struct tf_buf *out)
{
	const char *kind = NULL;
	int ret;

	out->cap = LOCK_MAX_BYTES;
	ret = tf_read_regular(path, out, 1, &kind);
	if (ret == -2)
		ret = error("%s: not a regular file (%s); a lock file is "
			    "JSON in a regular file",
			    path, kind);
	return ret;
}

int tf_index_pins_read(const char *path, struct tf_index_pins *pins)
{
	struct tf_buf text = TF_BUF_INIT;
	json_error_t err;
	json_t *root, *list, *e;
	size_t i;
	int ret = read_lock_file(path, &text);

	if (ret) {
		tf_buf_release(&text);
		return ret > 0 ? 0 : -1;
	}
	root = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES, &err);
	tf_buf_release(&text);
	if (!root)
		return error("%s:%d:%d: not a lock file: %s", path, err.line,
			     err.column, err.text);
	list = json_object_get(root, "pins");
	if (!json_is_object(root) ||
	    json_integer_value(json_object_get(root, "version")) !=
		    LOCK_VERSION ||
	    !json_is_array(list))
		ret = error("%s: not a lock file of version %d (want an object "
			    "with \"version\": %d and a \"pins\" list)",
			    path, LOCK_VERSION, LOCK_VERSION);
	json_array_foreach(list, i, e)
	{
		const char *t = str_of(e, "target"),
			   *r = str_of(e, "requirement"),
			   *f = str_of(e, "file"), *s = str_of(e, "sha256");

		if (ret)
			break;
		if (!t || !r || !f || !s || !tf_sha256_is_hex(s) ||
		    strchr(f, '/')) {
			ret = error("%s: pin %zu: want strings \"target\", "
				    "\"requirement\", \"file\" and \"sha256\" "
				    "(64 lowercase hex digits)",
				    path, i + 1);
			break;
		}
		tf_index_pins_set(pins, t, r, f, s)->nth = i + 1;
	}
	json_decref(root);
	return ret;
}

int tf_index_pins_write(const char *path, struct tf_index_pins *pins)
{
	json_t *root = json_object(), *list = json_array();
	char *text;
	size_t i;
	int ret;

	if (pins->nr)
		qsort(pins->v, pins->nr, sizeof(*pins->v), by_target);
	for (i = 0; i < pins->nr; i++)
		json_array_append_new(
			list, json_pack("{s:s,s:s,s:s,s:s}", "target",
					pins->v[i].target, "requirement",
					pins->v[i].requirement, "file",
					pins->v[i].file, "sha256",
					pins->v[i].sha256));
	json_object_set_new(root, "version", json_integer(LOCK_VERSION));
	json_object_set_new(root, "pins", list);
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		tf_out_of_memory(0);
	{
		struct tf_buf b = TF_BUF_INIT;

		tf_buf_addf(&b, "%s\n", text);
		ret = tf_write_file_atomic(path, b.buf, b.len, 0644);
		tf_buf_release(&b);
	}
	free(text);
	return ret;
}

struct tf_index_pin *tf_index_pins_find(const struct tf_index_pins *pins,
					const char *target,
					const char *requirement)
{
	size_t i;

	for (i = 0; i < pins->nr; i++)
		if (!strcmp(pins->v[i].target, target) &&
		    !strcmp(pins->v[i].requirement, requirement))
			return &pins->v[i];
	return NULL;
}

static void pin_free(struct tf_index_pin *p)
{
	free(p->target);
	free(p->requirement);
	free(p->file);
	free(p->sha256);
}

struct tf_index_pin *tf_index_pins_set(struct tf_index_pins *pins,
				       const char *target,
				       const char *requirement,
				       const char *file, const char *sha256)
{
	struct tf_index_pin *p = tf_index_pins_find(pins, target, requirement);

	if (p) {
		pin_free(p);
	} else {
		if (pins->nr == pins->alloc) {
			pins->alloc = pins->alloc ? 2 * pins->alloc : 8;
			pins->v = tf_realloc(pins->v,
					     pins->alloc * sizeof(*pins->v));
		}
		p = &pins->v[pins->nr++];
	}
	p->target = tf_strdup(target);
	p->requirement = tf_strdup(requirement);
	p->file = tf_strdup(file);
	p->sha256 = tf_strdup(sha256);
	p->nth = 0;
	return p;
}

void tf_index_pins_release(struct tf_index_pins *pins)
{
	size_t i;

	for (i = 0; i < pins->nr; i++)
		pin_free(&pins->v[i]);
	free(pins->v);
	pins->v = NULL;
	pins->nr = pins->alloc = 0;
}
