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
};

/* One library's resolution. Strings are borrowed unless said otherwise. */
struct tf_lib {
	const char *soname; /* the DT_NEEDED name: "libcudart.so.13" */
	enum tf_lib_kind kind;
	const char *from;    /* PROVIDED, FRAMEWORK: a PEP 508 requirement */
	const char *runpath; /* PROVIDED: where it is at run time,
				 "$ORIGIN/../nvidia/cu13/lib"; VENDOR after
				 vendoring: NULL */
	const char *file;    /* VENDOR after vendoring: its path in the wheel,
				 "foo.libs/libfoo-0123abcd.so.1"; else NULL */
	const char *package; /* VENDOR: the Debian package the file came
				 from, "libzstd1:arm64=1.5.4+dfsg2-5", or NULL
				 (a stage's own build) */
	const char *origin;  /* VENDOR at pack time: the file copied; never
				 recorded */
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

/* 1 if the colon-separated run path list holds entry exactly. */
int tf_libs_runpath_has(const char *list, const char *entry);

#endif
