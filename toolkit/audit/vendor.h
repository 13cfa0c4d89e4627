#ifndef TF_VENDOR_H
#define TF_VENDOR_H

/*
 * Vendoring: what `auditwheel repair` does, at pack time. Each library a
 * wheel declares `vendor` (and, recursively, what those libraries need
 * beyond the manylinux allow-list and the wheel's other declarations)
 * is found in the target's library directories, copied into NAME.libs/
 * as "<base>-<first 8 hex of its sha256>.<rest of the soname>" with that
 * soname, and every ELF file needing it is rewritten (a copy; the stage
 * is left alone) to need the new name, with an $ORIGIN-relative RUNPATH
 * to NAME.libs appended. A file needing an external library (libs.h)
 * gets the $ORIGIN entry that reaches the library's place in
 * site-packages appended the same way, unless its RUNPATH reaches it.
 *
 * ELF files are rewritten with patchelf (Debian 12: 0.14.3), one
 * operation per invocation: patchelf before 0.14.4 breaks DT_NEEDED and
 * .gnu.version_r when operations are combined (NixOS/patchelf#359, why
 * auditwheel 6.8.1 requires 0.14.5). Every result is read back with
 * libelf (elf.c) and refused unless DT_NEEDED, .gnu.version_r, SONAME
 * and RUNPATH are exactly what was asked. For aarch64 the page size is
 * passed (65536), since patchelf otherwise aligns new segments to the
 * build machine's pages.
 */

#include <stddef.h>

#include "base/base.h"
#include "manylinux.h"

struct tf_lib;
struct tf_wheel_file;

struct tf_vendor_opts {
	const char *context;       /* "wheel 'x'", for messages */
	const char *wheel_name;    /* distribution name; NAME.libs is its
					wheel-escaped form */
	enum tf_arch arch;         /* the target's */
	const struct tf_lib *libs; /* the recipe's declarations */
	size_t nr_libs;
	const char *const *dirs; /* where to look, in order, NULL-ended */
	const char *work;        /* an empty scratch directory */
};

struct tf_vendor_result {
	const struct tf_wheel_file *files; /* the wheel's files: the caller's
					      array when nothing is vendored,
					      else own */
	size_t nr_files;
	struct tf_wheel_file *own; /* owned array: the wheel's files, the
					rewritten ones pointing at their copies,
					then the vendored libraries */
	struct tf_lib *libs;       /* owned array: the declarations, vendored
					ones with .file set, then libraries
					vendored because vendored ones need
					them */
	size_t nr_libs;
	struct tf_strvec store; /* owned: every string above */
};

#define TF_VENDOR_RESULT_INIT                          \
	{                                              \
		NULL, 0, NULL, NULL, 0, TF_STRVEC_INIT \
	}

/*
 * Vendor into the wheel made of files[0..nr). Returns 0 (with nothing
 * to do, out is a copy of the input), or -1 after printing what failed:
 * a library not found (naming the directories searched), patchelf
 * missing or failing, or a rewrite read back wrong.
 */
int tf_vendor_wheel(const struct tf_vendor_opts *o,
		    const struct tf_wheel_file *files, size_t nr,
		    struct tf_vendor_result *out);
void tf_vendor_result_release(struct tf_vendor_result *r);

/*
 * The directories a target's libraries are found in: the build
 * machine's multiarch and plain library directories for a native
 * target, the sysroot's (or Debian's /usr/TRIPLET cross root) for a
 * cross one. Appended to dirs.
 */
void tf_vendor_default_dirs(const char *triplet, const char *sysroot,
			    int native, struct tf_strvec *dirs);

#endif
