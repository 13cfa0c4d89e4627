#include "packstamp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stamp/stamp.h"
#include "base/base.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

#define STAMP_MAGIC "tfbuild-pack-stamp 1\n"

/* tfbuild itself: a rebuilt binary may pack differently. */
static int add_self(struct tf_stamp *st)
{
	struct tf_buf b = TF_BUF_INIT;
	struct stat sb;

	if (stat("/proc/self/exe", &sb) < 0)
		return error_errno("cannot stat /proc/self/exe");
	tf_buf_addf(&b, "%s %lld %lld %llu %llu", TF_VERSION,
		    (long long)sb.st_size, tf_time_ns(&sb.st_mtim),
		    (unsigned long long)sb.st_ino,
		    (unsigned long long)sb.st_dev);
	tf_stamp_add(st, "tfbuild", b.buf, b.len);
	tf_buf_release(&b);
	return 0;
}

static int add_file(struct tf_stamp *st, const char *name, const char *path)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];

	/* A missing file is pack's error to report; its absence still counts. */
	if (!tf_path_exists(path)) {
		tf_stamp_add(st, name, "", 0);
		return 0;
	}
	if (tf_sha256_file(path, md, NULL))
		return -1;
	tf_sha256_hex(md, hex);
	tf_stamp_add_hex(st, name, hex);
	return 0;
}

int tf_packstamp_key(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     char key[TF_SHA256_HEX_LEN + 1])
{
	struct tf_stamp st = TF_STAMP_INIT;
	struct tf_buf b = TF_BUF_INIT;
	size_t i;
	int ret = add_self(&st);

	tf_stamp_add(&st, "wheel", pw->def->name.s, strlen(pw->def->name.s));
	tf_stamp_add(&st, "target", p->target.name, strlen(p->target.name));
	if (pw->def->variant)
		tf_stamp_add(&st, "variant", pw->def->variant->label.s,
			     strlen(pw->def->variant->label.s));
	tf_stamp_add(&st, "toolchain", p->target.identity,
		     strlen(p->target.identity));
	tf_stamp_add(&st, "toolfiles", p->toolfiles.buf, p->toolfiles.len);
	for (i = 0; i < p->packages.nr; i++)
		tf_buf_addf(&b, "%s %s\n", p->packages.v[i],
			    p->package_digests.v[i]);
	tf_stamp_add(&st, "target-packages", b.buf, b.len);
	tf_buf_reset(&b);
	for (i = 0; i < p->vars.nr; i++)
		tf_buf_addf(&b, "%s=%s%c", p->vars.v[i].name,
			    p->vars.v[i].value ? p->vars.v[i].value : "", 0);
	tf_stamp_add(&st, "variables", b.buf, b.len);
	if (!ret)
		ret = add_file(&st, "recipe", p->recipe->path);
	for (i = 0; i < p->recipe->nr_sources; i++) {
		tf_buf_setf(&b, "source:%s", p->recipe->sources[i].name.s);
		tf_stamp_add_hex(&st, b.buf, p->sources[i].key);
	}
	for (i = 0; i < p->recipe->nr_steps; i++) {
		tf_buf_setf(&b, "step:%s", p->steps[i].def->name.s);
		tf_stamp_add_hex(&st, b.buf, p->steps[i].output);
	}
	if (!ret && pw->readme_path)
		ret = add_file(&st, "readme", pw->readme_path);
	for (i = 0; !ret && pw->license_srcs && pw->license_srcs[i]; i++) {
		tf_buf_setf(&b, "license:%s", pw->license_srcs[i]);
		ret = add_file(&st, b.buf, pw->license_srcs[i]);
	}
	if (!ret)
		tf_stamp_key(&st, key);
	tf_stamp_release(&st);
	tf_buf_release(&b);
	return ret;
}

void tf_packstamp_path(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		       struct tf_buf *out)
{
	tf_buf_setf(out, "%s/wheel-%s", p->stamps, pw->def->name.s);
	if (pw->def->variant)
		tf_buf_addf(out, "@%s", pw->def->variant->label.s);
}

struct record {
	char key[TF_SHA256_HEX_LEN + 1], sha[TF_SHA256_HEX_LEN + 1];
	char name[256];
	long long size, mtime, ctime;
	unsigned long long ino, dev;
};

static int parse(const char *text, struct record *r)
{
	if (strncmp(text, STAMP_MAGIC, strlen(STAMP_MAGIC)))
		return -1;
	text += strlen(STAMP_MAGIC);
	if (sscanf(text,
		   "key %64s\nsha256 %64s\nstat %lld %lld %lld %llu %llu\nwheel %255[^\n]\n",
		   r->key, r->sha, &r->size, &r->mtime, &r->ctime, &r->ino,
		   &r->dev, r->name) != 8)
		return -1;
	return tf_sha256_is_hex(r->key) && tf_sha256_is_hex(r->sha) &&
			       !strchr(r->name, '/') && *r->name &&
			       strcmp(r->name, "..")
		       ? 0
		       : -1;
}

static void format(struct tf_buf *b, const char *key, const char *sha,
		   const char *name, const struct stat *sb)
{
	tf_buf_addf(
		b,
		STAMP_MAGIC
		"key %s\nsha256 %s\nstat %lld %lld %lld %llu %llu\nwheel %s\n",
		key, sha, (long long)sb->st_size, tf_time_ns(&sb->st_mtim),
		tf_time_ns(&sb->st_ctim), (unsigned long long)sb->st_ino,
		(unsigned long long)sb->st_dev, name);
}

static int same_identity(const struct record *r, const struct stat *sb)
{
	return S_ISREG(sb->st_mode) && r->size == (long long)sb->st_size &&
	       r->mtime == tf_time_ns(&sb->st_mtim) &&
	       r->ctime == tf_time_ns(&sb->st_ctim) &&
	       r->ino == (unsigned long long)sb->st_ino &&
	       r->dev == (unsigned long long)sb->st_dev;
}

static int write_record(const char *path, const char *key, const char *sha,
			const char *wheel, const struct stat *sb)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret;

	format(&b, key, sha, tf_path_basename(wheel), sb);
	ret = tf_write_file_atomic(path, b.buf, b.len, 0);
	tf_buf_release(&b);
	return ret;
}

int tf_packstamp_fresh(const char *path, const char *key, const char *out_dir,
		       struct tf_buf *wheel, char hex[TF_SHA256_HEX_LEN + 1])
{
	struct tf_buf text = TF_BUF_INIT;
	struct record r;
	struct stat sb, ss;
	unsigned char md[TF_SHA256_LEN];
	int fresh = 0;

	memset(&r, 0, sizeof(r));
	if (stat(path, &ss) < 0 || !S_ISREG(ss.st_mode) ||
	    tf_read_file(path, &text) || parse(text.buf, &r) ||
	    strcmp(r.key, key))
		goto out;
	tf_buf_reset(wheel);
	tf_path_join(wheel, out_dir, r.name);
	if (lstat(wheel->buf, &sb) < 0 || !same_identity(&r, &sb))
		goto out;
	if (tf_time_ns(&sb.st_ctim) < tf_time_ns(&ss.st_mtim)) {
		fresh = 1;
	} else if (!tf_sha256_file(wheel->buf, md, NULL)) {
		/* Racily clean: prove it by its bytes, then stamp it again. */
		tf_sha256_hex(md, hex);
		fresh = !strcmp(hex, r.sha) && !lstat(wheel->buf, &sb) &&
			same_identity(&r, &sb);
		if (fresh)
			write_record(path, key, r.sha, wheel->buf, &sb);
	}
	if (fresh)
		memcpy(hex, r.sha, sizeof(r.sha));
out:
	tf_buf_release(&text);
	return fresh;
}

int tf_packstamp_write(const char *path, const char *key, const char *wheel)
{
	unsigned char md[TF_SHA256_LEN];
	char sha[TF_SHA256_HEX_LEN + 1];
	struct stat sb;

	/* Cached: SHA256SUMS and the provenance digest it next. */
	if (tf_digest_cache_file(wheel, md))
		return -1;
	if (lstat(wheel, &sb) < 0)
		return error_errno("cannot stat '%s'", wheel);
	tf_sha256_hex(md, sha);
	return write_record(path, key, sha, wheel, &sb);
}

int tf_packstamp_remove(const char *path)
{
	if (unlink(path) < 0 && errno != ENOENT)
		return error_errno("cannot remove '%s'", path);
	return 0;
}
