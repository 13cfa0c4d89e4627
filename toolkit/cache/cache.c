/*
 * Restoring and saving step outputs: the local store first, then the
 * remote cache. Every failure of the remote is reported once, with the
 * URL (credentials removed) and why, and then the remote is left alone
 * for the rest of the run: a server that failed or lied once is not
 * asked again, so a run never waits on it twice.
 */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acentry.h"
#include "archive.h"
#include "base/base.h"
#include "remote.h"
#include "sign.h"
#include "stamp/stamp.h"
#include "store.h"

struct tf_cache {
	struct tf_store store;    /* owned */
	int store_on;             /* look up and save locally */
	struct tf_remote *remote; /* owned, or NULL */
	int remote_off;           /* 1 after a failure: not asked again */
	int upload;               /* upload what is built */
	struct tf_signer *signer; /* owned, or NULL */
	struct tf_trust *trust;   /* owned */
};

int tf_cache_open(struct tf_cache **out, const struct tf_cache_opts *o)
{
	struct tf_cache *c;

	*out = NULL;
	if (!o->store && !o->remote)
		return 0;
	if (o->upload && !o->remote)
		return error(
			"--remote-cache-upload needs a remote cache (--remote-cache URL)");
	if (o->upload && !o->signing_key)
		return error(
			"--remote-cache-upload needs --signing-key KEYFILE: "
			"readers only use signed entries");
	c = tf_calloc(1, sizeof(*c));
	c->store_on = o->store;
	c->upload = o->upload;
	c->trust = tf_trust_new();
	if (tf_store_open(&c->store, o->dir))
		goto fail;
	if (o->signing_key) {
		if (!(c->signer = tf_signer_load(o->signing_key)))
			goto fail;
		tf_trust_add_signer(c->trust, c->signer);
	}
	if (o->trust && tf_trust_add_file(c->trust, o->trust))
		goto fail;
	if (o->remote) {
		if (!tf_trust_count(c->trust)) {
			error("--remote-cache needs --trust KEYFILE (or --signing-key): "
			      "entries are used only when signed by a trusted key");
			goto fail;
		}
		c->remote = tf_remote_new(o->remote, o->timeout);
		if (!c->remote)
			goto fail;
	}
	*out = c;
	return 0;
fail:
	tf_cache_close(c);
	return -1;
}

void tf_cache_close(struct tf_cache *c)
{
	if (!c)
		return;
	tf_store_release(&c->store);
	tf_remote_free(c->remote);
	tf_signer_free(c->signer);
	tf_trust_free(c->trust);
	free(c);
}

/* One warning, then the remote is not used again in this run. */
static void remote_fail(struct tf_cache *c, const char *why)
{
	warning("remote cache %s: %s; not using it for the rest of this run, "
		"steps build locally",
		tf_remote_shown(c->remote), why);
	c->remote_off = 1;
}

/*
 * Extract the archive at fd beside stage, check it is the tree the
 * entry promises, and put it in place of stage. -1 with why.
 */
static int unpack(int fd, const char *stage, const char *tree,
		  struct tf_buf *why)
{
	struct tf_buf parent = TF_BUF_INIT, tmp = TF_BUF_INIT;
	char got[TF_SHA256_HEX_LEN + 1];
	int ret = -1;

	tf_path_dirname(&parent, stage);
	if (tf_mkdir_p(parent.buf) ||
	    tf_mkdtemp_temp(parent.buf, "restore", &tmp)) {
		tf_why(why, "cannot make a directory beside '%s'", stage);
		goto out;
	}
	if (tf_cache_archive_read(fd, tmp.buf, why))
		goto out;
	if (tf_tree_digest(tmp.buf, got) || strcmp(got, tree)) {
		tf_why(why,
		       "its archive unpacks to tree %.12s..., not the %.12s... "
		       "its entry names",
		       got, tree);
		goto out;
	}
	if (tf_rm_rf(stage) || rename(tmp.buf, stage) < 0) {
		tf_why(why, "cannot put it in place of '%s': %s", stage,
		       strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret && tmp.len)
		tf_rm_rf(tmp.buf);
	if (tmp.len)
		tf_signals_temp_forget(tmp.buf);
	tf_buf_release(&parent);
	tf_buf_release(&tmp);
	return ret;
}

/*
 * 1 restored, 0 not (a corrupt entry is reported and removed). Every
 * entry's blob is hashed and its tree digested before use; with a
 * signing key, the entry must also be signed by a trusted key, as a
 * remote one: a step of the same user can write a blob and an entry
 * that agree with each other, not sign them (docs/cache.md).
 */
static int restore_local(struct tf_cache *c, const char *key, const char *stage,
			 struct tf_ac_entry *e)
{
	struct tf_buf why = TF_BUF_INIT, text = TF_BUF_INIT;
	enum tf_store_result r;
	int fd = -1;

	r = tf_store_get_ac(&c->store, key, e, &text, &why);
	if (r == TF_STORE_OK && c->signer &&
	    tf_ac_verify(text.buf, text.len, key, c->trust, e, &why))
		r = TF_STORE_BAD;
	if (r == TF_STORE_OK) {
		r = tf_store_open_blob(&c->store, e->cas, e->size, &fd, &why);
		if (r == TF_STORE_MISSING)
			tf_store_drop(&c->store, key, NULL);
	}
	if (r == TF_STORE_OK && unpack(fd, stage, e->tree, &why)) {
		/* The entry lies about a sound blob: drop the entry only. */
		r = TF_STORE_BAD;
		tf_store_drop(&c->store, key, NULL);
	}
	if (fd >= 0)
		close(fd);
	if (r == TF_STORE_BAD) {
		warning("local store %s: the entry of key %.12s... is corrupt (%s); "
			"removed it, the step builds",
			c->store.dir, key, why.buf);
		tf_store_drop(&c->store, key, NULL);
	}
	tf_buf_release(&why);
	tf_buf_release(&text);
	return r == TF_STORE_OK;
}

/* Download blob e->cas into the store and open it; -1 with why. */
static int fetch_blob(struct tf_cache *c, const struct tf_ac_entry *e, int *fd,
		      struct tf_buf *why)
{
	struct tf_buf tmp = TF_BUF_INIT, path = TF_BUF_INIT;
	struct tf_sha256 *h;
	unsigned char md[TF_SHA256_LEN];
	char got[TF_SHA256_HEX_LEN + 1];
	enum tf_remote_result rr;
	int out, r;

	if (c->store_on && tf_store_open_blob(&c->store, e->cas, e->size, fd,
					      why) == TF_STORE_OK)
		return 0;
	tf_buf_reset(why);
	out = tf_store_tmp(&c->store, &tmp);
	if (out < 0) {
		tf_buf_release(&tmp);
		return tf_why(why, "cannot write to the local store");
	}
	h = tf_sha256_new();
	tf_buf_addf(&path, "cas/%s", e->cas);
	rr = tf_remote_get(c->remote, path.buf, NULL, out, e->size, h, why);
	r = rr == TF_REMOTE_OK ? 0 : -1;
	tf_sha256_final(h, md);
	tf_sha256_hex(md, got);
	if (close(out) < 0 && !r)
		r = tf_why(why, "cannot write '%s': %s", tmp.buf,
			   strerror(errno));
	if (rr == TF_REMOTE_NOT_FOUND)
		r = tf_why(why, "GET %s: not found, though an entry names it",
			   path.buf);
	else if (!r && strcmp(got, e->cas))
		r = tf_why(why, "GET %s: its bytes hash to %s", path.buf, got);
	if (!r && !c->store_on) {
		/* --no-store: use the verified file, keep nothing. */
		*fd = open(tmp.buf, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			r = tf_why(why, "cannot reopen '%s': %s", tmp.buf,
				   strerror(errno));
		unlink(tmp.buf);
	} else if (!r) {
		r = tf_store_add_blob(&c->store, tmp.buf, e->cas);
		if (!r && tf_store_open_blob(&c->store, e->cas, e->size, fd,
					     why) != TF_STORE_OK)
			r = -1;
	} else {
		unlink(tmp.buf);
	}
	tf_buf_release(&tmp);
	tf_buf_release(&path);
	return r ? -1 : 0;
}

static int restore_remote(struct tf_cache *c, const char *key,
			  const char *stage, struct tf_ac_entry *e)
{
	struct tf_buf text = TF_BUF_INIT, why = TF_BUF_INIT, path = TF_BUF_INIT;
	enum tf_remote_result rr;
	int fd = -1, r;

	tf_buf_addf(&path, "ac/%s", key);
	rr = tf_remote_get(c->remote, path.buf, &text, -1, TF_AC_MAX, NULL,
			   &why);
	r = rr == TF_REMOTE_OK ? 0 : -1;
	if (r == 0 &&
	    tf_ac_verify(text.buf, text.len, key, c->trust, e, &why)) {
		/* Say which entry: the reason alone does not. */
		struct tf_buf w = TF_BUF_INIT;

		tf_buf_addf(&w, "%s: %s", path.buf, why.buf);
		tf_buf_reset(&why);
		tf_buf_addstr(&why, w.buf);
		tf_buf_release(&w);
		r = -1;
	}
	if (r == 0)
		r = fetch_blob(c, e, &fd, &why);
	if (r == 0 && unpack(fd, stage, e->tree, &why))
		r = -1;
	if (fd >= 0)
		close(fd);
	if (r == 0 && c->store_on)
		tf_store_put_ac(&c->store, key, text.buf, text.len);
	if (r < 0 && rr != TF_REMOTE_NOT_FOUND)
		remote_fail(c, why.buf);
	tf_buf_release(&text);
	tf_buf_release(&why);
	tf_buf_release(&path);
	return r == 0;
}

int tf_cache_restore(struct tf_cache *c, const char *key, const char *stage,
		     enum tf_cache_origin *origin,
		     char signer[TF_CACHE_SIGNER_LEN + 1],
		     char tree[TF_SHA256_HEX_LEN + 1])
{
	struct tf_ac_entry e;
	int hit = 0;

	if (!c)
		return 0;
	if (c->store_on && restore_local(c, key, stage, &e)) {
		*origin = TF_CACHE_LOCAL;
		hit = 1;
	} else if (c->remote && !c->remote_off &&
		   restore_remote(c, key, stage, &e)) {
		*origin = TF_CACHE_REMOTE;
		hit = 1;
	}
	if (hit) {
		memcpy(signer, e.signer, TF_CACHE_SIGNER_LEN + 1);
		memcpy(tree, e.tree, TF_SHA256_HEX_LEN + 1);
	}
	return hit;
}

/* Upload the archive open at fd and its entry; one warning on failure. */
static void upload(struct tf_cache *c, const struct tf_ac_entry *e,
		   const struct tf_buf *text, int fd)
{
	struct tf_buf why = TF_BUF_INIT, path = TF_BUF_INIT;
	int r;

	tf_buf_addf(&path, "cas/%s", e->cas);
	r = tf_remote_put(c->remote, path.buf, NULL, fd, e->size, &why);
	tf_buf_reset(&path);
	tf_buf_addf(&path, "ac/%s", e->key);
	if (!r)
		r = tf_remote_put(c->remote, path.buf, text->buf, -1,
				  (long long)text->len, &why);
	if (r) {
		warning("remote cache %s: cannot upload: %s; uploads stop for "
			"this run",
			tf_remote_shown(c->remote), why.buf);
		c->upload = 0;
	}
	tf_buf_release(&why);
	tf_buf_release(&path);
}

void tf_cache_save(struct tf_cache *c, const char *key, const char *stage,
		   const char *tree, const char *const *forbid)
{
	struct tf_buf tmp = TF_BUF_INIT, why = TF_BUF_INIT, text = TF_BUF_INIT;
	struct tf_ac_entry e;
	unsigned char md[TF_SHA256_LEN];
	enum tf_cache_archive_result ar;
	int fd, r;

	if (!c || (!c->store_on && !(c->remote && c->upload && !c->remote_off)))
		return;
	fd = tf_store_tmp(&c->store, &tmp);
	if (fd < 0)
		goto out;
	ar = tf_cache_archive_write(stage, fd, forbid, &why);
	r = ar == TF_CACHE_ARCHIVE_OK ? 0 : -1;
	if (close(fd) < 0 && !r)
		r = error_errno("cannot write '%s'", tmp.buf);
	if (ar == TF_CACHE_ARCHIVE_FORBIDDEN)
		verbose("not caching '%s': %s (a path of this build)", stage,
			why.buf);
	memset(&e, 0, sizeof(e));
	if (!r)
		r = tf_sha256_file(tmp.buf, md, &e.size);
	if (r) {
		unlink(tmp.buf);
		goto out;
	}
	tf_sha256_hex(md, e.cas);
	memcpy(e.key, key, sizeof(e.key));
	memcpy(e.tree, tree, sizeof(e.tree));
	if (tf_ac_encode(&e, c->signer, &text)) {
		unlink(tmp.buf);
		goto out;
	}
	if (c->remote && c->upload && !c->remote_off) {
		fd = open(tmp.buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			upload(c, &e, &text, fd);
			close(fd);
		}
	}
	if (!c->store_on)
		unlink(tmp.buf); /* --no-store: keep nothing */
	else if (!tf_store_add_blob(&c->store, tmp.buf, e.cas))
		tf_store_put_ac(&c->store, key, text.buf, text.len);
out:
	tf_buf_release(&tmp);
	tf_buf_release(&why);
	tf_buf_release(&text);
}

void tf_cache_relocate(const char *text, size_t len, const char *const *from,
		       const char *const *to, struct tf_buf *out)
{
	size_t i = 0, k;

	while (i < len) {
		size_t best = 0, bk = 0;

		for (k = 0; from[k]; k++) {
			size_t n = strlen(from[k]);

			if (n > best && n <= len - i &&
			    !memcmp(text + i, from[k], n)) {
				best = n;
				bk = k;
			}
		}
		if (best) {
			tf_buf_addstr(out, to[bk]);
			i += best;
		} else {
			tf_buf_add(out, text + i, 1);
			i++;
		}
	}
}
