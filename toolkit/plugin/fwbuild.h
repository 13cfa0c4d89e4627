#ifndef TF_FWBUILD_H
#define TF_FWBUILD_H

/*
 * The framework build a plugin is checked against, as framework.c,
 * install.c and abi.c fill it: a type only, so that each of them can
 * read it without including the others.
 */

#include <stddef.h>

#include "base/base.h"

/* The record's path inside .dist-info, beside libs.h's libraries.json. */
#define TF_FRAMEWORK_RECORD "tfbuild/framework.json"

/* One of the framework's shared libraries (ELF, or Mach-O for macOS). */
struct tf_framework_lib {
	char *soname; /* DT_SONAME, a Mach-O install name's file name, else
			 the file's name */
	char *install_name; /* Mach-O: LC_ID_DYLIB's ("@rpath/NAME"); NULL
			       for ELF */
	char *path;         /* resolved */
	unsigned machine;   /* ELF's e_machine; EM_AARCH64 for an arm64 slice */
	struct tf_strvec exports;           /* sorted, unique */
	char digest[TF_SHA256_HEX_LEN + 1]; /* of the exports, one a line */
};

struct tf_framework {
	char *name;           /* owned; as the metadata writes it: "torch" */
	char *version;        /* owned; "1.13.0a0+gitunknown" */
	char *site;           /* owned; the site-packages directory */
	char *header_version; /* owned; from the framework's C++ headers
				 ("1.13.0"), NULL when it has none we know */
	char *header_file;    /* owned; where header_version was read */
	struct tf_strvec lib_files;    /* NAME/lib/ entries, resolved paths */
	struct tf_framework_lib *libs; /* owned; the libraries, read */
	size_t nr_libs, alloc_libs;
	int cxx11_abi;     /* 1 or 0 once a provider was read; -1 unknown */
	int kind;          /* enum tf_framework_kind, from the name asked for */
	char *pjrt_header; /* owned; JAX: the header the recipe names (set
			      before tf_framework_load), or NULL */
	char *api_version; /* owned; the C API's version (abi.h), or NULL */
	char *api_file;    /* owned; the header it was read from */
	char *api_shown;   /* owned; that header as recorded: below site,
			      else from its xla/ or tensorflow/ directory */
	char api_sha256[TF_SHA256_HEX_LEN + 1]; /* the header's digest */
	char *library; /* owned; JAX: the wheel's file exporting GetPjrtApi */
	int cxx_used;  /* 1: a file resolves C++ symbols against it */
};

/* What a framework's plugins are, from its name (abi.h). */
enum tf_framework_kind {
	TF_FRAMEWORK_OTHER, /* torch: libraries it provides, an exact pin */
	TF_FRAMEWORK_TENSORFLOW, /* tensorflow, tensorflow-cpu: PluggableDevice */
	TF_FRAMEWORK_JAX,        /* jax, jaxlib: a PJRT plugin */
};

#define TF_FRAMEWORK_INIT                                                     \
	{                                                                     \
		NULL, NULL, NULL, NULL, NULL, TF_STRVEC_INIT, NULL, 0, 0, -1, \
			TF_FRAMEWORK_OTHER, NULL, NULL, NULL, NULL, { 0 },    \
			NULL, 0                                               \
	}

#endif
