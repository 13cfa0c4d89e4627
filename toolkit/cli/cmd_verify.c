/*
 * tfbuild verify WHEEL...: check wheels, whoever made them. Every wheel
 * is checked even after a defective one, so one run reports them all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/base.h"
#include "attest/attest.h"
#include "cache/cache.h"
#include "plugin/plugin.h"
#include "verify/verify.h"
#include "opt.h"

const char tf_usage_verify[] =
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
	"    backslash, or has corrupt data;\n"
	"  - every ELF file matches the platform tag, and its code needs no\n"
	"    instruction above the platform's baseline ISA (x86-64-v1,\n"
	"    armv8.0-a) unless .dist-info/tfbuild-isa declares that it\n"
	"    dispatches at run time or a higher minimum (docs/isa.md); no\n"
	"    library asks for an executable stack;\n"
	"  - plugins follow their framework's loading convention: entry\n"
	"    points in torch.backends, torch_xla.plugins and jax_plugins name a\n"
	"    module of the wheel, PJRT plugin libraries export GetPjrtApi,\n"
	"    tensorflow-plugins/ libraries export SE_InitPlugin (and\n"
	"    TF_InitKernel when they register kernels): docs/frameworks.md;\n"
	"  - a TensorFlow or JAX plugin wheel has a Requires-Dist on its\n"
	"    framework, within the window of releases the ABI it was built\n"
	"    against holds for when .dist-info/tfbuild/framework.json says\n"
	"    (\"built for tensorflow 2.21.0 (StreamExecutor C API 0.0.1)\"\n"
	"    is printed); -v says when its width cannot be judged.\n"
	"\n"
	"For each sound wheel \"ok  WHEEL\" is printed on stdout; for a\n"
	"defective one, its first defect on stderr (but every ELF file is\n"
	"checked and audited, each refusal said):\n"
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
	"With -v, also print the ISA declarations and what the instruction\n"
	"audit found in each ELF file (docs/isa.md), how each library\n"
	"outside the wheel is resolved: vendored sonames, RUNPATH, providers\n"
	"(docs/libraries.md), and the lowest manylinux tag the ELF files\n"
	"allow, as `auditwheel show` gives it:\n"
	"  tfbuild: WHEEL: platform: its ELF files allow manylinux_2_27_x86_64\n"
	"  (pkg/a.so needs GLIBC_2.27 (symbol 'x'))\n"
	"\n"
	"With --framework DIR (a site-packages directory holding a framework,\n"
	"e.g. /usr/lib/python3/dist-packages for Debian's torch), each wheel\n"
	"must record the framework build it was checked against when it was\n"
	"packed, DIR must hold that build (name, version, C++ ABI, each\n"
	"library's export table), and every undefined symbol of the wheel's\n"
	"binaries must resolve against DIR's libraries (docs/frameworks.md):\n"
	"  tfbuild: WHEEL: built for torch 1.13.0a0+gitunknown (cxx11 ABI),\n"
	"  'DIR' has torch 2.1.0 (cxx11 ABI)\n"
	"\n"
	"A wheel tfbuild made must carry its SBOM, .dist-info/sboms/\n"
	"tfbuild.cdx.json (CycloneDX, PEP 770; docs/sbom.md), listed in RECORD,\n"
	"whose primary component is the wheel's name and version; an SBOM\n"
	"any wheel has there is held to the same.\n"
	"\n"
	"With --max-size SIZE (bytes, or 100MiB, 2G...), a wheel larger than\n"
	"SIZE is refused, naming its 3 largest entries (PyPI refuses files\n"
	"over 100 MiB unless the project's limit was raised):\n"
	"  tfbuild: WHEEL: 110000000 bytes (104.9 MiB), over the size budget\n"
	"  of ... (--max-size 100MiB); its largest entries: ...\n"
	"\n"
	"With --attestation-trust KEYFILE (public keys: PEM, or 64 hex digits\n"
	"a line, as `tfbuild cache keygen` writes PREFIX.pub), each wheel must\n"
	"have its attestation WHEEL.intoto.jsonl beside it (written by\n"
	"`tfbuild recipe --attestation-key`): a DSSE envelope of payload type\n"
	"application/vnd.in-toto+json signed by one of those keys, whose\n"
	"statement has predicate type SLSA Provenance v1 and exactly one\n"
	"subject, the wheel's filename with its sha256 (docs/publishing.md):\n"
	"  tfbuild: WHEEL.intoto.jsonl: its subject's sha256 is X, the wheel's Y\n";

const struct tf_opt tf_opts_verify[] = {
	{ 0, "sums", TF_OPT_STRING, TF_ARG(sums), "FILE",
	  "check against a SHA256SUMS file", NULL, 0, 0 },
	{ 0, "provenance", TF_OPT_STRING, TF_ARG(provenance), "FILE",
	  "check against a provenance statement", NULL, 0, 0 },
	{ 0, "framework", TF_OPT_STRING, TF_ARG(framework), "DIR",
	  "check against the framework installed in DIR", NULL, 0, 0 },
	{ 0, "max-size", TF_OPT_STRING, TF_ARG(max_size), "SIZE",
	  "refuse a wheel over SIZE (100MiB, as PyPI)", NULL, 0, 0 },
	{ 0, "attestation-trust", TF_OPT_STRING, TF_ARG(attestation_trust),
	  "KEYFILE",
	  "each wheel's WHEEL.intoto.jsonl must be signed by a key in KEYFILE",
	  NULL, 0, 0 },
	TF_OPT_END,
};

/* A list of expected wheels: SHA256SUMS or a provenance's subjects. */
struct expected {
	const char *path;    /* borrowed: the file given */
	struct tf_sums sums; /* owned: names and digests */
	struct tf_buf dir;   /* owned: the directory its names are in */
};

static int load_expected(struct expected *e, int provenance)
{
	if (tf_cmd_regular_file(e->path))
		return -1;
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

/* 1 if path is a regular file, looked at without blocking on a FIFO. */
static int is_regular(const char *path)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = !tf_path_regular_check(path, &why);

	tf_buf_release(&why);
	return ret;
}

/* Is this wheel listed, with the digest it has? */
static int check_listed(const struct expected *e, const char *wheel)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	const char *want = tf_sums_find(&e->sums, tf_path_basename(wheel));

	if (!want)
		return error("%s: not listed in %s", wheel, e->path);
	/* A FIFO would block the digest: tf_verify_wheel said what it is. */
	if (!is_regular(wheel) || tf_sha256_file(wheel, md, NULL))
		return -1;
	tf_sha256_hex(md, hex);
	if (strcmp(hex, want))
		return error("%s: sha256 %s differs from %s listed in %s",
			     wheel, hex, want, e->path);
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
		for (j = 0; j < wheels->nr && strcmp(wheels->v[j], path.buf);
		     j++)
			;
		if (j == wheels->nr)
			tf_strvec_push(wheels, path.buf);
	}
	tf_strvec_release(&names);
	tf_buf_release(&path);
}

/* --framework DIR, or NULL. */
static const char *framework_site;
/* --max-size in bytes, or 0; and as given. */
static unsigned long long max_bytes;
static const char *max_size;
/* --attestation-trust's keys, or NULL. */
static struct tf_trust *attest_trust;

/* The wheel's attestation beside it, signed by a trusted key. */
static int check_attestation(const char *wheel)
{
	char *path = tf_xstrfmt("%s%s", wheel, TF_ATTEST_SUFFIX);
	char key_id[TF_KEY_ID_LEN + 1];
	int ret = 0;

	if (!tf_path_exists(path))
		ret = error("%s: no attestation beside it (%s)", wheel,
			    tf_path_basename(path));
	else if (!is_regular(wheel))
		ret = -1; /* said by tf_verify_wheel */
	else if (tf_cmd_regular_file(path))
		ret = -1;
	else
		ret = tf_attest_wheel_verify(path, wheel, attest_trust, key_id);
	if (!ret)
		verbose("%s: attested by key %s", wheel, key_id);
	free(path);
	return ret;
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

		if (!wrong && framework_site)
			wrong = tf_framework_verify(wheels->v[i],
						    framework_site) < 0;
		if (!wrong && max_bytes) {
			struct tf_buf what = TF_BUF_INIT;

			tf_buf_addf(&what, "--max-size %s", max_size);
			wrong = tf_verify_max_size(wheels->v[i], NULL,
						   max_bytes, what.buf) < 0;
			tf_buf_release(&what);
		}

		for (j = 0; j < nr_lists; j++)
			wrong |= check_listed(&lists[j], wheels->v[i]) < 0;
		if (attest_trust)
			wrong |= check_attestation(wheels->v[i]) < 0;
		if (!wrong && tf_verbosity > 0) {
			printf("ok  %s\n", wheels->v[i]);
			fflush(stdout);
		}
		bad |= wrong;
	}
	return bad ? TF_EXIT_WHEEL : TF_EXIT_OK;
}

static void add_list(struct expected *lists, size_t *nr, const char *path,
		     int provenance, int *ret)
{
	struct expected *e = &lists[(*nr)++];

	memset(e, 0, sizeof(*e));
	e->path = path;
	e->sums = (struct tf_sums)TF_SUMS_INIT;
	e->dir = (struct tf_buf)TF_BUF_INIT;
	if (load_expected(e, provenance))
		*ret = TF_EXIT_WHEEL;
}

int cmd_verify(struct tf_args *a)
{
	struct expected lists[2];
	struct tf_strvec wheels = TF_STRVEC_INIT;
	size_t nr_lists = 0, i, j;
	int ret = TF_EXIT_OK;

	if (a->sums)
		add_list(lists, &nr_lists, a->sums, 0, &ret);
	if (a->provenance)
		add_list(lists, &nr_lists, a->provenance, 1, &ret);
	framework_site = a->framework;
	max_size = a->max_size;
	if (max_size) {
		uint64_t n;

		if (tf_limit_parse(max_size, &n) || !n)
			return tf_usage_error(tf_cmd_find("verify"),
					      "--max-size '%s' is not a size "
					      "(bytes, or with a K, M, G or T "
					      "suffix: 100MiB)",
					      max_size);
		max_bytes = n;
	}
	if (a->attestation_trust) {
		attest_trust = tf_trust_new();
		if (tf_cmd_regular_file(a->attestation_trust) ||
		    tf_trust_add_file(attest_trust, a->attestation_trust))
			ret = TF_EXIT_USAGE;
	}
	for (i = 0; ret == TF_EXIT_OK && i < a->args.nr; i++)
		tf_strvec_push(&wheels, a->args.v[i]);
	for (j = 0; ret == TF_EXIT_OK && !wheels.nr && j < nr_lists; j++)
		default_wheels(&lists[j], &wheels);
	if (ret == TF_EXIT_OK && !wheels.nr && !nr_lists)
		ret = tf_usage_error(tf_cmd_find("verify"), "no wheel given");
	if (ret == TF_EXIT_OK)
		ret = verify_all(&wheels, lists, nr_lists);
	for (j = 0; j < nr_lists; j++) {
		tf_sums_release(&lists[j].sums);
		tf_buf_release(&lists[j].dir);
	}
	tf_strvec_release(&wheels);
	tf_trust_free(attest_trust);
	attest_trust = NULL;
	return ret;
}
