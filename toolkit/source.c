#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "extract.h"
#include "log.h"
#include "patch.h"
#include "path.h"

int tf_sources_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo)
{
	struct tf_buf label = TF_BUF_INIT, path = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		struct tf_plan_source *s = &p->sources[i];

		if (!s->urls.nr)
			continue;
		tf_buf_setf(&label, "source '%s'", s->def->name.s);
		tf_buf_reset(&path);
		if (tf_fetch(fo, label.buf, (const char *const *)s->urls.v, s->urls.nr,
			     s->def->sha256.s, &path)) {
			ret = -1;
			continue;
		}
		tf_strvec_push(&p->store, path.buf);
		s->archive = p->store.v[p->store.nr - 1];
	}
	tf_buf_release(&label);
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

/* Fill tmp with the source's files: extracted or copied. */
static int populate(const struct tf_plan_source *s, const char *tmp)
{
	if (s->archive)
		return tf_extract(s->archive, archive_label(s), tmp, s->def->strip);
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
		ret = tf_mkdtemp_in(parent.buf, s->def->name.s, &tmp);
	if (ret)
		goto out;
	verbose("preparing source '%s' in %s", s->def->name.s, s->dir);
	ret = populate(s, tmp.buf);
	for (j = 0; !ret && j < s->patches.nr; j++) {
		verbose("applying %s", s->def->patches[j].s);
		ret = tf_patch_apply(tmp.buf, s->patches.v[j], s->def->patches[j].s,
				     s->def->patch_strip);
	}
	if (!ret)
		ret = tf_rm_rf(s->dir);
	if (!ret && rename(tmp.buf, s->dir) < 0)
		ret = error_errno("cannot rename '%s' to '%s'", tmp.buf, s->dir);
	if (ret)
		tf_rm_rf(tmp.buf);
out:
	tf_buf_release(&parent);
	tf_buf_release(&tmp);
	return ret;
}

int tf_sources_prepare(struct tf_plan *p)
{
	size_t i;

	for (i = 0; i < p->recipe->nr_sources; i++)
		if (prepare_one(p, &p->sources[i]))
			return -1;
	return 0;
}
