/*
 * libstdc++, loaded on first use (dl.h), for one function: the
 * demangler, abi::__cxa_demangle, through its C symbol. Linking
 * libstdc++ (and with it libm and libgcc_s) cost about 2 ms at every
 * start for a function only `verify --framework` and the framework
 * audit call.
 */
#include "dl.h"

#ifndef TF_STDCXX_SONAME
#define TF_STDCXX_SONAME "libstdc++.so.6"
#endif

static char *(*cxa_demangle)(const char *, char *, size_t *, int *);

static const struct tf_dl_sym syms[] = {
	{ "__cxa_demangle", (void **)&cxa_demangle },
};

static struct tf_dl_lib libstdcxx = {
	TF_STDCXX_SONAME,
	"TFBUILD_DLOPEN_LIBSTDCXX",
	"to demangle C++ names",
	"libstdc++6",
	syms,
	sizeof(syms) / sizeof(syms[0]),
	PTHREAD_ONCE_INIT,
	0,
	"",
};

TF_DL_GLUE(libstdcxx, tf_dl_stdcxx)

char *tf_dl_demangle(const char *mangled, int *status)
{
	need();
	return cxa_demangle(mangled, NULL, NULL, status);
}
