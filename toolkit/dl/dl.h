#ifndef TF_DL_H
#define TF_DL_H

/*
 * dl/: libcurl, libarchive and libstdc++'s demangler loaded with dlopen
 * on first use instead of linked, behind forwarders with the libraries'
 * own names, so a run that needs none of them does not pay their start.
 *
 * Libraries loaded on first use, not linked: libcurl and libarchive pull
 * in some 36 shared objects (LDAP, Kerberos, RTMP, SSH, GnuTLS, libxml2,
 * ICU...) whose loading and relocation cost about 14 ms at every start,
 * while a no-op rebuild never downloads or extracts (docs/performance.md).
 *
 * libstdcxx.c gives __cxa_demangle, the one function tfbuild takes from
 * libstdc++, under another name (the sanitizers' runtime looks for the
 * real one). libcurl.c and libarchive.c define the library's own functions (same names,
 * same prototypes, checked against its header) as small forwarders to
 * the pointers dlsym finds, so the files that use libcurl or libarchive
 * keep calling it as before. Each forwarder loads the library if it is
 * not loaded yet. The entry points of fetching and archive handling call
 * tf_dl_curl() / tf_dl_archive() first, which report a missing library
 * as an ordinary error naming it; a forwarder reached without that (a
 * missed entry point) is a BUG() that says so, with the same message,
 * rather than a crash.
 *
 * For tests only: TFBUILD_DLOPEN_LIBCURL and TFBUILD_DLOPEN_LIBARCHIVE
 * name another file to dlopen instead of the soname the binary was built
 * against (e.g. one that does not exist, to see the error).
 */

#include <pthread.h>
#include <stddef.h>

struct tf_dl_sym {
	const char *name;
	void **fn;
};

struct tf_dl_lib {
	const char *soname;  /* what the build linked against */
	const char *env;     /* test override of soname */
	const char *use;     /* "to download", for the message */
	const char *package; /* Debian's package that has it */
	const struct tf_dl_sym *syms;
	size_t nr_syms;
	pthread_once_t once;
	int ok;
	char why[512]; /* the whole message when !ok */
};

/* Load lib and every symbol of it, once (for pthread_once callbacks). */
void tf_dl_load(struct tf_dl_lib *lib);
/* After the once: 0, or -1 after error() with lib->why. */
int tf_dl_require(const struct tf_dl_lib *lib);
/* After the once, in a forwarder: return, or BUG() with lib->why. */
void tf_dl_need(const struct tf_dl_lib *lib);

/*
 * The glue of one library's file (libcurl.c, ...), given its struct
 * tf_dl_lib: `int entry(void)`, which loads it once and reports a
 * missing library as an error, and `static void need(void)` for the
 * forwarders, which stop at a BUG() instead. TF_DL_FORWARD and TF_DL_FORWARD_V make
 * the forwarders from a list of X(ret, name, params, args), calling
 * through the file's `fn` struct of pointers.
 */
#define TF_DL_GLUE(lib, entry)                       \
	static void lib##_load(void)                 \
	{                                            \
		tf_dl_load(&lib);                    \
	}                                            \
	int entry(void)                              \
	{                                            \
		pthread_once(&lib.once, lib##_load); \
		return tf_dl_require(&lib);          \
	}                                            \
	static void need(void)                       \
	{                                            \
		pthread_once(&lib.once, lib##_load); \
		tf_dl_need(&lib);                    \
	}
#define TF_DL_FORWARD(ret, name, params, args) \
	ret name params                        \
	{                                      \
		need();                        \
		return fn.name args;           \
	}
#define TF_DL_FORWARD_V(name, params, args) \
	void name params                    \
	{                                   \
		need();                     \
		fn.name args;               \
	}

/* Load libcurl / libarchive if not yet: 0, or -1 after error(). */
int tf_dl_curl(void);
int tf_dl_archive(void);

/*
 * abi::__cxa_demangle(mangled, NULL, NULL, status) from libstdc++, after
 * tf_dl_stdcxx() (called by tf_framework_load). Caller frees.
 */
int tf_dl_stdcxx(void);
char *tf_dl_demangle(const char *mangled, int *status);

#endif
