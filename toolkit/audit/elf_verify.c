/* Checking ELF files against a wheel's rules: one file, then a wheel. */
#include "elf.h"

#include <gelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "abi3.h"
#include "base/base.h"
#include "libs.h"
#include "manylinux.h"
#include "wheel/wheel.h"

/* Page size aarch64 wheels must be linked for: 64 KiB kernels exist. */
#define AARCH64_PAGE 65536

/* Apply path to dir ('/'-separated, "" for the root); -1 if it leaves it. */
static int walk(struct tf_buf *dir, const char *path)
{
	while (*path) {
		size_t n = strcspn(path, "/");

		if (n == 2 && !strncmp(path, "..", 2)) {
			char *slash = strrchr(dir->buf, '/');

			if (!dir->len)
				return -1;
			tf_buf_setlen(dir, slash ? slash - dir->buf : 0);
		} else if (n && !(n == 1 && *path == '.')) {
			if (dir->len)
				tf_buf_addch(dir, '/');
			tf_buf_add(dir, path, n);
		}
		path += n + (path[n] == '/');
	}
	return 0;
}

int tf_elf_origin_dir(const char *file_in_wheel, const char *entry,
		      struct tf_buf *out)
{
	const char *slash = strrchr(file_in_wheel, '/'), *rest;
	struct tf_buf dir = TF_BUF_INIT;
	int ret = -1;

	if (!strncmp(entry, "$ORIGIN", 7))
		rest = entry + 7;
	else if (!strncmp(entry, "${ORIGIN}", 9))
		rest = entry + 9;
	else
		return -1;
	if ((*rest && *rest != '/') || strchr(rest, '$'))
		return -1;
	if (slash)
		tf_buf_add(&dir, file_in_wheel, slash - file_in_wheel);
	if (!walk(&dir, rest)) {
		tf_buf_add(out, dir.buf, dir.len);
		ret = 0;
	}
	tf_buf_release(&dir);
	return ret;
}

int tf_elf_runpath_reaches(const char *list, const char *file_in_wheel,
			   const char *dir)
{
	struct tf_buf at = TF_BUF_INIT;
	int found = 0;

	while (list && *list && !found) {
		size_t n = strcspn(list, ":");
		char *entry = tf_strndup(list, n);

		tf_buf_reset(&at);
		found = !tf_elf_origin_dir(file_in_wheel, entry, &at) &&
			!strcmp(at.buf, dir);
		free(entry);
		list += n + (list[n] == ':');
	}
	tf_buf_release(&at);
	return found;
}

/* Checking one file against the rules. */
struct checker {
	const struct tf_elf_rules *rules;
	const struct tf_elf_info *info;
	const char *shown;                        /* path inside the wheel */
	const struct tf_manylinux_policy *policy; /* requested; NULL: none */
};

/* "CONTEXT: " when there is a context, for messages. */
static void add_context(struct tf_buf *msg, const char *context)
{
	if (context)
		tf_buf_addf(msg, "%s: ", context);
}

/* Print one line; error() cleans bytes from untrusted files. */
static int print_line(struct tf_buf *msg)
{
	error("%s", msg->buf);
	tf_buf_release(msg);
	return -1;
}

static int refuse(const struct checker *c, const char *fmt, ...)
	TF_PRINTF(2, 3);
static int refuse(const struct checker *c, const char *fmt, ...)
{
	struct tf_buf msg = TF_BUF_INIT;
	va_list ap;

	add_context(&msg, c->rules->context);
	tf_buf_addf(&msg, "%s: ", c->shown);
	va_start(ap, fmt);
	tf_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	return print_line(&msg);
}

/* The requested policy; -1 (printed) if that policy was never published. */
static int find_policy(const struct tf_elf_rules *rules,
		       const struct tf_manylinux_policy **out)
{
	const struct tf_platform *p = &rules->platform;
	const char *arch = tf_arch_name(p->arch);
	struct tf_buf msg = TF_BUF_INIT;

	*out = NULL;
	if (p->kind != TF_PLATFORM_MANYLINUX || !p->glibc_minor)
		return 0;
	*out = tf_manylinux_find(p->arch, p->glibc_minor);
	if (*out)
		return 0;
	add_context(&msg, rules->context);
	tf_buf_addf(&msg,
		    "platform 'manylinux_2_%u_%s': no published "
		    "manylinux policy for glibc 2.%u on %s",
		    p->glibc_minor, arch, p->glibc_minor, arch);
	return print_line(&msg);
}

static unsigned arch_machine(enum tf_arch arch)
{
	return arch == TF_ARCH_X86_64 ? EM_X86_64 : EM_AARCH64;
}

static int check_arch(const struct checker *c)
{
	const struct tf_platform *p = &c->rules->platform;
	const char *plat = tf_arch_name(p->arch);
	char buf[32];

	if (p->kind == TF_PLATFORM_ANY ||
	    c->info->machine != arch_machine(p->arch))
		return refuse(c, "ELF machine %s does not match platform %s",
			      tf_elf_machine_name(c->info->machine, buf), plat);
	if (c->info->elf_class != 64)
		return refuse(c,
			      "ELF class %d-bit does not match platform %s "
			      "(64-bit)",
			      c->info->elf_class, plat);
	if (c->info->big_endian)
		return refuse(c,
			      "ELF byte order big-endian does not match "
			      "platform %s (little-endian)",
			      plat);
	return 0;
}

static int check_pages(const struct checker *c)
{
	unsigned long long align = c->info->min_load_align;

	if (c->rules->platform.arch != TF_ARCH_AARCH64 || !align ||
	    align >= AARCH64_PAGE)
		return 0;
	return refuse(c,
		      "is linked for %llu-byte pages; aarch64 wheels need "
		      "%d (link with -Wl,-z,max-page-size=%d)",
		      align, AARCH64_PAGE, AARCH64_PAGE);
}

static int check_libpython(const struct checker *c)
{
	size_t i;

	for (i = 0; i < c->info->needed.nr; i++)
		if (!strncmp(c->info->needed.v[i], "libpython", 9))
			return refuse(c,
				      "links '%s' (DT_NEEDED); Python "
				      "extension modules must not link "
				      "libpython",
				      c->info->needed.v[i]);
	return 0;
}

static int in_list(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* The file's run path: RUNPATH, else RPATH (the loader ignores RPATH then). */
static const char *run_path(const struct tf_elf_info *info)
{
	return info->runpath ? info->runpath : info->rpath;
}

/* 1 if the wheel ships lib where the file's $ORIGIN run path finds it. */
static int shipped(const struct tf_elf_rules *rules,
		   const struct tf_elf_info *info, const char *shown,
		   const char *lib)
{
	const char *path = run_path(info);
	struct tf_buf dir = TF_BUF_INIT;
	int found = 0;

	while (path && *path && !found && !strchr(lib, '/')) {
		size_t n = strcspn(path, ":");
		char *entry = tf_strndup(path, n);

		tf_buf_reset(&dir);
		if (!tf_elf_origin_dir(shown, entry, &dir)) {
			if (dir.len)
				tf_buf_addch(&dir, '/');
			tf_buf_addstr(&dir, lib);
			found = in_list(rules->wheel_files,
					rules->nr_wheel_files, dir.buf);
		}
		free(entry);
		path += n + (path[n] == ':');
	}
	tf_buf_release(&dir);
	return found;
}

/*
 * 1 if DT_NEEDED lib needs no allow-list: the loader, a system library
 * (allow-needed), shipped in the wheel, or declared provided or system.
 * Declarations are checked by resolve_needed() first.
 */
static int needed_exempt(const struct tf_elf_rules *rules,
			 const struct tf_elf_info *info, const char *shown,
			 const char *lib)
{
	const struct tf_lib *d = tf_libs_find(rules->libs, rules->nr_libs, lib);

	return !strcmp(lib, tf_arch_loader(rules->platform.arch)) ||
	       in_list(rules->allow_needed, rules->nr_allow_needed, lib) ||
	       (d && d->kind != TF_LIB_VENDOR) ||
	       shipped(rules, info, shown, lib);
}

/*
 * An external library: the file's RUNPATH must reach the directory its
 * distribution's RECORD puts it in, and the distribution must be
 * required. 0, or -1 after printing which.
 */
static int resolve_external(const struct checker *c, const struct tf_lib *d)
{
	const char *path = run_path(c->info);
	const char *slash = strrchr(d->file, '/');
	char *dir = tf_strndup(d->file, slash ? (size_t)(slash - d->file) : 0);
	struct tf_buf want = TF_BUF_INIT;
	int ret = 0;

	if (!tf_elf_runpath_reaches(path, c->shown, dir)) {
		tf_libs_external_runpath(c->shown, d->file, &want);
		ret = refuse(c,
			     "needs '%s' (DT_NEEDED), external, from %s %s at "
			     "'%s' (its RECORD), but its RUNPATH ('%s') does "
			     "not reach it there ('%s' would)",
			     d->soname, d->dist, d->version, d->file,
			     path ? path : "", want.buf);
	} else if (!tf_libs_requirement_listed(d->dist, c->rules->requires,
					       c->rules->nr_requires)) {
		ret = refuse(c,
			     "needs '%s' (DT_NEEDED), external, from %s, "
			     "which is not in Requires-Dist",
			     d->soname, d->dist);
	}
	free(dir);
	tf_buf_release(&want);
	return ret;
}

/* How a DT_NEEDED library is resolved (resolve_needed()). */
enum resolution {
	NEEDED_BY_LIST,  /* the manylinux allow-list decides */
	NEEDED_RESOLVED, /* exempt, or found as declared */
	NEEDED_REFUSED,  /* not found as declared: printed */
};

/*
 * Check how lib is resolved when the recipe (or the wheel's record)
 * declares it: the one rule pack and verify share. Returns
 * NEEDED_RESOLVED when it is resolved, NEEDED_BY_LIST when the
 * allow-list decides, NEEDED_REFUSED after printing why not.
 */
static enum resolution resolve_needed(const struct checker *c, const char *lib)
{
	const struct tf_elf_rules *r = c->rules;
	const struct tf_lib *d = tf_libs_find(r->libs, r->nr_libs, lib);
	const char *path = run_path(c->info);

	if (!d)
		return needed_exempt(r, c->info, c->shown, lib)
			       ? NEEDED_RESOLVED
			       : NEEDED_BY_LIST;
	switch (d->kind) {
	case TF_LIB_SYSTEM:
		return NEEDED_RESOLVED;
	case TF_LIB_VENDOR:
		if (shipped(r, c->info, c->shown, lib))
			return NEEDED_RESOLVED;
		refuse(c,
		       "needs '%s' (DT_NEEDED), declared vendored, which is "
		       "not shipped in the wheel on an $ORIGIN RUNPATH",
		       lib);
		return NEEDED_REFUSED;
	case TF_LIB_PROVIDED:
		if (!tf_libs_runpath_has(path, d->runpath)) {
			refuse(c,
			       "needs '%s' (DT_NEEDED) from '%s', but its "
			       "RUNPATH ('%s') lacks '%s'",
			       lib, d->from, path ? path : "", d->runpath);
			return NEEDED_REFUSED;
		}
		if (!tf_libs_requirement_listed(d->from, r->requires,
						r->nr_requires)) {
			refuse(c,
			       "needs '%s' (DT_NEEDED) from '%s', which is "
			       "not in Requires-Dist",
			       lib, d->from);
			return NEEDED_REFUSED;
		}
		return NEEDED_RESOLVED;
	case TF_LIB_EXTERNAL:
		return resolve_external(c, d) ? NEEDED_REFUSED
					      : NEEDED_RESOLVED;
	case TF_LIB_FRAMEWORK:
		/* Loaded by the framework before the wheel's binaries;
		   framework.c checked the symbols against it. */
		if (!tf_libs_requirement_listed(d->from, r->requires,
						r->nr_requires)) {
			refuse(c,
			       "needs '%s' (DT_NEEDED) from framework '%s', "
			       "which is not in Requires-Dist",
			       lib, d->from);
			return NEEDED_REFUSED;
		}
		return NEEDED_RESOLVED;
	}
	return NEEDED_BY_LIST;
}

/* Under linux_* and musllinux_* the manylinux allow-list is not the rule:
   what is left is reported. */
static int report_needed(const struct checker *c, const char *lib)
{
	verbose("%s%s%s: needs '%s' (DT_NEEDED), left to the system: "
		"platform is not manylinux",
		c->rules->context ? c->rules->context : "",
		c->rules->context ? ": " : "", c->shown, lib);
	return 0;
}

/*
 * A cp3X-abi3 wheel: every Python C API symbol imported must be in the
 * stable ABI of Python 3.X, as `abi3audit --strict` checks.
 */
static int check_abi3(const struct checker *c)
{
	int want = c->rules->abi3_minor, since;
	size_t i;

	for (i = 0; want && i < c->info->python_imports.nr; i++) {
		const char *sym = c->info->python_imports.v[i];

		since = tf_abi3_since(sym);
		if (!since)
			return refuse(c,
				      "imports '%s', which is not in the "
				      "stable ABI (abi3)",
				      sym);
		if (since > want)
			return refuse(
				c,
				"imports '%s', in the stable ABI only "
				"from Python 3.%d, but the wheel is tagged "
				"cp3%d-abi3",
				sym, since, want);
	}
	return 0;
}

/* With -v, what `auditwheel show` would say of the file. */
static int report_facts(const struct checker *c)
{
	const char *ctx = c->rules->context ? c->rules->context : "";
	const char *sep = c->rules->context ? ": " : "";
	const char *path = run_path(c->info);
	size_t i;

	if (tf_verbosity < 2)
		return 0;
	if (path)
		verbose("%s%s%s: %s '%s'", ctx, sep, c->shown,
			c->info->runpath ? "RUNPATH" : "RPATH", path);
	for (i = 0; i < c->info->needed.nr; i++) {
		const char *lib = c->info->needed.v[i];
		const struct tf_lib *d =
			tf_libs_find(c->rules->libs, c->rules->nr_libs, lib);

		if (shipped(c->rules, c->info, c->shown, lib))
			verbose("%s%s%s: needs '%s': shipped in the wheel", ctx,
				sep, c->shown, lib);
		else if (d && d->kind == TF_LIB_PROVIDED)
			verbose("%s%s%s: needs '%s': provided by '%s'", ctx,
				sep, c->shown, lib, d->from);
		else if (d && d->kind == TF_LIB_FRAMEWORK)
			verbose("%s%s%s: needs '%s': provided by framework '%s'",
				ctx, sep, c->shown, lib, d->from);
		else if (d && d->kind == TF_LIB_EXTERNAL)
			verbose("%s%s%s: needs '%s': external, %s from %s %s",
				ctx, sep, c->shown, lib, d->file, d->dist,
				d->version);
		else if (d || in_list(c->rules->allow_needed,
				      c->rules->nr_allow_needed, lib))
			verbose("%s%s%s: needs '%s': a system library", ctx,
				sep, c->shown, lib);
	}
	return 0;
}

/* A musllinux wheel must not need glibc's libc, loader or symbol versions. */
static int check_musl(const struct checker *c)
{
	size_t i;

	if (c->rules->platform.kind != TF_PLATFORM_MUSLLINUX)
		return 0;
	for (i = 0; i < c->info->needed.nr; i++) {
		const char *lib = c->info->needed.v[i];

		if (!strcmp(lib, "libc.so.6") || !strncmp(lib, "ld-linux", 8))
			return refuse(c,
				      "needs '%s' (DT_NEEDED), a glibc "
				      "library, but the platform is musllinux",
				      lib);
	}
	for (i = 0; i < c->info->nr_versions; i++)
		if (!strncmp(c->info->versions[i].name, "GLIBC_", 6))
			return refuse(c,
				      "needs %s, a glibc symbol version, but "
				      "the platform is musllinux",
				      c->info->versions[i].name);
	return 0;
}

static int check_needed(const struct checker *c)
{
	const struct tf_platform *p = &c->rules->platform;
	unsigned minor = c->policy ? c->policy->glibc_minor : 0;
	struct tf_buf list = TF_BUF_INIT;
	enum resolution res;
	const char *lib;
	size_t i;
	int since;

	for (i = 0; i < c->info->needed.nr; i++) {
		lib = c->info->needed.v[i];
		res = resolve_needed(c, lib);
		if (res == NEEDED_REFUSED)
			return -1;
		if (res == NEEDED_RESOLVED)
			continue;
		since = tf_manylinux_library_since(p->arch, lib);
		if (since && (!c->policy || (unsigned)since <= minor))
			continue;
		if (p->kind != TF_PLATFORM_MANYLINUX) {
			report_needed(c, lib);
			continue;
		}
		if (c->policy)
			tf_buf_addf(&list, "manylinux_2_%u", minor);
		else
			tf_buf_addstr(&list, "manylinux");
		since = refuse(c,
			       "needs '%s' (DT_NEEDED), which is neither "
			       "in the %s allow-list nor shipped in the wheel "
			       "on an $ORIGIN RUNPATH",
			       lib, list.buf);
		tf_buf_release(&list);
		return since;
	}
	return 0;
}

/* " (symbol 'x')" when a symbol is known to need version v. */
static void add_symbol(struct tf_buf *out, const struct tf_elf_version *v)
{
	if (v->symbol)
		tf_buf_addf(out, " (symbol '%s')", v->symbol);
}

static int refuse_version(const struct checker *c,
			  const struct tf_elf_version *v, int since)
{
	struct tf_buf sym = TF_BUF_INIT;
	const char *max;
	int ret;

	add_symbol(&sym, v);
	if (since < 0) {
		ret = refuse(c,
			     "needs %s%s, which no manylinux policy for %s "
			     "allows",
			     v->name, sym.buf,
			     tf_arch_name(c->rules->platform.arch));
	} else {
		max = tf_manylinux_family_max(c->policy, v->name);
		ret = refuse(c,
			     "needs %s%s, newer than manylinux_2_%u "
			     "allows (%s)",
			     v->name, sym.buf, c->policy->glibc_minor,
			     max ? max : "none");
	}
	tf_buf_release(&sym);
	return ret;
}

/*
 * Versions needed from libraries the wheel ships are the shipped
 * library's business; the rest must be in the policy. The worst one is
 * named: one no policy allows, else the one needing the newest policy.
 */
static int check_versions(const struct checker *c)
{
	enum tf_arch arch = c->rules->platform.arch;
	const struct tf_elf_version *worst = NULL;
	int worst_since = 0, since;
	size_t i;

	if (c->rules->platform.kind != TF_PLATFORM_MANYLINUX)
		return 0;
	for (i = 0; i < c->info->nr_versions; i++) {
		const struct tf_elf_version *v = &c->info->versions[i];

		if (shipped(c->rules, c->info, c->shown, v->library))
			continue;
		since = tf_manylinux_version_since(arch, v->name);
		if (since < 0)
			return refuse_version(c, v, since);
		if (c->policy && (unsigned)since > c->policy->glibc_minor &&
		    since > worst_since) {
			worst = v;
			worst_since = since;
		}
	}
	return worst ? refuse_version(c, worst, worst_since) : 0;
}

static int check_isa(const struct checker *c)
{
	int level = tf_elf_x86_isa_level(c->info->x86_isa_needed);
	int allowed = c->rules->isa_level ? c->rules->isa_level : 1;

	if (c->info->machine != EM_X86_64 || level <= allowed)
		return 0;
	return refuse(c,
		      "needs x86-64-v%d (GNU property), above the allowed "
		      "x86-64-v%d",
		      level, allowed);
}

/* glibc 2.41 and Debian 13 refuse to load these; older ones make every
   thread's stack executable. */
static int check_stack(const struct checker *c)
{
	if (!c->info->exec_stack)
		return 0;
	return refuse(c,
		      "asks for an executable stack (PT_GNU_STACK has PF_X); "
		      "link with -Wl,-z,noexecstack or fix the assembly's "
		      ".note.GNU-stack");
}

static int check_exports(const struct checker *c)
{
	const struct tf_strvec *have = &c->info->exports;
	const struct tf_elf_export *e;
	size_t i;

	for (i = 0; i < c->rules->nr_exports; i++) {
		e = &c->rules->exports[i];
		if (strcmp(e->file, c->shown))
			continue;
		if (!bsearch(&e->symbol, have->v, have->nr, sizeof(*have->v),
			     tf_strcmp_ptr))
			return refuse(c, "does not export required symbol '%s'",
				      e->symbol);
	}
	return 0;
}

/* 1 for what the dynamic loader maps, the files checked in full. */
static int loadable(const struct tf_elf_info *info)
{
	return info->type == ET_DYN || info->type == ET_EXEC;
}

int tf_elf_verify(const struct tf_elf_info *info,
		  const struct tf_elf_rules *rules, const char *shown)
{
	struct checker c = { rules, info, shown, NULL };
	unsigned type = info->type;

	if (rules->platform.kind == TF_PLATFORM_OTHER ||
	    (!loadable(info) && type != ET_REL))
		return 0;
	if (find_policy(rules, &c.policy) || check_arch(&c))
		return -1;
	/* Object files are for a later link on the target: only the
	   architecture (and exports asked of them) matter. */
	if (type == ET_REL)
		return check_exports(&c);
	if (check_pages(&c) || check_libpython(&c) || check_musl(&c) ||
	    check_needed(&c) || report_facts(&c) || check_abi3(&c) ||
	    check_versions(&c) || check_isa(&c) || check_stack(&c) ||
	    check_exports(&c))
		return -1;
	return 0;
}

/* Read the file keeping only the exports rules ask of it, and check it. */
static enum tf_elf_verify_result read_and_verify(
	const char *path, const char *shown, const struct tf_elf_rules *rules,
	struct tf_elf_info *info)
{
	const char **names = tf_calloc(rules->nr_exports, sizeof(*names));
	enum tf_elf_verify_result ret = TF_ELF_VERIFY_FAILED;
	struct tf_buf full = TF_BUF_INIT;
	enum tf_elf_read_result res;
	size_t i, nr = 0;

	for (i = 0; i < rules->nr_exports; i++)
		if (!strcmp(rules->exports[i].file, shown))
			names[nr++] = rules->exports[i].symbol;
	add_context(&full, rules->context);
	tf_buf_addstr(&full, shown);
	res = tf_elf_read_exports(path, full.buf, info, names, nr);
	if (res == TF_ELF_READ_NOT_ELF)
		ret = TF_ELF_VERIFY_NOT_ELF;
	else if (res == TF_ELF_READ_OK)
		ret = tf_elf_verify(info, rules, shown) ? TF_ELF_VERIFY_REFUSED
							: TF_ELF_VERIFY_OK;
	free(names);
	tf_buf_release(&full);
	return ret;
}

static void note_need(const struct tf_elf_rules *rules,
		      const struct tf_elf_info *info, const char *shown,
		      struct tf_elf_need *need);

enum tf_elf_verify_result tf_elf_verify_file_need(
	const char *path, const char *shown, const struct tf_elf_rules *rules,
	struct tf_elf_need *need)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	enum tf_elf_verify_result ret =
		read_and_verify(path, shown, rules, &info);

	if (ret == TF_ELF_VERIFY_OK && need &&
	    rules->platform.kind == TF_PLATFORM_MANYLINUX && loadable(&info))
		note_need(rules, &info, shown, need);
	tf_elf_info_release(&info);
	return ret;
}

enum tf_elf_verify_result tf_elf_verify_file(const char *path,
					     const char *shown,
					     const struct tf_elf_rules *rules)
{
	enum tf_elf_verify_result ret =
		tf_elf_verify_file_need(path, shown, rules, NULL);

	return ret == TF_ELF_VERIFY_REFUSED ? TF_ELF_VERIFY_FAILED : ret;
}

void tf_elf_need_release(struct tf_elf_need *need)
{
	tf_buf_release(&need->why);
	need->minor = 0;
}

static void raise_need(struct tf_elf_need *need, unsigned minor,
		       const char *shown, const char *what,
		       const struct tf_elf_version *v)
{
	if (minor <= need->minor)
		return;
	need->minor = minor;
	tf_buf_reset(&need->why);
	tf_buf_addf(&need->why, "%s needs %s", shown, what);
	if (v)
		add_symbol(&need->why, v);
}

/* Fold one checked file's versions and libraries into need. */
static void note_need(const struct tf_elf_rules *rules,
		      const struct tf_elf_info *info, const char *shown,
		      struct tf_elf_need *need)
{
	size_t i, n = 0, driver, nv = info->nr_versions;
	const struct tf_elf_version **vs = tf_calloc(nv, sizeof(*vs));
	const char **names = tf_calloc(nv, sizeof(*names));
	enum tf_arch arch = rules->platform.arch;
	const struct tf_manylinux_policy *p;
	struct tf_buf lib = TF_BUF_INIT;
	int since;

	for (i = 0; i < info->nr_versions; i++)
		if (!shipped(rules, info, shown, info->versions[i].library)) {
			vs[n] = &info->versions[i];
			names[n++] = info->versions[i].name;
		}
	p = tf_manylinux_lowest(arch, names, n, &driver);
	if (!p)
		BUG("'%s' passed its check with no manylinux policy", shown);
	if (driver < n)
		raise_need(need, p->glibc_minor, shown, names[driver],
			   vs[driver]);
	for (i = 0; i < info->needed.nr; i++) {
		const char *soname = info->needed.v[i];

		if (needed_exempt(rules, info, shown, soname))
			continue;
		since = tf_manylinux_library_since(arch, soname);
		tf_buf_reset(&lib);
		tf_buf_addf(&lib, "'%s'", soname);
		raise_need(need, (unsigned)since, shown, lib.buf, NULL);
	}
	tf_buf_release(&lib);
	free(names);
	free(vs);
}

static int refuse_export(const struct tf_elf_rules *rules,
			 const struct tf_elf_export *e, const char *why)
{
	struct tf_buf msg = TF_BUF_INIT;

	add_context(&msg, rules->context);
	tf_buf_addf(&msg, "%s: must export '%s' but %s", e->file, e->symbol,
		    why);
	return print_line(&msg);
}

/* Every required export's file must be in the wheel and, once elf[]
   says which files are ELF, be one. */
static int check_export_files(const struct tf_elf_rules *rules,
			      const struct tf_wheel_file *files, size_t nr,
			      const unsigned char *elf)
{
	size_t i, j;

	for (i = 0; i < rules->nr_exports; i++) {
		for (j = 0; j < nr; j++)
			if (!strcmp(files[j].dst, rules->exports[i].file))
				break;
		if (j == nr)
			return refuse_export(rules, &rules->exports[i],
					     "is not in the wheel");
		if (elf && !elf[j])
			return refuse_export(rules, &rules->exports[i],
					     "is not an ELF file");
	}
	return 0;
}

const char *tf_elf_need_tag(const struct tf_elf_rules *rules,
			    const struct tf_elf_need *need, struct tf_buf *out)
{
	enum tf_arch arch = rules->platform.arch;
	const struct tf_manylinux_policy *oldest = tf_manylinux_oldest(arch);
	const struct tf_manylinux_policy *p = oldest;

	if (need->minor > oldest->glibc_minor)
		p = tf_manylinux_find(arch, need->minor);
	if (!p)
		BUG("no manylinux policy 2_%u for %s", need->minor,
		    tf_arch_name(arch));
	tf_manylinux_tag(p, out);
	return p != oldest ? need->why.buf : "no file needs a newer policy";
}

/*
 * A toolchain's glibc pins the computed tag to its policy: what the
 * headers and stubs were, not older; a file needing more is refused.
 */
static int pin_need(const struct tf_elf_rules *rules, struct tf_elf_need *need)
{
	struct tf_buf msg = TF_BUF_INIT;

	if (!rules->glibc_pin)
		return 0;
	if (need->minor > rules->glibc_pin) {
		add_context(&msg, rules->context);
		tf_buf_addf(
			&msg,
			"%s, which manylinux_2_%u allows and glibc 2.%u does not: the target's toolchain links against glibc 2.%u (its 'glibc'); build that file with the target's $CC",
			need->why.buf, need->minor, rules->glibc_pin,
			rules->glibc_pin);
		return print_line(&msg);
	}
	need->minor = rules->glibc_pin;
	tf_buf_setf(&need->why,
		    "the target's toolchain links against glibc 2.%u",
		    rules->glibc_pin);
	return 0;
}

static void computed_tag(const struct tf_elf_rules *rules,
			 const struct tf_elf_need *need, struct tf_buf *out)
{
	size_t start = out->len;
	const char *why = tf_elf_need_tag(rules, need, out);

	verbose("%s%splatform %s: %s", rules->context ? rules->context : "",
		rules->context ? ": " : "", out->buf + start, why);
}

int tf_elf_verify_wheel(const struct tf_wheel_file *files, size_t nr_files,
			const struct tf_elf_rules *rules,
			struct tf_buf *platform_out)
{
	struct tf_elf_rules r = *rules;
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_elf_need need = TF_ELF_NEED_INIT;
	const char **names = tf_calloc(nr_files, sizeof(*names));
	unsigned char *elf = tf_calloc(nr_files, 1);
	int compute = r.platform.kind == TF_PLATFORM_MANYLINUX &&
		      !r.platform.glibc_minor;
	const struct tf_manylinux_policy *policy;
	enum tf_elf_verify_result res;
	size_t i;
	int ret;

	for (i = 0; i < nr_files; i++)
		names[i] = files[i].dst;
	r.wheel_files = names;
	r.nr_wheel_files = nr_files;
	ret = find_policy(&r, &policy) ||
	      check_export_files(&r, files, nr_files, NULL);
	for (i = 0; !ret && i < nr_files; i++) {
		if (i < r.nr_not_elf && r.not_elf[i])
			continue;
		res = read_and_verify(files[i].src, files[i].dst, &r, &info);
		elf[i] = res == TF_ELF_VERIFY_OK;
		if (res == TF_ELF_VERIFY_FAILED || res == TF_ELF_VERIFY_REFUSED)
			ret = -1;
		else if (res == TF_ELF_VERIFY_OK && compute && loadable(&info))
			note_need(&r, &info, files[i].dst, &need);
	}
	if (!ret)
		ret = check_export_files(&r, files, nr_files, elf);
	if (!ret && compute)
		ret = pin_need(&r, &need);
	if (!ret && compute)
		computed_tag(&r, &need, platform_out);
	tf_elf_info_release(&info);
	tf_elf_need_release(&need);
	free(names);
	free(elf);
	return ret ? -1 : 0;
}

int tf_elf_rules_for_platform(struct tf_elf_rules *rules, const char *tag,
			      const char *context)
{
	struct tf_elf_rules empty = TF_ELF_RULES_INIT;
	const struct tf_manylinux_policy *policy;
	struct tf_buf why = TF_BUF_INIT;

	*rules = empty;
	rules->context = context;
	rules->isa_level = 1;
	if (tf_platform_parse(tag, &rules->platform, &why)) {
		struct tf_buf msg = TF_BUF_INIT;

		add_context(&msg, context);
		tf_buf_addf(&msg, "platform '%s': %s", tag, why.buf);
		tf_buf_release(&why);
		return print_line(&msg);
	}
	return find_policy(rules, &policy);
}
