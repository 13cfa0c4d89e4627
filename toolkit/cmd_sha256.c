/* tfbuild sha256: print the SHA-256 of files and URLs, like sha256sum. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "fetch.h"
#include "hash.h"
#include "log.h"

const char tf_usage_sha256[] =
	"usage: tfbuild sha256 [--] FILE|URL...\n"
	"\n"
	"Print the SHA-256 of each FILE or URL as one line \"<hex>  <arg>\", the\n"
	"format of sha256sum, ready to paste into a recipe. URLs (http, https,\n"
	"file) are streamed and hashed as the bytes arrive, without being saved\n"
	"or cached; transient network failures are retried and an interrupted\n"
	"transfer is resumed. Credentials in a URL (user:password@) are shown\n"
	"as ***@. \"-\" reads standard input. Exits 0 if every argument was\n"
	"hashed, 4 if any failed (the others are still printed), 2 on a usage\n"
	"error.\n"
	"\n"
	"options:\n"
	"  --    treat every later argument as a FILE or URL, even if it starts\n"
	"        with '-'\n";

static void print_line(const char *hex, const char *arg)
{
	struct tf_buf shown = TF_BUF_INIT;

	tf_fetch_redact_url(arg, &shown);
	printf("%s  %s\n", hex, shown.buf);
	fflush(stdout);
	tf_buf_release(&shown);
}

/*
 * Check the command line: the only option is "--", which ends options;
 * *dashdash gets its index (0 if absent). Returns 0, or TF_EXIT_USAGE
 * after printing the usage error.
 */
static int parse_args(int argc, char **argv, int *dashdash)
{
	int i;

	*dashdash = 0;
	for (i = 1; i < argc && !*dashdash; i++) {
		if (!strcmp(argv[i], "--"))
			*dashdash = i;
		else if (argv[i][0] == '-' && argv[i][1])
			return tf_usage_error(tf_usage_sha256, "unknown option '%s'", argv[i]);
	}
	if (argc - 1 - (*dashdash != 0) == 0)
		return tf_usage_error(tf_usage_sha256, "no FILE or URL given");
	return 0;
}

int cmd_sha256(int argc, char **argv)
{
	struct tf_fetch_opts opts = TF_FETCH_OPTS_INIT;
	char hex[TF_SHA256_HEX_LEN + 1];
	int i, dashdash, failed = 0, ret;

	ret = parse_args(argc, argv, &dashdash);
	if (ret)
		return ret;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (i == dashdash)
			continue;
		if (tf_fetch_digest(&opts, strcmp(arg, "-") ? arg : "/dev/stdin",
				    hex) < 0) {
			failed = 1;
			continue;
		}
		print_line(hex, arg);
	}
	return failed ? TF_EXIT_FETCH : TF_EXIT_OK;
}
