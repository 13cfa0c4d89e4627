/*
 * Let shell tests call the extract and patch stages directly:
 *   test-extract extract ARCHIVE DEST STRIP
 *   test-extract patch TREE PATCHFILE LABEL STRIP
 * The archive's label is ARCHIVE as given. Exits 0 on success, 1 on
 * failure (the stage has printed why), 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract.h"
#include "log.h"
#include "patch.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: test-extract extract ARCHIVE DEST STRIP\n"
		"       test-extract patch TREE PATCHFILE LABEL STRIP\n");
	return 2;
}

/* A non-negative decimal, or -1. */
static int parse_strip(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!*s || *end || n < 0 || n > 1000)
		return -1;
	return (int)n;
}

int main(int argc, char **argv)
{
	int strip;

	if (getenv("TEST_VERBOSE"))
		tf_verbosity = 2;
	if (argc == 5 && !strcmp(argv[1], "extract")) {
		strip = parse_strip(argv[4]);
		if (strip < 0)
			return usage();
		return tf_extract(argv[2], argv[2], argv[3], strip) ? 1 : 0;
	}
	if (argc == 6 && !strcmp(argv[1], "patch")) {
		strip = parse_strip(argv[5]);
		if (strip < 0)
			return usage();
		return tf_patch_apply(argv[2], argv[3], argv[4], strip) ? 1 : 0;
	}
	return usage();
}
