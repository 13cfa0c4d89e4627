/*
 * --json: one JSON object per line on stdout, each with "event" and "t"
 * (seconds since the run started). The schema is docs/events.md.
 */
#include "ui.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/base.h"

static struct timespec t0;

double tf_ui_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0.tv_sec) +
	       (now.tv_nsec - t0.tv_nsec) / 1e9;
}

void tf_ui_event_open(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
}

void tf_ui_event(const char *name, const char *fmt, ...)
{
	json_error_t err;
	json_t *o;
	char *line;
	va_list ap;

	va_start(ap, fmt);
	o = json_vpack_ex(&err, 0, fmt, ap);
	va_end(ap);
	if (!o)
		BUG("event '%s': %s", name, err.text);
	json_object_set_new(o, "event", json_string(name));
	json_object_set_new(
		o, "t",
		json_real((double)(long long)(tf_ui_now() * 1000) / 1000));
	line = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	if (!line)
		BUG("event '%s' cannot be written", name);
	printf("%s\n", line);
	fflush(stdout);
	free(line);
	json_decref(o);
}
