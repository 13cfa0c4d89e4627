/*
 * libcurl, loaded on first use (dl.h): a forwarder for each function
 * tfbuild calls, with the prototype of <curl/curl.h>.
 */
#define CURL_DISABLE_TYPECHECK /* the forwarders are the functions */
#include "dl.h"
#include "base/base.h"

#include <curl/curl.h>
#include <stdarg.h>

#ifndef TF_CURL_SONAME
#define TF_CURL_SONAME "libcurl.so.4"
#endif

/* X(return type, name, parameters, arguments); XV for void functions. */
#define TF_CURL_FUNCS(X, XV)                                                 \
	X(CURLcode, curl_global_init, (long flags), (flags))                 \
	X(CURL *, curl_easy_init, (void), ())                                \
	XV(curl_easy_cleanup, (CURL * c), (c))                               \
	XV(curl_easy_reset, (CURL * c), (c))                                 \
	X(CURLcode, curl_easy_perform, (CURL * c), (c))                      \
	X(const char *, curl_easy_strerror, (CURLcode e), (e))               \
	XV(curl_free, (void *p), (p))                                        \
	X(CURLU *, curl_url, (void), ())                                     \
	XV(curl_url_cleanup, (CURLU * u), (u))                               \
	X(CURLUcode, curl_url_get,                                           \
	  (CURLU * u, CURLUPart what, char **part, unsigned int flags),      \
	  (u, what, part, flags))                                            \
	X(CURLUcode, curl_url_set,                                           \
	  (CURLU * u, CURLUPart what, const char *part, unsigned int flags), \
	  (u, what, part, flags))

#define POINTER(ret, name, params, args) ret(*name) params;
#define POINTER_V(name, params, args) void(*name) params;
static struct {
	TF_CURL_FUNCS(POINTER, POINTER_V)
	CURLcode (*curl_easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*curl_easy_getinfo)(CURL *, CURLINFO, ...);
} fn;

#define SYM(ret, name, params, args) { #name, (void **)&fn.name },
#define SYM_V(name, params, args) { #name, (void **)&fn.name },
static const struct tf_dl_sym syms[] = {
	TF_CURL_FUNCS(SYM, SYM_V){ "curl_easy_setopt",
				   (void **)&fn.curl_easy_setopt },
	{ "curl_easy_getinfo", (void **)&fn.curl_easy_getinfo },
};

static struct tf_dl_lib libcurl = {
	TF_CURL_SONAME,
	"TFBUILD_DLOPEN_LIBCURL",
	"to download",
	"libcurl4",
	syms,
	sizeof(syms) / sizeof(syms[0]),
	PTHREAD_ONCE_INIT,
	0,
	"",
};

TF_DL_GLUE(libcurl, tf_dl_curl)
TF_CURL_FUNCS(TF_DL_FORWARD, TF_DL_FORWARD_V)

/*
 * The variadic two take exactly one argument after the option, whose
 * type the option's number range gives (curl.h, CURLOPTTYPE_*); every
 * CURLINFO takes a pointer.
 */
CURLcode curl_easy_setopt(CURL *c, CURLoption opt, ...)
{
	va_list ap;
	CURLcode rc;

	need();
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = fn.curl_easy_setopt(c, opt, va_arg(ap, long));
	else if (opt >= CURLOPTTYPE_OFF_T && opt < CURLOPTTYPE_BLOB)
		rc = fn.curl_easy_setopt(c, opt, va_arg(ap, curl_off_t));
	else /* object, function (POSIX: same size as void *) and blob */
		rc = fn.curl_easy_setopt(c, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
	va_list ap;
	CURLcode rc;

	need();
	va_start(ap, info);
	rc = fn.curl_easy_getinfo(c, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}
