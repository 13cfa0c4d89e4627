/* tfbuild sha256: print the SHA-256 of files and URLs, like sha256sum. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fetch/fetch.h"
#include "base/base.h"
#include "opt.h"

const char tf_usage_sha256[] =
	"Print the SHA-256 of each FILE or URL as one line \"<hex>  <arg>\", the\n"
	"format of sha256sum, ready to paste into a recipe. URLs (http, https,\n"
	"file) are streamed and hashed as the bytes arrive, without being saved\n"
	"or cached; transient network failures are retried and an interrupted\n"
	"transfer is resumed. Credentials in a URL (user:password@) are shown\n"
	"as ***@. \"-\" reads standard input; after \"--\", every argument is a\n"
	"FILE or URL, even if it starts with '-'. Every argument is hashed even\n"
	"after one failed.\n";

const struct tf_opt tf_opts_sha256[] = {
	TF_OPT_END,
};

static void print_line(const char *hex, const char *arg)
{
	struct tf_buf shown = TF_BUF_INIT;

	tf_url_redact(arg, &shown);
	printf("%s  %s\n", hex, shown.buf);
	fflush(stdout);
	tf_buf_release(&shown);
}

int cmd_sha256(struct tf_args *a)
{
	struct tf_fetch_opts opts = TF_FETCH_OPTS_INIT;
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i;
	int failed = 0;

	if (!a->args.nr)
		return tf_usage_error(tf_cmd_find("sha256"),
				      "no FILE or URL given");
	for (i = 0; i < a->args.nr; i++) {
		const char *arg = a->args.v[i];

		if (tf_fetch_digest(&opts,
				    strcmp(arg, "-") ? arg : "/dev/stdin",
				    hex) < 0) {
			failed = 1;
			continue;
		}
		print_line(hex, arg);
	}
	return failed ? TF_EXIT_FETCH : TF_EXIT_OK;
}
