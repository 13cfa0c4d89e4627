/*
 * The Mach-O files of one macOS wheel, taken together once each has
 * been read (macos.c gathers them as verify streams the entries): which
 * file in the wheel each @rpath/ and @loader_path/ load resolves to, as
 * dyld resolves it from the loading file, and whether that file exports
 * every symbol bound to it (two-level namespace: each undefined symbol
 * names its library by ordinal). A load that resolves to nothing in the
 * wheel is another distribution's (the framework's) or missing: said,
 * as tfbuild cannot know which here.
 */
#include "macos.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "macho/macho.h"

/* One slice of one file, what the others need of it. */
struct macos_file {
	char *shown;             /* owned; its path in the wheel */
	unsigned arch;           /* TF_MACOS_ARM64 or TF_MACOS_X86_64 */
	const char *arch_name;   /* static */
	struct tf_strvec dylibs; /* its loads, in ordinal order */
	struct tf_strvec rpaths;
	struct tf_strvec exports; /* sorted */
	int reexports;            /* 1: it re-exports a library, so some of its
			  exports are another file's */
	struct tf_strvec undefs;  /* bound to a library, not weak */
	int *ordinals;            /* owned; undefs' library ordinals */
};

struct tf_macos_wheel {
	struct macos_file *files; /* owned */
	size_t nr, alloc;
	size_t refused; /* refusals printed by tf_macos_wheel_finish */
};

struct tf_macos_wheel *tf_macos_wheel_new(void)
{
	return tf_calloc(1, sizeof(struct tf_macos_wheel));
}

void tf_macos_wheel_free(struct tf_macos_wheel *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr; i++) {
		free(w->files[i].shown);
		tf_strvec_release(&w->files[i].dylibs);
		tf_strvec_release(&w->files[i].rpaths);
		tf_strvec_release(&w->files[i].exports);
		tf_strvec_release(&w->files[i].undefs);
		free(w->files[i].ordinals);
	}
	free(w->files);
	free(w);
}

void tf_macos_wheel_add(struct tf_macos_wheel *w, const char *shown,
			unsigned arch, const struct tf_macho_slice *s)
{
	struct macos_file *f;
	size_t i, n = 0;

	if (w->nr == w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 8;
		w->files = tf_realloc(w->files, w->alloc * sizeof(*w->files));
	}
	f = &w->files[w->nr++];
	*f = (struct macos_file){ .shown = tf_strdup(shown),
				  .arch = arch,
				  .arch_name = arch == TF_MACOS_ARM64
						       ? "arm64"
						       : "x86_64",
				  .dylibs = TF_STRVEC_INIT,
				  .rpaths = TF_STRVEC_INIT,
				  .exports = TF_STRVEC_INIT,
				  .undefs = TF_STRVEC_INIT };
	for (i = 0; i < s->nr_dylibs; i++) {
		tf_strvec_push(&f->dylibs, s->dylibs[i].name);
		f->reexports |= s->dylibs[i].kind == TF_MACHO_REEXPORT;
	}
	for (i = 0; i < s->nr_rpaths; i++)
		tf_strvec_push(&f->rpaths, s->rpaths[i]);
	for (i = 0; i < s->nr_exports; i++)
		tf_strvec_push(&f->exports, s->exports[i]);
	qsort(f->exports.v, f->exports.nr, sizeof(char *), tf_strcmp_ptr);
	f->ordinals = tf_calloc(s->nr_undefs + 1, sizeof(int));
	for (i = 0; i < s->nr_undefs; i++) {
		if (s->undefs[i].ordinal < 1 || s->undefs[i].weak)
			continue;
		tf_strvec_push(&f->undefs, s->undefs[i].name);
		f->ordinals[n++] = s->undefs[i].ordinal;
	}
}

static void say(const struct tf_macos_rules *r, const struct macos_file *f,
		int warn, const char *fmt, ...) TF_PRINTF(4, 5);
static void say(const struct tf_macos_rules *r, const struct macos_file *f,
		int warn, const char *fmt, ...)
{
	struct tf_buf msg = TF_BUF_INIT;
	va_list ap;

	if (r->context)
		tf_buf_addf(&msg, "%s: ", r->context);
	tf_buf_addf(&msg, "%s: %s slice: ", f->shown, f->arch_name);
	va_start(ap, fmt);
	tf_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (warn)
		warning("%s", msg.buf);
	else
		error("%s", msg.buf);
	tf_buf_release(&msg);
}

static int in_wheel(const struct tf_macos_rules *r, const char *path)
{
	const char *key = path;

	return r->wheel_files &&
	       bsearch(&key, r->wheel_files, r->nr_wheel_files, sizeof(char *),
		       tf_strcmp_ptr) != NULL;
}

/*
 * Where `rest` leads from f's folder (an @loader_path), as a wheel
 * path in out: 0 if that is a file of the wheel, else -1.
 */
static int lead(const struct tf_macos_rules *r, const struct macos_file *f,
		const char *rest, struct tf_buf *out)
{
	tf_buf_setlen(out, 0);
	if (tf_macos_resolve_loader(f->shown, rest, out) < 0)
		return -1;
	return in_wheel(r, out->buf) ? 0 : -1;
}

/*
 * The wheel path dylib name resolves to from f, into out: 0, or -1 if
 * it is no file of the wheel (a system library, or another
 * distribution's), as dyld tries each of f's rpaths in order.
 */
static int resolve(const struct tf_macos_rules *r, const struct macos_file *f,
		   const char *name, struct tf_buf *out)
{
	struct tf_buf rest = TF_BUF_INIT;
	size_t i;
	int ret = -1;

	if (!strncmp(name, "@loader_path/", 13))
		return lead(r, f, name + 13, out);
	if (strncmp(name, "@rpath/", 7))
		return -1;
	for (i = 0; i < f->rpaths.nr && ret < 0; i++) {
		const char *rp = f->rpaths.v[i];

		if (strncmp(rp, "@loader_path", 12) ||
		    (rp[12] && rp[12] != '/'))
			continue;
		tf_buf_setlen(&rest, 0);
		tf_buf_addf(&rest, "%s/%s", rp + 12, name + 7);
		ret = lead(r, f, rest.buf, out);
	}
	tf_buf_release(&rest);
	return ret;
}

static const struct macos_file *find(const struct tf_macos_wheel *w,
				     const char *shown, unsigned arch)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (w->files[i].arch == arch &&
		    !strcmp(w->files[i].shown, shown))
			return &w->files[i];
	return NULL;
}

static int exports(const struct macos_file *f, const char *name)
{
	return bsearch(&name, f->exports.v, f->exports.nr, sizeof(char *),
		       tf_strcmp_ptr) != NULL;
}

/* The symbols f binds to library ordinal k, which is lib (in the wheel). */
static void check_symbols(struct tf_macos_wheel *w,
			  const struct tf_macos_rules *r,
			  const struct macos_file *f, int k,
			  const struct macos_file *lib)
{
	struct tf_buf names = TF_BUF_INIT;
	size_t i, missing = 0;

	if (lib->reexports)
		return;
	for (i = 0; i < f->undefs.nr; i++) {
		if (f->ordinals[i] != k || exports(lib, f->undefs.v[i]))
			continue;
		if (missing++ < 3)
			tf_buf_addf(&names, "%s'%s'", missing > 1 ? ", " : "",
				    f->undefs.v[i]);
	}
	if (missing) {
		w->refused++;
		say(r, f, 0,
		    "%zu %s bound to '%s', which is '%s' in this wheel, "
		    "but it does not export %s: %s%s",
		    missing, missing > 1 ? "symbols are" : "symbol is",
		    f->dylibs.v[k - 1], lib->shown, missing > 1 ? "them" : "it",
		    names.buf, missing > 3 ? ", ..." : "");
	}
	tf_buf_release(&names);
}

static void check_file(struct tf_macos_wheel *w, const struct tf_macos_rules *r,
		       const struct macos_file *f)
{
	struct tf_buf to = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < f->dylibs.nr; i++) {
		const char *name = f->dylibs.v[i];
		const struct macos_file *lib;

		if (*name != '@')
			continue;
		if (resolve(r, f, name, &to) < 0) {
			/* The framework's, as the record says: verify -v
			   names who provides it. */
			if (tf_macos_provided(r, name))
				continue;
			say(r, f, 1,
			    "'%s' is no file of this wheel through its "
			    "rpaths: another distribution must provide it",
			    name);
			continue;
		}
		lib = find(w, to.buf, f->arch);
		if (!lib) {
			w->refused++;
			say(r, f, 0,
			    "loads '%s', which is '%s' in this wheel: not a "
			    "Mach-O file with an %s slice",
			    name, to.buf, f->arch_name);
			continue;
		}
		check_symbols(w, r, f, (int)i + 1, lib);
	}
	tf_buf_release(&to);
}

int tf_macos_wheel_finish(struct tf_macos_wheel *w,
			  const struct tf_macos_rules *r)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		check_file(w, r, &w->files[i]);
	return w->refused ? -1 : 0;
}
