#include "zipcheck.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limit.h"
#include "log.h"

#define CHUNK 65536

/* One listing: names and sizes, in order. */
struct listing {
	struct tf_strvec names;  /* owned */
	struct tf_strvec sizes;  /* owned; decimal, "?" when not known */
};

static int end_record(const char *path, struct tf_buf *why)
{
	static const unsigned char sig[4] = { 'P', 'K', 5, 6 };
	unsigned char e[22];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 22) {
		if (fd >= 0)
			close(fd);
		tf_buf_setf(why, "not a zip archive (no end record)");
		return -1;
	}
	ok = pread(fd, e, sizeof(e), st.st_size - 22) == (ssize_t)sizeof(e);
	close(fd);
	if (!ok || memcmp(e, sig, 4)) {
		tf_buf_setf(why, "data after the zip archive's end, or a zip comment");
		return -1;
	}
	if (e[20] || e[21]) {
		tf_buf_setf(why, "the zip archive has a comment");
		return -1;
	}
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * The names in the central directory, as Python's zipfile (pip) reads
 * them: libarchive's seekable reader takes each name from the local
 * header instead, so a name the two disagree on would go unseen.
 */
static int central_names(const char *path, struct tf_strvec *names,
			 struct tf_buf *why)
{
	unsigned char e[22], z[56], h[46];
	uint64_t off, count, i;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	if (fd < 0 || fstat(fd, &st) < 0 ||
	    pread(fd, e, 22, st.st_size - 22) != 22)
		goto bad;
	off = le(e + 16, 4);
	count = le(e + 10, 2);
	if ((off == 0xffffffff || count == 0xffff) && st.st_size >= 42) {
		unsigned char loc[20];

		if (pread(fd, loc, 20, st.st_size - 42) != 20 ||
		    memcmp(loc, "PK\6\7", 4) ||
		    pread(fd, z, 56, (off_t)le(loc + 8, 8)) != 56 ||
		    memcmp(z, "PK\6\6", 4))
			goto bad;
		count = le(z + 32, 8);
		off = le(z + 48, 8);
	}
	for (i = 0; i < count; i++) {
		struct tf_buf name = TF_BUF_INIT;
		size_t n;

		if (pread(fd, h, 46, (off_t)off) != 46 || memcmp(h, "PK\1\2", 4))
			goto bad;
		n = (size_t)le(h + 28, 2);
		tf_buf_grow(&name, n);
		if (pread(fd, name.buf, n, (off_t)off + 46) != (ssize_t)n) {
			tf_buf_release(&name);
			goto bad;
		}
		name.buf[n] = 0;
		name.len = strlen(name.buf);
		tf_strvec_push(names, name.buf);
		tf_buf_release(&name);
		off += 46 + n + le(h + 30, 2) + le(h + 32, 2);
	}
	ret = 0;
	goto out;
bad:
	tf_buf_setf(why, "the zip archive's central directory cannot be read");
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

static int list(const char *path, int seekable, struct listing *l,
		uint64_t *total, struct tf_buf *why)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char size[32];
	int r, ret = 0;

	if (!a)
		die(TF_EXIT_FAILURE, "out of memory");
	if (seekable)
		archive_read_support_format_zip_seekable(a);
	else
		archive_read_support_format_zip_streamable(a);
	if (archive_read_open_filename(a, path, CHUNK) != ARCHIVE_OK) {
		tf_buf_setf(why, "cannot read the zip archive: %s",
			    archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(e);
		la_int64_t n = archive_entry_size(e);

		if (archive_entry_size_is_set(e)) {
			snprintf(size, sizeof(size), "%lld", (long long)n);
			if (n > 0)
				*total += (uint64_t)n;
		} else {
			strcpy(size, "?");
		}
		tf_strvec_push(&l->names, name ? name : "");
		tf_strvec_push(&l->sizes, size);
	}
	if (r != ARCHIVE_EOF) {
		tf_buf_setf(why, "cannot read the zip archive%s: %s",
			    seekable ? "" : "'s local headers",
			    archive_error_string(a));
		ret = -1;
	}
	archive_read_free(a);
	return ret;
}

static int compare(const struct listing *cd, const struct listing *local,
		   struct tf_buf *why)
{
	size_t i;

	for (i = 0; i < cd->names.nr && i < local->names.nr; i++) {
		if (strcmp(cd->names.v[i], local->names.v[i])) {
			tf_buf_setf(why, "%s: the central directory names the entry '%s' that the local header calls '%s'",
				    cd->names.v[i], cd->names.v[i], local->names.v[i]);
			return -1;
		}
		if (strcmp(cd->sizes.v[i], local->sizes.v[i]) &&
		    strcmp(local->sizes.v[i], "?")) {
			tf_buf_setf(why, "%s: size %s in the central directory, %s in the local header",
				    cd->names.v[i], cd->sizes.v[i], local->sizes.v[i]);
			return -1;
		}
	}
	if (cd->names.nr != local->names.nr) {
		tf_buf_setf(why, "%zu entries in the central directory, %zu local headers (overlapping or hidden entries)",
			    cd->names.nr, local->names.nr);
		return -1;
	}
	return 0;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Installers and streaming readers find RECORD last (PEP 427). */
static int record_not_last(const struct listing *cd, struct tf_buf *why)
{
	size_t i;

	for (i = 0; i + 1 < cd->names.nr; i++)
		if (ends_with(cd->names.v[i], ".dist-info/RECORD")) {
			tf_buf_setf(why, "%s: not the last entry of the archive",
				    cd->names.v[i]);
			return -1;
		}
	return 0;
}

int tf_zipcheck(const char *path, struct tf_buf *why)
{
	struct listing cd = { TF_STRVEC_INIT, TF_STRVEC_INIT };
	struct listing local = { TF_STRVEC_INIT, TF_STRVEC_INIT };
	struct tf_strvec names = TF_STRVEC_INIT;
	uint64_t total = 0, local_total = 0, max;
	size_t i;
	int ret = -1;

	if (tf_limit_get(&TF_LIMIT_VERIFY_BYTES, &max) < 0) {
		tf_buf_setf(why, "bad %s", TF_LIMIT_VERIFY_BYTES.env);
		return -1;
	}
	if (list(path, 1, &cd, &total, why) < 0 || end_record(path, why) < 0 ||
	    list(path, 0, &local, &local_total, why) < 0 ||
	    compare(&cd, &local, why) < 0)
		goto out;
	if (record_not_last(&cd, why) < 0 || central_names(path, &names, why) < 0)
		goto out;
	for (i = 0; i < names.nr && i < local.names.nr; i++)
		if (strcmp(names.v[i], local.names.v[i])) {
			tf_buf_setf(why, "%s: the central directory names the entry '%s' that the local header calls '%s'",
				    local.names.v[i], names.v[i], local.names.v[i]);
			goto out;
		}
	if (total > max) {
		tf_buf_setf(why, "its entries expand to %llu bytes, over the limit of %llu (%s)",
			    (unsigned long long)total, (unsigned long long)max,
			    TF_LIMIT_VERIFY_BYTES.env);
		goto out;
	}
	ret = 0;
out:
	tf_strvec_release(&names);
	tf_strvec_release(&cd.names);
	tf_strvec_release(&cd.sizes);
	tf_strvec_release(&local.names);
	tf_strvec_release(&local.sizes);
	return ret;
}

int tf_zipcheck_central(const char *path, struct tf_strvec *names,
			struct tf_buf *why)
{
	return end_record(path, why) < 0 || central_names(path, names, why) < 0 ?
	       -1 : 0;
}
