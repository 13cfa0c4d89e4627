/*
 * The root a step sees (sandbox_root.h): not the machine's, but a tmpfs
 * holding what a build reads. A name left out here is simply not there
 * in a step; docs/security.md lists the same.
 */
#include "sandbox_root.h"
#include "base/base.h"
#include "env/env.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 if path is dir or below it. */
static int is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && *dir == '/') /* everything is under / */
		return path && *path == '/';
	return path && !strncmp(path, dir, n) &&
	       (path[n] == '/' || path[n] == '\0');
}

static void opt2(struct tf_strvec *a, const char *opt, const char *src,
		 const char *dst)
{
	tf_strvec_push(a, opt);
	tf_strvec_push(a, src);
	if (dst)
		tf_strvec_push(a, dst);
}

void tf_sandbox_bind(struct tf_strvec *a, const char *dir, int rw)
{
	if (dir && *dir == '/' && tf_path_is_dir(dir))
		opt2(a, rw ? "--bind" : "--ro-bind", dir, dir);
}

void tf_sandbox_tmpfs(struct tf_strvec *a, const char *dir,
		      unsigned long long size)
{
	tf_strvec_push(a, "--size");
	tf_strvec_pushf(a, "%llu", size);
	opt2(a, "--tmpfs", dir, NULL);
}

/*
 * Put the machine's path into the root as it is: a link as the same
 * link when it points into /usr (/bin -> usr/bin: no mount), else what
 * it names, read-only; nothing if it is not there.
 */
static void mirror(struct tf_strvec *a, const char *path)
{
	struct stat st;
	char link[4096], *real;
	ssize_t n;

	if (lstat(path, &st))
		return;
	if (!S_ISLNK(st.st_mode)) {
		opt2(a, "--ro-bind", path, path);
		return;
	}
	n = readlink(path, link, sizeof(link) - 1);
	real = realpath(path, NULL);
	if (n > 0 && real) {
		link[n] = '\0';
		if (is_under(real, "/usr"))
			opt2(a, "--symlink", link, path);
		else
			opt2(a, "--ro-bind", real, path);
	}
	free(real);
}

void tf_sandbox_dev(struct tf_strvec *a)
{
	static const char *const nodes[] = { "null",   "zero",    "full",
					     "random", "urandom", "tty" };
	static const char *const links[] = { "/proc/self/fd",   "/dev/fd",
					     "/proc/self/fd/0", "/dev/stdin",
					     "/proc/self/fd/1", "/dev/stdout",
					     "/proc/self/fd/2", "/dev/stderr" };
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	/* bwrap's --dev less its devpts (a mount, /dev/pts and /dev/ptmx),
	 * and of bounded size: /dev/shm is a directory of it */
	tf_sandbox_tmpfs(a, "/dev", TF_SANDBOX_TMP_SIZE);
	for (i = 0; i < sizeof(nodes) / sizeof(*nodes); i++) {
		tf_buf_setf(&b, "/dev/%s", nodes[i]);
		opt2(a, "--dev-bind", b.buf, b.buf);
	}
	for (i = 0; i < sizeof(links) / sizeof(*links); i += 2)
		opt2(a, "--symlink", links[i], links[i + 1]);
	tf_strvec_pushv(a, (const char *const[]){ "--perms", "1777", "--dir",
						  "/dev/shm", NULL });
	tf_buf_release(&b);
}

void tf_sandbox_system(struct tf_strvec *a, const char *etc,
		       const struct tf_strvec *etc_binds, int network)
{
	static const char *const top[] = { "/bin",   "/sbin",  "/lib",
					   "/lib32", "/lib64", "/libx32" };
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	opt2(a, "--ro-bind", "/usr", "/usr");
	for (i = 0; i < sizeof(top) / sizeof(*top); i++)
		mirror(a, top[i]);
	/* three mounts, not one a file (tf_sandbox_etc) */
	opt2(a, "--ro-bind", etc, "/etc");
	for (i = 0; i < etc_binds->nr; i++) {
		tf_buf_setf(&b, "/etc/%s", etc_binds->v[i]);
		tf_sandbox_bind(a, b.buf, 0);
	}
	tf_buf_release(&b);
	/* CPUs online: what nproc-like counts read (glibc, Python). */
	tf_sandbox_bind(a, "/sys/devices/system/cpu", 0);
	tf_sandbox_dev(a);
	tf_strvec_pushv(a, (const char *const[]){ "--proc", "/proc", NULL });
	tf_sandbox_tmpfs(a, "/tmp", TF_SANDBOX_TMP_SIZE);
	tf_sandbox_tmpfs(a, "/run", TF_SANDBOX_RUN_SIZE);
	if (network) /* where /etc/resolv.conf may point */
		tf_sandbox_bind(a, "/run/systemd/resolve", 0);
}

/* A tool's place: its prefix when it sits in a bin/ (Python's lib/ is
 * beside it), else its directory. */
static void tool_place(const char *tool, struct tf_buf *b,
		       struct tf_strvec *out)
{
	if (tf_path_is_dir(tool)) {
		tf_strvec_push(out, tool);
		return;
	}
	/* dirname appends: b held the last place */
	tf_buf_reset(b);
	tf_path_dirname(b, tool);
	if (!strcmp(tf_path_basename(b->buf), "bin")) {
		char *bin = tf_buf_detach(b);

		tf_path_dirname(b, bin);
		free(bin);
	}
	tf_strvec_push(out, b->buf);
}

/*
 * The cache's entries a step reads (target roots and sites, the
 * launchers' caches), not the cache itself: its downloads, store and
 * temporaries are then not there at all, instead of three tmpfs masks
 * (three mounts) over them, nor the prepared /etc (tf_sandbox_etc),
 * which a step sees as /etc. Each bind costs a step more than a name
 * costs here (bwrap reads the mount table once for each).
 */
static void cache_places(const char *cache_dir, struct tf_strvec *out)
{
	static const char *const kept[] = { ".",     "..",  "sha256",
					    "store", "tmp", "sandbox" };
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	size_t i;

	if (!d) /* not made yet: nothing in it to show */
		return;
	while ((e = readdir(d))) {
		for (i = 0; i < sizeof(kept) / sizeof(*kept); i++)
			if (!strcmp(e->d_name, kept[i]))
				break;
		if (i == sizeof(kept) / sizeof(*kept))
			tf_strvec_pushf(out, "%s/%s", cache_dir, e->d_name);
	}
	closedir(d);
}

void tf_sandbox_places(const struct tf_plan *p, const char *cache_dir,
		       struct tf_strvec *out)
{
	const struct tf_target *t = &p->target;
	const char *tools[] = {
		t->cc, t->cxx, t->python, t->python_include, t->emulator_prefix,
		t->zig
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	tf_strvec_push(out, p->dir);
	tf_strvec_push(out, p->recipe->dir);
	tf_path_dirname(&b, p->recipe->dir);
	tf_strvec_push(out, b.buf);
	if (cache_dir)
		cache_places(cache_dir, out);
	/* target roots and sites may lie outside the cache
	 * (TF_SYSROOT_CACHE) */
	if (p->sysroot)
		tf_strvec_push(out, p->sysroot);
	if (p->emulator_root)
		tf_strvec_push(out, p->emulator_root);
	if (p->site)
		tf_strvec_push(out, p->site);
	if (p->host_site)
		tf_strvec_push(out, p->host_site);
	for (i = 0; i < sizeof(tools) / sizeof(*tools); i++)
		if (tools[i] && *tools[i] == '/')
			tool_place(tools[i], &b, out);
	tf_buf_release(&b);
}

/*
 * 0 for a place that would bring back what the root leaves out: /, a
 * directory holding /tmp, /run or the homes, or a home itself (HOME is
 * emptied after the places are bound, so a recipe in ~/proj brings back
 * ~/proj, not ~/.ssh; one in /tmp/x not all of /tmp). A place in /usr
 * is there already.
 */
static int place_ok(const char *place)
{
	static const char *const kept[] = { "/tmp", "/run", "/home", "/root",
					    "/" };
	size_t i;

	if (!place || *place != '/' || is_under(place, "/usr"))
		return 0;
	for (i = 0; i < sizeof(kept) / sizeof(*kept); i++)
		if (is_under(kept[i], place))
			return 0;
	/* /home/USER: another user's files */
	return !(is_under(place, "/home") &&
		 !strchr(place + strlen("/home/"), '/'));
}

/*
 * 1 if places->v[i] lies in another place that place_ok takes (the
 * first of two equal ones is bound), other than home (never bound
 * itself) when given; with below, one that lies in home too (the
 * places back in an emptied HOME).
 */
static int inside_another(const struct tf_strvec *places, size_t i,
			  const char *home, int below)
{
	size_t j;

	for (j = 0; j < places->nr; j++) {
		const char *o = places->v[j];

		if (j == i || !place_ok(o) || !is_under(places->v[i], o) ||
		    (home && !strcmp(o, home)) || (below && !is_under(o, home)))
			continue;
		if (strcmp(o, places->v[i]) || j < i)
			return 1;
	}
	return 0;
}

/* 1 if a place of places that place_ok takes holds home, below it. */
static int home_shown(const struct tf_strvec *places, const char *home)
{
	size_t i;

	for (i = 0; i < places->nr; i++)
		if (place_ok(places->v[i]) && is_under(home, places->v[i]) &&
		    strcmp(home, places->v[i]))
			return 1;
	return 0;
}

void tf_sandbox_bind_places(struct tf_strvec *a, const struct tf_strvec *places,
			    const char *home)
{
	size_t i;
	int valid = home && *home == '/' && strcmp(home, "/") &&
		    tf_path_is_dir(home);
	/* The root is empty but for what is bound: HOME needs a tmpfs (a
	 * mount) only where a place above it would show it. */
	int emptied = valid && home_shown(places, home);

	for (i = 0; i < places->nr; i++)
		if (place_ok(places->v[i]) &&
		    !(valid && !strcmp(places->v[i], home)) &&
		    !(emptied && is_under(places->v[i], home)) &&
		    !inside_another(places, i, valid ? home : NULL, 0))
			tf_sandbox_bind(a, places->v[i], 0);
	if (!emptied)
		return;
	/* HOME empty, the places strictly below it back. */
	tf_sandbox_tmpfs(a, home, TF_SANDBOX_TMP_SIZE);
	for (i = 0; i < places->nr; i++)
		if (place_ok(places->v[i]) && is_under(places->v[i], home) &&
		    strcmp(places->v[i], home) &&
		    !inside_another(places, i, home, 1))
			tf_sandbox_bind(a, places->v[i], 0);
}

/*
 * 1 if path is seen in the sandbox a describes: the last mount over it
 * (the one on top) binds a place of the machine onto itself, not an
 * empty tmpfs. A bind elsewhere shows what it binds, not path: /etc
 * is a prepared copy, which holds no secret (tf_sandbox_etc).
 */
static int shown(const struct tf_strvec *a, const char *path)
{
	int seen = 0;
	size_t i;

	for (i = 0; i < a->nr; i++) {
		const char *o = a->v[i];

		if (!strcmp(o, "--") || !strcmp(o, "--chdir"))
			break;
		if ((!strcmp(o, "--bind") || !strcmp(o, "--ro-bind")) &&
		    i + 2 < a->nr && is_under(path, a->v[i + 2]))
			seen = !strcmp(a->v[i + 1], a->v[i + 2]);
		else if (!strcmp(o, "--tmpfs") && i + 1 < a->nr &&
			 is_under(path, a->v[i + 1]))
			seen = 0;
	}
	return seen;
}

void tf_sandbox_hide(struct tf_strvec *a, const char *dir,
		     unsigned long long size)
{
	if (tf_path_is_dir(dir) && shown(a, dir))
		tf_sandbox_tmpfs(a, dir, size);
}

static void mask(struct tf_strvec *a, const char *file)
{
	char *real = file && *file ? realpath(file, NULL) : NULL;

	/* By where it really is: bwrap resolves a relative name against the
	 * sandbox's root, and a link elsewhere names the same bytes. */
	if (real && !tf_path_is_dir(real) && shown(a, real))
		opt2(a, "--ro-bind", "/dev/null", real);
	free(real);
}

/* The files tfbuild, pip and netrc users keep credentials in. */
static void credentials(struct tf_strvec *out)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *file = getenv("TFBUILD_CONFIG");

	if (file && *file)
		tf_strvec_push(out, file);
	if (xdg && *xdg == '/')
		tf_strvec_pushf(out, "%s/tfbuild/config", xdg);
	if (home && *home == '/') {
		tf_strvec_pushf(out, "%s/.config/tfbuild/config", home);
		tf_strvec_pushf(out, "%s/.netrc", home);
		tf_strvec_pushf(out, "%s/.config/pip/pip.conf", home);
		tf_strvec_pushf(out, "%s/.pip/pip.conf", home);
	}
	if ((file = getenv("PIP_CONFIG_FILE")) && *file)
		tf_strvec_push(out, file);
	if ((file = getenv("NETRC")) && *file)
		tf_strvec_push(out, file);
	tf_strvec_pushv(out, (const char *const[]){ "/etc/pip.conf",
						    "/etc/xdg/pip/pip.conf",
						    "/etc/netrc", NULL });
}

int tf_sandbox_read_refused(const char *real, const char *const *keys,
			    size_t nr, const char *cache_dir,
			    struct tf_buf *why)
{
	struct tf_strvec files = TF_STRVEC_INIT;
	size_t i;
	int refused = 0;

	if (!strcmp(real, "/")) {
		tf_why(why, "a step would see the whole machine");
		return 1;
	}
	if (is_under(real, "/proc") || is_under(real, "/dev")) {
		tf_why(why, "a step has its own %s",
		       is_under(real, "/proc") ? "/proc" : "/dev");
		return 1;
	}
	for (i = 0; i < nr; i++)
		if (keys[i] && *keys[i])
			tf_strvec_push(&files, keys[i]);
	credentials(&files);
	for (i = 0; cache_dir && i < 3; i++)
		tf_strvec_pushf(
			&files, "%s/%s", cache_dir,
			(const char *[]){ "sha256", "store", "tmp" }[i]);
	for (i = 0; !refused && i < files.nr; i++) {
		char *secret = realpath(files.v[i], NULL);

		if (secret && is_under(real, secret)) {
			refused = 1;
			tf_why(why, "it would show '%s', which steps never see",
			       secret);
		}
		free(secret);
	}
	tf_strvec_release(&files);
	return refused;
}

void tf_sandbox_secrets(const char *const *keys, size_t nr,
			struct tf_strvec *out)
{
	struct tf_strvec files = TF_STRVEC_INIT;
	size_t i;

	for (i = 0; i < nr; i++)
		if (keys[i] && *keys[i])
			tf_strvec_push(&files, keys[i]);
	credentials(&files);
	for (i = 0; i < files.nr; i++) {
		char *real = realpath(files.v[i], NULL);

		if (real)
			tf_strvec_push(out, real);
		free(real);
	}
	tf_strvec_release(&files);
}

void tf_sandbox_mask_secrets(struct tf_strvec *a, const char *const *keys,
			     size_t nr)
{
	struct tf_strvec files = TF_STRVEC_INIT;
	size_t i;

	for (i = 0; i < nr; i++)
		mask(a, keys[i]);
	credentials(&files);
	for (i = 0; i < files.nr; i++)
		mask(a, files.v[i]);
	tf_strvec_release(&files);
}

/* Clear the set-user-ID and set-group-ID bits of every file below the
 * open directory dir (closed here), depth levels at most. */
static void scrub_dir(int dir, int depth)
{
	DIR *d = fdopendir(dir);
	struct dirent *e;
	struct stat st;

	if (!d) {
		close(dir);
		return;
	}
	while ((e = readdir(d))) {
		int fd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (S_ISREG(st.st_mode) &&
			    (st.st_mode & (S_ISUID | S_ISGID)))
				fchmodat(dirfd(d), e->d_name,
					 st.st_mode & 07777 &
						 ~(mode_t)(S_ISUID | S_ISGID),
					 0);
			continue;
		}
		if (depth <= 0)
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			scrub_dir(fd, depth - 1);
	}
	closedir(d);
}

void tf_sandbox_scrub(const char *dir)
{
	int fd;

	if (!dir || *dir != '/')
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		scrub_dir(fd, 256);
}
