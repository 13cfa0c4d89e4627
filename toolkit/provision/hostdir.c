/*
 * A cross step's PATH directory made (plan/hosttools.h lists it): the
 * symlinks and guard scripts, and the listing they were made from, in a
 * temporary directory renamed into place; left as it is while the
 * listing is the same.
 */
#include "provision.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "plan/plan.h"

static int fill(const struct tf_plan *p, const char *dir)
{
	const struct tf_strvec *links = &p->host_links;
	struct tf_buf path = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < links->nr; i++) {
		const char *eq = strchr(links->v[i], '=');

		tf_buf_setf(&path, "%s/%.*s", dir, (int)(eq - links->v[i]),
			    links->v[i]);
		/* A recipe's host tool may repeat a default one: first wins. */
		if (!tf_path_exists(path.buf) && symlink(eq + 1, path.buf) < 0)
			ret = error_errno("cannot create '%s'", path.buf);
	}
	for (i = 0; !ret && i + 1 < p->host_guards.nr; i += 2) {
		const char *script = p->host_guards.v[i + 1];

		tf_buf_setf(&path, "%s/%s", dir, p->host_guards.v[i]);
		ret = tf_write_file_atomic(path.buf, script, strlen(script),
					   0755);
	}
	tf_buf_setf(&path, "%s/.tfbuild-host-tools", dir);
	if (!ret)
		ret = tf_write_file_atomic(path.buf, p->host_manifest.buf,
					   p->host_manifest.len, 0644);
	tf_buf_release(&path);
	return ret;
}

int tf_provision_host_tools(const struct tf_plan *p)
{
	const struct tf_buf *text = &p->host_manifest;
	struct tf_buf old = TF_BUF_INIT, tmp = TF_BUF_INIT,
		      manifest = TF_BUF_INIT;
	int ret = 0;

	if (!p->host_tools)
		return 0;
	tf_buf_setf(&manifest, "%s/.tfbuild-host-tools", p->host_tools);
	if (tf_path_exists(manifest.buf) && !tf_read_file(manifest.buf, &old) &&
	    old.len == text->len && !memcmp(old.buf, text->buf, text->len))
		goto out;
	ret = tf_mkdir_p(p->dir);
	if (!ret)
		ret = tf_mkdtemp_temp(p->dir, "host-tools", &tmp);
	if (!ret)
		ret = fill(p, tmp.buf);
	if (!ret)
		ret = tf_rm_rf(p->host_tools);
	if (!ret && rename(tmp.buf, p->host_tools) < 0)
		ret = error_errno("cannot rename '%s' to '%s'", tmp.buf,
				  p->host_tools);
	if (ret && tmp.len)
		tf_rm_rf(tmp.buf);
	if (tmp.len)
		tf_signals_temp_forget(tmp.buf);
out:
	tf_buf_release(&old);
	tf_buf_release(&tmp);
	tf_buf_release(&manifest);
	return ret;
}
