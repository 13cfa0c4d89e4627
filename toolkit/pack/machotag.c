#include "machotag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "base/base.h"
#include "macho/macho.h"
#include "wheel/wheel.h"

/* The first bytes of path into head (8 are enough); how many, or -1. */
static ssize_t read_head(const char *path, unsigned char *head, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, head, n);
	close(fd);
	return got;
}

/* 1 if the slice's exports trie holds C's symbol (with its '_'). */
static int exports(const struct tf_macho_slice *s, const char *symbol)
{
	size_t i;

	for (i = 0; i < s->nr_exports; i++)
		if (s->exports[i][0] == '_' &&
		    !strcmp(s->exports[i] + 1, symbol))
			return 1;
	return 0;
}

/* The required exports of f in its arm64 slice s: -1 (said) if not. */
static int check_exports(const char *context, const struct tf_wheel_file *f,
			 const struct tf_macho_slice *s,
			 const struct tf_elf_export *e, size_t nr)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < nr; i++)
		if (!strcmp(e[i].file, f->dst) && !exports(s, e[i].symbol))
			ret = error(
				"%s: %s: must export '%s' but its arm64 slice does not ('_%s')",
				context, f->dst, e[i].symbol, e[i].symbol);
	return ret;
}

/* Each required export's file is in the wheel, and Mach-O. */
static int export_files(const char *context, const struct tf_wheel_file *files,
			size_t nr, const unsigned char *macho,
			const struct tf_elf_export *e, size_t nr_exports)
{
	size_t i, j;
	int ret = 0;

	for (i = 0; i < nr_exports; i++) {
		for (j = 0; j < nr && strcmp(files[j].dst, e[i].file); j++)
			;
		if (j == nr || !macho[j])
			ret = error("%s: %s: must export '%s' but %s", context,
				    e[i].file, e[i].symbol,
				    j == nr ? "is not in the wheel"
					    : "is not a Mach-O file");
	}
	return ret;
}

/*
 * The minimum macOS of f's arm64 slice into *minos, and its required
 * exports; 0, or -1 (said).
 */
static int arm64_minos(const char *context, const struct tf_wheel_file *f,
		       const struct tf_elf_export *e, size_t nr_e,
		       unsigned *minos)
{
	struct tf_macho *m = NULL;
	struct tf_buf why = TF_BUF_INIT;
	size_t i;
	int ret = -1;

	if (tf_macho_read(f->src, &m, &why)) {
		error("%s: %s: cannot read it as Mach-O: %s", context, f->dst,
		      why.buf);
		goto out;
	}
	for (i = 0; i < m->nr_slices; i++)
		if (m->slices[i].cputype == TF_MACHO_CPU_ARM64 &&
		    m->slices[i].cpusubtype != TF_MACHO_ARM64E) {
			*minos = m->slices[i].minos;
			ret = check_exports(context, f, &m->slices[i], e, nr_e);
			break;
		}
	if (ret && i < m->nr_slices)
		goto out;
	if (ret)
		error("%s: %s: no arm64 slice, and the target is macos-arm64",
		      context, f->dst);
out:
	tf_macho_free(m);
	tf_buf_release(&why);
	return ret;
}

/* Every Mach-O file of the wheel against tag, as verify does it. */
static int audit(const char *context, const char *tag,
		 const struct tf_wheel_file *files, size_t nr,
		 const unsigned char *macho, const struct tf_lib *libs,
		 size_t nr_libs)
{
	struct tf_macos_rules rules = TF_MACOS_RULES_INIT;
	struct tf_macos_wheel *w = NULL;
	struct tf_buf why = TF_BUF_INIT;
	const char **dsts = tf_calloc(nr + 1, sizeof(*dsts));
	size_t i;
	int ret = 0;

	for (i = 0; i < nr; i++)
		dsts[i] = files[i].dst;
	if (tf_macos_rules_for_platform(&rules, tag, &why) < 0)
		ret = error("%s: platform '%s': %s", context, tag, why.buf);
	else if (!rules.macos)
		ret = error(
			"%s: platform '%s' is no macOS tag (macosx_12_0_arm64), and the target is macos-arm64",
			context, tag);
	if (ret)
		goto out;
	rules.context = context;
	rules.tag = tag;
	rules.wheel_files = dsts;
	rules.nr_wheel_files = nr;
	rules.libs = libs;
	rules.nr_libs = nr_libs;
	w = tf_macos_wheel_new();
	for (i = 0; i < nr; i++)
		if (macho[i] && tf_macos_verify_file(files[i].src, files[i].dst,
						     &rules, w) < 0)
			ret = -1;
	if (tf_macos_wheel_finish(w, &rules) < 0)
		ret = -1;
out:
	tf_macos_wheel_free(w);
	tf_buf_release(&why);
	free(dsts);
	return ret;
}

int tf_pack_macos_platform(const char *context, const char *tag,
			   const struct tf_wheel_file *files, size_t nr,
			   const struct tf_elf_export *exports,
			   size_t nr_exports, const struct tf_lib *libs,
			   size_t nr_libs, struct tf_buf *platform)
{
	unsigned char *is_macho = tf_calloc(nr + 1, 1);
	unsigned char head[8];
	unsigned highest = 0, minos;
	size_t i, macho = 0;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		ssize_t n = read_head(files[i].src, head, sizeof(head));

		if (n < 0) {
			ret = error("%s: %s: cannot read '%s': %s", context,
				    files[i].dst, files[i].src,
				    strerror(errno));
			continue;
		}
		if (n >= 4 && !memcmp(head, "\177ELF", 4)) {
			ret = error(
				"%s: %s: an ELF file, which no Mac loads, in a wheel for macos-arm64",
				context, files[i].dst);
			continue;
		}
		if (!tf_macho_magic(head, (size_t)n))
			continue;
		macho++;
		is_macho[i] = 1;
		if (arm64_minos(context, &files[i], exports, nr_exports,
				&minos))
			ret = -1;
		else if (minos > highest)
			highest = minos;
	}
	if (export_files(context, files, nr, is_macho, exports, nr_exports))
		ret = -1;
	if (ret || tag)
		goto out;
	if (!macho) {
		tf_buf_addstr(platform, "any");
		goto out;
	}
	/* Apple silicon starts at macOS 11; from 11 on a tag's minor is 0,
	 * so a file for 12.1 needs macosx_13_0: under macosx_12_0 a Mac on
	 * 12.0 would install what it cannot load (the audit refuses it). */
	if (TF_MACHO_VERSION_MAJOR(highest) < 11)
		highest = 11u << 16;
	tf_buf_addf(platform, "macosx_%u_0_arm64",
		    TF_MACHO_VERSION_MAJOR(highest) + !!(highest & 0xffff));
	tag = platform->buf;
out:
	if (!ret && tag)
		ret = audit(context, tag, files, nr, is_macho, libs, nr_libs);
	free(is_macho);
	return ret;
}
