/*
 * Framework plugin conventions, checked on a finished wheel
 * (conventions.h, docs/frameworks.md): on its ELF libraries, and on the
 * Mach-O libraries of a macOS wheel (read by macho/).
 */
#include "conventions.h"
#include "abi.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "audit/audit.h"
#include "macho/macho.h"
#include "wheel/wheel.h"
#include "fwbuild.h"
#include "fwmacho.h"

#define ENTRY_POINTS_CAP (1u << 20)
#define DIST_INFO_CAP (1u << 20) /* METADATA's start, framework.json */

/* Entry-point groups whose value must name a module of the wheel. */
static const struct {
	const char *group;
	const char *why;
} module_groups[] = {
	{ "torch.backends", "torch.backends: torch imports each backend's "
			    "module at `import torch`" },
	{ "torch_xla.plugins",
	  "torch_xla.plugins: torch_xla imports each "
	  "device plugin's module to find its PJRT library" },
	{ "jax_plugins", "jax_plugins: jax imports each plugin's module at "
			 "backend initialization and calls its initialize()" },
};

static const char pjrt_why[] =
	"JAX/PJRT plugin: the framework loads the library and calls "
	"GetPjrtApi, the PJRT C API's one entry point";
static const char se_why[] =
	"TensorFlow PluggableDevice: TensorFlow loads every library in "
	"site-packages/tensorflow-plugins/ and calls SE_InitPlugin";
static const char kernel_why[] =
	"TensorFlow PluggableDevice: a plugin that registers kernels "
	"(TF_RegisterKernelBuilder) must export TF_InitKernel, which "
	"TensorFlow calls to register them";

struct wheel_view {
	const char *path;
	struct tf_strvec names;            /* every regular entry */
	struct tf_buf entry_points;        /* .dist-info/entry_points.txt */
	struct tf_buf tmp;                 /* temporary directory */
	struct tf_strvec elf_src, elf_dst; /* shared libraries, extracted */
	struct tf_buf metadata;            /* .dist-info/METADATA (capped) */
	struct tf_buf record; /* .dist-info/tfbuild/framework.json */
	int has_record;
	char *record_lib; /* owned; the PJRT plugin the record names */
	const char *tf_lib, *pjrt_lib; /* borrowed from elf_dst: a plugin of
					  TensorFlow, of JAX (abi.h) */
};

static int refuse(const struct wheel_view *w, const char *entry,
		  const char *what, const char *why)
{
	return error("%s: %s: %s (%s)", w->path, entry, what, why);
}

/* "x.so", "x.so.2", and macOS's "x.dylib" (Python's modules there are .so). */
static int is_shared_lib_name(const char *name)
{
	const char *base = tf_path_basename(name);
	const char *so = strstr(base, ".so");
	size_t n = strlen(base);

	return (so && (so[3] == '\0' || so[3] == '.')) ||
	       (n > 6 && !strcmp(base + n - 6, ".dylib"));
}

/* 1 if name is the .dist-info directory's file `file`. */
static int is_dist_info(const char *name, const char *file)
{
	const char *slash = strchr(name, '/');

	return slash && slash - name > 10 &&
	       !strncmp(slash - 10, ".dist-info", 10) &&
	       !strcmp(slash + 1, file);
}

static int is_entry_points(const char *name)
{
	return is_dist_info(name, "entry_points.txt");
}

static int extract(struct wheel_view *w, struct tf_wheel_reader *r,
		   const char *name)
{
	const char *tmp = getenv("TMPDIR");
	char chunk[65536];
	ssize_t n;
	char *out;
	int fd, ret = 0;

	if (!w->tmp.len && tf_mkdtemp_in(tmp && *tmp ? tmp : "/tmp",
					 "tfbuild-conventions", &w->tmp) < 0)
		return -1;
	out = tf_xstrfmt("%s/%zu", w->tmp.buf, w->elf_src.nr);
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		ret = error_errno("cannot create '%s'", out);
		goto out;
	}
	while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0)
		if (tf_write_all(fd, chunk, (size_t)n) < 0) {
			ret = error_errno("cannot write '%s'", out);
			break;
		}
	close(fd);
	if (!ret && n < 0)
		ret = error("%s: %s: corrupt data: %s", w->path, name,
			    tf_wheel_error(r));
	if (!ret) {
		tf_strvec_push(&w->elf_src, out);
		tf_strvec_push(&w->elf_dst, name);
	}
out:
	free(out);
	return ret;
}

/*
 * The streaming reader: it does not hold the central directory (9 MB
 * at 63,000 entries), and verify (zipcheck.h) has proven the local
 * headers agree with it before the conventions are checked.
 */
static struct tf_wheel_reader *open_wheel(const struct wheel_view *w)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_wheel_reader *r =
		tf_wheel_open(w->path, TF_WHEEL_STREAMABLE, 65536, &why);

	if (!r)
		error("%s: cannot read the zip archive: %s", w->path, why.buf);
	tf_buf_release(&why);
	return r;
}

/* After the last member: 0, or -1 after saying why the archive stopped. */
static int read_to_end(const struct wheel_view *w, struct tf_wheel_reader *r,
		       enum tf_wheel_step step)
{
	if (step == TF_WHEEL_END)
		return 0;
	return error("%s: cannot read the zip archive: %s", w->path,
		     tf_wheel_error(r));
}

/*
 * Every regular entry's name, for the entry points that must name a
 * module; only read when entry_points.txt has such a group, so a wheel
 * of many files without one does not keep all its names.
 */
static int read_names(struct wheel_view *w)
{
	struct tf_wheel_reader *r;
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	int ret;
	size_t i;

	for (i = 0; i < sizeof(module_groups) / sizeof(module_groups[0]); i++)
		if (w->entry_points.len &&
		    strstr(w->entry_points.buf, module_groups[i].group))
			break;
	if (i == sizeof(module_groups) / sizeof(module_groups[0]))
		return 0;
	if (!(r = open_wheel(w)))
		return -1;
	while ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER)
		if (m->name && m->type == TF_WHEEL_FILE)
			tf_strvec_push(&w->names, m->name);
	ret = read_to_end(w, r, step);
	tf_wheel_close(r);
	return ret;
}

static int has_pjrt_name(const char *name);

/*
 * A library whose symbols are checked whatever the entry points say: a
 * PJRT plugin by its name, or a TensorFlow plugin by where it is. Any
 * other is read only for a wheel with a jax_plugins entry point.
 */
static int checked_always(const char *name)
{
	return has_pjrt_name(name) ||
	       !strncmp(name, "tensorflow-plugins/", 19) ||
	       !strncmp(name, "jax_plugins/", 12);
}

int tf_conventions_relevant(const char *name)
{
	return is_entry_points(name) ||
	       is_dist_info(name, TF_FRAMEWORK_RECORD) ||
	       (is_shared_lib_name(name) && checked_always(name));
}

/* Keep the rest of the member in out, up to cap bytes. */
static void keep(struct tf_wheel_reader *r, struct tf_buf *out, size_t cap)
{
	char chunk[65536];
	ssize_t n;

	while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0 &&
	       out->len < cap)
		tf_buf_add(out, chunk, (size_t)n);
}

/*
 * Pass 1 keeps entry_points.txt, METADATA and the framework record and
 * extracts the libraries checked_always; pass 2 (jax, or a record that
 * names another library) extracts the other libraries.
 */
static int read_wheel(struct wheel_view *w, int pass)
{
	struct tf_wheel_reader *r = open_wheel(w);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	int ret = -1;

	if (!r)
		return -1;
	while ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER) {
		const char *name = m->name;

		if (!name || m->type != TF_WHEEL_FILE)
			continue;
		if (pass == 2) {
			if (is_shared_lib_name(name) && !checked_always(name) &&
			    extract(w, r, name) < 0)
				goto out;
			continue;
		}
		if (is_entry_points(name)) {
			keep(r, &w->entry_points, ENTRY_POINTS_CAP);
		} else if (is_dist_info(name, "METADATA")) {
			keep(r, &w->metadata, DIST_INFO_CAP);
		} else if (is_dist_info(name, TF_FRAMEWORK_RECORD)) {
			keep(r, &w->record, DIST_INFO_CAP);
			w->has_record = 1;
		} else if (is_shared_lib_name(name) && checked_always(name)) {
			if (extract(w, r, name) < 0)
				goto out;
		}
	}
	ret = read_to_end(w, r, step);
out:
	tf_wheel_close(r);
	return ret;
}

static int has_entry(const struct wheel_view *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->names.nr; i++)
		if (!strcmp(w->names.v[i], name))
			return 1;
	return 0;
}

/* 1 if module "a.b" is in the wheel: a/b.py, a/b/__init__.py, a/b.*.so. */
static int has_module(const struct wheel_view *w, const char *module)
{
	struct tf_buf p = TF_BUF_INIT;
	const char *c;
	size_t i, n;
	int found;

	for (c = module; *c; c++)
		tf_buf_addch(&p, *c == '.' ? '/' : *c);
	n = p.len;
	tf_buf_addstr(&p, ".py");
	found = has_entry(w, p.buf);
	tf_buf_setlen(&p, n);
	tf_buf_addstr(&p, "/__init__.py");
	found = found || has_entry(w, p.buf);
	tf_buf_setlen(&p, n);
	for (i = 0; !found && i < w->names.nr; i++)
		found = !strncmp(w->names.v[i], p.buf, n) &&
			w->names.v[i][n] == '.' &&
			is_shared_lib_name(w->names.v[i]) &&
			!strchr(w->names.v[i] + n, '/');
	tf_buf_release(&p);
	return found;
}

/*
 * Each entry point of a checked group must name a module of the wheel.
 * Sets *jax when the wheel declares a jax_plugins entry point.
 */
static int check_entry_points(const struct wheel_view *w, int *jax)
{
	char *text = tf_strndup(w->entry_points.buf ? w->entry_points.buf : "",
				w->entry_points.len);
	char *line, *save = NULL, *group = NULL;
	int ret = 0;

	for (line = strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *l = tf_str_trim(line), *eq, *module, *value;
		size_t i;

		if (*l == '[') {
			char *end = strchr(l, ']');

			if (end)
				*end = '\0';
			group = tf_str_trim(l + 1);
			continue;
		}
		if (!group || !*l || *l == '#' || *l == ';' ||
		    !(eq = strchr(l, '=')))
			continue;
		for (i = 0;
		     i < sizeof(module_groups) / sizeof(module_groups[0]);
		     i++) {
			if (strcmp(group, module_groups[i].group))
				continue;
			*eq = '\0';
			value = tf_strdup(tf_str_trim(eq + 1));
			module = tf_strndup(value, strcspn(value, ":[ \t"));
			*jax |= !strcmp(group, "jax_plugins");
			if (!has_module(w, module))
				ret = error(
					"%s: entry point '%s = %s' in group '%s' "
					"names module '%s', which is not in the "
					"wheel (%s)",
					w->path, tf_str_trim(l), value, group,
					module, module_groups[i].why);
			free(value);
			free(module);
			break;
		}
	}
	free(text);
	return ret;
}

static int exports(const struct tf_elf_info *info, const char *sym)
{
	size_t i;

	for (i = 0; i < info->exports.nr; i++)
		if (!strcmp(info->exports.v[i], sym))
			return 1;
	return 0;
}

static int uses(const struct tf_strvec *undefined, const char *sym)
{
	size_t i, n = strlen(sym);

	for (i = 0; i < undefined->nr; i++)
		if (!strncmp(undefined->v[i], sym, n) &&
		    (!undefined->v[i][n] || undefined->v[i][n] == '\t'))
			return 1;
	return 0;
}

static int has_pjrt_name(const char *name)
{
	const char *base = tf_path_basename(name);
	size_t i;

	for (i = 0; base[i]; i++)
		if (!strncasecmp(base + i, "pjrt", 4))
			return 1;
	return 0;
}

/* "jax_plugins/NAME/": the package JAX imports as jax_plugins.NAME. */
static char *jax_package(const char *dst)
{
	const char *slash;

	if (strncmp(dst, "jax_plugins/", 12) ||
	    !(slash = strchr(dst + 12, '/')))
		return NULL;
	return tf_strndup(dst, (size_t)(slash - dst) + 1);
}

/* A Mach-O symbol as C names it: "_SE_InitPlugin" is SE_InitPlugin. */
static void push_c_name(struct tf_strvec *sv, const char *name)
{
	tf_strvec_push(sv, name[0] == '_' ? name + 1 : name);
}

/*
 * A library's exports and strong undefined symbols: an ELF library's
 * as tf_elf_read_undefined() reads them, or a Mach-O one's (a macOS
 * wheel's), every slice's, through macho/. TF_ELF_READ_NOT_ELF for
 * neither; TF_ELF_READ_ERROR after printing why.
 */
static enum tf_elf_read_result read_library(const struct wheel_view *w,
					    const char *src, const char *dst,
					    struct tf_elf_info *info,
					    struct tf_strvec *undefined)
{
	enum tf_elf_read_result r =
		tf_elf_read_undefined(src, dst, info, undefined);
	struct tf_buf why = TF_BUF_INIT;
	struct tf_macho *m;
	size_t i, j;

	if (r != TF_ELF_READ_NOT_ELF || !tf_fwmacho_is_macho(src))
		return r;
	if (tf_macho_read(src, &m, &why) < 0) {
		error("%s: %s: %s", w->path, dst, why.buf);
		tf_buf_release(&why);
		return TF_ELF_READ_ERROR;
	}
	tf_elf_info_release(info);
	*info = (struct tf_elf_info)TF_ELF_INFO_INIT;
	for (i = 0; i < m->nr_slices; i++) {
		const struct tf_macho_slice *s = &m->slices[i];

		for (j = 0; j < s->nr_exports; j++)
			push_c_name(&info->exports, s->exports[j]);
		for (j = 0; j < s->nr_undefs; j++)
			if (!s->undefs[j].weak)
				push_c_name(undefined, s->undefs[j].name);
	}
	tf_macho_free(m);
	return TF_ELF_READ_OK;
}

/*
 * Each library against its convention. A JAX plugin library (abi.h's
 * rule): the one the framework record names, any library of a
 * jax_plugins/NAME/ package, or, in a wheel declaring a jax_plugins
 * entry point, the library exporting GetPjrtApi.
 */
static int check_libraries(struct wheel_view *w, int jax)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_strvec undefined = TF_STRVEC_INIT, pkgs = TF_STRVEC_INIT,
			 with_api = TF_STRVEC_INIT;
	size_t i;
	enum tf_elf_read_result r;
	int ret = 0, has_pjrt_api = 0;

	for (i = 0; i < w->elf_src.nr && !ret; i++) {
		const char *dst = w->elf_dst.v[i];
		char *pkg = jax_package(dst);
		int api, named = w->record_lib && !strcmp(w->record_lib, dst);

		tf_strvec_release(&undefined);
		r = read_library(w, w->elf_src.v[i], dst, &info, &undefined);
		if (r != TF_ELF_READ_OK) {
			free(pkg);
			ret = r == TF_ELF_READ_ERROR ? -1 : 0;
			continue;
		}
		api = exports(&info, "GetPjrtApi");
		has_pjrt_api |= api;
		if (pkg)
			tf_strvec_push(api ? &with_api : &pkgs, pkg);
		if ((named || pkg || (jax && api)) && !w->pjrt_lib)
			w->pjrt_lib = dst;
		if (!strncmp(dst, "tensorflow-plugins/", 19) && !w->tf_lib)
			w->tf_lib = dst;
		free(pkg);
		if ((has_pjrt_name(dst) || named) && !api)
			ret = refuse(w, dst,
				     "a PJRT plugin library that does "
				     "not export GetPjrtApi",
				     pjrt_why);
		else if (!strncmp(dst, "tensorflow-plugins/", 19) &&
			 !exports(&info, "SE_InitPlugin"))
			ret = refuse(w, dst,
				     "a TensorFlow plugin library that "
				     "does not export SE_InitPlugin",
				     se_why);
		else if (!strncmp(dst, "tensorflow-plugins/", 19) &&
			 uses(&undefined, "TF_RegisterKernelBuilder") &&
			 !exports(&info, "TF_InitKernel"))
			ret = refuse(w, dst,
				     "registers kernels but does not "
				     "export TF_InitKernel",
				     kernel_why);
	}
	for (i = 0; !ret && i < pkgs.nr; i++)
		if (!tf_strvec_has(&with_api, pkgs.v[i]))
			ret = error("%s: %s: no shared library of package "
				    "'%s' exports GetPjrtApi (%s; JAX imports "
				    "every jax_plugins.NAME package as a "
				    "PJRT plugin)",
				    w->path, pkgs.v[i], pkgs.v[i], pjrt_why);
	if (!ret && jax && !has_pjrt_api)
		ret = error("%s: declares a jax_plugins entry point but no "
			    "shared library in it exports GetPjrtApi (%s)",
			    w->path, pjrt_why);
	tf_elf_info_release(&info);
	tf_strvec_release(&undefined);
	tf_strvec_release(&pkgs);
	tf_strvec_release(&with_api);
	return ret;
}

/* 1 if the record names a library pass 1 did not extract. */
static int record_lib_missing(const struct wheel_view *w)
{
	size_t i;

	if (!w->record_lib)
		return 0;
	for (i = 0; i < w->elf_dst.nr; i++)
		if (!strcmp(w->elf_dst.v[i], w->record_lib))
			return 0;
	return 1;
}

int tf_conventions_verify(const char *path, int report)
{
	struct wheel_view w = { path,        TF_STRVEC_INIT, TF_BUF_INIT,
				TF_BUF_INIT, TF_STRVEC_INIT, TF_STRVEC_INIT,
				TF_BUF_INIT, TF_BUF_INIT,    0,
				NULL,        NULL,           NULL };
	struct tf_plugin_wheel pw;
	int jax = 0, ret;

	ret = read_wheel(&w, 1);
	if (!ret && w.has_record)
		w.record_lib = tf_framework_record_library(w.record.buf);
	if (!ret)
		ret = read_names(&w);
	if (!ret)
		ret = check_entry_points(&w, &jax);
	/* Any library of a JAX plugin may be the one exporting GetPjrtApi. */
	if (!ret && (jax || record_lib_missing(&w)))
		ret = read_wheel(&w, 2);
	if (!ret)
		ret = check_libraries(&w, jax);
	pw = (struct tf_plugin_wheel){
		path,           w.has_record ? w.record.buf : NULL,
		w.metadata.buf, w.tf_lib,
		w.pjrt_lib,     report
	};
	if (!ret)
		ret = tf_framework_plugin_verify(&pw);
	if (w.tmp.len)
		tf_rm_rf(w.tmp.buf);
	tf_strvec_release(&w.names);
	tf_buf_release(&w.entry_points);
	tf_buf_release(&w.tmp);
	tf_strvec_release(&w.elf_src);
	tf_strvec_release(&w.elf_dst);
	tf_buf_release(&w.metadata);
	tf_buf_release(&w.record);
	free(w.record_lib);
	return ret ? -1 : 0;
}
