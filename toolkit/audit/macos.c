/*
 * A macOS wheel's Mach-O files against its platform tag. pip installs a
 * macosx_X_Y_ARCH wheel on a Mac of that architecture running macOS X.Y
 * or later (from macOS 11 on, every X.y takes the tag macosx_X_0), and
 * dyld then loads what it holds: so each file must have a slice of each
 * architecture the tags name, need no newer macOS than they promise,
 * load nothing from a path that exists only where it was built, and be
 * signed where Apple silicon requires it (it refuses unsigned arm64
 * code). The reading is macho/'s (LLVM's object library).
 */
#include "macos.h"
#include "libs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "macho/macho.h"

#define VERSION(major, minor) ((unsigned)(major) << 16 | (unsigned)(minor) << 8)

/* One tag of the set, "macosx_12_0_arm64": 0, or -1 (not macOS's). */
static int parse_tag(const char *tag, size_t n, unsigned *arch,
		     unsigned *version, struct tf_buf *why)
{
	char *t = tf_strndup(tag, n), *p = t + 7, *end;
	unsigned long major, minor;
	int ret = -1;

	if (strncmp(t, "macosx_", 7))
		goto out;
	major = strtoul(p, &end, 10);
	if (end == p || *end != '_' ||
	    (minor = strtoul(p = end + 1, &end, 10), end == p) || *end != '_' ||
	    major < 10 || major > 99 || minor > 99) {
		tf_buf_addf(why, "tag '%s' has no macOS version X_Y", t);
		ret = -2;
		goto out;
	}
	p = end + 1;
	*arch = !strcmp(p, "arm64")        ? TF_MACOS_ARM64
		: !strcmp(p, "x86_64")     ? TF_MACOS_X86_64
		: !strcmp(p, "universal2") ? TF_MACOS_ARM64 | TF_MACOS_X86_64
					   : 0;
	*version = VERSION(major, minor);
	ret = *arch ? 0 : -1;
out:
	free(t);
	return ret;
}

int tf_macos_rules_for_platform(struct tf_macos_rules *r, const char *tag,
				struct tf_buf *why)
{
	const char *s = tag;

	r->tag = tag;
	r->macos = 1;
	r->archs = r->arm64_version = r->x86_64_version = 0;
	for (;;) {
		size_t n = strcspn(s, ".");
		unsigned arch = 0, version = 0;
		int ret = parse_tag(s, n, &arch, &version, why);

		if (ret == -2)
			return -1;
		if (ret < 0) {
			r->macos = 0;
			return 0;
		}
		/* A set promises each architecture its lowest version. */
		if ((arch & TF_MACOS_ARM64) && (!(r->archs & TF_MACOS_ARM64) ||
						version < r->arm64_version))
			r->arm64_version = version;
		if ((arch & TF_MACOS_X86_64) &&
		    (!(r->archs & TF_MACOS_X86_64) ||
		     version < r->x86_64_version))
			r->x86_64_version = version;
		r->archs |= arch;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* Checking one file. */
struct checker {
	const struct tf_macos_rules *r;
	const char *shown;        /* the file in the wheel */
	int refused;              /* refusals printed */
	struct tf_macos_wheel *w; /* where its slices go; NULL: nowhere */
};

static void say(const struct checker *c, int level, const char *fmt, ...)
	TF_PRINTF(3, 4);
/* level 0: a refusal; 1: a warning; 2: with -v. */
static void say(const struct checker *c, int level, const char *fmt, ...)
{
	struct tf_buf msg = TF_BUF_INIT;
	va_list ap;

	if (c->r->context)
		tf_buf_addf(&msg, "%s: ", c->r->context);
	tf_buf_addf(&msg, "%s: ", c->shown);
	va_start(ap, fmt);
	tf_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* error() and the others clean bytes from untrusted files. */
	if (level == 0)
		error("%s", msg.buf);
	else if (level == 1)
		warning("%s", msg.buf);
	else
		verbose("%s", msg.buf);
	tf_buf_release(&msg);
}

#define refuse(c, ...) ((c)->refused++, say((c), 0, __VA_ARGS__))

/* "12.1", "10.9.2" */
static const char *version_text(unsigned v, char buf[16])
{
	if (TF_MACHO_VERSION_PATCH(v))
		snprintf(buf, 16, "%u.%u.%u", TF_MACHO_VERSION_MAJOR(v),
			 TF_MACHO_VERSION_MINOR(v), TF_MACHO_VERSION_PATCH(v));
	else
		snprintf(buf, 16, "%u.%u", TF_MACHO_VERSION_MAJOR(v),
			 TF_MACHO_VERSION_MINOR(v));
	return buf;
}

/* The lowest tag version that allows minos: 13_0 for 12.1, 10_10 for 10.9.1. */
static void tag_for(unsigned minos, struct tf_buf *out)
{
	unsigned major = TF_MACHO_VERSION_MAJOR(minos),
		 minor = TF_MACHO_VERSION_MINOR(minos);
	int above = TF_MACHO_VERSION_PATCH(minos) != 0;

	if (major >= 11)
		tf_buf_addf(out, "macosx_%u_0", major + (minor || above));
	else
		tf_buf_addf(out, "macosx_%u_%u", major, minor + above);
}

static void check_version(struct checker *c, const struct tf_macho_slice *s,
			  unsigned promised)
{
	struct tf_buf tag = TF_BUF_INIT;
	char need[16], have[16];

	if (!s->version_cmd) {
		refuse(c,
		       "%s slice: no LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX: "
		       "the macOS it needs is unknown",
		       s->arch);
		return;
	}
	if (s->platform != TF_MACHO_PLATFORM_MACOS) {
		refuse(c, "%s slice: built for platform %u, not macOS (%s)",
		       s->arch, s->platform,
		       s->version_cmd == 1 ? "LC_BUILD_VERSION"
					   : "LC_VERSION_MIN_*");
		return;
	}
	if (s->minos <= promised)
		return;
	tag_for(s->minos, &tag);
	refuse(c,
	       "%s slice: needs macOS %s (its minos), above the macOS %s "
	       "that the tag %s promises: build it for macOS %s, or tag "
	       "the wheel %s or above",
	       s->arch, version_text(s->minos, need),
	       version_text(promised, have), c->r->tag,
	       version_text(promised, have), tag.buf);
	tf_buf_release(&tag);
}

/* NULL if dyld finds p the same on every Mac; else why not. */
static const char *path_problem(const char *p)
{
	static const char *const ok[] = { "@rpath/", "@loader_path/",
					  "@executable_path/", "/usr/lib/",
					  "/System/Library/" };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strncmp(p, ok[i], strlen(ok[i])))
			return NULL;
	if (!strcmp(p, "@loader_path") || !strcmp(p, "@executable_path"))
		return NULL;
	if (*p == '/')
		return "an absolute path outside /usr/lib/ and "
		       "/System/Library/ (a build path?), which exists only "
		       "where it was built";
	if (*p == '@')
		return "a path that starts with an unknown @ word";
	return "a relative path, which dyld looks up from the working "
	       "directory (a build path?)";
}

static void check_path(struct checker *c, const struct tf_macho_slice *s,
		       const char *what, const char *p)
{
	const char *why = path_problem(p);

	if (!why)
		return;
	/* dyld never looks an install name up: linkers copy it into every
	   file linked against this one, which then loads it from there. */
	if (!strcmp(what, "install name") && *p != '@')
		why = *p == '/' ? "an absolute path outside /usr/lib/ and "
				  "/System/Library/ (a build path?), where "
				  "what links against it will look for it "
				  "(use @rpath/NAME)"
				: "a relative path (a build path?), where what "
				  "links against it will look for it (use "
				  "@rpath/NAME)";
	refuse(c, "%s slice: %s '%s' is %s", s->arch, what, p, why);
}

/* 1 if some wheel entry is under dir ("" is the root: always). */
static int wheel_has_dir(const struct tf_macos_rules *r, const char *dir)
{
	size_t i, n = strlen(dir);

	if (!n)
		return 1;
	for (i = 0; i < r->nr_wheel_files; i++)
		if (!strncmp(r->wheel_files[i], dir, n) &&
		    r->wheel_files[i][n] == '/')
			return 1;
	return 0;
}

int tf_macos_resolve_loader(const char *shown, const char *rest,
			    struct tf_buf *out)
{
	const char *slash = strrchr(shown, '/');
	struct tf_buf all = TF_BUF_INIT;
	char *save = NULL, *part;
	int ret = 0;

	if (slash)
		tf_buf_add(&all, shown, (size_t)(slash - shown));
	tf_buf_addf(&all, "/%s", rest);
	for (part = strtok_r(all.buf, "/", &save); part;
	     part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (strcmp(part, "..")) {
			tf_buf_addf(out, "%s%s", out->len ? "/" : "", part);
			continue;
		}
		if (!out->len) {
			ret = -1;
			break;
		}
		slash = strrchr(out->buf, '/');
		tf_buf_setlen(out, slash ? (size_t)(slash - out->buf) : 0);
	}
	tf_buf_release(&all);
	return ret;
}

int tf_macos_provided(const struct tf_macos_rules *r, const char *load)
{
	const struct tf_lib *lib;

	if (*load != '@' || !r->nr_libs)
		return 0;
	lib = tf_libs_find(r->libs, r->nr_libs, tf_path_basename(load));
	return lib &&
	       (lib->kind == TF_LIB_FRAMEWORK || lib->kind == TF_LIB_EXTERNAL ||
		lib->kind == TF_LIB_PROVIDED);
}

/* 1 if s loads a library another distribution provides (its record). */
static int loads_provided(const struct tf_macos_rules *r,
			  const struct tf_macho_slice *s)
{
	size_t i;

	for (i = 0; i < s->nr_dylibs; i++)
		if (tf_macos_provided(r, s->dylibs[i].name))
			return 1;
	return 0;
}

static void check_rpath(struct checker *c, const struct tf_macho_slice *s,
			const char *rpath)
{
	struct tf_buf to = TF_BUF_INIT;

	check_path(c, s, "rpath", rpath);
	if (strncmp(rpath, "@loader_path", 12) ||
	    (rpath[12] && rpath[12] != '/'))
		return;
	if (tf_macos_resolve_loader(c->shown, rpath + 12, &to) < 0)
		say(c, 1, "%s slice: rpath '%s' leads above the wheel's root",
		    s->arch, rpath);
	else if (!wheel_has_dir(c->r, to.buf) && !loads_provided(c->r, s))
		say(c, 1,
		    "%s slice: rpath '%s' leads to '%s/', which this wheel "
		    "does not have (another distribution must install it)",
		    s->arch, rpath, to.buf);
	tf_buf_release(&to);
}

static void check_paths(struct checker *c, const struct tf_macho_slice *s)
{
	size_t i;

	if (s->install_name)
		check_path(c, s, "install name", s->install_name);
	if (s->dylinker)
		check_path(c, s, "LC_LOAD_DYLINKER", s->dylinker);
	for (i = 0; i < s->nr_dylibs; i++) {
		char what[32];

		snprintf(what, sizeof(what), "LC_%s dylib",
			 tf_macho_dylib_kind_name(s->dylibs[i].kind));
		check_path(c, s, what, s->dylibs[i].name);
	}
	for (i = 0; i < s->nr_rpaths; i++)
		check_rpath(c, s, s->rpaths[i]);
}

/* Undefined symbols: bound to a library the slice loads, or said. */
static void check_binding(struct checker *c, const struct tf_macho_slice *s)
{
	struct tf_buf names = TF_BUF_INIT;
	size_t i, lookup = 0;

	for (i = 0; i < s->nr_undefs; i++) {
		const struct tf_macho_undef *u = &s->undefs[i];

		if (u->ordinal > 0 && (size_t)u->ordinal > s->nr_dylibs)
			refuse(c,
			       "%s slice: symbol '%s' is bound to library %d, "
			       "but it loads %zu",
			       s->arch, u->name, u->ordinal, s->nr_dylibs);
		if (u->ordinal != TF_MACHO_DYNAMIC_LOOKUP &&
		    u->ordinal != TF_MACHO_FLAT)
			continue;
		if (lookup++ < 3)
			tf_buf_addf(&names, "%s'%s'", lookup > 1 ? ", " : "",
				    u->name);
	}
	if (lookup)
		say(c, 1,
		    "%s slice: %zu undefined %s bound by %s, so nothing "
		    "records which library provides %s (%s%s)",
		    s->arch, lookup, lookup > 1 ? "symbols are" : "symbol is",
		    s->twolevel ? "dynamic lookup (-undefined dynamic_lookup)"
				: "flat namespace lookup",
		    lookup > 1 ? "them" : "it", names.buf,
		    lookup > 3 ? ", ..." : "");
	tf_buf_release(&names);
}

/* With -v: what dyld sees of the slice, as llvm-otool -l shows it. */
static void describe(const struct checker *c, const struct tf_macho_slice *s)
{
	char minos[16], sdk[16];
	size_t i;

	if (tf_verbosity < 2)
		return;
	say(c, 2, "%s %s: minos %s, sdk %s, install name %s, code signature %s",
	    s->arch, s->type_name, version_text(s->minos, minos),
	    version_text(s->sdk, sdk),
	    s->install_name ? s->install_name : "(none)",
	    s->code_signature ? "present" : "absent");
	for (i = 0; i < s->nr_dylibs; i++)
		say(c, 2, "%s: dylib %s (%s)", s->arch, s->dylibs[i].name,
		    tf_macho_dylib_kind_name(s->dylibs[i].kind));
	for (i = 0; i < s->nr_rpaths; i++)
		say(c, 2, "%s: rpath %s", s->arch, s->rpaths[i]);
}

/* The tag architecture of a slice; 0 for arm64e and the others. */
static unsigned slice_arch(const struct tf_macho_slice *s)
{
	if (s->cputype == TF_MACHO_CPU_ARM64)
		return s->cpusubtype == TF_MACHO_ARM64E ? 0 : TF_MACOS_ARM64;
	return s->cputype == TF_MACHO_CPU_X86_64 ? TF_MACOS_X86_64 : 0;
}

static void check_slice(struct checker *c, const struct tf_macho_slice *s)
{
	unsigned arch = slice_arch(s);

	describe(c, s);
	if (!(arch & c->r->archs)) {
		refuse(c, "%s slice: %s (the tag is %s)", s->arch,
		       s->cputype == TF_MACHO_CPU_ARM64
			       ? "arm64e, which macOS loads only from Apple's "
				 "own code: build it for arm64"
			       : "an architecture the wheel's tag does not name",
		       c->r->tag);
		return;
	}
	check_version(c, s,
		      arch == TF_MACOS_ARM64 ? c->r->arm64_version
					     : c->r->x86_64_version);
	/* An object file is for a later link: its architecture is all. */
	if (!strcmp(s->type_name, "object"))
		return;
	check_paths(c, s);
	if (arch == TF_MACOS_ARM64 && !s->code_signature)
		refuse(c,
		       "%s slice: no code signature (LC_CODE_SIGNATURE): "
		       "macOS on Apple silicon refuses to load unsigned "
		       "arm64 code (link with a linker that signs, or sign "
		       "it ad hoc)",
		       s->arch);
	if (s->code_signature && s->signature_problem)
		refuse(c,
		       "%s slice: its code signature does not hold for its "
		       "bytes: %s (macOS kills a process when it maps such a "
		       "page: sign it again after the last change)",
		       s->arch, s->signature_problem);
	check_binding(c, s);
	if (c->w)
		tf_macos_wheel_add(c->w, c->shown, arch, s);
}

int tf_macos_verify_file(const char *path, const char *shown,
			 const struct tf_macos_rules *r,
			 struct tf_macos_wheel *w)
{
	struct checker c = { r, shown, 0, w };
	struct tf_buf why = TF_BUF_INIT;
	struct tf_macho *m;
	unsigned have = 0;
	size_t i;

	if (tf_macho_read(path, &m, &why) < 0) {
		refuse(&c, "cannot read it as Mach-O: %s", why.buf);
		tf_buf_release(&why);
		return -1;
	}
	for (i = 0; i < m->nr_slices; i++) {
		have |= slice_arch(&m->slices[i]);
		check_slice(&c, &m->slices[i]);
	}
	if ((r->archs & TF_MACOS_ARM64) && !(have & TF_MACOS_ARM64))
		refuse(&c, "no arm64 slice, which the tag %s promises", r->tag);
	if ((r->archs & TF_MACOS_X86_64) && !(have & TF_MACOS_X86_64))
		refuse(&c, "no x86_64 slice, which the tag %s promises",
		       r->tag);
	tf_macho_free(m);
	return c.refused ? -1 : 0;
}
