#include "wheelread.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/base.h"

static struct tf_wheel_entry *add(struct tf_wheel_listing *l)
{
	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 64;
		l->v = tf_realloc(l->v, l->alloc * sizeof(*l->v));
	}
	memset(&l->v[l->nr], 0, sizeof(*l->v));
	return &l->v[l->nr++];
}

static int hash_data(struct archive *a, struct tf_wheel_entry *e,
		     const char *path)
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	char chunk[65536];
	la_ssize_t n;

	while ((n = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
		tf_sha256_update(h, chunk, (size_t)n);
		e->size += n;
	}
	if (n < 0) {
		tf_sha256_free(h);
		return error("%s: %s: %s", path, e->name, archive_error_string(a));
	}
	tf_sha256_final(h, md);
	tf_sha256_hex(md, e->sha256);
	return 0;
}

int tf_wheel_list(const char *path, struct tf_wheel_listing *out)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	/* Zip names may be UTF-8; the C locale cannot decode them. */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t old = utf8 ? uselocale(utf8) : (locale_t)0;
	int r, ret = 0;

	if (!a)
		die(TF_EXIT_FAILURE, "out of memory");
	if (archive_read_support_format_zip_seekable(a) != ARCHIVE_OK ||
	    archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		ret = error("%s: cannot read the zip archive: %s", path,
			    archive_error_string(a));
		goto out;
	}
	while (!ret && (r = archive_read_next_header(a, &ae)) != ARCHIVE_EOF) {
		struct tf_wheel_entry *e;
		const char *name;

		if (r < ARCHIVE_WARN) {
			ret = error("%s: %s", path, archive_error_string(a));
			break;
		}
		name = archive_entry_pathname_utf8(ae);
		e = add(out);
		e->name = tf_strdup(name ? name : archive_entry_pathname(ae));
		e->mode = (unsigned)archive_entry_perm(ae);
		e->mtime = (long long)archive_entry_mtime(ae);
		ret = hash_data(a, e, path);
	}
out:
	archive_read_free(a);
	if (utf8) {
		uselocale(old);
		freelocale(utf8);
	}
	return ret;
}

void tf_wheel_listing_release(struct tf_wheel_listing *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
