/*
 * test-pep440: let shell tests ask pep440.c what packaging answers.
 *
 *   test-pep440 has SPEC VERSION...    "VERSION 1" or "VERSION 0" per
 *                                      version: SPEC's interval holds it
 *   test-pep440 within INNER OUTER     "1" or "0"
 *
 * exits 0, or 1 after printing why a specifier cannot be judged.
 */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "pep440.h"

int main(int argc, char **argv)
{
	struct tf_version_range a, b;
	struct tf_version v;
	struct tf_buf why = TF_BUF_INIT;
	int i;

	if (argc < 4 || (strcmp(argv[1], "has") && strcmp(argv[1], "within")))
		return fputs("usage: test-pep440 has SPEC VERSION... | within "
			     "INNER OUTER\n",
			     stderr),
		       2;
	if (tf_specifiers_range(argv[2], &a, &why) < 0)
		goto fail;
	if (!strcmp(argv[1], "within")) {
		if (tf_specifiers_range(argv[3], &b, &why) < 0)
			goto fail;
		printf("%d\n", tf_version_range_within(&a, &b));
		return 0;
	}
	for (i = 3; i < argc; i++) {
		if (tf_version_parse(argv[i], &v, &why) < 0)
			goto fail;
		printf("%s %d\n", argv[i], tf_version_range_has(&a, &v));
	}
	return 0;
fail:
	fprintf(stderr, "test-pep440: %s\n", why.buf);
	tf_buf_release(&why);
	return 1;
}
