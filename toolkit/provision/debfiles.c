/*
 * Which Debian package ships a file (provision.h): the target packages' .debs
 * are listed with dpkg-deb -c, the build machine's own files are looked
 * up with dpkg -S. Used for what a wheel vendors (pack.c).
 */
#include "provision.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "plan/plan.h"

/* What is kept of a packaging tool's output (apt-cache, dpkg). */
#define TOOL_OUTPUT_CAP (64 << 20)

/*
 * The paths one unpacked target package ships, relative to the root as
 * fix_root left it (merged /usr: "lib/x" is "usr/lib/x").
 */
static int deb_paths(const struct tf_plan *p, size_t i, struct tf_strvec *out)
{
	struct tf_buf deb = TF_BUF_INIT, text = TF_BUF_INIT;
	char *line, *next;
	int ret = 0;

	tf_path_dirname(&deb, p->sysroot);
	tf_buf_addf(&deb, "/debs/%s", p->package_files.v[i]);
	if (tf_run_tool(
		    (const char *const[]){ "dpkg-deb", "-c", deb.buf, NULL },
		    NULL, &text, TOOL_OUTPUT_CAP))
		ret = error("cannot list the files of target package '%s' "
			    "('%s'): %s",
			    p->packages.v[i], deb.buf, text.buf);
	for (line = text.buf; !ret && line && *line; line = next) {
		char *s = line, *arrow;
		int field;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "MODE OWNER SIZE DATE TIME ./PATH[ -> TARGET]" */
		for (field = 0; field < 5 && s; field++) {
			s = strchr(s, ' ');
			while (s && *s == ' ')
				s++;
		}
		if (!s || strncmp(s, "./", 2))
			continue;
		s += 2;
		if (line[0] == 'l' && (arrow = strstr(s, " -> ")))
			*arrow = '\0';
		if (line[0] == 'h' && (arrow = strstr(s, " link to ")))
			*arrow = '\0';
		if (!strncmp(s, "lib/", 4) || !strncmp(s, "lib64/", 6) ||
		    !strncmp(s, "bin/", 4) || !strncmp(s, "sbin/", 5))
			tf_strvec_pushf(out, "usr/%s", s);
		else
			tf_strvec_push(out, s);
	}
	tf_buf_release(&deb);
	tf_buf_release(&text);
	return ret;
}

/* "name:arch=version" of target package i (record() split the rest off). */
static void package_at(const struct tf_plan *p, size_t i, struct tf_buf *pkg)
{
	tf_buf_reset(pkg);
	tf_buf_addstr(pkg, p->packages.v[i]);
}

/*
 * The target package shipping a path for which match(path, arg) holds,
 * with pkg (and where, the path) set when it is found.
 */
static enum tf_provision_shipped search_root(
	const struct tf_plan *p, int (*match)(const char *, const char *),
	const char *arg, struct tf_buf *pkg, struct tf_buf *where)
{
	size_t i, j;
	enum tf_provision_shipped ret = TF_PROVISION_NOT_SHIPPED;

	if (!p->sysroot)
		return TF_PROVISION_NOT_SHIPPED;
	for (i = 0; ret == TF_PROVISION_NOT_SHIPPED && i < p->packages.nr;
	     i++) {
		struct tf_strvec paths = TF_STRVEC_INIT;

		if (deb_paths(p, i, &paths))
			ret = TF_PROVISION_SHIPPED_ERROR;
		for (j = 0; ret == TF_PROVISION_NOT_SHIPPED && j < paths.nr;
		     j++) {
			if (!match(paths.v[j], arg))
				continue;
			package_at(p, i, pkg);
			if (where)
				tf_buf_setf(where, "%s/%s", p->sysroot,
					    paths.v[j]);
			ret = TF_PROVISION_SHIPPED;
		}
		tf_strvec_release(&paths);
	}
	return ret;
}

static int same_path(const char *path, const char *rel)
{
	return !strcmp(path, rel);
}

static int same_base(const char *path, const char *base)
{
	const char *slash = strrchr(path, '/');

	return !strcmp(slash ? slash + 1 : path, base);
}

enum tf_provision_shipped tf_provision_root_ships(const struct tf_plan *p,
						  const char *base,
						  struct tf_buf *pkg,
						  struct tf_buf *where)
{
	return search_root(p, same_base, base, pkg, where);
}

/* The build machine's package owning path (dpkg -S). */
static enum tf_provision_shipped machine_package(const char *path,
						 struct tf_buf *pkg)
{
	struct tf_buf out = TF_BUF_INIT, q = TF_BUF_INIT;
	const char *forms[3];
	size_t i, n = 0;
	enum tf_provision_shipped ret = TF_PROVISION_NOT_SHIPPED;

	forms[n++] = path;
	/* dpkg's database keeps the paths the .deb had: /lib or /usr/lib. */
	if (!strncmp(path, "/usr/lib/", 9))
		forms[n++] = path + 4;
	else if (!strncmp(path, "/lib/", 5))
		forms[n++] = tf_xstrfmt("/usr%s", path);
	for (i = 0; ret == TF_PROVISION_NOT_SHIPPED && i < n; i++) {
		char *colon;

		tf_buf_reset(&out);
		if (tf_run_tool((const char *const[]){ "dpkg", "-S", forms[i],
						       NULL },
				NULL, &out, TOOL_OUTPUT_CAP))
			continue;
		/* "name:arch: /path", "name1, name2: /path" (diversions) */
		colon = strstr(out.buf, ": ");
		if (!colon)
			continue;
		*colon = '\0';
		colon = strchr(out.buf, ',');
		if (colon)
			*colon = '\0';
		tf_buf_reset(&q);
		if (tf_run_tool(
			    (const char *const[]){ "dpkg-query", "-W", "-f",
						   "${Package}:${Architecture}="
						   "${Version}",
						   out.buf, NULL },
			    NULL, &q, TOOL_OUTPUT_CAP)) {
			error("cannot ask dpkg-query about '%s', which "
			      "owns '%s': %s",
			      out.buf, path, q.buf);
			ret = TF_PROVISION_SHIPPED_ERROR;
			break;
		}
		tf_buf_reset(pkg);
		tf_buf_addstr(pkg, q.buf);
		ret = TF_PROVISION_SHIPPED;
	}
	if (n == 2 && forms[1] != path + 4)
		free((char *)forms[1]);
	tf_buf_release(&out);
	tf_buf_release(&q);
	return ret;
}

enum tf_provision_shipped tf_provision_file_package(const struct tf_plan *p,
						    const char *path,
						    struct tf_buf *pkg)
{
	char root[PATH_MAX], file[PATH_MAX];
	size_t len;

	if (!realpath(path, file)) {
		error_errno("cannot resolve '%s'", path);
		return TF_PROVISION_SHIPPED_ERROR;
	}
	if (p->sysroot && realpath(p->sysroot, root)) {
		len = strlen(root);
		if (!strncmp(file, root, len) && file[len] == '/')
			return search_root(p, same_path, file + len + 1, pkg,
					   NULL);
	}
	return machine_package(file, pkg);
}
