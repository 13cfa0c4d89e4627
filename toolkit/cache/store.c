#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "acentry.h"

#define STALE_TMP_SECONDS (24L * 60 * 60)
/* "mac " HEX "\n": the line the local store adds to an entry's text. */
#define MAC_LINE_LEN (4 + TF_SHA256_HEX_LEN + 1)

/* A new key at path: random bytes, 0600, linked into place so that two
 * tfbuilds making it at once agree on one (the loser reads the winner's). */
static int make_key(const struct tf_store *s, const char *path)
{
	unsigned char key[TF_STORE_KEY_LEN];
	struct tf_buf tmp = TF_BUF_INIT;
	size_t got = 0;
	int fd, ret = 0;

	while (got < sizeof(key)) {
		ssize_t n = getrandom(key + got, sizeof(key) - got, 0);

		if (n < 0 && errno != EINTR)
			return error_errno("cannot make the store's key");
		got += n > 0 ? (size_t)n : 0;
	}
	tf_buf_setf(&tmp, "%s/tmp/mac.key.XXXXXX", s->dir);
	fd = mkstemp(tmp.buf); /* 0600 */
	if (fd < 0) {
		ret = error_errno("cannot create '%s'", tmp.buf);
	} else {
		if (tf_write_all(fd, key, sizeof(key)) || fsync(fd) ||
		    (link(tmp.buf, path) && errno != EEXIST))
			ret = error_errno("cannot write the store's key '%s'",
					  path);
		close(fd);
		unlink(tmp.buf);
	}
	tf_buf_release(&tmp);
	return ret;
}

/* Read mac.key into s->key (s->keyed), making it first when there is
 * none if make; without make a missing key is no error (no entry is
 * then taken: nothing was stored since). */
static int load_key(struct tf_store *s, int make)
{
	struct tf_buf path = TF_BUF_INIT;
	struct stat st;
	int fd, ret = -1;

	tf_buf_setf(&path, "%s/mac.key", s->dir);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		if (!make) {
			ret = 0;
			goto out;
		}
		if (make_key(s, path.buf))
			goto out;
		fd = open(path.buf, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0)
		error_errno("cannot open the store's key '%s'", path.buf);
	else if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		 st.st_size != TF_STORE_KEY_LEN || (st.st_mode & 077))
		error("'%s' is not a store key (%d bytes, mode 0600): remove "
		      "it, and tfbuild makes a new one (every entry of the "
		      "local store is then a miss)",
		      path.buf, TF_STORE_KEY_LEN);
	else if (read(fd, s->key, TF_STORE_KEY_LEN) != TF_STORE_KEY_LEN)
		error_errno("cannot read the store's key '%s'", path.buf);
	else
		ret = 0;
	s->keyed = !ret;
	if (fd >= 0)
		close(fd);
out:
	tf_buf_release(&path);
	return ret;
}

/* HMAC-SHA256 (RFC 2104) of text under s's key, in hex. */
static void mac_of(const struct tf_store *s, const char *text, size_t len,
		   char hex[TF_SHA256_HEX_LEN + 1])
{
	unsigned char pad[64], md[TF_SHA256_LEN];
	struct tf_sha256 *h;
	int outer;
	size_t i;

	for (outer = 0; outer < 2; outer++) {
		memset(pad, 0, sizeof(pad));
		memcpy(pad, s->key, TF_STORE_KEY_LEN);
		for (i = 0; i < sizeof(pad); i++)
			pad[i] ^= outer ? 0x5c : 0x36;
		h = tf_sha256_new();
		tf_sha256_update(h, pad, sizeof(pad));
		if (outer)
			tf_sha256_update(h, md, sizeof(md));
		else
			tf_sha256_update(h, text, len);
		tf_sha256_final(h, md); /* frees h */
	}
	tf_sha256_hex(md, hex);
}

/*
 * Split the MAC line off t (an entry as read from ac/) and check it:
 * TF_STORE_OK with t cut to the text, TF_STORE_MISSING without a MAC
 * line, TF_STORE_BAD for a wrong one; why says which.
 */
static enum tf_store_result check_mac(const struct tf_store *s,
				      struct tf_buf *t, struct tf_buf *why)
{
	char want[TF_SHA256_HEX_LEN + 1];
	size_t body = t->len > MAC_LINE_LEN ? t->len - MAC_LINE_LEN : 0;
	const char *line = t->buf + body;
	unsigned char diff = 0;
	size_t i;

	if (!s->keyed || !body || t->buf[body - 1] != '\n' ||
	    strncmp(line, "mac ", 4) || line[MAC_LINE_LEN - 1] != '\n') {
		tf_why(why, "it has no MAC (an entry of an older tfbuild, or "
			    "not written by tfbuild)");
		return TF_STORE_MISSING;
	}
	mac_of(s, t->buf, body, want);
	for (i = 0; i < TF_SHA256_HEX_LEN; i++) /* in constant time */
		diff |= (unsigned char)(want[i] ^ line[4 + i]);
	if (diff) {
		tf_why(why, "its MAC does not match the store's key: tfbuild "
			    "did not write it");
		return TF_STORE_BAD;
	}
	tf_buf_setlen(t, body);
	return TF_STORE_OK;
}

/* Read the entry at path, check its MAC and parse it into e. */
static enum tf_store_result read_entry(const struct tf_store *s,
				       const char *path, struct tf_buf *t,
				       struct tf_ac_entry *e,
				       struct tf_buf *why)
{
	enum tf_store_result ret;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		if (errno == ENOENT)
			return TF_STORE_MISSING;
		tf_why(why, "cannot open '%s': %s", path, strerror(errno));
		return TF_STORE_BAD;
	}
	tf_buf_reset(t);
	tf_buf_grow(t, TF_AC_MAX + MAC_LINE_LEN + 1);
	n = read(fd, t->buf, TF_AC_MAX + MAC_LINE_LEN + 1);
	close(fd);
	if (n < 0) {
		tf_why(why, "cannot read '%s': %s", path, strerror(errno));
		return TF_STORE_BAD;
	}
	tf_buf_setlen(t, (size_t)n);
	if ((ret = check_mac(s, t, why)) != TF_STORE_OK)
		return ret;
	return tf_ac_parse(t->buf, t->len, e, why) ? TF_STORE_BAD : TF_STORE_OK;
}

int tf_store_open(struct tf_store *s, const char *cache_dir)
{
	struct tf_buf b = TF_BUF_INIT;
	static const char *const sub[] = { "cas", "ac", "tmp", NULL };
	size_t i;
	int ret = 0;

	s->keyed = 0;
	tf_path_join(&b, cache_dir, "store");
	s->dir = tf_buf_detach(&b);
	for (i = 0; !ret && sub[i]; i++) {
		tf_buf_reset(&b);
		tf_path_join(&b, s->dir, sub[i]);
		ret = tf_mkdir_p(b.buf);
	}
	tf_buf_release(&b);
	return ret || load_key(s, 0) ? -1 : 0;
}

void tf_store_release(struct tf_store *s)
{
	if (!s)
		return;
	free(s->dir);
	s->dir = NULL;
}

/* "<dir>/cas/AB/HEX" or "<dir>/ac/AB/HEX" into out. */
static void tf_store_path(const struct tf_store *s, const char *kind,
			  const char *hex, struct tf_buf *out)
{
	tf_buf_addf(out, "%s/%s/%.2s/%s", s->dir, kind, hex, hex);
}

enum tf_store_result tf_store_get_ac(const struct tf_store *s, const char *key,
				     struct tf_ac_entry *e, struct tf_buf *text,
				     struct tf_buf *why)
{
	struct tf_buf path = TF_BUF_INIT, own = TF_BUF_INIT;
	enum tf_store_result ret;

	tf_store_path(s, "ac", key, &path);
	ret = read_entry(s, path.buf, text ? text : &own, e, why);
	if (ret == TF_STORE_OK && strcmp(e->key, key)) {
		tf_why(why, "it names another key");
		ret = TF_STORE_BAD;
	}
	tf_buf_release(&path);
	tf_buf_release(&own);
	return ret;
}

int tf_store_put_ac(struct tf_store *s, const char *key, const char *text,
		    size_t len)
{
	struct tf_buf path = TF_BUF_INIT, dir = TF_BUF_INIT, t = TF_BUF_INIT;
	char mac[TF_SHA256_HEX_LEN + 1];
	int ret;

	if (!s->keyed && load_key(s, 1))
		return -1;
	mac_of(s, text, len, mac);
	tf_buf_add(&t, text, len);
	tf_buf_addf(&t, "mac %s\n", mac);
	tf_store_path(s, "ac", key, &path);
	tf_path_dirname(&dir, path.buf);
	ret = tf_mkdir_p(dir.buf) ||
	      tf_write_file_atomic(path.buf, t.buf, t.len, 0644);
	tf_buf_release(&path);
	tf_buf_release(&dir);
	tf_buf_release(&t);
	return ret ? -1 : 0;
}

void tf_store_drop(const struct tf_store *s, const char *key, const char *hex)
{
	struct tf_buf path = TF_BUF_INIT;

	tf_store_path(s, "ac", key, &path);
	unlink(path.buf);
	if (hex) {
		tf_buf_reset(&path);
		tf_store_path(s, "cas", hex, &path);
		unlink(path.buf);
	}
	tf_buf_release(&path);
}

/*
 * flock(2), not fcntl: a write lock by fcntl needs a writable fd, and
 * blobs are read-only; and closing any other fd of the file does not
 * drop a flock.
 */
static int lock(int fd, int shared, int wait)
{
	while (flock(fd, (shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)) <
	       0)
		if (errno != EINTR)
			return -1;
	return 0;
}

enum tf_store_result tf_store_open_blob(const struct tf_store *s,
					const char *hex, long long size,
					int *fd, struct tf_buf *why)
{
	struct tf_buf path = TF_BUF_INIT;
	struct tf_sha256 *h;
	unsigned char md[TF_SHA256_LEN], *chunk;
	char got[TF_SHA256_HEX_LEN + 1];
	enum tf_store_result ret = TF_STORE_MISSING;
	long long total = 0;
	ssize_t n;

	tf_store_path(s, "cas", hex, &path);
	*fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		if (errno != ENOENT) {
			tf_why(why, "cannot open '%s': %s", path.buf,
			       strerror(errno));
			ret = TF_STORE_BAD;
		}
		tf_buf_release(&path);
		return ret;
	}
	if (lock(*fd, 1, 1) < 0) {
		tf_why(why, "cannot lock '%s': %s", path.buf, strerror(errno));
		ret = TF_STORE_BAD;
		goto fail;
	}
	/* gc may have unlinked it while we waited: then it is gone. */
	if (!tf_path_exists(path.buf))
		goto fail;
	h = tf_sha256_new();
	chunk = tf_malloc(1 << 16);
	while ((n = read(*fd, chunk, 1 << 16)) > 0) {
		tf_sha256_update(h, chunk, (size_t)n);
		total += n;
	}
	free(chunk);
	tf_sha256_final(h, md);
	tf_sha256_hex(md, got);
	if (n < 0 || strcmp(got, hex) || (size >= 0 && total != size)) {
		if (n < 0)
			tf_why(why, "cannot read '%s': %s", path.buf,
			       strerror(errno));
		else
			tf_why(why, "'%s' is corrupt: its bytes hash to %s",
			       path.buf, got);
		unlink(path.buf);
		ret = TF_STORE_BAD;
		goto fail;
	}
	/* The LRU clock: this blob was just used. */
	futimens(*fd, NULL);
	tf_buf_release(&path);
	return TF_STORE_OK;
fail:
	close(*fd);
	*fd = -1;
	tf_buf_release(&path);
	return ret;
}

int tf_store_tmp(const struct tf_store *s, struct tf_buf *path)
{
	int fd;

	tf_buf_addf(path, "%s/tmp/blob.XXXXXX", s->dir);
	fd = mkostemp(path->buf, O_CLOEXEC);
	if (fd < 0)
		return error_errno("cannot create a temporary file in '%s/tmp'",
				   s->dir);
	return fd;
}

int tf_store_add_blob(const struct tf_store *s, const char *tmp,
		      const char *hex)
{
	struct tf_buf path = TF_BUF_INIT, dir = TF_BUF_INIT;
	int ret = 0;

	tf_store_path(s, "cas", hex, &path);
	tf_path_dirname(&dir, path.buf);
	if (tf_path_exists(path.buf)) {
		/* Same name, same bytes: keep the one readers may hold. */
		unlink(tmp);
		utimensat(AT_FDCWD, path.buf, NULL, 0);
	} else if (tf_mkdir_p(dir.buf) || chmod(tmp, 0444) < 0 ||
		   rename(tmp, path.buf) < 0) {
		ret = error_errno("cannot store '%s'", path.buf);
		unlink(tmp);
	}
	tf_buf_release(&path);
	tf_buf_release(&dir);
	return ret;
}

/* Call fn for each file two levels below <dir>/<kind>. */
static int each_file(const struct tf_store *s, const char *kind,
		     int (*fn)(const char *path, const char *name, void *arg),
		     void *arg)
{
	struct tf_strvec fans = TF_STRVEC_INIT, names = TF_STRVEC_INIT;
	struct tf_buf top = TF_BUF_INIT, sub = TF_BUF_INIT, file = TF_BUF_INIT;
	size_t i, j;
	int ret;

	tf_path_join(&top, s->dir, kind);
	ret = tf_path_is_dir(top.buf) ? tf_list_dir(top.buf, &fans) : 0;
	for (i = 0; !ret && i < fans.nr; i++) {
		tf_buf_reset(&sub);
		tf_path_join(&sub, top.buf, fans.v[i]);
		tf_strvec_release(&names);
		if (!tf_path_is_dir(sub.buf) || tf_list_dir(sub.buf, &names))
			continue;
		for (j = 0; !ret && j < names.nr; j++) {
			tf_buf_reset(&file);
			tf_path_join(&file, sub.buf, names.v[j]);
			ret = fn(file.buf, names.v[j], arg);
		}
	}
	tf_strvec_release(&fans);
	tf_strvec_release(&names);
	tf_buf_release(&top);
	tf_buf_release(&sub);
	tf_buf_release(&file);
	return ret;
}

static int count_entry(const char *path, const char *name, void *arg)
{
	struct tf_store_stats *st = arg;

	if (tf_sha256_is_hex(name))
		st->entries++;
	return 0;
}

static int count_blob(const char *path, const char *name, void *arg)
{
	struct tf_store_stats *st = arg;
	struct stat sb;

	if (tf_sha256_is_hex(name) && !lstat(path, &sb)) {
		st->blobs++;
		st->bytes += sb.st_size;
	}
	return 0;
}

int tf_store_stats(const struct tf_store *s, struct tf_store_stats *st)
{
	memset(st, 0, sizeof(*st));
	return each_file(s, "ac", count_entry, st) ||
			       each_file(s, "cas", count_blob, st)
		       ? -1
		       : 0;
}

static int older(const void *a, const void *b)
{
	const struct tf_store_blob *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	if (x->used_ns != y->used_ns)
		return x->used_ns < y->used_ns ? -1 : 1;
	return strcmp(x->hex, y->hex);
}

size_t tf_store_lru_pick(struct tf_store_blob *v, size_t nr, long long max_size)
{
	long long total = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		total += v[i].size;
	qsort(v, nr, sizeof(*v), older);
	for (i = 0; i < nr && total > max_size; i++)
		total -= v[i].size;
	return i;
}

struct blobs {
	struct tf_store_blob *v;
	size_t nr;
};

static int list_blob(const char *path, const char *name, void *arg)
{
	struct blobs *b = arg;
	struct stat sb;

	if (!tf_sha256_is_hex(name) || lstat(path, &sb) < 0)
		return 0;
	b->v = tf_realloc(b->v, (b->nr + 1) * sizeof(*b->v));
	memcpy(b->v[b->nr].hex, name, sizeof(b->v[b->nr].hex));
	b->v[b->nr].size = sb.st_size;
	b->v[b->nr].used = sb.st_mtim.tv_sec;
	b->v[b->nr].used_ns = sb.st_mtim.tv_nsec;
	b->nr++;
	return 0;
}

int tf_store_evict(const struct tf_store *s, const char *hex)
{
	struct tf_buf path = TF_BUF_INIT;
	int fd, removed = 0;

	tf_store_path(s, "cas", hex, &path);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tf_buf_release(&path);
		return 1; /* gone already */
	}
	if (!lock(fd, 0, 0) && !unlink(path.buf))
		removed = 1;
	close(fd);
	tf_buf_release(&path);
	return removed;
}

struct ac_sweep {
	const struct tf_store *s;
};

/* Drop an action entry whose blob is gone, that does not parse or whose
 * MAC is missing or wrong. */
static int sweep_entry(const char *path, const char *name, void *arg)
{
	struct ac_sweep *w = arg;
	struct tf_buf text = TF_BUF_INIT, why = TF_BUF_INIT, blob = TF_BUF_INIT;
	struct tf_ac_entry e;

	if (tf_sha256_is_hex(name) &&
	    (read_entry(w->s, path, &text, &e, &why) != TF_STORE_OK ||
	     (tf_store_path(w->s, "cas", e.cas, &blob),
	      !tf_path_exists(blob.buf))))
		unlink(path);
	tf_buf_release(&text);
	tf_buf_release(&why);
	tf_buf_release(&blob);
	return 0;
}

static int sweep_tmp(const struct tf_store *s)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf dir = TF_BUF_INIT, p = TF_BUF_INIT;
	time_t now = time(NULL);
	struct stat sb;
	size_t i;

	tf_path_join(&dir, s->dir, "tmp");
	if (!tf_list_dir(dir.buf, &names))
		for (i = 0; i < names.nr; i++) {
			tf_buf_reset(&p);
			tf_path_join(&p, dir.buf, names.v[i]);
			if (!lstat(p.buf, &sb) &&
			    now - sb.st_mtime > STALE_TMP_SECONDS)
				tf_rm_rf(p.buf);
		}
	tf_strvec_release(&names);
	tf_buf_release(&dir);
	tf_buf_release(&p);
	return 0;
}

int tf_store_list(const struct tf_store *s, struct tf_store_blob **v,
		  size_t *nr)
{
	struct blobs b = { NULL, 0 };
	int ret = each_file(s, "cas", list_blob, &b);

	*v = b.v;
	*nr = b.nr;
	return ret;
}

int tf_store_sweep(const struct tf_store *s)
{
	struct ac_sweep w = { s };
	int ret = each_file(s, "ac", sweep_entry, &w);

	sweep_tmp(s);
	return ret;
}

int tf_store_clear(const struct tf_store *s)
{
	static const char *const sub[] = { "ac", "cas", "tmp", NULL };
	struct tf_buf p = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && sub[i]; i++) {
		tf_buf_reset(&p);
		tf_path_join(&p, s->dir, sub[i]);
		/* cas/ files are 0444 in 0755 directories: rm -rf copes. */
		ret = tf_rm_rf(p.buf) || tf_mkdir_p(p.buf);
	}
	tf_buf_release(&p);
	return ret ? -1 : 0;
}

static int verify_blob(const char *path, const char *name, void *arg)
{
	size_t *bad = arg;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];

	if (tf_sha256_file(path, md, NULL)) {
		(*bad)++;
		return 0;
	}
	tf_sha256_hex(md, hex);
	if (strcmp(hex, name)) {
		error("%s: corrupt: its bytes hash to %s", path, hex);
		(*bad)++;
	}
	return 0;
}

struct entry_check {
	const struct tf_store *s;
	size_t bad;
};

static int verify_entry(const char *path, const char *name, void *arg)
{
	struct entry_check *c = arg;
	struct tf_buf text = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_ac_entry e;

	if (read_entry(c->s, path, &text, &e, &why) != TF_STORE_OK ||
	    strcmp(e.key, name)) {
		error("%s: corrupt action entry%s%s", path, why.len ? ": " : "",
		      why.buf);
		c->bad++;
	}
	tf_buf_release(&text);
	tf_buf_release(&why);
	return 0;
}

int tf_store_verify(const struct tf_store *s)
{
	struct entry_check c = { .s = s, .bad = 0 };

	if (each_file(s, "cas", verify_blob, &c.bad) ||
	    each_file(s, "ac", verify_entry, &c))
		return -1;
	return (int)c.bad;
}

long long tf_store_parse_size(const char *s)
{
	uint64_t n;

	if (tf_limit_parse(s, &n) || n > LLONG_MAX)
		return -1;
	return (long long)n;
}
