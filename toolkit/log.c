#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_verbosity = 1;

static void vreport(const char *prefix, const char *fmt, va_list ap,
		    const char *suffix)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One write per line so parallel children's output never splits it. */
	fprintf(stderr, "tfbuild: %s%s%s%s\n", prefix, msg, suffix ? ": " : "",
		suffix ? suffix : "");
	fflush(stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, strerror(err));
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, NULL);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (tf_verbosity < 1)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap, NULL);
	va_end(ap);
}

void verbose(const char *fmt, ...)
{
	va_list ap;

	if (tf_verbosity < 2)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap, NULL);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, NULL);
	va_end(ap);
	exit(code);
}

void tf_bug(const char *file, int line, const char *fmt, ...)
{
	char where[512];
	va_list ap;

	snprintf(where, sizeof(where), "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vreport(where, fmt, ap, NULL);
	va_end(ap);
	abort();
}
