/*
 * The small files of a target's build tree, rewritten only when their
 * content changes, so their mtimes stay put and builds that watch them
 * do not rerun for nothing: the tool files and compiler wrappers the plan listed
 * (p->writes), and the cross target's Python include directory.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provision.h"

#include "base/base.h"
#include "plan/plan.h"

/*
 * Write path with data unless it already holds exactly that (same
 * bytes, same mode, a regular file); mode 0 is 0644. Written atomically.
 * Returns 0, or -1 after an error.
 */
static int write_if_changed(const char *path, const char *data, size_t len,
			    unsigned mode)
{
	struct tf_buf old = TF_BUF_INIT;
	struct stat st;
	int same = 0;

	if (!mode)
		mode = 0644;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) == mode && (size_t)st.st_size == len) {
		old.cap = len + 1;
		same = tf_read_file(path, &old) == 0 && old.len == len &&
		       !memcmp(old.buf, data, len);
	}
	tf_buf_release(&old);
	if (same)
		return 0;
	return tf_write_file_atomic(path, data, len, mode);
}

/* What the shim's entry name links to. */
static void shim_target(const struct tf_plan *p, const char *name,
			struct tf_buf *to)
{
	if (!strcmp(name, "pyconfig.h"))
		tf_buf_setf(to, "%s", p->target.pyconfig);
	else
		tf_buf_setf(to, "%s/%s", p->python_include_src, name);
}

/* 1 if shim already holds exactly these links: a no-op rewrites nothing. */
static int shim_current(const struct tf_plan *p, const char *shim,
			const struct tf_strvec *names)
{
	struct tf_strvec have = TF_STRVEC_INIT;
	struct tf_buf link = TF_BUF_INIT, to = TF_BUF_INIT;
	char got[4096];
	size_t i;
	int same = tf_path_is_dir(shim) && !tf_list_dir(shim, &have) &&
		   have.nr == names->nr;

	for (i = 0; same && i < names->nr; i++) {
		ssize_t n;

		tf_buf_setf(&link, "%s/%s", shim, names->v[i]);
		shim_target(p, names->v[i], &to);
		n = readlink(link.buf, got, sizeof(got));
		same = n >= 0 && (size_t)n == to.len &&
		       !memcmp(got, to.buf, to.len);
	}
	tf_strvec_release(&have);
	tf_buf_release(&link);
	tf_buf_release(&to);
	return same;
}

/*
 * A cross target's Python include directory: the host's headers, shared
 * by every architecture, with the target's own pyconfig.h, so recipes
 * pass one -I directory whatever the target (plan/make.c names it).
 * Built in a temporary directory and renamed, under the build tree.
 */
static int python_shim(const struct tf_plan *p)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf tmp = TF_BUF_INIT, link = TF_BUF_INIT, to = TF_BUF_INIT;
	const char *shim = p->target.python_include;
	size_t i;
	int ret = tf_mkdir_p(p->dir);

	if (!ret)
		ret = tf_list_dir(p->python_include_src, &names);
	if (!ret && shim_current(p, shim, &names))
		goto done;
	if (!ret)
		ret = tf_mkdtemp_temp(p->dir, "python-include", &tmp);
	for (i = 0; !ret && i < names.nr; i++) {
		tf_buf_setf(&link, "%s/%s", tmp.buf, names.v[i]);
		shim_target(p, names.v[i], &to);
		if (symlink(to.buf, link.buf) < 0)
			ret = error_errno("cannot create '%s'", link.buf);
	}
	if (!ret)
		ret = tf_rm_rf(shim);
	if (!ret && rename(tmp.buf, shim) < 0)
		ret = error_errno("cannot rename '%s' to '%s'", tmp.buf, shim);
	if (ret && tmp.len)
		tf_rm_rf(tmp.buf);
	if (tmp.len)
		tf_signals_temp_forget(tmp.buf);
done:
	tf_strvec_release(&names);
	tf_buf_release(&tmp);
	tf_buf_release(&link);
	tf_buf_release(&to);
	return ret;
}

int tf_provision_files(const struct tf_plan *p)
{
	struct tf_buf dir = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i + 3 <= p->writes.nr; i += 3) {
		const char *path = p->writes.v[i], *data = p->writes.v[i + 2];

		tf_buf_reset(&dir);
		tf_path_dirname(&dir, path);
		ret = tf_mkdir_p(dir.buf);
		if (!ret)
			ret = write_if_changed(
				path, data, strlen(data),
				(unsigned)strtoul(p->writes.v[i + 1], NULL, 8));
	}
	if (!ret && p->python_include_src)
		ret = python_shim(p);
	tf_buf_release(&dir);
	return ret;
}
