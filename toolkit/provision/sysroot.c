/*
 * Target packages: resolve with apt-cache (dpkg-query natively), download
 * with apt-get, unpack with dpkg -x (all through run.c), and keep the
 * result in a root keyed by the exact package versions (sysroot.h).
 */
#include "sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

/* What is kept of a packaging tool's output (apt-cache, dpkg). */
#define TOOL_OUTPUT_CAP (64 << 20)

/* Packages the cross toolchain provides; never unpacked into a root. */
static const char *const excluded[] = {
	"libc6-dev",        "libc-dev-bin", "linux-libc-dev",
	"libcrypt-dev",     "libnsl-dev",   "rpcsvc-proto",
	"libtirpc-dev",     "gcc-12-base",  "libgcc-12-dev",
	"libstdc++-12-dev", NULL,
};

enum pkg_state {
	NEW,
	FOUND,
	MISSING,
	SKIPPED
};

struct pkg {
	char *name;               /* owned */
	char *pin;                /* owned: requested version, or NULL */
	const struct tf_pos *pos; /* borrowed: recipe position of a root */
	int root;                 /* 1 if asked for (recipe or implicit) */
	enum pkg_state state;
	char *version, *arch, *file, *sha256; /* owned, once FOUND */
	struct tf_strvec groups; /* owned: dependency groups not yet decided */
};

struct closure {
	struct pkg *v; /* owned */
	size_t nr, alloc;
	const char *debarch; /* borrowed */
};

static struct pkg *find(struct closure *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

static struct pkg *add(struct closure *c, const char *name, size_t len)
{
	struct pkg *p;

	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 32;
		c->v = tf_realloc(c->v, c->alloc * sizeof(*c->v));
	}
	p = &c->v[c->nr++];
	memset(p, 0, sizeof(*p));
	p->name = tf_strndup(name, len);
	p->groups = (struct tf_strvec)TF_STRVEC_INIT;
	return p;
}

static void closure_release(struct closure *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->v[i].name);
		free(c->v[i].pin);
		free(c->v[i].version);
		free(c->v[i].arch);
		free(c->v[i].file);
		free(c->v[i].sha256);
		tf_strvec_release(&c->v[i].groups);
	}
	free(c->v);
}

static int is_excluded(const char *name)
{
	const char *const *e;

	for (e = excluded; *e; e++)
		if (!strcmp(*e, name))
			return 1;
	return 0;
}

/* The value of "Field: value" if line is that field, else NULL. */
static const char *field(const char *line, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(line, name, n) || line[n] != ':')
		return NULL;
	return line + n + 1 + (line[n + 1] == ' ');
}

/* Split a Depends value into its comma-separated groups. */
static void add_groups(struct pkg *p, const char *deps)
{
	while (*deps) {
		size_t n = strcspn(deps, ",");
		const char *s = deps;

		while (n && (*s == ' ')) {
			s++;
			n--;
		}
		if (n)
			tf_strvec_push_take(&p->groups, tf_strndup(s, n));
		deps += strcspn(deps, ",");
		deps += *deps == ',';
	}
}

/* The file name apt-get download gives: NAME_VERSION_ARCH.deb, ':' as %3a. */
static char *deb_name(const struct pkg *p)
{
	struct tf_buf b = TF_BUF_INIT;
	const char *v;

	tf_buf_addf(&b, "%s_", p->name);
	for (v = p->version; *v; v++)
		if (*v == ':')
			tf_buf_addstr(&b, "%3a");
		else
			tf_buf_addch(&b, *v);
	tf_buf_addf(&b, "_%s.deb", p->arch);
	return tf_buf_detach(&b);
}

/* Take one apt-cache stanza's fields into the package it describes. */
static void take_stanza(struct closure *c, char **lines, size_t n)
{
	const char *name = NULL, *arch = NULL, *v;
	struct pkg *p;
	int foreign = 0, essential = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((v = field(lines[i], "Package")))
			name = v;
		else if ((v = field(lines[i], "Architecture")))
			arch = v;
	}
	/* Asked as NAME:ARCH and as NAME: keep the target's or an "all" one. */
	if (!name || !arch || !(p = find(c, name)) || p->state != NEW ||
	    (strcmp(arch, c->debarch) && strcmp(arch, "all")))
		return;
	for (i = 0; i < n; i++) {
		if ((v = field(lines[i], "Version")))
			p->version = tf_strdup(v);
		else if ((v = field(lines[i], "SHA256")))
			p->sha256 = tf_strdup(v);
		else if ((v = field(lines[i], "Multi-Arch")))
			foreign = !strcmp(v, "foreign");
		else if ((v = field(lines[i], "Essential")))
			essential = !strcmp(v, "yes");
		else if ((v = field(lines[i], "Depends")) ||
			 (v = field(lines[i], "Pre-Depends")))
			add_groups(p, v);
	}
	p->arch = tf_strdup(arch);
	if (!p->version || !p->sha256) {
		p->state = MISSING;
		return;
	}
	p->file = deb_name(p);
	/* Tools any architecture can run (dpkg, tar, perl) are the build
	 * machine's business, not the root's. */
	p->state = !p->root && (foreign || essential) ? SKIPPED : FOUND;
	if (p->state == SKIPPED)
		tf_strvec_release(&p->groups);
}

/*
 * Ask apt-cache about every NEW package, both as NAME:ARCH and as NAME
 * (which finds Architecture: all packages), in one run: apt-cache loads
 * its whole cache each time, which is what costs.
 */
static int query(struct closure *c)
{
	struct tf_strvec argv = TF_STRVEC_INIT, lines = TF_STRVEC_INIT;
	struct tf_buf out = TF_BUF_INIT;
	size_t i, start = 0;
	char *s, *nl;
	int status;

	tf_strvec_pushv(&argv,
			(const char *const[]){ "apt-cache", "show",
					       "--no-all-versions", NULL });
	for (i = 0; i < c->nr; i++) {
		const struct pkg *p = &c->v[i];
		const char *eq = p->pin ? "=" : "", *pin = p->pin ? p->pin : "";

		if (p->state != NEW)
			continue;
		tf_strvec_pushf(&argv, "%s:%s%s%s", p->name, c->debarch, eq,
				pin);
		tf_strvec_pushf(&argv, "%s%s%s", p->name, eq, pin);
	}
	if (argv.nr == 3) {
		tf_strvec_release(&argv);
		return 0;
	}
	status = tf_run_tool((const char *const *)argv.v, NULL, &out,
			     TOOL_OUTPUT_CAP);
	/* 100: some name is unknown; the others are still printed. */
	if (status != 0 && status != 100) {
		error("apt-cache show failed (%s): %s", argv.v[3], out.buf);
		tf_strvec_release(&argv);
		tf_buf_release(&out);
		return -1;
	}
	for (s = out.buf; *s; s = nl + (*nl == '\n')) {
		nl = s + strcspn(s, "\n");
		tf_strvec_push_take(&lines, tf_strndup(s, (size_t)(nl - s)));
	}
	for (i = 0; i <= lines.nr; i++)
		if (i == lines.nr || !*lines.v[i]) {
			take_stanza(c, lines.v + start, i - start);
			start = i + 1;
		}
	tf_strvec_release(&argv);
	tf_strvec_release(&lines);
	tf_buf_release(&out);
	return 0;
}

/*
 * Decide one dependency group "a (>= 1) | b": satisfied (1) by an
 * excluded, found or skipped alternative; 0 while an alternative is
 * being asked for; 1 too when every alternative is missing (a virtual
 * package: what provides it is named elsewhere or is the toolchain's).
 */
static int decide(struct closure *c, const char *group)
{
	const char *s = group;

	while (*s) {
		size_t n;
		char *name;
		struct pkg *p;

		s += strspn(s, " |");
		n = strcspn(s, " (:[|");
		if (!n)
			break;
		name = tf_strndup(s, n);
		s += n;
		/* "foo:any": any architecture will do, the build machine's too. */
		if (*s == ':' || is_excluded(name)) {
			free(name);
			return 1;
		}
		s += strcspn(s, "|");
		p = find(c, name);
		if (!p)
			p = add(c, name, strlen(name));
		free(name);
		if (p->state == FOUND || p->state == SKIPPED)
			return 1;
		if (p->state == NEW)
			return 0;
	}
	return 1;
}

/* Settle every group that can be settled; 1 if some are still open. */
static int settle(struct closure *c)
{
	size_t i, j;
	int open = 0;

	for (i = 0; i < c->nr; i++) {
		struct tf_strvec keep = TF_STRVEC_INIT, groups;

		if (c->v[i].state != FOUND)
			continue;
		/* decide() may grow c->v: hold no pointer into it across. */
		groups = c->v[i].groups;
		c->v[i].groups = (struct tf_strvec)TF_STRVEC_INIT;
		for (j = 0; j < groups.nr; j++)
			if (!decide(c, groups.v[j]))
				tf_strvec_push(&keep, groups.v[j]);
		open |= keep.nr > 0;
		tf_strvec_release(&groups);
		c->v[i].groups = keep;
	}
	return open;
}

static int mark_missing(struct closure *c)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->nr; i++)
		if (c->v[i].state == NEW) {
			c->v[i].state = MISSING;
			n++;
		}
	return n;
}

/* The whole closure, asking apt-cache a level at a time. */
static int resolve(struct closure *c)
{
	int rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		size_t i;

		if (query(c))
			return -1;
		mark_missing(c);
		/* A root the archive lacks ends it: that is the error to show. */
		for (i = 0; i < c->nr; i++)
			if (c->v[i].root && c->v[i].state == MISSING)
				return 0;
		if (!settle(c))
			return 0;
	}
	return error("target packages: the dependency closure does not end");
}

static void add_root(struct closure *c, const char *spec,
		     const struct tf_pos *pos)
{
	size_t n = strcspn(spec, "=");
	struct pkg *p = find(c, spec) ? NULL : add(c, spec, n);

	if (!p)
		return;
	p->root = 1;
	p->pos = pos;
	if (spec[n] == '=')
		p->pin = tf_strdup(spec + n + 1);
}

/* Name every root package apt does not know, at its recipe position. */
static int report_missing(const struct tf_plan *p, struct closure *c)
{
	size_t i;
	int errors = 0;

	for (i = 0; i < c->nr; i++) {
		const struct pkg *k = &c->v[i];

		if (!k->root || k->state != MISSING)
			continue;
		errors++;
		if (k->pos)
			tf_error_at(
				k->pos,
				"target package '%s%s%s' is not in the apt archive for %s (%s)",
				k->name, k->pin ? "=" : "",
				k->pin ? k->pin : "", p->target.name,
				c->debarch);
		else
			error("target '%s': package '%s' (%s) is not in the apt archive; run apt-get update?",
			      p->target.name, k->name, c->debarch);
	}
	return errors;
}

/*
 * Native: each package must be installed; record its version. An
 * "Architecture: all" package (pybind11-dev, python3-pytest) is not
 * NAME:amd64 to dpkg, so NAME:all is asked after the target's own.
 */
static enum tf_plan_result resolve_native(const struct tf_plan *p,
					  struct tf_strvec *lines)
{
	static const char *const fmt = "-f=${db:Status-Abbrev}${Version}";
	const struct tf_recipe *r = p->recipe;
	struct tf_buf out = TF_BUF_INIT;
	size_t i, j;
	enum tf_plan_result ret = TF_PLAN_OK;

	for (i = 0; i < r->nr_target_packages; i++) {
		const struct tf_str *s = &r->target_packages[i];
		const char *arches[] = { p->target.debarch, "all" };
		int len = (int)strcspn(s->s, "="), status = 1;
		char *name = NULL;

		for (j = 0; status && j < 2; j++) {
			free(name);
			name = tf_xstrfmt("%.*s:%s", len, s->s, arches[j]);
			tf_buf_reset(&out);
			status =
				tf_run_tool((const char *const[]){ "dpkg-query",
								   "-W", fmt,
								   name, NULL },
					    NULL, &out, TOOL_OUTPUT_CAP) ||
				strncmp(out.buf, "ii ", 3);
		}
		if (status) {
			ret = TF_PLAN_TOOLCHAIN;
			/* A bare name is the build machine's architecture or
			 * an "all" package to apt; NAME:amd64 is not "all". */
			tf_error_at(
				&s->pos,
				"target package '%s' is not installed on this machine (the native target %s uses the build machine's packages); install it: apt-get install %s",
				s->s, p->target.name, s->s);
		} else {
			tf_strvec_pushf(lines, "%s=%s", name, out.buf + 3);
		}
		free(name);
	}
	tf_buf_release(&out);
	return ret;
}

/* Keep the resolution for the plans of later runs (plan/roots.c). */
static void save(const struct tf_strvec *lines, const char *path)
{
	struct tf_buf text = TF_BUF_INIT, dir = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < lines->nr; i++)
		tf_buf_addf(&text, "%s\n", lines->v[i]);
	tf_path_dirname(&dir, path);
	/* A cache: failing to write it costs time, not correctness. */
	if (!tf_mkdir_p(dir.buf))
		tf_write_file_atomic(path, text.buf, text.len, 0644);
	tf_buf_release(&text);
	tf_buf_release(&dir);
}

enum tf_plan_result tf_sysroot_resolve(const struct tf_plan *p,
				       struct tf_strvec *out)
{
	struct closure c = { NULL, 0, 0, p->target.debarch };
	enum tf_plan_result ret = TF_PLAN_OK;
	size_t i;

	if (p->target.native) {
		ret = resolve_native(p, out);
	} else {
		for (i = 0; i < p->package_roots.nr; i++)
			add_root(&c, p->package_roots.v[i],
				 p->package_root_pos[i]);
		if (resolve(&c))
			ret = TF_PLAN_TOOLCHAIN;
		else if (report_missing(p, &c))
			ret = TF_PLAN_RECIPE;
		for (i = 0; !ret && i < c.nr; i++)
			if (c.v[i].state == FOUND)
				tf_strvec_pushf(out, "%s:%s=%s %s %s",
						c.v[i].name, c.v[i].arch,
						c.v[i].version, c.v[i].sha256,
						c.v[i].file);
	}
	if (!ret)
		save(out, p->package_saved);
	closure_release(&c);
	return ret;
}

/* ---- making the root ---- */

/* Download the .debs not in debs/ yet, check each against its SHA256. */
static int download(const struct tf_plan *p, const char *debs)
{
	struct tf_strvec argv = TF_STRVEC_INIT;
	struct tf_buf tmp = TF_BUF_INIT, out = TF_BUF_INIT, path = TF_BUF_INIT,
		      from = TF_BUF_INIT;
	size_t i;
	int ret = tf_mkdir_p(debs);

	tf_strvec_pushv(&argv, (const char *const[]){ "apt-get", "download",
						      "-q", NULL });
	for (i = 0; !ret && i < p->packages.nr; i++) {
		tf_buf_setf(&path, "%s/%s", debs, p->package_files.v[i]);
		if (!tf_path_exists(path.buf))
			tf_strvec_push(&argv, p->packages.v[i]);
	}
	if (!ret && argv.nr > 3) {
		info("target %s: downloading %zu packages", p->target.name,
		     argv.nr - 3);
		ret = tf_mkdtemp_temp(debs, "download", &tmp);
		/* apt's sandbox user must be able to write there. */
		if (!ret)
			chmod(tmp.buf, 0755);
		if (!ret && tf_run_tool((const char *const *)argv.v, tmp.buf,
					&out, TOOL_OUTPUT_CAP))
			ret = error("apt-get download failed for target %s: %s",
				    p->target.name, out.buf);
	}
	for (i = 0; !ret && i < p->packages.nr; i++) {
		unsigned char md[TF_SHA256_LEN];
		char hex[TF_SHA256_HEX_LEN + 1];

		tf_buf_setf(&path, "%s/%s", debs, p->package_files.v[i]);
		tf_buf_setf(&from, "%s/%s", tmp.buf, p->package_files.v[i]);
		if (tmp.len && tf_path_exists(from.buf)) {
			if (tf_sha256_file(from.buf, md, NULL))
				ret = -1;
			tf_sha256_hex(md, hex);
			if (!ret && strcmp(hex, p->package_digests.v[i]))
				ret = error(
					"'%s' (%s) has sha256 %s, the archive says %s",
					p->package_files.v[i], p->packages.v[i],
					hex, p->package_digests.v[i]);
			if (!ret && rename(from.buf, path.buf) < 0)
				ret = error_errno("cannot rename '%s'",
						  from.buf);
		} else if (!tf_path_exists(path.buf)) {
			ret = error("apt-get download did not give '%s' (%s)",
				    p->package_files.v[i], p->packages.v[i]);
		}
		/* The LRU clock of a .deb: its mtime, set when used. */
		if (!ret)
			utimensat(AT_FDCWD, path.buf, NULL, 0);
	}
	if (tmp.len) {
		tf_rm_rf(tmp.buf);
		tf_signals_temp_forget(tmp.buf);
	}
	tf_strvec_release(&argv);
	tf_buf_release(&tmp);
	tf_buf_release(&out);
	tf_buf_release(&path);
	tf_buf_release(&from);
	return ret;
}

/* Move every entry of src into dst (merging directories), then rmdir src. */
static int merge_into(const char *src, const char *dst)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf a = TF_BUF_INIT, b = TF_BUF_INIT;
	size_t i;
	int ret = tf_mkdir_p(dst) || tf_list_dir(src, &names) ? -1 : 0;

	for (i = 0; !ret && i < names.nr; i++) {
		struct stat st;

		tf_buf_setf(&a, "%s/%s", src, names.v[i]);
		tf_buf_setf(&b, "%s/%s", dst, names.v[i]);
		if (lstat(b.buf, &st) == 0 && S_ISDIR(st.st_mode) &&
		    lstat(a.buf, &st) == 0 && S_ISDIR(st.st_mode))
			ret = merge_into(a.buf, b.buf);
		else if (rename(a.buf, b.buf) < 0)
			ret = error_errno("cannot move '%s' to '%s'", a.buf,
					  b.buf);
	}
	if (!ret && rmdir(src) < 0)
		ret = error_errno("cannot remove '%s'", src);
	tf_strvec_release(&names);
	tf_buf_release(&a);
	tf_buf_release(&b);
	return ret;
}

/*
 * The alternatives symlinks maintainer scripts would make, for the BLAS
 * and LAPACK that programs link by their alternative's name
 * (libblas.so.3 -> blas/libblas.so.3): dpkg -x runs no script. The
 * highest-priority implementation in the root wins, as with
 * update-alternatives (OpenBLAS before the reference one).
 */
static int link_alternatives(const char *root, const char *triplet)
{
	static const char *const alts[][3] = {
		{ "libblas.so.3", "openblas-pthread/libblas.so.3",
		  "blas/libblas.so.3" },
		{ "liblapack.so.3", "openblas-pthread/liblapack.so.3",
		  "lapack/liblapack.so.3" },
	};
	struct tf_buf link = TF_BUF_INIT, target = TF_BUF_INIT;
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(alts) / sizeof(*alts); i++) {
		struct stat st;

		tf_buf_setf(&link, "%s/usr/lib/%s/%s", root, triplet,
			    alts[i][0]);
		if (lstat(link.buf, &st) == 0)
			continue;
		for (j = 1; j < 3; j++) {
			tf_buf_setf(&target, "%s/usr/lib/%s/%s", root, triplet,
				    alts[i][j]);
			if (!tf_path_exists(target.buf))
				continue;
			if (symlink(alts[i][j], link.buf) < 0)
				ret = error_errno("cannot create '%s'",
						  link.buf);
			break;
		}
	}
	tf_buf_release(&link);
	tf_buf_release(&target);
	return ret;
}

/*
 * What dpkg -x leaves out: Debian 12's merged /usr (else the emulated
 * loader can find the build machine's arm64 libraries in /lib), an
 * empty ld.so.cache (else the host's is read), and the alternatives
 * symlinks of BLAS and LAPACK.
 */
static int fix_root(const char *root, const char *triplet)
{
	static const char *const dirs[] = { "bin", "sbin", "lib", "lib64",
					    NULL };
	const char *const *d;
	struct tf_buf a = TF_BUF_INIT, b = TF_BUF_INIT, link = TF_BUF_INIT;
	int ret = 0;

	for (d = dirs; !ret && *d; d++) {
		struct stat st;

		tf_buf_setf(&a, "%s/%s", root, *d);
		tf_buf_setf(&b, "%s/usr/%s", root, *d);
		if (lstat(a.buf, &st) == 0 && S_ISDIR(st.st_mode))
			ret = merge_into(a.buf, b.buf);
		else if (!ret && lstat(a.buf, &st) < 0)
			ret = tf_mkdir_p(b.buf);
		tf_buf_setf(&link, "usr/%s", *d);
		if (!ret && lstat(a.buf, &st) < 0 &&
		    symlink(link.buf, a.buf) < 0)
			ret = error_errno("cannot create '%s'", a.buf);
	}
	tf_buf_setf(&a, "%s/etc", root);
	if (!ret)
		ret = tf_mkdir_p(a.buf);
	tf_buf_setf(&a, "%s/etc/ld.so.cache", root);
	if (!ret)
		ret = tf_write_file_atomic(a.buf, "", 0, 0644);
	if (!ret)
		ret = link_alternatives(root, triplet);
	tf_buf_release(&a);
	tf_buf_release(&b);
	tf_buf_release(&link);
	return ret;
}

static int unpack(const struct tf_plan *p, const char *debs, const char *root)
{
	struct tf_buf out = TF_BUF_INIT, deb = TF_BUF_INIT, list = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < p->packages.nr; i++) {
		tf_buf_setf(&deb, "%s/%s", debs, p->package_files.v[i]);
		tf_buf_reset(&out);
		if (tf_run_tool((const char *const[]){ "dpkg", "-x", deb.buf,
						       root, NULL },
				NULL, &out, TOOL_OUTPUT_CAP))
			ret = error("cannot unpack '%s': %s", deb.buf, out.buf);
		tf_buf_addf(&list, "%s %s\n", p->packages.v[i],
			    p->package_digests.v[i]);
	}
	if (!ret)
		ret = fix_root(root, p->target.triplet);
	tf_buf_setf(&deb, "%s/.tfbuild-packages", root);
	if (!ret)
		ret = tf_write_file_atomic(deb.buf, list.buf, list.len, 0644);
	tf_buf_release(&out);
	tf_buf_release(&deb);
	tf_buf_release(&list);
	return ret;
}

/* Download the packages and unpack them into tmp, the root's
   temporary directory. */
static int fill_root(const char *tmp, void *arg)
{
	const struct tf_plan *p = arg;
	struct tf_buf debs = TF_BUF_INIT;
	int ret;

	tf_path_dirname(&debs, p->sysroot);
	tf_buf_addstr(&debs, "/debs");
	/* gc removes no .deb while a run that makes a root holds debs/. */
	ret = tf_mkdir_p(debs.buf);
	if (!ret && tf_lock_use(debs.buf, NULL) < 0)
		ret = -1;
	if (!ret)
		ret = download(p, debs.buf);
	if (!ret) {
		info("target %s: unpacking %zu packages into %s",
		     p->target.name, p->packages.nr, p->sysroot);
		ret = unpack(p, debs.buf, tmp);
	}
	tf_buf_release(&debs);
	return ret;
}

int tf_sysroot_make(const struct tf_plan *p)
{
	struct tf_buf what = TF_BUF_INIT;
	int ret;

	if (!p->sysroot)
		return 0;
	tf_buf_setf(&what, "target %s: the root", p->target.name);
	ret = tf_lock_use_made(p->sysroot, ".tfbuild-packages", "root",
			       what.buf, fill_root, (void *)p);
	tf_buf_release(&what);
	return ret;
}
