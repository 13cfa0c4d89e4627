/* tfbuild diff: say how two wheels that should be identical differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "diff.h"
#include "hash.h"
#include "log.h"
#include "wheelread.h"

const char tf_usage_diff[] =
	"usage: tfbuild diff [--max N] A.whl B.whl\n"
	"\n"
	"Compare two wheels that should be byte-identical (two builds of the\n"
	"same recipe) and name the first entries that differ and how:\n"
	"  ENTRY: only in A.whl\n"
	"  ENTRY: order differs (entry 3 in A.whl, 4 in B.whl)\n"
	"  ENTRY: content differs (N bytes, sha256 ... vs M bytes, sha256 ...)\n"
	"  ENTRY: permissions differ (0644 vs 0755)\n"
	"  ENTRY: timestamp differs (1980-01-01 00:00:00 vs ... UTC)\n"
	"If every entry agrees but the files do not, the difference is in the\n"
	"zip container itself (compression, extra fields); its first byte\n"
	"offset is shown.\n"
	"\n"
	"options:\n"
	"  --max N   show at most N differences (default 20)\n"
	"\n"
	"exit codes: 0 identical, 1 different, 2 usage, 6 a wheel cannot be read.\n";

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
	struct tf_wheel_listing la = TF_WHEEL_LISTING_INIT, lb = TF_WHEEL_LISTING_INIT;
	struct tf_buf out = TF_BUF_INIT;
	long long off;
	size_t n;
	int ret = TF_EXIT_WHEEL;

	if (tf_wheel_list(a, &la) || tf_wheel_list(b, &lb))
		goto out;
	n = tf_wheel_diff(&la, a, &lb, b, max, &out);
	off = first_byte_difference(a, b);
	ret = n || off >= 0 ? 1 : TF_EXIT_OK;
	fputs(out.buf, stdout);
	if (!n && off >= 0)
		printf("entries agree; the zip containers differ from byte %lld\n", off);
	if (ret == TF_EXIT_OK && tf_verbosity)
		printf("%s and %s are identical\n", a, b);
out:
	tf_wheel_listing_release(&la);
	tf_wheel_listing_release(&lb);
	tf_buf_release(&out);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	long max = 20;
	int i = 1;

	if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
		fputs(tf_usage_diff, stdout);
		return TF_EXIT_OK;
	}
	if (i + 1 < argc && !strcmp(argv[i], "--max")) {
		char *end;

		max = strtol(argv[i + 1], &end, 10);
		if (*end || max < 1)
			return tf_usage_error(tf_usage_diff, "--max wants a positive number, not '%s'",
					      argv[i + 1]);
		i += 2;
	}
	if (argc - i != 2)
		return tf_usage_error(tf_usage_diff, "%s", argc - i < 2 ?
				      "two wheels are needed" : "too many arguments");
	return compare(argv[i], argv[i + 1], (size_t)max);
}
