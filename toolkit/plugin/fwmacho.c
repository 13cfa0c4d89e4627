/*
 * A macOS wheel's Mach-O files against the framework's dylibs
 * (fwmacho.h, docs/frameworks.md).
 */
#include "fwmacho.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "macho/macho.h"
#include "fwbuild.h"
#include "wheel/wheel.h"

int tf_fwmacho_is_macho(const char *path)
{
	unsigned char head[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head));

	if (fd >= 0)
		close(fd);
	return n > 0 && tf_macho_magic(head, (size_t)n);
}

/* The slice Apple silicon loads: arm64 (not arm64e), or NULL. */
static const struct tf_macho_slice *arm64_slice(const struct tf_macho *m)
{
	size_t i;

	for (i = 0; i < m->nr_slices; i++)
		if (m->slices[i].cputype == TF_MACHO_CPU_ARM64 &&
		    m->slices[i].cpusubtype != TF_MACHO_ARM64E)
			return &m->slices[i];
	return NULL;
}

/* Sort sv and drop its duplicates. */
static void sort_unique(struct tf_strvec *sv)
{
	size_t i, n = 0;

	if (!sv->nr)
		return;
	qsort(sv->v, sv->nr, sizeof(*sv->v), tf_strcmp_ptr);
	for (i = 0; i < sv->nr; i++) {
		if (n && !strcmp(sv->v[n - 1], sv->v[i])) {
			free(sv->v[i]);
			continue;
		}
		sv->v[n++] = sv->v[i];
	}
	sv->nr = n;
	sv->v[n] = NULL;
}

int tf_fwmacho_read_provider(const char *path, struct tf_framework_lib *lib)
{
	struct tf_macho *m = NULL;
	struct tf_buf why = TF_BUF_INIT;
	const struct tf_macho_slice *s;
	const char *id;
	size_t i;
	int ret = 0;

	if (tf_macho_read(path, &m, &why)) {
		ret = error("framework library '%s': %s", path, why.buf);
		goto out;
	}
	s = arm64_slice(m);
	id = s && s->install_name ? s->install_name : NULL;
	lib->install_name = id ? tf_strdup(id) : NULL;
	lib->soname = tf_strdup(tf_path_basename(id ? id : path));
	lib->machine = s ? EM_AARCH64 : 0;
	for (i = 0; s && i < s->nr_exports; i++)
		tf_strvec_push(&lib->exports, s->exports[i]);
	sort_unique(&lib->exports);
out:
	tf_macho_free(m);
	tf_buf_release(&why);
	return ret;
}

static int in_sorted(const struct tf_strvec *sv, const char *s)
{
	return sv->nr && bsearch(&s, sv->v, sv->nr, sizeof(*sv->v),
				 tf_strcmp_ptr) != NULL;
}

/* The framework's dylib whose install name is name, or NULL. */
static struct tf_framework_lib *by_install_name(struct tf_framework *fw,
						const char *name)
{
	size_t i;

	for (i = 0; i < fw->nr_libs; i++)
		if (fw->libs[i].install_name &&
		    !strcmp(fw->libs[i].install_name, name))
			return &fw->libs[i];
	return NULL;
}

/* One Mach-O file of the wheel, read. */
struct wheel_macho {
	const struct tf_wheel_file *file;
	struct tf_macho *m;
	const struct tf_macho_slice *s; /* its arm64 slice */
};

/* 1 if some framework dylib exports sym. */
static int any_provider(struct tf_framework *fw, const char *sym)
{
	size_t i;

	for (i = 0; i < fw->nr_libs; i++)
		if (fw->libs[i].install_name &&
		    in_sorted(&fw->libs[i].exports, sym))
			return 1;
	return 0;
}

/* The dylib u is bound to, or NULL (self, any image, the executable). */
static const char *bound_to(const struct tf_macho_slice *s,
			    const struct tf_macho_undef *u)
{
	if (u->ordinal >= 1 && (size_t)u->ordinal <= s->nr_dylibs)
		return s->dylibs[u->ordinal - 1].name;
	return NULL;
}

static int refuse(struct tf_framework *fw, const struct wheel_macho *wm,
		  const struct tf_macho_undef *u,
		  const struct tf_framework_lib *lib, const char *context)
{
	if (lib)
		return error("%s: %s: undefined symbol '%s' is bound to %s, "
			     "which does not define it (%s %s's %s): "
			     "built against other framework headers?",
			     context, wm->file->dst, u->name, lib->install_name,
			     fw->name, fw->version, lib->path);
	return error("%s: %s: undefined symbol '%s' is looked up in every "
		     "image at load time (flat namespace or -undefined "
		     "dynamic_lookup), and neither the framework's dylibs "
		     "(%s %s) nor another file of the wheel defines it",
		     context, wm->file->dst, u->name, fw->name, fw->version);
}

/* Check wm if it loads a framework dylib; 0, or -1 (said). */
static int check_macho(struct tf_framework *fw, const struct wheel_macho *wm,
		       const struct tf_strvec *wheel_exports,
		       const char *context, struct tf_strvec *used)
{
	const struct tf_macho_slice *s = wm->s;
	size_t i, nr = 0;

	for (i = 0; i < s->nr_dylibs; i++) {
		struct tf_framework_lib *lib =
			by_install_name(fw, s->dylibs[i].name);

		if (!lib)
			continue;
		if (lib->machine != EM_AARCH64)
			return error("%s: %s: is arm64, but the framework's %s "
				     "(%s) has no arm64 slice: checked against "
				     "another architecture's %s",
				     context, wm->file->dst, lib->soname,
				     lib->path, fw->name);
		tf_strvec_push(used, lib->soname);
		nr++;
	}
	for (i = 0; nr && i < s->nr_undefs; i++) {
		const struct tf_macho_undef *u = &s->undefs[i];
		const char *dylib = bound_to(s, u);
		struct tf_framework_lib *lib =
			dylib ? by_install_name(fw, dylib) : NULL;
		int found = in_sorted(wheel_exports, u->name) || u->weak;

		if (dylib && !lib)
			continue; /* a system library's: dyld binds it */
		if (!dylib && (u->ordinal == TF_MACHO_SELF ||
			       u->ordinal == TF_MACHO_EXECUTABLE))
			continue; /* the file's own, or the interpreter's */
		if (!found)
			found = lib ? in_sorted(&lib->exports, u->name)
				    : any_provider(fw, u->name);
		if (!found)
			return refuse(fw, wm, u, lib, context);
	}
	return 0;
}

/* Read the wheel's Mach-O files with an arm64 slice into wms. */
static int read_wheel(const struct tf_wheel_file *files, size_t nr_files,
		      const char *context, struct wheel_macho *wms, size_t *nr,
		      struct tf_strvec *exports)
{
	struct tf_buf why = TF_BUF_INIT;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < nr_files && !ret; i++) {
		struct wheel_macho *wm = &wms[*nr];

		if (!tf_fwmacho_is_macho(files[i].src))
			continue;
		wm->file = &files[i];
		if (tf_macho_read(files[i].src, &wm->m, &why)) {
			ret = error("%s: %s: %s", context, files[i].dst,
				    why.buf);
			continue;
		}
		wm->s = arm64_slice(wm->m);
		if (!wm->s) {
			/* Refused by the Mach-O audit, which says why. */
			tf_macho_free(wm->m);
			continue;
		}
		for (j = 0; j < wm->s->nr_exports; j++)
			tf_strvec_push(exports, wm->s->exports[j]);
		(*nr)++;
	}
	sort_unique(exports);
	tf_buf_release(&why);
	return ret;
}

int tf_fwmacho_audit(struct tf_framework *fw, const struct tf_wheel_file *files,
		     size_t nr_files, const char *context,
		     struct tf_strvec *used)
{
	struct wheel_macho *wms = tf_calloc(nr_files + 1, sizeof(*wms));
	struct tf_strvec exports = TF_STRVEC_INIT;
	size_t i, nr = 0;
	int ret = read_wheel(files, nr_files, context, wms, &nr, &exports);

	for (i = 0; i < nr && !ret; i++)
		ret = check_macho(fw, &wms[i], &exports, context, used);
	for (i = 0; i < nr; i++)
		tf_macho_free(wms[i].m);
	free(wms);
	tf_strvec_release(&exports);
	return ret;
}
