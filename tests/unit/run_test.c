#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "run.h"

/* The environment a child that inherits ours sees, one variable a line. */
static void child_env(struct tf_buf *out)
{
	struct tf_run r = TF_RUN_INIT;

	tf_buf_reset(out);
	tf_strvec_push(&r.argv, "env");
	CHECK_INT(tf_run_capture(&r, out, 1 << 20), 0);
	tf_run_release(&r);
}

static int has_line(const struct tf_buf *b, const char *line)
{
	size_t n = strlen(line);
	const char *p = b->buf;

	while (p && *p) {
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return 1;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/*
 * tfbuild sets TZ for itself when it is unset (glibc then stops
 * re-reading /etc/localtime at every mktime), and only for itself: a
 * child still gets the environment the user gave, without TZ.
 */
static void test_pin_tz(void)
{
	struct tf_buf out = TF_BUF_INIT;
	struct tm tm;
	time_t t = 0;

	unsetenv("TZ");
	tf_run_pin_tz();
	CHECK_STR(getenv("TZ"), ":/etc/localtime");
	CHECK(localtime_r(&t, &tm) != NULL);
	child_env(&out);
	CHECK(out.len > 0);
	CHECK(strstr(out.buf, "\nTZ=") == NULL && strncmp(out.buf, "TZ=", 3));
	tf_buf_release(&out);
}

/* A TZ the user set is theirs: kept as is, and passed on. */
static void test_user_tz(void)
{
	struct tf_buf out = TF_BUF_INIT;

	setenv("TZ", "Europe/Paris", 1);
	tf_run_pin_tz();
	CHECK_STR(getenv("TZ"), "Europe/Paris");
	child_env(&out);
	CHECK(has_line(&out, "TZ=Europe/Paris"));
	tf_buf_release(&out);
}

int main(void)
{
	test_pin_tz();
	test_user_tz();
	return unit_done();
}
