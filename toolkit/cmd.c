/* Helpers every command shares; kept out of main.c so test tools link. */
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int tf_usage_error(const char *usage, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tfbuild: %s\n\n%s", msg, usage);
	return TF_EXIT_USAGE;
}
