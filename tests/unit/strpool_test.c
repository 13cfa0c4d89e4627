#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "strpool.h"

/* Strings stay where they were put, whatever is added after them. */
static void test_stable(void)
{
	struct tf_strpool p = TF_STRPOOL_INIT;
	const char *v[5000];
	char want[64];
	char *big = tf_malloc(100001);
	const char *b = NULL;
	int i, bad = 0;

	memset(big, 'x', 100000);
	big[100000] = '\0';
	for (i = 0; i < 5000; i++) {
		snprintf(want, sizeof(want), "/tree/dir%03d/file%05d.py",
			 i % 97, i);
		v[i] = tf_strpool_add(&p, want);
		if (i == 2500)
			b = tf_strpool_add(&p, big); /* a block of its own */
	}
	for (i = 0; i < 5000; i++) {
		snprintf(want, sizeof(want), "/tree/dir%03d/file%05d.py",
			 i % 97, i);
		bad += strcmp(v[i], want) != 0;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(strlen(b), 100000);
	CHECK_STR(tf_strpool_addn(&p, "abcdef", 3), "abc");
	CHECK_STR(tf_strpool_add(&p, ""), "");
	tf_strpool_release(&p);
	CHECK(p.head == NULL);
	/* Usable again after a release. */
	CHECK_STR(tf_strpool_add(&p, "again"), "again");
	tf_strpool_release(&p);
	tf_strpool_release(&p);
	free(big);
}

int main(void)
{
	test_stable();
	return unit_done();
}
