#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "extract.h"
#include "base/base.h"
#include "patch.h"
#include "stamp/stamp.h"
#include "ui/ui.h"
#include "fetch/fetch.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

/* Fetch source s into the cache (or find it there); path gets the file. */
static int fetch_one(const struct tf_plan_source *s,
		     const struct tf_fetch_opts *fo, struct tf_buf *path)
{
	struct tf_fetch_opts o = *fo;
	struct tf_buf label = TF_BUF_INIT;
	int ret;

	o.size = s->def->size;
	tf_buf_setf(&label, "source '%s'", s->def->name.s);
	tf_buf_reset(path);
	ret = tf_fetch(&o, label.buf, (const char *const *)s->urls.v,
		       (const char *const *)s->shown.v, s->urls.nr,
		       s->def->sha256.s, path);
	tf_buf_release(&label);
	return ret;
}

int tf_sources_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo)
{
	struct tf_buf path = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		struct tf_plan_source *s = &p->sources[i];

		if (!s->urls.nr)
			continue;
		if (fetch_one(s, fo, &path)) {
			ret = -1;
			continue;
		}
		tf_strvec_push(&p->store, path.buf);
		s->archive = p->store.v[p->store.nr - 1];
		s->fetched = fo;
		tf_ui_source_fetched(s->def->name.s, s->shown.v[0],
				     s->def->sha256.s, s->archive);
	}
	tf_buf_release(&path);
	return ret;
}

/* The archive's name as users know it: the last part of its URL. */
static const char *archive_label(const struct tf_plan_source *s)
{
	const char *url = s->urls.v[0];
	const char *slash = strrchr(url, '/');

	return slash && slash[1] ? slash + 1 : url;
}

/*
 * The cached archive is hashed again right before it is extracted: the
 * cache is shared, and a build step running as the same user may have
 * rewritten it since it was verified. One that changed is removed and
 * fetched again; a run that extracts nothing reads nothing
 * (docs/cache.md#downloads).
 */
static int archive_recheck(const struct tf_plan_source *s)
{
	struct tf_buf why = TF_BUF_INIT, path = TF_BUF_INIT;
	int ret = 0;

	if (!tf_fetch_cached_check(s->archive, s->def->sha256.s, &why))
		goto out;
	warning("source '%s': %s; fetching it again", s->def->name.s, why.buf);
	if (unlink(s->archive) < 0 && errno != ENOENT) {
		ret = error_errno("source '%s': cannot remove '%s'",
				  s->def->name.s, s->archive);
		goto out;
	}
	if (!s->fetched)
		ret = error("source '%s': '%s' changed and cannot be fetched "
			    "again here",
			    s->def->name.s, s->archive);
	else
		ret = fetch_one(s, s->fetched, &path);
	/* The same digest gives the same cache path: s->archive stands. */
	if (!ret && strcmp(path.buf, s->archive))
		BUG("refetched '%s' to '%s'", s->archive, path.buf);
out:
	tf_buf_release(&why);
	tf_buf_release(&path);
	return ret;
}

/* Fill tmp with the source's files: extracted or copied. */
static int populate(const struct tf_plan_source *s, const char *tmp)
{
	if (s->archive)
		return archive_recheck(s) < 0
			       ? -1
			       : tf_extract(s->archive, archive_label(s), tmp,
					    s->def->strip);
	/* tf_copy_tree wants to create its destination itself. */
	if (rmdir(tmp) < 0)
		return error_errno("cannot remove '%s'", tmp);
	return tf_copy_tree(s->local, tmp);
}

static int prepare_one(struct tf_plan *p, struct tf_plan_source *s)
{
	struct tf_buf parent = TF_BUF_INIT, tmp = TF_BUF_INIT;
	size_t j;
	int ret;

	tf_path_dirname(&parent, s->dir);
	ret = tf_mkdir_p(parent.buf);
	if (!ret)
		ret = tf_mkdtemp_temp(parent.buf, s->def->name.s, &tmp);
	if (ret)
		goto out;
	verbose("preparing source '%s' in %s", s->def->name.s, s->dir);
	ret = populate(s, tmp.buf);
	for (j = 0; !ret && j < s->patches.nr; j++) {
		verbose("applying %s", s->def->patches[j].s);
		ret = tf_patch_apply(tmp.buf, s->patches.v[j],
				     s->def->patches[j].s, s->def->patch_strip);
	}
	if (!ret)
		ret = tf_rm_rf(s->dir);
	if (!ret && rename(tmp.buf, s->dir) < 0)
		ret = error_errno("cannot rename '%s' to '%s'", tmp.buf,
				  s->dir);
	if (ret)
		tf_rm_rf(tmp.buf);
	tf_signals_temp_forget(tmp.buf);
out:
	tf_buf_release(&parent);
	tf_buf_release(&tmp);
	return ret;
}

static const char *stamp_path(struct tf_plan *p, const struct tf_plan_source *s,
			      struct tf_buf *buf)
{
	tf_buf_setf(buf, "%s/src-%s", p->stamps, s->def->name.s);
	return buf->buf;
}

/* The inputs a source tree is made of; packed: see tf_tree_digest_packed. */
static int source_inputs(const struct tf_plan_source *s, struct tf_stamp *st,
			 int packed)
{
	char hex[TF_SHA256_HEX_LEN + 1], strip[32];
	unsigned char md[TF_SHA256_LEN];
	struct tf_buf name = TF_BUF_INIT;
	size_t j;
	int ret = 0;

	if (s->local && packed)
		ret = tf_tree_digest_packed(s->local, hex);
	else if (s->local)
		ret = tf_tree_digest(s->local, hex);
	else
		memcpy(hex, s->def->sha256.s, sizeof(hex));
	tf_stamp_add_hex(st, s->local ? "tree" : "archive", hex);
	snprintf(strip, sizeof(strip), "%d/%d", s->def->strip,
		 s->def->patch_strip);
	tf_stamp_add(st, "strip", strip, strlen(strip));
	for (j = 0; !ret && j < s->patches.nr; j++) {
		ret = tf_sha256_file(s->patches.v[j], md, NULL);
		tf_sha256_hex(md, hex);
		tf_buf_setf(&name, "patch:%s", s->def->patches[j].s);
		tf_stamp_add_hex(st, name.buf, hex);
	}
	tf_buf_release(&name);
	return ret;
}

static int stamp_one(struct tf_plan_source *s, int packed)
{
	tf_stamp_release(&s->inputs);
	if (source_inputs(s, &s->inputs, packed))
		return -1;
	tf_stamp_key(&s->inputs, s->key);
	return 0;
}

int tf_sources_stamp(struct tf_plan *p)
{
	return tf_sources_stamp_copies(p) || tf_sources_stamp_in_place(p, 0)
		       ? -1
		       : 0;
}

int tf_sources_stamp_copies(struct tf_plan *p)
{
	size_t i;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		p->sources[i].key[0] = '\0';
		if (!p->sources[i].in_place && stamp_one(&p->sources[i], 0))
			return -1;
	}
	return 0;
}

int tf_sources_stamp_in_place(struct tf_plan *p, int packed)
{
	size_t i;

	for (i = 0; i < p->recipe->nr_sources; i++)
		if (!p->sources[i].key[0] && stamp_one(&p->sources[i], packed))
			return -1;
	return 0;
}

int tf_sources_stamp_pending(const struct tf_plan *p)
{
	size_t i;

	for (i = 0; i < p->recipe->nr_sources; i++)
		if (!p->sources[i].key[0])
			return 1;
	return 0;
}

/* 1 if the tree in place was made from the same inputs. */
static int up_to_date(struct tf_plan *p, const struct tf_plan_source *s)
{
	struct tf_stamp old = TF_STAMP_INIT;
	struct tf_buf path = TF_BUF_INIT;
	char key[TF_SHA256_HEX_LEN + 1];
	int same = 0;

	if (!tf_stamp_read(stamp_path(p, s, &path), &old) &&
	    tf_path_is_dir(s->dir)) {
		tf_stamp_key(&old, key);
		same = !strcmp(key, s->key);
	}
	tf_stamp_release(&old);
	tf_buf_release(&path);
	return same;
}

/* The inputs were digested once by tf_sources_stamp; they are written as is. */
static int prepare_and_stamp(struct tf_plan *p, struct tf_plan_source *s)
{
	struct tf_buf path = TF_BUF_INIT;
	int ret;

	/* The stamp goes first: a tree with no valid stamp is never trusted. */
	ret = tf_mkdir_p(p->stamps);
	if (!ret && tf_path_exists(stamp_path(p, s, &path)) &&
	    unlink(path.buf) < 0)
		ret = error_errno("cannot remove '%s'", path.buf);
	if (!ret)
		ret = prepare_one(p, s);
	if (!ret)
		ret = tf_stamp_write(stamp_path(p, s, &path), &s->inputs);
	s->fresh = !ret;
	tf_buf_release(&path);
	return ret;
}

/*
 * A source read in place (plan/expand.c) has no copy: one left by an earlier
 * run, when a step still used it, goes with its stamp.
 */
static int drop_copy(struct tf_plan *p, const struct tf_plan_source *s)
{
	struct tf_buf path = TF_BUF_INIT;
	/* The stamps folder is still made here: the wheel's stamp goes there. */
	int ret = tf_mkdir_p(p->stamps);

	if (!ret && tf_path_exists(stamp_path(p, s, &path)) &&
	    unlink(path.buf) < 0)
		ret = error_errno("cannot remove '%s'", path.buf);
	tf_buf_setf(&path, "%s/src/%s", p->dir, s->def->name.s);
	if (!ret && tf_path_exists(path.buf))
		ret = tf_rm_rf(path.buf);
	tf_buf_release(&path);
	return ret;
}

int tf_sources_prepare(struct tf_plan *p, int force)
{
	size_t i;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		struct tf_plan_source *s = &p->sources[i];

		if (s->in_place) {
			verbose("source '%s' for %s is read in place from %s",
				s->def->name.s, p->target.name, s->dir);
			if (drop_copy(p, s))
				return -1;
			continue;
		}
		if (!force && up_to_date(p, s)) {
			verbose("source '%s' for %s is up to date",
				s->def->name.s, p->target.name);
			continue;
		}
		if (prepare_and_stamp(p, s))
			return -1;
	}
	return 0;
}

int tf_source_refresh(struct tf_plan *p, size_t k)
{
	struct tf_plan_source *s = &p->sources[k];

	if (s->fresh || s->in_place)
		return 0;
	return prepare_and_stamp(p, s);
}
