#ifndef TF_UNIT_H
#define TF_UNIT_H

/*
 * A minimal unit-test harness: each CHECK prints "ok N - ..." or
 * "not ok N - ..." with file and line, and unit_done() prints the
 * "# passed N failed N" line that tests/run.sh sums up.
 */

#include <stdio.h>
#include <string.h>

static int unit_count, unit_failed;

static void unit_report(int ok, const char *file, int line, const char *what)
{
	unit_count++;
	if (!ok)
		unit_failed++;
	printf("%sok %d - %s:%d: %s\n", ok ? "" : "not ", unit_count, file,
	       line, what);
}

#define CHECK(cond) unit_report(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_STR(got, want)                                             \
	do {                                                             \
		const char *g_ = (got), *w_ = (want);                    \
		int ok_ = g_ && w_ && !strcmp(g_, w_);                   \
		unit_report(ok_, __FILE__, __LINE__, #got " == " #want); \
		if (!ok_)                                                \
			printf("#   got '%s', want '%s'\n",              \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)");  \
	} while (0)
#define CHECK_INT(got, want)                                                  \
	do {                                                                  \
		long long g_ = (long long)(got), w_ = (long long)(want);      \
		unit_report(g_ == w_, __FILE__, __LINE__, #got " == " #want); \
		if (g_ != w_)                                                 \
			printf("#   got %lld, want %lld\n", g_, w_);          \
	} while (0)

static int unit_done(void)
{
	printf("# passed %d failed %d\n", unit_count - unit_failed,
	       unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
