/* The one wheel reader (libarchive's zip readers), and `tfbuild diff`'s listing. */
#include "wheelread.h"

#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/base.h"

struct tf_wheel_reader {
	struct archive *a;        /* owned */
	int utf8;                 /* TF_WHEEL_UTF8 */
	struct tf_wheel_member m; /* the current member; name borrowed
				      from libarchive's entry */
};

/* Under TF_WHEEL_UTF8, a UTF-8 LC_CTYPE until tf_locale_restore(). */
static locale_t enter(const struct tf_wheel_reader *r)
{
	return r->utf8 ? tf_locale_utf8_enter() : (locale_t)0;
}

/* libarchive's text, or what printf showed of a NULL one. */
static const char *error_text(struct archive *a)
{
	const char *s = archive_error_string(a);

	return s ? s : "(null)";
}

static int support(struct archive *a, unsigned how)
{
	switch (how & (TF_WHEEL_SEEKABLE | TF_WHEEL_STREAMABLE)) {
	case TF_WHEEL_SEEKABLE:
		return archive_read_support_format_zip_seekable(a);
	case TF_WHEEL_STREAMABLE:
		return archive_read_support_format_zip_streamable(a);
	case TF_WHEEL_SEEKABLE | TF_WHEEL_STREAMABLE:
		return archive_read_support_format_zip(a);
	}
	BUG("no zip reader asked for (how %u)", how);
}

struct tf_wheel_reader *tf_wheel_open(const char *path, unsigned how,
				      size_t block, struct tf_buf *why)
{
	struct tf_wheel_reader *r = tf_calloc(1, sizeof(*r));
	locale_t old;
	int ok;

	r->utf8 = !!(how & TF_WHEEL_UTF8);
	old = enter(r);
	r->a = archive_read_new();
	if (!r->a)
		tf_out_of_memory(0);
	ok = support(r->a, how) == ARCHIVE_OK &&
	     archive_read_open_filename(r->a, path, block) == ARCHIVE_OK;
	tf_locale_restore(old);
	if (!ok) {
		tf_buf_addstr(why, error_text(r->a));
		tf_wheel_close(r);
		return NULL;
	}
	return r;
}

static enum tf_wheel_type type_of(struct archive_entry *e)
{
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return TF_WHEEL_FILE;
	case AE_IFDIR:
		return TF_WHEEL_DIR;
	}
	return TF_WHEEL_OTHER;
}

static void describe(struct tf_wheel_reader *r, struct archive_entry *e)
{
	struct tf_wheel_member *m = &r->m;

	/* The name as stored (zip names are UTF-8 or plain bytes). */
	m->name = r->utf8 ? archive_entry_pathname_utf8(e) : NULL;
	if (!m->name)
		m->name = archive_entry_pathname(e);
	m->type = type_of(e);
	m->size_known = !!archive_entry_size_is_set(e);
	m->size = (long long)archive_entry_size(e);
	m->mode = (unsigned)archive_entry_perm(e);
	m->mtime = (long long)archive_entry_mtime(e);
}

enum tf_wheel_step tf_wheel_next(struct tf_wheel_reader *r,
				 const struct tf_wheel_member **m)
{
	struct archive_entry *e;
	locale_t old = enter(r);
	int rc = archive_read_next_header(r->a, &e);
	enum tf_wheel_step step = TF_WHEEL_ERROR;

	if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN) {
		describe(r, e);
		*m = &r->m;
		step = rc == ARCHIVE_OK ? TF_WHEEL_MEMBER : TF_WHEEL_WARNED;
	} else if (rc == ARCHIVE_EOF) {
		step = TF_WHEEL_END;
	}
	tf_locale_restore(old);
	return step;
}

ssize_t tf_wheel_read(struct tf_wheel_reader *r, void *buf, size_t n)
{
	locale_t old = enter(r);
	la_ssize_t got = archive_read_data(r->a, buf, n);

	tf_locale_restore(old);
	return got < 0 ? -1 : (ssize_t)got;
}

const char *tf_wheel_error(struct tf_wheel_reader *r)
{
	return error_text(r->a);
}

void tf_wheel_close(struct tf_wheel_reader *r)
{
	locale_t old;

	if (!r)
		return;
	old = enter(r);
	if (r->a)
		archive_read_free(r->a);
	tf_locale_restore(old);
	free(r);
}

/* --- the listing `tfbuild diff` compares --- */

static struct tf_wheel_entry *add(struct tf_wheel_listing *l)
{
	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 64;
		l->v = tf_realloc(l->v, l->alloc * sizeof(*l->v));
	}
	memset(&l->v[l->nr], 0, sizeof(*l->v));
	return &l->v[l->nr++];
}

static int hash_data(struct tf_wheel_reader *r, struct tf_wheel_entry *e,
		     const char *path)
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	char chunk[65536];
	ssize_t n;

	while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0) {
		tf_sha256_update(h, chunk, (size_t)n);
		e->size += n;
	}
	if (n < 0) {
		tf_sha256_free(h);
		return error("%s: %s: %s", path, e->name, tf_wheel_error(r));
	}
	tf_sha256_final(h, md);
	tf_sha256_hex(md, e->sha256);
	return 0;
}

int tf_wheel_list(const char *path, struct tf_wheel_listing *out)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_wheel_reader *r = tf_wheel_open(
		path, TF_WHEEL_SEEKABLE | TF_WHEEL_UTF8, 65536, &why);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	int ret = 0;

	if (!r) {
		ret = error("%s: cannot read the zip archive: %s", path,
			    why.buf);
		tf_buf_release(&why);
		return ret;
	}
	while (!ret && (step = tf_wheel_next(r, &m)) != TF_WHEEL_END) {
		struct tf_wheel_entry *e;

		if (step == TF_WHEEL_ERROR) {
			ret = error("%s: %s", path, tf_wheel_error(r));
			break;
		}
		e = add(out);
		e->name = tf_strdup(m->name);
		e->mode = m->mode;
		e->mtime = m->mtime;
		ret = hash_data(r, e, path);
	}
	tf_wheel_close(r);
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
