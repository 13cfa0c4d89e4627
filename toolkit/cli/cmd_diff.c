/* tfbuild diff: say how two wheels that should be identical differ. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "verify/verify.h"
#include "base/base.h"
#include "wheel/wheel.h"
#include "opt.h"

const char tf_usage_diff[] =
	"Compare two wheels that should be byte-identical (two builds of the\n"
	"same recipe) and name the first entries that differ and how:\n"
	"  ENTRY: only in A.whl\n"
	"  ENTRY: order differs (entry 3 in A.whl, 4 in B.whl)\n"
	"  ENTRY: content differs (N bytes, sha256 ... vs M bytes, sha256 ...)\n"
	"  ENTRY: permissions differ (0644 vs 0755)\n"
	"  ENTRY: timestamp differs (1980-01-01 00:00:00 vs ... UTC)\n"
	"If every entry agrees but the files do not, the difference is in the\n"
	"zip container itself (compression, extra fields); its first byte\n"
	"offset is shown.\n";

const struct tf_opt tf_opts_diff[] = {
	{ 0, "max", TF_OPT_INT, TF_ARG(max), "N",
	  "show at most N differences (default 20)", NULL, 1, 1000000 },
	TF_OPT_END,
};

/* The first byte offset where two files differ, or -1 if they do not. */
static long long first_byte_difference(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	long long off = -1, i = 0;
	int ca, cb;

	if (!fa || !fb) {
		off = 0;
		goto out;
	}
	do {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb) {
			off = i;
			break;
		}
		i++;
	} while (ca != EOF);
out:
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return off;
}

static int compare(const char *a, const char *b, size_t max)
{
	struct tf_wheel_listing la = TF_WHEEL_LISTING_INIT,
				lb = TF_WHEEL_LISTING_INIT;
	struct tf_buf out = TF_BUF_INIT;
	long long off;
	size_t n;
	int ret = TF_EXIT_WHEEL;

	if (tf_cmd_regular_file(a) || tf_cmd_regular_file(b) ||
	    tf_wheel_list(a, &la) || tf_wheel_list(b, &lb))
		goto out;
	n = tf_wheel_diff(&la, a, &lb, b, max, &out);
	off = first_byte_difference(a, b);
	ret = n || off >= 0 ? 1 : TF_EXIT_OK;
	fputs(out.buf, stdout);
	if (!n && off >= 0)
		printf("entries agree; the zip containers differ from byte %lld\n",
		       off);
	if (ret == TF_EXIT_OK && tf_verbosity)
		printf("%s and %s are identical\n", a, b);
out:
	tf_wheel_listing_release(&la);
	tf_wheel_listing_release(&lb);
	tf_buf_release(&out);
	return ret;
}

int cmd_diff(struct tf_args *a)
{
	if (a->args.nr != 2)
		return tf_usage_error(tf_cmd_find("diff"), "%s",
				      a->args.nr < 2 ? "two wheels are needed"
						     : "too many arguments");
	return compare(a->args.v[0], a->args.v[1],
		       (size_t)(a->max ? a->max : 20));
}
