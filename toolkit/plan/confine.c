#include "confine.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"

static int has_git(const char *dir)
{
	struct tf_buf b = TF_BUF_INIT;
	struct stat st;
	int yes;

	tf_buf_setf(&b, "%s/.git", dir);
	yes = !lstat(b.buf, &st);
	tf_buf_release(&b);
	return yes;
}

/* realpath(), or path as it is when it cannot be resolved. */
static void resolve(const char *path, struct tf_buf *out)
{
	char *r = realpath(path, NULL);

	tf_buf_reset(out);
	tf_buf_addstr(out, r ? r : path);
	free(r);
}

/* Set dir to its parent; "/" stays "/". */
static void go_up(struct tf_buf *dir)
{
	struct tf_buf up = TF_BUF_INIT;

	tf_path_dirname(&up, dir->buf);
	tf_buf_reset(dir);
	tf_buf_addstr(dir, up.buf);
	tf_buf_release(&up);
}

void tf_confine_root(const char *recipe_dir, struct tf_buf *root)
{
	const char *env = getenv("TFBUILD_RECIPE_ROOT");

	if (env && *env) {
		resolve(env, root);
		return;
	}
	resolve(recipe_dir, root);
	while (strcmp(root->buf, "/") && !has_git(root->buf))
		go_up(root);
	if (!has_git(root->buf)) {
		resolve(recipe_dir, root);
		go_up(root);
	}
}

/* Is path equal to dir or below it? Both resolved. */
static int is_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

int tf_confine_check(const char *root, const char *path, struct tf_buf *why)
{
	struct tf_buf real = TF_BUF_INIT;
	int ret = 0;

	resolve(path, &real);
	if (!is_within(real.buf, root)) {
		tf_buf_setf(
			why,
			"resolves to '%s', outside the recipe's tree '%s' (TFBUILD_RECIPE_ROOT)",
			real.buf, root);
		ret = -1;
	}
	tf_buf_release(&real);
	return ret;
}

int tf_confine_not_above(const char *tree, const char *dir, struct tf_buf *why)
{
	struct tf_buf t = TF_BUF_INIT, d = TF_BUF_INIT, up = TF_BUF_INIT;
	const char *rest = "";
	int ret = 0;

	resolve(tree, &t);
	/* Resolve the longest part of dir that exists. */
	tf_buf_addstr(&up, dir);
	while (!tf_path_exists(up.buf) && strchr(up.buf, '/') &&
	       strcmp(up.buf, "/"))
		go_up(&up);
	rest = dir + strlen(up.buf);
	resolve(up.buf, &d);
	tf_buf_addstr(&d, rest);
	if (is_within(d.buf, t.buf)) {
		tf_buf_setf(why, "'%s' holds the build directory '%s'", t.buf,
			    dir);
		ret = -1;
	}
	tf_buf_release(&t);
	tf_buf_release(&d);
	tf_buf_release(&up);
	return ret;
}
