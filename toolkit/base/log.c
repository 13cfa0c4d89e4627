#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_verbosity = 1;

/* Before a sink is set (and in the test tools): the plain form. */
static void plain(enum tf_level level, const char *file, int line, int col,
		  const char *msg)
{
	char where[1024] = "";

	if (file)
		snprintf(where, sizeof(where), "%s:%d:%d: ", file, line, col);
	fprintf(stderr, "tfbuild: %s%s%s\n",
		level == TF_LEVEL_WARNING ? "warning: " : "", where, msg);
	fflush(stderr);
}

static tf_log_sink *sink = plain;

void tf_log_set_sink(tf_log_sink *fn)
{
	sink = fn ? fn : plain;
}

/*
 * The one place where text from input is made safe to show: control
 * characters (escape sequences, newlines, carriage returns) become '?',
 * so a message is one line and cannot drive the terminal.
 */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void vreport_at(enum tf_level level, const char *file, int line, int col,
		       const char *fmt, va_list ap, const char *suffix)
{
	char msg[4096];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (suffix) {
		n = strlen(msg);
		snprintf(msg + n, sizeof(msg) - n, ": %s", suffix);
	}
	clean(msg);
	sink(level, file, line, col, msg);
}

static void vreport(enum tf_level level, const char *fmt, va_list ap,
		    const char *suffix)
{
	vreport_at(level, NULL, 0, 0, fmt, ap, suffix);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(TF_LEVEL_ERROR, fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int error_at(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport_at(TF_LEVEL_ERROR, file, line, col, fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(TF_LEVEL_ERROR, fmt, ap, strerror(err));
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(TF_LEVEL_WARNING, fmt, ap, NULL);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (tf_verbosity < 1)
		return;
	va_start(ap, fmt);
	vreport(TF_LEVEL_INFO, fmt, ap, NULL);
	va_end(ap);
}

void verbose(const char *fmt, ...)
{
	va_list ap;

	if (tf_verbosity < 2)
		return;
	va_start(ap, fmt);
	vreport(TF_LEVEL_VERBOSE, fmt, ap, NULL);
	va_end(ap);
}

void tf_bug(const char *file, int line, const char *fmt, ...)
{
	char where[512];
	va_list ap;

	snprintf(where, sizeof(where), "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	{
		char msg[4096];

		vsnprintf(msg, sizeof(msg), fmt, ap);
		fprintf(stderr, "tfbuild: %s%s\n", where, msg);
	}
	va_end(ap);
	abort();
}
