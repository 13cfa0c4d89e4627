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

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * tf_run_capture_within: a child past its bound is stopped with its
 * group, output so far kept; one that ignores SIGTERM gets SIGKILL
 * after the grace; one within its bound is not touched.
 */
static void test_capture_within(void)
{
	static const char *const cases[][2] = {
		{ "echo start; sleep 30 & wait", "15" },
		{ "trap '' TERM; echo start; sleep 30 & wait; sleep 30", "9" },
	};
	struct tf_buf out = TF_BUF_INIT;
	size_t i;
	int late;

	for (i = 0; i < 2; i++) {
		struct tf_run r = TF_RUN_INIT;
		long long t0 = now_ms();
		int status;

		tf_buf_reset(&out);
		tf_strvec_pushv(
			&r.argv,
			(const char *const[]){ "sh", "-c", cases[i][0], NULL });
		status = tf_run_capture_within(&r, &out, 1 << 20, 1, &late);
		CHECK_INT(status, 128 + atoi(cases[i][1]));
		CHECK_INT(late, 1);
		CHECK(now_ms() - t0 < 10000);
		CHECK(has_line(&out, "start"));
		tf_run_release(&r);
	}
	{
		struct tf_run r = TF_RUN_INIT;

		tf_buf_reset(&out);
		tf_strvec_pushv(&r.argv,
				(const char *const[]){ "sh", "-c", "echo quick",
						       NULL });
		CHECK_INT(tf_run_capture_within(&r, &out, 1 << 20, 30, &late),
			  0);
		CHECK_INT(late, 0);
		CHECK(has_line(&out, "quick"));
		tf_run_release(&r);
	}
	tf_buf_release(&out);
}

int main(void)
{
	test_pin_tz();
	test_user_tz();
	test_capture_within();
	return unit_done();
}
