/*
 * tfbuild verify WHEEL...: check wheels, whoever made them. Every wheel
 * is checked even after a defective one, so one run reports them all.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "verify.h"

const char tf_usage_verify[] =
	"usage: tfbuild verify [-q] WHEEL...\n"
	"\n"
	"Check each wheel as an installer would see it, independently of how\n"
	"it was made:\n"
	"  - the filename is NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl with\n"
	"    a valid name, a PEP 440 version and valid tags;\n"
	"  - there is exactly one NAME-VERSION.dist-info directory, matching\n"
	"    the filename, with METADATA, WHEEL and RECORD;\n"
	"  - METADATA's Name and Version and WHEEL's Tag lines agree with the\n"
	"    filename, and WHEEL's Wheel-Version is 1.x;\n"
	"  - every entry is listed in RECORD with its sha256 and size, and\n"
	"    everything RECORD lists is in the archive;\n"
	"  - no entry is duplicated, absolute, has a '..' component or a\n"
	"    backslash, or has corrupt data.\n"
	"\n"
	"For each sound wheel \"ok  WHEEL\" is printed on stdout; for a\n"
	"defective one, its first defect on stderr:\n"
	"  tfbuild: WHEEL: ENTRY: what is wrong\n"
	"\n"
	"options:\n"
	"  -q, --quiet   print only defects\n"
	"  -h, --help    show this text\n"
	"\n"
	"exit status: 0 if every wheel is sound, 6 if any is defective,\n"
	"2 on a usage error.\n";

/*
 * Like tf_cmd_usage_error(), which lives in main.c and so is missing
 * from the unit tests and test tools that link every other file.
 */
static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "tfbuild: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", tf_usage_verify);
	return TF_EXIT_USAGE;
}

int cmd_verify(int argc, char **argv)
{
	int i, bad = 0;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			tf_verbosity = 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(tf_usage_verify, stdout);
			return TF_EXIT_OK;
		} else {
			/* Room here for --sums FILE and --provenance FILE. */
			return usage_error("unknown option '%s'", argv[i]);
		}
	}
	if (i == argc)
		return usage_error("%s", "no wheel given");
	for (; i < argc; i++) {
		if (tf_verify_wheel(argv[i]) < 0) {
			bad = 1;
		} else if (tf_verbosity > 0) {
			printf("ok  %s\n", argv[i]);
			fflush(stdout);
		}
	}
	return bad ? TF_EXIT_WHEEL : TF_EXIT_OK;
}
