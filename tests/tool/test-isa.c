/*
 * test-isa: let shell tests and bench/ call the ISA audit directly.
 *
 *   test-isa scan FILE...
 *       prints "FILE: SUMMARY" (tf_isa_describe) for each file, or
 *       "FILE: nothing to audit"
 *   test-isa audit [--minimum LEVEL] [--dispatch GLOB]... [--context C]
 *       FILE=INWHEEL...
 *       runs tf_isa_audit_file() on each; prints "ok: INWHEEL"
 *
 * Exits 0, or 1 after tfbuild's error, or 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "isa.h"
#include "log.h"

static int scan(int argc, char **argv)
{
	struct tf_isa_report rep = TF_ISA_REPORT_INIT;
	struct tf_buf what = TF_BUF_INIT;
	enum tf_isa_scan_result r;
	int i, ret = 0;

	for (i = 0; i < argc; i++) {
		r = tf_isa_scan(argv[i], argv[i], &rep);
		tf_buf_reset(&what);
		if (r == TF_ISA_SCAN_ERROR) {
			ret = 1;
			continue;
		}
		if (r == TF_ISA_SCAN_OK)
			tf_isa_describe(&rep, &what);
		printf("%s: %s\n", argv[i],
		       r == TF_ISA_SCAN_NOTHING ? "nothing to audit"
						: what.buf);
	}
	tf_isa_report_release(&rep);
	tf_buf_release(&what);
	return ret;
}

static int audit(int argc, char **argv)
{
	struct tf_isa_policy p = TF_ISA_POLICY_INIT;
	const char **globs = calloc((size_t)argc + 1, sizeof(*globs));
	const char *context = NULL;
	int i, ret = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--minimum") && i + 1 < argc)
			p.minimum = argv[++i];
		else if (!strcmp(argv[i], "--dispatch") && i + 1 < argc)
			globs[p.nr_dispatch++] = argv[++i];
		else if (!strcmp(argv[i], "--context") && i + 1 < argc)
			context = argv[++i];
		else
			break;
	}
	p.dispatch = globs;
	for (; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr,
				"test-isa: expected FILE=INWHEEL, not '%s'\n",
				argv[i]);
			free(globs);
			return 2;
		}
		*eq = '\0';
		if (tf_isa_audit_file(argv[i], eq + 1, context, &p) ==
		    TF_ISA_AUDIT_FAILED)
			ret = 1;
		else
			printf("ok: %s\n", eq + 1);
	}
	free(globs);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		tf_verbosity = 2;
		argc--;
		argv++;
	}
	if (argc > 2 && !strcmp(argv[1], "scan"))
		return scan(argc - 2, argv + 2);
	if (argc > 2 && !strcmp(argv[1], "audit"))
		return audit(argc - 2, argv + 2);
	fprintf(stderr,
		"usage: test-isa [-v] scan FILE... | audit [OPTIONS] FILE=INWHEEL...\n");
	return 2;
}
