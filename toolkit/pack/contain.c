/*
 * A rule's files stay in the rule's tree. Only symlinks and glob matches
 * are resolved (realpath): a stage of 63,000 plain files costs one lstat
 * each, as the stat before.
 */
#include "contain.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

int tf_contain_init(struct tf_contain *c, const char *root, const char *wide)
{
	c->shown = root;
	c->root = realpath(root, NULL);
	if (!c->root)
		return error_errno("cannot resolve '%s'", root);
	c->wide = wide ? realpath(wide, NULL) : NULL;
	if (wide && !c->wide)
		return error_errno("cannot resolve '%s'", wide);
	return 0;
}

void tf_contain_release(struct tf_contain *c)
{
	free(c->root);
	free(c->wide);
	c->root = c->wide = NULL;
}

/* Is path equal to dir or below it? Both resolved. */
static int is_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

static int has_dot_part(const char *p)
{
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int tf_contain_match_is_dots(const char *match)
{
	const char *b = tf_path_basename(match);

	return !strcmp(b, ".") || !strcmp(b, "..");
}

int tf_contain_glob(const char *pattern, glob_t *g)
{
	int rc = glob(pattern, GLOB_ERR, NULL, g);
	size_t i;

	for (i = 0; !rc && i < g->gl_pathc; i++)
		if (!tf_contain_match_is_dots(g->gl_pathv[i]))
			return 0;
	if (!rc) { /* `.*` found only `.` and `..` */
		globfree(g);
		rc = GLOB_NOMATCH;
	}
	return rc;
}

int tf_contain_match_check(const struct tf_contain *c, const char *match,
			   struct tf_buf *why)
{
	struct tf_buf dir = TF_BUF_INIT;
	size_t n = strlen(c->shown);
	const char *rel = !strncmp(match, c->shown, n) && match[n] == '/'
				  ? match + n + 1
				  : match;
	char *real;
	int ret = 0;

	if (has_dot_part(rel))
		return tf_why(why, "'%s' leaves the tree '%s' ('.' or '..')",
			      rel, c->shown);
	tf_path_dirname(&dir, match);
	real = realpath(dir.buf, NULL);
	if (!real)
		ret = tf_why(why, "cannot resolve '%s': %s", dir.buf,
			     strerror(errno));
	else if (!is_within(real, c->root))
		ret = tf_why(why,
			     "'%s' is reached through '%s', which resolves to "
			     "'%s', outside the tree '%s'",
			     rel, dir.buf, real, c->shown);
	free(real);
	tf_buf_release(&dir);
	return ret;
}

int tf_contain_link_check(const struct tf_contain *c, const char *path,
			  struct tf_buf *why)
{
	struct tf_buf target = TF_BUF_INIT, parent = TF_BUF_INIT;
	char buf[PATH_MAX], *real = NULL, *up = NULL;
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	struct stat st;
	int ret = 0;

	tf_buf_addstr(&target, n < 0 ? "?" : (buf[n] = '\0', buf));
	real = realpath(path, NULL);
	if (!real) {
		ret = tf_why(why, "'%s' is a symbolic link to '%s', which %s",
			     path, target.buf,
			     errno == ENOENT || errno == ENOTDIR
				     ? "points to nothing"
				     : strerror(errno));
		goto out;
	}
	if (!is_within(real, c->root) &&
	    !(c->wide && is_within(real, c->wide))) {
		ret = tf_why(why,
			     "'%s' is a symbolic link to '%s', which resolves "
			     "to '%s', outside %s'%s'%s",
			     path, target.buf, real,
			     c->wide ? "the build tree " : "the tree ",
			     c->wide ? c->wide : c->shown,
			     c->wide ? ""
				     : " (follow-links: true allows the "
				       "target's build tree)");
		goto out;
	}
	tf_path_dirname(&parent, path);
	up = realpath(parent.buf, NULL);
	if (!stat(real, &st) && S_ISDIR(st.st_mode) && up &&
	    is_within(up, real))
		ret = tf_why(why,
			     "'%s' is a symbolic link to '%s', a directory "
			     "above it (a loop)",
			     path, target.buf);
out:
	free(real);
	free(up);
	tf_buf_release(&target);
	tf_buf_release(&parent);
	return ret;
}
