/*
 * Vendoring libraries into NAME.libs/ (vendor.h says what and why).
 * patchelf does the rewriting, through run.c; libelf (elf.c) checks it.
 */
#include "vendor.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"
#include "base/base.h"
#include "metadata/metadata.h"
#include "libs.h"
#include "manylinux.h"
#include "wheel/wheel.h"

/* A library vendored into NAME.libs. */
struct vendored {
	const char *soname;  /* store: the name files need */
	const char *newname; /* store: "libfoo-0123abcd.so.1" */
	const char *origin;  /* store: where it was found */
};

/* One DT_NEEDED rename in a file. */
struct rename {
	const char *from, *to; /* borrowed */
};

struct state {
	const struct tf_vendor_opts *o;
	struct tf_vendor_result *out;
	struct tf_buf libs_dir; /* "foo.libs" */
	struct vendored *v;     /* owned array */
	size_t nr, alloc;
};

static const char *keep(struct state *s, const char *str)
{
	tf_strvec_push(&s->out->store, str);
	return s->out->store.v[s->out->store.nr - 1];
}

/* "NAME.libs/FILE", kept in the store. */
static const char *keep_in_libs(struct state *s, const char *file)
{
	char *path = tf_xstrfmt("%s/%s", s->libs_dir.buf, file);

	tf_strvec_push_take(&s->out->store, path);
	return path;
}

void tf_vendor_default_dirs(const char *triplet, const char *sysroot,
			    int native, struct tf_strvec *dirs)
{
	const char *root = sysroot && *sysroot ? sysroot : "";

	if (!native && !*root) {
		/* Debian's cross libraries (libc6-dev-arm64-cross & co.). */
		tf_strvec_pushf(dirs, "/usr/%s/lib", triplet);
	}
	tf_strvec_pushf(dirs, "%s/lib/%s", root, triplet);
	tf_strvec_pushf(dirs, "%s/usr/lib/%s", root, triplet);
	if (native || *root) {
		tf_strvec_pushf(dirs, "%s/lib", root);
		tf_strvec_pushf(dirs, "%s/usr/lib", root);
	}
}

/* "libfoo.so.1" + hash -> "libfoo-0123abcd.so.1", as auditwheel names it. */
static void hashed_name(const char *soname, const char *hex8,
			struct tf_buf *out)
{
	const char *dot = strchr(soname, '.');

	if (!dot || dot == soname) {
		tf_buf_addf(out, "%s-%s", soname, hex8);
		return;
	}
	tf_buf_add(out, soname, (size_t)(dot - soname));
	tf_buf_addf(out, "-%s%s", hex8, dot);
}

static int run_patchelf(const struct state *s, const char *path,
			const char *const *args)
{
	struct tf_run r = TF_RUN_INIT;
	struct tf_buf out = TF_BUF_INIT, why = TF_BUF_INIT;
	int status;

	tf_strvec_push(&r.argv, "patchelf");
	if (s->o->arch == TF_ARCH_AARCH64) {
		tf_strvec_push(&r.argv, "--page-size");
		tf_strvec_push(&r.argv, "65536");
	}
	tf_strvec_pushv(&r.argv, args);
	tf_strvec_push(&r.argv, path);
	status = tf_run_capture(&r, &out, 4096);
	if (status) {
		while (out.len && out.buf[out.len - 1] == '\n')
			tf_buf_setlen(&out, out.len - 1);
		tf_run_quote_argv(&r.argv, &why);
		if (status == 127)
			error("%s: cannot run patchelf (install Debian's "
			      "'patchelf'): %s",
			      s->o->context, out.buf);
		else
			error("%s: '%s' failed: %s", s->o->context, why.buf,
			      out.buf);
	}
	tf_run_release(&r);
	tf_buf_release(&out);
	tf_buf_release(&why);
	return status ? -1 : 0;
}

/* What a rewritten file must look like, read back with libelf. */
struct expect {
	const struct rename *renames;
	size_t nr;
	const char *soname; /* NULL: not changed */
	const char *runpath;
};

static int check_rewrite(const struct state *s, const char *path,
			 const char *shown, const struct expect *e)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	const char *bad = NULL;
	size_t i, j;

	if (tf_elf_read(path, shown, &info) != TF_ELF_READ_OK)
		return -1;
	for (i = 0; i < e->nr && !bad; i++) {
		int found = 0;

		for (j = 0; j < info.needed.nr; j++) {
			if (!strcmp(info.needed.v[j], e->renames[i].from))
				bad = "DT_NEEDED still names the old library";
			found |= !strcmp(info.needed.v[j], e->renames[i].to);
		}
		for (j = 0; j < info.nr_versions; j++)
			if (!strcmp(info.versions[j].library,
				    e->renames[i].from))
				bad = ".gnu.version_r still names the old library";
		if (!found && !bad)
			bad = "DT_NEEDED lacks the new library";
	}
	if (!bad && e->soname &&
	    (!info.soname || strcmp(info.soname, e->soname)))
		bad = "DT_SONAME is not the new name";
	if (!bad && (!info.runpath || strcmp(info.runpath, e->runpath)))
		bad = "DT_RUNPATH is not what was set";
	tf_elf_info_release(&info);
	if (bad)
		return error("%s: %s: patchelf wrote a broken file (%s); "
			     "refusing it",
			     s->o->context, shown, bad);
	return 0;
}

/* Rewrite path (a copy) one patchelf operation at a time, then check it. */
static int rewrite(const struct state *s, const char *path, const char *shown,
		   const struct expect *e)
{
	size_t i;

	if (e->soname) {
		const char *args[] = { "--set-soname", e->soname, NULL };

		if (run_patchelf(s, path, args))
			return -1;
	}
	for (i = 0; i < e->nr; i++) {
		const char *args[] = { "--replace-needed", e->renames[i].from,
				       e->renames[i].to, NULL };

		if (run_patchelf(s, path, args))
			return -1;
	}
	{
		const char *args[] = { "--set-rpath", e->runpath, NULL };

		if (run_patchelf(s, path, args))
			return -1;
	}
	return check_rewrite(s, path, shown, e);
}

/* Find soname for the target in the search directories. */
static int find_library(const struct state *s, const char *soname,
			struct tf_buf *found)
{
	const char *const *d;
	struct tf_buf tried = TF_BUF_INIT;
	int ret = -1;

	for (d = s->o->dirs; d && *d && ret; d++) {
		struct tf_elf_info info = TF_ELF_INFO_INIT;

		tf_buf_reset(found);
		tf_path_join(found, *d, soname);
		if (tf_path_exists(found->buf) &&
		    tf_elf_read(found->buf, found->buf, &info) ==
			    TF_ELF_READ_OK &&
		    info.elf_class == 64 && !info.big_endian &&
		    info.machine == (s->o->arch == TF_ARCH_AARCH64 ? EM_AARCH64
								   : EM_X86_64))
			ret = 0;
		tf_elf_info_release(&info);
		tf_buf_addf(&tried, "%s%s", tried.len ? ", " : "", *d);
	}
	if (ret)
		error("%s: cannot find '%s' for %s to vendor (searched %s)",
		      s->o->context, soname, tf_arch_name(s->o->arch),
		      tried.len ? tried.buf : "nothing");
	tf_buf_release(&tried);
	return ret;
}

static const struct vendored *find_vendored(const struct state *s,
					    const char *soname)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].soname, soname))
			return &s->v[i];
	return NULL;
}

/* 1 if a vendored library's need is left to the system or provided. */
static int left_alone(const struct state *s, const char *lib)
{
	const struct tf_lib *d = tf_libs_find(s->o->libs, s->o->nr_libs, lib);

	if (d)
		return d->kind != TF_LIB_VENDOR;
	return !strcmp(lib, tf_arch_loader(s->o->arch)) ||
	       tf_manylinux_library_since(s->o->arch, lib) > 0;
}

static int vendor_one(struct state *s, const char *soname,
		      const struct vendored **out);

/* The renames a file's DT_NEEDED list asks for; vendors as it goes. */
static int plan_renames(struct state *s, const struct tf_elf_info *info,
			int transitive, struct rename **out, size_t *nr)
{
	size_t i;

	*out = tf_calloc(info->needed.nr + 1, sizeof(**out));
	*nr = 0;
	for (i = 0; i < info->needed.nr; i++) {
		const char *lib = info->needed.v[i];
		const struct tf_lib *d =
			tf_libs_find(s->o->libs, s->o->nr_libs, lib);
		const struct vendored *v;

		if (transitive ? left_alone(s, lib)
			       : !d || d->kind != TF_LIB_VENDOR)
			continue;
		if (vendor_one(s, lib, &v))
			return -1;
		(*out)[*nr].from = v->soname;
		(*out)[(*nr)++].to = v->newname;
	}
	return 0;
}

static int vendor_one(struct state *s, const char *soname,
		      const struct vendored **out)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_buf found = TF_BUF_INIT, name = TF_BUF_INIT,
		      copy = TF_BUF_INIT, shown = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[2 * TF_SHA256_LEN + 1];
	struct rename *renames = NULL;
	struct expect e;
	size_t nr = 0, idx;
	int ret = -1;

	if ((*out = find_vendored(s, soname)))
		return 0;
	if (find_library(s, soname, &found) ||
	    tf_sha256_file(found.buf, md, NULL))
		goto out;
	tf_sha256_hex(md, hex);
	hex[8] = '\0';
	hashed_name(soname, hex, &name);
	tf_buf_addf(&shown, "%s/%s", s->libs_dir.buf, name.buf);
	tf_path_join(&copy, s->o->work, shown.buf);
	if (tf_copy_file(found.buf, copy.buf))
		goto out;
	if (s->nr == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 8;
		s->v = tf_realloc(s->v, s->alloc * sizeof(*s->v));
	}
	idx = s->nr++;
	s->v[idx].soname = keep(s, soname);
	s->v[idx].newname = keep(s, name.buf);
	s->v[idx].origin = keep(s, found.buf);
	verbose("%s: vendoring %s as %s", s->o->context, found.buf, shown.buf);
	/* Its own needs first: they may grow s->v. */
	if (tf_elf_read(copy.buf, shown.buf, &info) != TF_ELF_READ_OK ||
	    plan_renames(s, &info, 1, &renames, &nr))
		goto out;
	e.renames = renames;
	e.nr = nr;
	e.soname = s->v[idx].newname;
	e.runpath = "$ORIGIN";
	if (rewrite(s, copy.buf, shown.buf, &e))
		goto out;
	*out = &s->v[idx];
	ret = 0;
out:
	tf_elf_info_release(&info);
	free(renames);
	tf_buf_release(&found);
	tf_buf_release(&name);
	tf_buf_release(&copy);
	tf_buf_release(&shown);
	return ret;
}

/* "$ORIGIN/../.." up from dst to the wheel's top, then "/NAME.libs". */
static void runpath_to_libs(const struct state *s, const char *dst,
			    const char *old, struct tf_buf *out)
{
	struct tf_buf mine = TF_BUF_INIT;
	const char *p;

	tf_buf_addstr(&mine, "$ORIGIN");
	for (p = dst; (p = strchr(p, '/')); p++)
		tf_buf_addstr(&mine, "/..");
	tf_buf_addf(&mine, "/%s", s->libs_dir.buf);
	if (old && *old && !tf_libs_runpath_has(old, mine.buf))
		tf_buf_addf(out, "%s:", old);
	tf_buf_addstr(out, mine.buf);
	tf_buf_release(&mine);
}

/*
 * Append to runpath (the file's, maybe with NAME.libs already) the entry
 * that reaches each external library the file needs, unless one there
 * reaches it already (the build wrote it). 1 if anything was added.
 */
static int runpath_to_externals(const struct state *s,
				const struct tf_elf_info *info, const char *dst,
				struct tf_buf *runpath)
{
	struct tf_buf dir = TF_BUF_INIT, entry = TF_BUF_INIT;
	int added = 0;
	size_t i;

	for (i = 0; i < info->needed.nr; i++) {
		const struct tf_lib *d = tf_libs_find(s->o->libs, s->o->nr_libs,
						      info->needed.v[i]);

		if (!d || d->kind != TF_LIB_EXTERNAL)
			continue;
		tf_buf_reset(&dir);
		tf_path_dirname(&dir, d->file);
		if (!strcmp(dir.buf, "."))
			tf_buf_reset(&dir);
		if (tf_elf_runpath_reaches(runpath->buf, dst, dir.buf))
			continue;
		tf_buf_reset(&entry);
		tf_libs_external_runpath(dst, d->file, &entry);
		tf_buf_addf(runpath, "%s%s", runpath->len ? ":" : "",
			    entry.buf);
		verbose("%s: %s: RUNPATH '%s' added for '%s' from %s %s",
			s->o->context, dst, entry.buf, d->soname, d->dist,
			d->version);
		added = 1;
	}
	tf_buf_release(&dir);
	tf_buf_release(&entry);
	return added;
}

/* Copy f's file to work/rewritten/DST, where it is rewritten. */
static int copy_for_rewrite(const struct state *s,
			    const struct tf_wheel_file *f, struct tf_buf *copy)
{
	struct tf_buf dir = TF_BUF_INIT;
	int ret;

	tf_buf_addf(copy, "%s/rewritten/%s", s->o->work, f->dst);
	tf_path_dirname(&dir, copy->buf);
	ret = tf_mkdir_p(dir.buf) || tf_copy_file(f->src, copy->buf);
	tf_buf_release(&dir);
	return ret ? -1 : 0;
}

/*
 * Rewrite one of the wheel's files if it needs vendored libraries, or
 * external ones its RUNPATH does not reach.
 */
static int vendor_file(struct state *s, struct tf_wheel_file *f)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_buf copy = TF_BUF_INIT, runpath = TF_BUF_INIT;
	struct rename *renames = NULL;
	struct expect e;
	size_t nr = 0;
	enum tf_elf_read_result res = tf_elf_read(f->src, f->dst, &info);
	const char *old;
	int ret, external;

	if (res != TF_ELF_READ_OK ||
	    (info.type != ET_DYN && info.type != ET_EXEC)) {
		ret = res == TF_ELF_READ_ERROR ? -1 : 0;
		goto out;
	}
	ret = -1;
	if (plan_renames(s, &info, 0, &renames, &nr))
		goto out;
	old = info.runpath ? info.runpath : info.rpath;
	if (nr)
		runpath_to_libs(s, f->dst, old, &runpath);
	else if (old)
		tf_buf_addstr(&runpath, old);
	external = runpath_to_externals(s, &info, f->dst, &runpath);
	ret = 0;
	if (!nr && !external)
		goto out;
	if ((ret = copy_for_rewrite(s, f, &copy)))
		goto out;
	e.renames = renames;
	e.nr = nr;
	e.soname = NULL;
	e.runpath = runpath.buf;
	ret = rewrite(s, copy.buf, f->dst, &e);
	if (!ret)
		f->src = keep(s, copy.buf);
out:
	tf_elf_info_release(&info);
	free(renames);
	tf_buf_release(&copy);
	tf_buf_release(&runpath);
	return ret;
}

/* The declarations, vendored ones with their files, then the extra ones. */
static void record_libs(struct state *s)
{
	struct tf_vendor_result *out = s->out;
	const struct vendored *v;
	size_t i;

	out->libs = tf_calloc(s->o->nr_libs + s->nr + 1, sizeof(*out->libs));
	for (i = 0; i < s->o->nr_libs; i++) {
		out->libs[out->nr_libs] = s->o->libs[i];
		v = find_vendored(s, s->o->libs[i].soname);
		if (s->o->libs[i].kind == TF_LIB_VENDOR && !v) {
			warning("%s: library '%s' is declared vendored but no "
				"file needs it",
				s->o->context, s->o->libs[i].soname);
			continue;
		}
		if (v) {
			out->libs[out->nr_libs].file =
				keep_in_libs(s, v->newname);
			out->libs[out->nr_libs].origin = v->origin;
		}
		out->nr_libs++;
	}
	for (i = 0; i < s->nr; i++) {
		if (tf_libs_find(s->o->libs, s->o->nr_libs, s->v[i].soname))
			continue;
		out->libs[out->nr_libs].soname = s->v[i].soname;
		out->libs[out->nr_libs].kind = TF_LIB_VENDOR;
		out->libs[out->nr_libs].origin = s->v[i].origin;
		out->libs[out->nr_libs++].file =
			keep_in_libs(s, s->v[i].newname);
	}
}

/* 1 if files may be rewritten: a library is vendored or external. */
static int has_vendor(const struct tf_vendor_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_libs; i++)
		if (o->libs[i].kind == TF_LIB_VENDOR ||
		    o->libs[i].kind == TF_LIB_EXTERNAL)
			return 1;
	return 0;
}

/* Append the vendored libraries to the wheel's files. */
static void add_vendored_files(struct state *s, const char *dir)
{
	struct tf_vendor_result *out = s->out;
	size_t i;

	if (!s->nr) /* else out->own holds the wheel's files already */
		return;
	out->own = tf_realloc(out->own,
			      (out->nr_files + s->nr + 1) * sizeof(*out->own));
	out->files = out->own;
	for (i = 0; i < s->nr; i++) {
		struct tf_wheel_file *f = &out->own[out->nr_files++];
		char *src = tf_xstrfmt("%s/%s", dir, s->v[i].newname);

		tf_strvec_push_take(&out->store, src);
		f->src = src;
		f->dst = keep_in_libs(s, s->v[i].newname);
	}
}

int tf_vendor_wheel(const struct tf_vendor_opts *o,
		    const struct tf_wheel_file *files, size_t nr,
		    struct tf_vendor_result *out)
{
	struct state s = { o, out, TF_BUF_INIT, NULL, 0, 0 };
	struct tf_buf dir = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	/* Nothing vendored: the caller's files as they are, not a copy. */
	out->files = files;
	out->nr_files = nr;
	tf_pyname_wheel_escape(o->wheel_name, &s.libs_dir);
	tf_buf_addstr(&s.libs_dir, ".libs");
	tf_path_join(&dir, o->work, s.libs_dir.buf);
	if (has_vendor(o)) {
		out->own = tf_calloc(nr + 1, sizeof(*out->own));
		memcpy(out->own, files, nr * sizeof(*files));
		out->files = out->own;
		ret = tf_mkdir_p(dir.buf);
		for (i = 0; i < nr && !ret; i++)
			ret = vendor_file(&s, &out->own[i]);
	}
	if (!ret) {
		record_libs(&s);
		add_vendored_files(&s, dir.buf);
	}
	free(s.v);
	tf_buf_release(&s.libs_dir);
	tf_buf_release(&dir);
	return ret;
}

void tf_vendor_result_release(struct tf_vendor_result *r)
{
	if (!r)
		return;
	free(r->own);
	free(r->libs);
	r->files = r->own = NULL;
	r->libs = NULL;
	r->nr_files = r->nr_libs = 0;
	tf_strvec_release(&r->store);
}
