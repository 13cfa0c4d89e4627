/*
 * The framework a wheel's binaries load into, and the check that they
 * resolve against it (framework.h, docs/frameworks.md).
 */
#include "framework.h"
#include "abi.h"
#include "install.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl/dl.h"
#include "audit/audit.h"
#include "base/base.h"
#include "macho/macho.h"
#include "metadata/metadata.h"
#include "fwbuild.h"
#include "fwmacho.h"
#include "wheel/wheel.h"

/*
 * abi::__cxa_demangle (tf_dl_demangle: libstdc++ loaded on first use):
 * the demangler of the toolchain that compiled the backend, in process,
 * rather than a c++filt child per symbol.
 */

/* ------------------------------------------------------------------ demangle */

/* The demangled form of sym ("name" itself when it is not C++). */
static char *demangle(const char *sym)
{
	int status = 0;
	char *d = tf_dl_demangle(sym, &status);

	if (!d || status)
		return tf_strdup(sym);
	return d;
}

/* The function's qualified name: the demangled form up to its '('. */
static char *qualified_name(const char *sym)
{
	char *d = demangle(sym);
	char *paren = strchr(d, '(');

	if (paren)
		*paren = '\0';
	return d;
}

/* The shared libraries under SITE/NAME/lib/, links followed. */
static void find_lib_files(struct tf_framework *fw)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT;
	char real[PATH_MAX];
	size_t i;

	/* TensorFlow's libtensorflow_framework.so.2 is in tensorflow/. */
	if (fw->kind == TF_FRAMEWORK_TENSORFLOW)
		tf_buf_addf(&dir, "%s/tensorflow", fw->site);
	else
		tf_buf_addf(&dir, "%s/%s/lib", fw->site, fw->name);
	if (fw->kind == TF_FRAMEWORK_JAX || !tf_path_is_dir(dir.buf) ||
	    tf_list_dir(dir.buf, &names) < 0)
		goto out;
	for (i = 0; i < names.nr; i++) {
		size_t n = strlen(names.v[i]);

		/* libtensorflow_framework.so.2, or .2.dylib on macOS */
		if (!strstr(names.v[i], ".so") &&
		    (n < 6 || strcmp(names.v[i] + n - 6, ".dylib")))
			continue;
		tf_buf_reset(&path);
		tf_path_join(&path, dir.buf, names.v[i]);
		if (realpath(path.buf, real))
			tf_strvec_push(&fw->lib_files, real);
	}
out:
	tf_strvec_release(&names);
	tf_buf_release(&dir);
	tf_buf_release(&path);
}

static int read_provider(struct tf_framework *fw, const char *path);

int tf_framework_load(struct tf_framework *fw, const char *name,
		      const char *site, const char *context)
{
	char real[PATH_MAX];
	size_t i;

	/* The demangler, for the messages: loaded now, reported in context. */
	if (tf_dl_stdcxx() < 0)
		return error("%s: framework '%s': cannot check its C++ symbols",
			     context, name);
	if (!realpath(site, real) || !tf_path_is_dir(real))
		return error(
			"%s: framework '%s': site-packages '%s' is not a directory",
			context, name, site);
	fw->site = tf_strdup(real);
	fw->kind = tf_framework_kind_of(name);
	if (tf_framework_read_install(fw, name, context) < 0)
		return -1;
	find_lib_files(fw);
	for (i = 0; i < fw->lib_files.nr; i++)
		if (read_provider(fw, fw->lib_files.v[i]) < 0)
			return -1;
	if (!fw->nr_libs && fw->kind == TF_FRAMEWORK_TENSORFLOW)
		return error("%s: framework '%s': no shared libraries in "
			     "'%s/tensorflow'",
			     context, fw->name, fw->site);
	if (!fw->nr_libs && fw->kind == TF_FRAMEWORK_OTHER)
		return error(
			"%s: framework '%s': no shared libraries in '%s/%s/lib'",
			context, fw->name, fw->site, fw->name);
	return tf_framework_read_api(fw, context);
}

void tf_framework_release(struct tf_framework *fw)
{
	struct tf_framework empty = TF_FRAMEWORK_INIT;
	size_t i;

	for (i = 0; i < fw->nr_libs; i++) {
		free(fw->libs[i].soname);
		free(fw->libs[i].install_name);
		free(fw->libs[i].path);
		tf_strvec_release(&fw->libs[i].exports);
	}
	free(fw->libs);
	free(fw->name);
	free(fw->version);
	free(fw->site);
	free(fw->header_version);
	free(fw->header_file);
	free(fw->pjrt_header);
	free(fw->api_version);
	free(fw->api_file);
	free(fw->api_shown);
	free(fw->library);
	tf_strvec_release(&fw->lib_files);
	*fw = empty;
}

void tf_framework_requirement(const struct tf_framework *fw, struct tf_buf *out)
{
	tf_framework_window(fw, out);
}

void tf_framework_companion(const struct tf_framework *fw, struct tf_buf *out)
{
	if (fw->kind == TF_FRAMEWORK_JAX && fw->version)
		tf_buf_addf(out, "jax==%s", fw->version);
}

int tf_framework_alternative(const struct tf_framework *fw, const char *req)
{
	struct tf_buf name = TF_BUF_INIT, spec = TF_BUF_INIT,
		      marker = TF_BUF_INIT, mine = TF_BUF_INIT,
		      norm = TF_BUF_INIT;
	int yes = 0;

	if (fw->kind == TF_FRAMEWORK_TENSORFLOW &&
	    !tf_requirement_split(req, &name, &spec, &marker)) {
		tf_pyname_normalize(name.buf, &norm);
		tf_pyname_normalize(fw->name, &mine);
		yes = tf_framework_kind_of(name.buf) == fw->kind &&
		      strcmp(norm.buf, mine.buf);
	}
	tf_buf_release(&name);
	tf_buf_release(&spec);
	tf_buf_release(&marker);
	tf_buf_release(&mine);
	tf_buf_release(&norm);
	return yes;
}

/* ------------------------------------------------------------------ providers */

static void digest_exports(struct tf_framework_lib *lib)
{
	unsigned char md[TF_SHA256_LEN];
	struct tf_sha256 *h = tf_sha256_new();
	size_t i;

	for (i = 0; i < lib->exports.nr; i++) {
		tf_sha256_update(h, lib->exports.v[i],
				 strlen(lib->exports.v[i]));
		tf_sha256_update(h, "\n", 1);
	}
	tf_sha256_final(h, md);
	tf_sha256_hex(md, lib->digest);
}

static int has_cxx11_symbols(const struct tf_strvec *exports)
{
	size_t i;

	for (i = 0; i < exports->nr; i++)
		if (strstr(exports->v[i], "B5cxx11"))
			return 1;
	return 0;
}

/* A new provider slot for path, or NULL when path is one already. */
static struct tf_framework_lib *new_lib(struct tf_framework *fw,
					const char *path)
{
	struct tf_framework_lib *lib;
	size_t i;

	for (i = 0; i < fw->nr_libs; i++)
		if (!strcmp(fw->libs[i].path, path))
			return NULL;
	if (fw->nr_libs == fw->alloc_libs) {
		fw->alloc_libs = fw->alloc_libs ? 2 * fw->alloc_libs : 8;
		fw->libs = tf_realloc(fw->libs,
				      fw->alloc_libs * sizeof(*fw->libs));
	}
	lib = &fw->libs[fw->nr_libs++];
	memset(lib, 0, sizeof(*lib));
	lib->path = tf_strdup(path);
	return lib;
}

/* A Mach-O library (macOS's site) into the providers; not one: 0. */
static int read_macho_provider(struct tf_framework *fw, const char *path)
{
	struct tf_framework_lib *lib;

	if (!tf_fwmacho_is_macho(path) || !(lib = new_lib(fw, path)))
		return 0;
	if (tf_fwmacho_read_provider(path, lib) < 0)
		return -1;
	digest_exports(lib);
	if (fw->cxx11_abi < 1)
		fw->cxx11_abi = has_cxx11_symbols(&lib->exports);
	return 0;
}

/* Read the library at path into the providers (a duplicate is skipped). */
static int read_provider(struct tf_framework *fw, const char *path)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_framework_lib *lib;
	enum tf_elf_read_result r = tf_elf_read(path, path, &info);

	if (r != TF_ELF_READ_OK) {
		tf_elf_info_release(&info);
		if (r == TF_ELF_READ_ERROR)
			return -1;
		return read_macho_provider(fw, path);
	}
	lib = new_lib(fw, path);
	if (!lib)
		goto out;
	lib->soname =
		tf_strdup(info.soname ? info.soname : tf_path_basename(path));
	lib->machine = info.machine;
	lib->exports = info.exports;
	info.exports = (struct tf_strvec)TF_STRVEC_INIT;
	digest_exports(lib);
	if (fw->cxx11_abi < 1)
		fw->cxx11_abi = has_cxx11_symbols(&lib->exports);
out:
	tf_elf_info_release(&info);
	return 0;
}

/* The framework's library whose DT_SONAME is soname, or NULL. */
static struct tf_framework_lib *provider(struct tf_framework *fw,
					 const char *soname, int *failed)
{
	size_t i;

	(void)failed;
	for (i = 0; i < fw->nr_libs; i++)
		if (!strcmp(fw->libs[i].soname, soname))
			return &fw->libs[i];
	return NULL;
}

int tf_framework_provides(struct tf_framework *fw, const char *soname)
{
	int failed = 0;

	return provider(fw, soname, &failed) != NULL;
}

/* ------------------------------------------------------------------ the check */

static int in_sorted(const struct tf_strvec *sv, const char *s)
{
	return sv->nr && bsearch(&s, sv->v, sv->nr, sizeof(*sv->v),
				 tf_strcmp_ptr) != NULL;
}

/* One ELF file of the wheel, read with its undefined symbols. */
struct wheel_elf {
	const struct tf_wheel_file *file;
	struct tf_elf_info info;
	struct tf_strvec undefined;
};

static const char *abi_name(int cxx11)
{
	return cxx11 ? "cxx11 ABI" : "pre-cxx11 ABI";
}

/*
 * Name the undefined symbol sym of file, and the provider that should
 * have defined it: the one defining a function of the same qualified
 * name (then with another signature: usually the other C++ ABI).
 */
static int refuse_symbol(struct tf_framework *fw,
			 struct tf_framework_lib **libs, size_t nr_libs,
			 const struct wheel_elf *we, const char *sym,
			 const char *context)
{
	struct tf_buf names = TF_BUF_INIT;
	char *want = qualified_name(sym), *shown = demangle(sym);
	size_t i, j;
	int ret;

	for (i = 0; i < nr_libs; i++) {
		for (j = 0; j < libs[i]->exports.nr; j++) {
			const char *e = libs[i]->exports.v[j];
			char *have;

			/* Cheap filter before demangling: the last name part. */
			if (strncmp(e, "_Z", 2) ||
			    !strstr(e, strrchr(want, ':')
					       ? strrchr(want, ':') + 1
					       : want))
				continue;
			have = qualified_name(e);
			if (!strcmp(have, want)) {
				char *d = demangle(e);

				ret = error(
					"%s: %s: undefined symbol '%s' (%s) is not "
					"defined by %s (%s %s, %s), which should "
					"define it: it defines '%s' instead (built "
					"with another _GLIBCXX_USE_CXX11_ABI or "
					"other framework headers?)",
					context, we->file->dst, shown, sym,
					libs[i]->soname, fw->name, fw->version,
					abi_name(fw->cxx11_abi), d);
				free(d);
				free(have);
				goto out;
			}
			free(have);
		}
	}
	for (i = 0; i < nr_libs; i++)
		tf_buf_addf(&names, "%s%s", i ? ", " : "", libs[i]->soname);
	ret = error("%s: %s: undefined symbol '%s' (%s) is defined neither by "
		    "the framework's libraries it needs (%s of %s %s) nor by "
		    "another file of the wheel",
		    context, we->file->dst, shown, sym,
		    names.len ? names.buf : "none", fw->name, fw->version);
out:
	free(want);
	free(shown);
	tf_buf_release(&names);
	return ret;
}

static int check_file(struct tf_framework *fw, const struct wheel_elf *we,
		      const struct tf_strvec *wheel_exports,
		      const char *context, struct tf_strvec *used)
{
	struct tf_framework_lib **libs;
	char mine[32], theirs[32];
	size_t i, nr = 0;
	int failed = 0, ret = 0;

	libs = tf_calloc(we->info.needed.nr + 1, sizeof(*libs));
	for (i = 0; i < we->info.needed.nr; i++) {
		struct tf_framework_lib *lib =
			provider(fw, we->info.needed.v[i], &failed);

		if (failed) {
			ret = -1;
			goto out;
		}
		if (!lib)
			continue;
		if (lib->machine != we->info.machine) {
			ret = error(
				"%s: %s: is %s, but the framework's %s (%s) is %s: "
				"checked against another architecture's %s",
				context, we->file->dst,
				tf_elf_machine_name(we->info.machine, mine),
				lib->soname, lib->path,
				tf_elf_machine_name(lib->machine, theirs),
				fw->name);
			goto out;
		}
		libs[nr++] = lib;
		tf_strvec_push(used, lib->soname);
	}
	if (!nr)
		goto out; /* not a binary of this framework */
	for (i = 0; i < we->undefined.nr; i++) {
		char *sym = tf_strdup(we->undefined.v[i]);
		char *tab = strchr(sym, '\t');
		size_t j;
		int found;

		if (tab)
			*tab = '\0';
		found = in_sorted(wheel_exports, sym);
		for (j = 0; !found && j < nr; j++)
			found = in_sorted(&libs[j]->exports, sym);
		/* A C++ name resolved by the framework: its C++ ABI counts. */
		if (found && j && !strncmp(sym, "_Z", 2))
			fw->cxx_used = 1;
		/* Bound to a version of a library that is not the
		   framework's: a system library, whose versions elf.c
		   checks against the platform tag. */
		if (!found && tab && !tf_framework_provides(fw, tab + 1))
			found = 1;
		/* The C API of the interpreter that imports the module:
		   extension modules do not name libpython (elf.c refuses
		   that), the interpreter provides these. */
		if (!found && !tab &&
		    (!strncmp(sym, "Py", 2) || !strncmp(sym, "_Py", 3)))
			found = 1;
		if (!found)
			ret = refuse_symbol(fw, libs, nr, we, sym, context);
		free(sym);
		if (ret)
			break;
	}
out:
	free(libs);
	return ret;
}

static void add_record(struct tf_framework *fw, struct tf_strvec *used,
		       struct tf_buf *record)
{
	json_t *root = json_object(), *fwj = json_object(),
	       *provs = json_array();
	size_t i, j;
	char *text;

	for (i = 0; i < used->nr; i++) {
		json_t *p;

		if (i && !strcmp(used->v[i], used->v[i - 1]))
			continue;
		for (j = 0; j < fw->nr_libs; j++)
			if (!strcmp(fw->libs[j].soname, used->v[i]))
				break;
		p = json_object();
		json_object_set_new(p, "soname", json_string(used->v[i]));
		json_object_set_new(p, "exports-sha256",
				    json_string(fw->libs[j].digest));
		json_array_append_new(provs, p);
	}
	json_object_set_new(fwj, "name", json_string(fw->name));
	json_object_set_new(fwj, "version", json_string(fw->version));
	/* TensorFlow's C API has no C++ ABI: only when C++ names bind. */
	if (fw->kind == TF_FRAMEWORK_OTHER || fw->cxx_used)
		json_object_set_new(fwj, "cxx11-abi",
				    json_boolean(fw->cxx11_abi == 1));
	if (fw->kind != TF_FRAMEWORK_JAX)
		json_object_set_new(fwj, "providers", provs);
	else
		json_decref(provs);
	tf_framework_abi_record(fw, fwj);
	json_object_set_new(root, "framework", fwj);
	json_object_set_new(root, "schema", json_integer(1));
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(1));
	tf_buf_addstr(record, text);
	tf_buf_addch(record, '\n');
	free(text);
	json_decref(root);
}

/*
 * 1 if the file at path is Mach-O (a macOS plugin) and a slice of it
 * exports GetPjrtApi ("_GetPjrtApi"); 0 if not, -1 (said) if LLVM
 * cannot read what has Mach-O's magic.
 */
static int macho_exports_pjrt(const char *path, const char *shown,
			      const char *context)
{
	unsigned char head[8];
	struct tf_macho *m = NULL;
	struct tf_buf why = TF_BUF_INIT;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head));
	size_t i, j;

	if (fd >= 0)
		close(fd);
	if (n <= 0 || !tf_macho_magic(head, (size_t)n))
		return 0;
	if (tf_macho_read(path, &m, &why)) {
		ret = error("%s: %s: %s", context, shown, why.buf);
		goto out;
	}
	for (i = 0; i < m->nr_slices && !ret; i++)
		for (j = 0; j < m->slices[i].nr_exports && !ret; j++)
			ret = !strcmp(m->slices[i].exports[j], "_GetPjrtApi");
out:
	tf_macho_free(m);
	tf_buf_release(&why);
	return ret;
}

/*
 * A PJRT plugin links nothing of JAX's: JAX dlopens it and calls
 * GetPjrtApi. The one file of the wheel exporting it is the plugin
 * (ELF, or Mach-O for macOS).
 */
static int find_pjrt_library(struct tf_framework *fw,
			     const struct tf_wheel_file *files, size_t nr,
			     const char *context)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	enum tf_elf_read_result r;
	size_t i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		int macho = 0;

		r = tf_elf_read(files[i].src, files[i].dst, &info);
		if (r == TF_ELF_READ_ERROR)
			ret = -1;
		if (r == TF_ELF_READ_NOT_ELF)
			macho = macho_exports_pjrt(files[i].src, files[i].dst,
						   context);
		if (macho < 0)
			ret = -1;
		if (macho <= 0 && (r != TF_ELF_READ_OK ||
				   !in_sorted(&info.exports, "GetPjrtApi")))
			continue;
		if (fw->library)
			ret = error("%s: framework %s: both %s and %s export "
				    "GetPjrtApi: which is the PJRT plugin?",
				    context, fw->name, fw->library,
				    files[i].dst);
		else
			fw->library = tf_strdup(files[i].dst);
	}
	tf_elf_info_release(&info);
	if (!ret && !fw->library)
		ret = error("%s: framework %s: no shared library of the wheel "
			    "exports GetPjrtApi (a PJRT plugin: the PJRT C "
			    "API's one entry point)",
			    context, fw->name);
	return ret;
}

int tf_framework_audit(struct tf_framework *fw,
		       const struct tf_wheel_file *files, size_t nr_files,
		       const char *context, struct tf_buf *record,
		       struct tf_strvec *used_out)
{
	struct wheel_elf *elfs = tf_calloc(nr_files + 1, sizeof(*elfs));
	struct tf_strvec wheel_exports = TF_STRVEC_INIT, used = TF_STRVEC_INIT;
	size_t i, j, nr = 0;
	enum tf_elf_read_result r;
	int ret = 0;

	if (fw->kind == TF_FRAMEWORK_JAX) {
		free(elfs);
		ret = find_pjrt_library(fw, files, nr_files, context);
		if (!ret && record)
			add_record(fw, &used, record);
		return ret;
	}
	for (i = 0; i < nr_files && !ret; i++) {
		struct wheel_elf *we = &elfs[nr];

		we->info = (struct tf_elf_info)TF_ELF_INFO_INIT;
		we->undefined = (struct tf_strvec)TF_STRVEC_INIT;
		we->file = &files[i];
		r = tf_elf_read_undefined(files[i].src, files[i].dst, &we->info,
					  &we->undefined);
		if (r == TF_ELF_READ_ERROR)
			ret = -1;
		if (r != TF_ELF_READ_OK) {
			tf_elf_info_release(&we->info);
			tf_strvec_release(&we->undefined);
			continue;
		}
		for (j = 0; j < we->info.exports.nr; j++)
			tf_strvec_push(&wheel_exports, we->info.exports.v[j]);
		nr++;
	}
	qsort(wheel_exports.v, wheel_exports.nr, sizeof(*wheel_exports.v),
	      tf_strcmp_ptr);
	for (i = 0; i < nr && !ret; i++)
		ret = check_file(fw, &elfs[i], &wheel_exports, context, &used);
	/* A macOS wheel's Mach-O files, against the site's dylibs. */
	if (!ret)
		ret = tf_fwmacho_audit(fw, files, nr_files, context, &used);
	if (!ret && !used.nr)
		ret = error(
			"%s: no file of the wheel needs a library of framework "
			"%s (%s/%s/lib)",
			context, fw->name, fw->site, fw->name);
	qsort(used.v, used.nr, sizeof(*used.v), tf_strcmp_ptr);
	if (!ret && record)
		add_record(fw, &used, record);
	for (i = 0; !ret && used_out && i < used.nr; i++)
		if (!i || strcmp(used.v[i], used.v[i - 1]))
			tf_strvec_push(used_out, used.v[i]);
	for (i = 0; i < nr; i++) {
		tf_elf_info_release(&elfs[i].info);
		tf_strvec_release(&elfs[i].undefined);
	}
	free(elfs);
	tf_strvec_release(&wheel_exports);
	tf_strvec_release(&used);
	return ret;
}

/* ------------------------------------------------------------------ verify */

struct extracted {
	struct tf_buf dir;           /* temporary directory */
	struct tf_strvec srcs, dsts; /* every regular entry */
	struct tf_buf record;        /* the framework record, if any */
	int has_record;
};

static int extract_wheel(const char *path, struct extracted *x)
{
	struct tf_wheel_reader *r = NULL;
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	struct tf_buf out = TF_BUF_INIT, why = TF_BUF_INIT;
	const char *tmp = getenv("TMPDIR");
	char chunk[65536];
	ssize_t n;
	int ret = -1;

	if (tf_mkdtemp_in(tmp && *tmp ? tmp : "/tmp", "tfbuild-framework",
			  &x->dir) < 0)
		goto out;
	/* Either zip reader: libarchive takes the seekable one if it can. */
	r = tf_wheel_open(path, TF_WHEEL_SEEKABLE | TF_WHEEL_STREAMABLE, 65536,
			  &why);
	if (!r) {
		error("%s: cannot read the zip archive: %s", path, why.buf);
		goto out;
	}
	while ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER) {
		const char *name = m->name;
		const char *slash = name ? strchr(name, '/') : NULL;
		int fd, is_record;

		if (!name || m->type != TF_WHEEL_FILE)
			continue;
		/* NAME-VERSION.dist-info/tfbuild/framework.json */
		is_record = slash && slash - name > 10 &&
			    !strncmp(slash - 10, ".dist-info", 10) &&
			    !strcmp(slash + 1, TF_FRAMEWORK_RECORD);
		tf_buf_setf(&out, "%s/%zu", x->dir.buf, x->srcs.nr);
		fd = open(out.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0600);
		if (fd < 0) {
			error_errno("cannot create '%s'", out.buf);
			goto out;
		}
		while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0) {
			if (tf_write_all(fd, chunk, (size_t)n) < 0) {
				close(fd);
				error_errno("cannot write '%s'", out.buf);
				goto out;
			}
			if (is_record)
				tf_buf_add(&x->record, chunk, (size_t)n);
		}
		close(fd);
		if (n < 0) {
			error("%s: %s: corrupt data: %s", path, name,
			      tf_wheel_error(r));
			goto out;
		}
		x->has_record |= is_record;
		tf_strvec_push(&x->srcs, out.buf);
		tf_strvec_push(&x->dsts, name);
	}
	if (step != TF_WHEEL_END)
		error("%s: cannot read the zip archive: %s", path,
		      tf_wheel_error(r));
	else
		ret = 0;
out:
	tf_wheel_close(r);
	tf_buf_release(&out);
	tf_buf_release(&why);
	return ret;
}

/* The record's view of the build it was checked against. */
static int compare_build(struct tf_framework *fw, json_t *fwj, const char *path)
{
	const char *name = json_string_value(json_object_get(fwj, "name"));
	const char *version =
		json_string_value(json_object_get(fwj, "version"));
	json_t *cx = json_object_get(fwj, "cxx11-abi");
	/* A TensorFlow plugin of C names only records no C++ ABI. */
	int cxx11 = cx ? json_is_true(cx) : fw->cxx11_abi == 1;
	json_t *provs = json_object_get(fwj, "providers"), *p;
	struct tf_framework_lib *lib;
	size_t i;
	int failed = 0;

	/* Read the providers first: the C++ ABI comes from their exports. */
	json_array_foreach(provs, i, p)
	{
		const char *so =
			json_string_value(json_object_get(p, "soname"));
		const char *dg =
			json_string_value(json_object_get(p, "exports-sha256"));

		lib = so ? provider(fw, so, &failed) : NULL;
		if (failed)
			return -1;
		if (!lib)
			return error(
				"%s: built for %s %s (%s), which provides %s; "
				"'%s' has %s %s, which does not",
				path, name, version, abi_name(cxx11),
				so ? so : "?", fw->site, fw->name, fw->version);
		if (strcmp(version, fw->version) ||
		    cxx11 != (fw->cxx11_abi == 1))
			break;
		if (!dg || strcmp(dg, lib->digest))
			return error(
				"%s: built for %s %s (%s); the exports of %s "
				"in '%s' differ from that build's (%s, not %s): "
				"another build of %s %s",
				path, name, version, abi_name(cxx11), so,
				fw->site, lib->digest, dg ? dg : "?", fw->name,
				fw->version);
	}
	if (strcmp(version, fw->version) || cxx11 != (fw->cxx11_abi == 1))
		return error("%s: built for %s %s (%s), '%s' has %s %s (%s)",
			     path, name, version, abi_name(cxx11), fw->site,
			     fw->name, fw->version,
			     abi_name(fw->cxx11_abi == 1));
	return 0;
}

/*
 * The architecture first: against another architecture's framework every
 * other comparison fails for that reason.
 */
static int check_arch(struct tf_framework *fw,
		      const struct tf_wheel_file *files, size_t nr,
		      const char *context)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	char mine[32], theirs[32];
	size_t i, j;
	enum tf_elf_read_result r;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		r = tf_elf_read(files[i].src, files[i].dst, &info);
		if (r != TF_ELF_READ_OK) {
			ret = r == TF_ELF_READ_ERROR ? -1 : 0;
			continue;
		}
		for (j = 0; j < info.needed.nr && !ret; j++) {
			int failed = 0;
			struct tf_framework_lib *lib =
				provider(fw, info.needed.v[j], &failed);

			if (lib && lib->machine != info.machine)
				ret = error(
					"%s: %s: is %s, but the framework's %s (%s) "
					"is %s: checked against another "
					"architecture's %s",
					context, files[i].dst,
					tf_elf_machine_name(info.machine, mine),
					lib->soname, lib->path,
					tf_elf_machine_name(lib->machine,
							    theirs),
					fw->name);
		}
	}
	tf_elf_info_release(&info);
	return ret;
}

/* A PJRT plugin: the same jaxlib release and PJRT C API version. */
static int compare_api(struct tf_framework *fw, json_t *fwj, const char *path)
{
	const char *version =
		json_string_value(json_object_get(fwj, "version"));
	const char *api = json_string_value(
		json_object_get(json_object_get(fwj, "c-api"), "version"));

	if (!fw->version || !api || strcmp(version, fw->version) ||
	    strcmp(api, fw->api_version))
		return error("%s: built for %s %s (PJRT C API %s), '%s' has "
			     "%s %s (PJRT C API %s)",
			     path,
			     json_string_value(json_object_get(fwj, "name")),
			     version, api ? api : "?", fw->site, fw->name,
			     fw->version ? fw->version : "no release",
			     fw->api_version);
	info("%s: built for %s %s (PJRT C API %s), as '%s' has", path, fw->name,
	     fw->version, api, fw->site);
	return 0;
}

int tf_framework_verify(const char *path, const char *site)
{
	struct extracted x = { TF_BUF_INIT, TF_STRVEC_INIT, TF_STRVEC_INIT,
			       TF_BUF_INIT, 0 };
	struct tf_framework fw = TF_FRAMEWORK_INIT;
	struct tf_wheel_file *files = NULL;
	json_error_t err;
	json_t *root = NULL, *fwj;
	const char *name;
	size_t i;
	int ret = -1;

	if (extract_wheel(path, &x) < 0)
		goto out;
	if (!x.has_record) {
		error("%s: records no framework build (no .dist-info/%s): "
		      "it was not checked against a framework",
		      path, TF_FRAMEWORK_RECORD);
		goto out;
	}
	root = json_loadb(x.record.buf, x.record.len, 0, &err);
	fwj = json_object_get(root, "framework");
	name = json_string_value(json_object_get(fwj, "name"));
	if (!name || !json_string_value(json_object_get(fwj, "version"))) {
		error("%s: %s: malformed framework record", path,
		      TF_FRAMEWORK_RECORD);
		goto out;
	}
	files = tf_calloc(x.srcs.nr + 1, sizeof(*files));
	for (i = 0; i < x.srcs.nr; i++) {
		files[i].src = x.srcs.v[i];
		files[i].dst = x.dsts.v[i];
	}
	if (tf_framework_load(&fw, name, site, path) < 0)
		goto out;
	if (fw.kind == TF_FRAMEWORK_JAX) {
		ret = compare_api(&fw, fwj, path);
		goto out;
	}
	if (check_arch(&fw, files, x.srcs.nr, path) < 0 ||
	    compare_build(&fw, fwj, path) < 0)
		goto out;
	ret = tf_framework_audit(&fw, files, x.srcs.nr, path, NULL, NULL);
	if (!ret)
		info("%s: built for %s %s (%s), and resolves against '%s'",
		     path, fw.name, fw.version, abi_name(fw.cxx11_abi == 1),
		     fw.site);
out:
	if (x.dir.len)
		tf_rm_rf(x.dir.buf);
	tf_buf_release(&x.dir);
	tf_strvec_release(&x.srcs);
	tf_strvec_release(&x.dsts);
	tf_buf_release(&x.record);
	json_decref(root);
	free(files);
	tf_framework_release(&fw);
	return ret;
}
