/*
 * tfbuild verify WHEEL...: check wheels, whoever made them. Every wheel
 * is checked even after a defective one, so one run reports them all.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "attest.h"
#include "hash.h"
#include "path.h"
#include "verify.h"

const char tf_usage_verify[] =
	"usage: tfbuild verify [-q] [--sums FILE] [--provenance FILE] [WHEEL...]\n"
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
	"With --sums (a SHA256SUMS file) or --provenance (an in-toto\n"
	"statement written by `tfbuild recipe`), each wheel must also be\n"
	"listed there with the same sha256, and everything listed must exist\n"
	"beside the file; without WHEEL arguments the wheels checked are those\n"
	"listed and every .whl in the same directory, so a wheel swapped for\n"
	"another build, added or removed is reported:\n"
	"  tfbuild: WHEEL: sha256 X differs from Y listed in SHA256SUMS\n"
	"  tfbuild: WHEEL: not listed in SHA256SUMS\n"
	"  tfbuild: SHA256SUMS: lists 'NAME', which is missing\n"
	"\n"
	"options:\n"
	"      --sums FILE        check against a SHA256SUMS file\n"
	"      --provenance FILE  check against a provenance statement\n"
	"  -q, --quiet   print only defects\n"
	"  -v, --verbose also print how each library outside the wheel is\n"
	"                resolved: vendored sonames, RUNPATH, providers\n"
	"  -h, --help    show this text\n"
	"\n"
	"exit status: 0 if every wheel is sound, 6 if any is defective,\n"
	"2 on a usage error.\n";

/* A list of expected wheels: SHA256SUMS or a provenance's subjects. */
struct expected {
	const char *path;      /* borrowed: the file given */
	struct tf_sums sums;   /* owned: names and digests */
	struct tf_buf dir;     /* owned: the directory its names are in */
};

static int load_expected(struct expected *e, int provenance)
{
	if (provenance ? tf_provenance_read_subjects(e->path, &e->sums)
		       : tf_sums_read(e->path, &e->sums))
		return -1;
	tf_path_dirname(&e->dir, e->path);
	return 0;
}

/* Listed wheels that are not where the list says they are. */
static int check_missing(const struct expected *e)
{
	struct tf_buf path = TF_BUF_INIT;
	size_t i;
	int bad = 0;

	for (i = 0; i < e->sums.names.nr; i++) {
		tf_buf_reset(&path);
		tf_path_join(&path, e->dir.buf, e->sums.names.v[i]);
		if (!tf_path_exists(path.buf))
			bad = error("%s: lists '%s', which is missing", e->path,
				    e->sums.names.v[i]);
	}
	tf_buf_release(&path);
	return bad;
}

/* Is this wheel listed, with the digest it has? */
static int check_listed(const struct expected *e, const char *wheel)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	const char *want = tf_sums_find(&e->sums, tf_path_basename(wheel));

	if (!want)
		return error("%s: not listed in %s", wheel, e->path);
	if (tf_sha256_file(wheel, md, NULL))
		return -1;
	tf_sha256_hex(md, hex);
	if (strcmp(hex, want))
		return error("%s: sha256 %s differs from %s listed in %s", wheel, hex,
			     want, e->path);
	return 0;
}

/* Without WHEEL arguments: every listed wheel and every .whl beside it. */
static void default_wheels(const struct expected *e, struct tf_strvec *wheels)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT;
	size_t i, j;

	tf_list_dir(e->dir.buf, &names);
	for (i = 0; i < names.nr; i++) {
		size_t n = strlen(names.v[i]);

		if (n < 4 || strcmp(names.v[i] + n - 4, ".whl"))
			continue;
		tf_buf_reset(&path);
		tf_path_join(&path, e->dir.buf, names.v[i]);
		for (j = 0; j < wheels->nr && strcmp(wheels->v[j], path.buf); j++)
			;
		if (j == wheels->nr)
			tf_strvec_push(wheels, path.buf);
	}
	tf_strvec_release(&names);
	tf_buf_release(&path);
}

static int verify_all(struct tf_strvec *wheels, struct expected *lists,
		      size_t nr_lists)
{
	size_t i, j;
	int bad = 0;

	for (j = 0; j < nr_lists; j++)
		bad |= check_missing(&lists[j]);
	for (i = 0; i < wheels->nr; i++) {
		int wrong = tf_verify_wheel(wheels->v[i]) < 0;

		for (j = 0; j < nr_lists; j++)
			wrong |= check_listed(&lists[j], wheels->v[i]) < 0;
		if (!wrong && tf_verbosity > 0) {
			printf("ok  %s\n", wheels->v[i]);
			fflush(stdout);
		}
		bad |= wrong;
	}
	return bad ? TF_EXIT_WHEEL : TF_EXIT_OK;
}

int cmd_verify(int argc, char **argv)
{
	struct expected lists[2];
	struct tf_strvec wheels = TF_STRVEC_INIT;
	size_t nr_lists = 0, j;
	int i, ret = TF_EXIT_OK;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		int prov = !strcmp(argv[i], "--provenance");

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			tf_verbosity++;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			tf_verbosity = 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(tf_usage_verify, stdout);
			return TF_EXIT_OK;
		} else if ((prov || !strcmp(argv[i], "--sums")) && i + 1 < argc &&
			   nr_lists < 2) {
			struct expected *e = &lists[nr_lists++];

			memset(e, 0, sizeof(*e));
			e->path = argv[++i];
			e->sums = (struct tf_sums)TF_SUMS_INIT;
			e->dir = (struct tf_buf)TF_BUF_INIT;
			if (load_expected(e, prov))
				ret = TF_EXIT_WHEEL;
		} else {
			ret = tf_usage_error(tf_usage_verify, "%s '%s'",
					     strncmp(argv[i], "--", 2) || strchr(argv[i], '=') ||
					     (strcmp(argv[i], "--sums") && strcmp(argv[i], "--provenance")) ?
					     "unknown option" : "missing the file after", argv[i]);
			break;
		}
	}
	for (; ret == TF_EXIT_OK && i < argc; i++)
		tf_strvec_push(&wheels, argv[i]);
	for (j = 0; ret == TF_EXIT_OK && !wheels.nr && j < nr_lists; j++)
		default_wheels(&lists[j], &wheels);
	if (ret == TF_EXIT_OK && !wheels.nr && !nr_lists)
		ret = tf_usage_error(tf_usage_verify, "no wheel given");
	if (ret == TF_EXIT_OK)
		ret = verify_all(&wheels, lists, nr_lists);
	for (j = 0; j < nr_lists; j++) {
		tf_sums_release(&lists[j].sums);
		tf_buf_release(&lists[j].dir);
	}
	tf_strvec_release(&wheels);
	return ret;
}
