#ifndef TF_LIBS_H
#define TF_LIBS_H

/*
 * Libraries outside the wheel: how each DT_NEEDED library that the
 * manylinux allow-list does not cover is resolved (docs/libraries.md).
 *
 *   vendor    copied into NAME.libs/ under a content-hashed soname, with
 *             DT_NEEDED rewritten and an $ORIGIN RUNPATH (auditwheel repair)
 *   provided  another distribution provides it at run time, found through
 *             a RUNPATH the file carries; the requirement is in Requires-Dist
 *   system    the user installs it (`allow-needed`)
 *   external  another distribution the build was pinned against (a target
 *             wheel: `external-libraries`) provides it at the path its
 *             RECORD gives, reached through the file's RUNPATH; the
 *             distribution, in the window the build used, is in
 *             Requires-Dist. The record keeps that RECORD line, so verify
 *             on the wheel alone resolves the RUNPATH against it
 *   framework the framework the wheel's binaries load into has loaded it
 *             (torch's libc10 for a torch backend: framework.h); the
 *             requirement on exactly that framework build is in
 *             Requires-Dist. No RUNPATH: the framework loaded it first
 *
 * The decisions travel in the wheel as .dist-info/tfbuild/libraries.json,
 * so `tfbuild verify` applies the same rules (elf_verify.c) without the
 * recipe.
 * This file is the only one that writes or reads that record (jansson).
 */

#include <stddef.h>

#include "base/base.h"

enum tf_lib_kind {
	TF_LIB_SYSTEM = 1, /* allow-needed: the user installs it */
	TF_LIB_VENDOR,     /* shipped in NAME.libs/ */
	TF_LIB_PROVIDED,   /* another distribution provides it */
	TF_LIB_FRAMEWORK,  /* the framework it loads into provides it */
	TF_LIB_EXTERNAL,   /* a pinned distribution's file provides it */
};

/* One library's resolution. Strings are borrowed unless said otherwise. */
struct tf_lib {
	const char *soname; /* the DT_NEEDED name: "libcudart.so.13" */
	enum tf_lib_kind kind;
	const char *from;    /* PROVIDED, FRAMEWORK, EXTERNAL: a PEP 508
				requirement ("nvidia-cuda-runtime<14,>=13.5.37") */
	const char *runpath; /* PROVIDED: where it is at run time,
				 "$ORIGIN/../nvidia/cu13/lib"; VENDOR after
				 vendoring: NULL */
	const char *file;    /* VENDOR after vendoring: its path in the wheel,
				 "foo.libs/libfoo-0123abcd.so.1"; EXTERNAL:
				 its path in site-packages as the providing
				 distribution's RECORD lists it,
				 "nvidia/cu13/lib/libcudart.so.13"; else NULL */
	const char *package; /* VENDOR: the Debian package the file came
				 from, "libzstd1:arm64=1.5.4+dfsg2-5", or NULL
				 (a stage's own build) */
	const char *origin;  /* VENDOR at pack time: the file copied; never
				 recorded */
	const char *dist;    /* EXTERNAL: the distribution, as the recipe
				 names it: "nvidia-cuda-runtime" */
	const char *version; /* EXTERNAL: its version the build was pinned to */
	const char *hash;    /* EXTERNAL: file's hash in that RECORD,
				 "sha256=..." */
};

/* The record's path inside .dist-info. */
#define TF_LIBS_RECORD "tfbuild/libraries.json"

/* The declaration for soname in libs[0..n), or NULL. */
const struct tf_lib *tf_libs_find(const struct tf_lib *libs, size_t n,
				  const char *soname);

/*
 * Write the record of libs[0..n) as canonical JSON (sorted keys and
 * entries by soname, one trailing newline) to out.
 */
void tf_libs_record_write(const struct tf_lib *libs, size_t n,
			  struct tf_buf *out);

/* A parsed record: the strings are owned by `store`. */
struct tf_libs_record {
	struct tf_lib *v; /* owned array */
	size_t nr;
	struct tf_strvec store; /* owned strings */
};

#define TF_LIBS_RECORD_INIT             \
	{                               \
		NULL, 0, TF_STRVEC_INIT \
	}

/*
 * Parse a record's text (len bytes). Returns 0, or -1 with the reason
 * appended to why (nothing printed).
 */
int tf_libs_record_parse(const char *text, size_t len,
			 struct tf_libs_record *out, struct tf_buf *why);
/* Free everything; safe on NULL and twice. */
void tf_libs_record_release(struct tf_libs_record *rec);

/*
 * 1 if the requirement's project name (PEP 503-normalized) equals that
 * of some requirement in reqs[0..n): "nvidia-cuda-runtime>=13" and
 * "nvidia_cuda_runtime<14; python_version>='3.9'" name the same project.
 */
int tf_libs_requirement_listed(const char *req, const char *const *reqs,
			       size_t n);

/*
 * The RUNPATH entry that reaches an EXTERNAL library's directory from a
 * file at file_in_wheel (installed at site-packages' top like the
 * wheel's root): "$ORIGIN/../nvidia/cu13/lib" for "pkg/a.so" and
 * "nvidia/cu13/lib/libcudart.so.13". Appended to out.
 */
void tf_libs_external_runpath(const char *file_in_wheel, const char *lib_file,
			      struct tf_buf *out);

/* 1 if the colon-separated run path list holds entry exactly. */
int tf_libs_runpath_has(const char *list, const char *entry);

#endif
