/*
 * test-fetch: call tf_fetch() from shell tests.
 *
 *   test-fetch --cache DIR [--offline] [--recheck] [--retries N]
 *              [--retry-delay-ms MS] [--low-speed-time S] [--name NAME]
 *              [-q | -v] --sha256 HEX [URL...]
 *
 * Prints the cached file's path on success. Exits 0 on success, 1 when
 * tf_fetch failed, 2 on a bad command line. Messages use the label
 * "source 'NAME'" (NAME defaults to "demo").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fetch.h"
#include "log.h"

static int usage(void)
{
	fprintf(stderr, "usage: test-fetch --cache DIR [--offline] [--recheck] "
			"[--retries N] [--retry-delay-ms MS]\n"
			"       [--low-speed-time S] [--name NAME] [-q | -v] "
			"--sha256 HEX [URL...]\n");
	return 2;
}

/* The value of option argv[*i] (advancing *i), or NULL if it is missing. */
static const char *value(int argc, char **argv, int *i)
{
	return *i + 1 < argc ? argv[++*i] : NULL;
}

int main(int argc, char **argv)
{
	struct tf_fetch_opts o = TF_FETCH_OPTS_INIT;
	struct tf_buf path = TF_BUF_INIT, label = TF_BUF_INIT;
	const char *sha256 = NULL, *name = "demo", *v = "";
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-' && v; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--offline"))
			o.offline = 1;
		else if (!strcmp(a, "--recheck"))
			o.recheck = 1;
		else if (!strcmp(a, "-q"))
			tf_verbosity = 0;
		else if (!strcmp(a, "-v"))
			tf_verbosity = 2;
		else if (!strcmp(a, "--cache"))
			o.cache_dir = v = value(argc, argv, &i);
		else if (!strcmp(a, "--sha256"))
			sha256 = v = value(argc, argv, &i);
		else if (!strcmp(a, "--name"))
			name = v = value(argc, argv, &i);
		else if (!strcmp(a, "--retries") && (v = value(argc, argv, &i)))
			o.retries = atoi(v);
		else if (!strcmp(a, "--retry-delay-ms") &&
			 (v = value(argc, argv, &i)))
			o.retry_delay_ms = atol(v);
		else if (!strcmp(a, "--low-speed-time") &&
			 (v = value(argc, argv, &i)))
			o.low_speed_time = atol(v);
		else
			return usage();
	}
	if (!v || !o.cache_dir || !sha256)
		return usage();
	tf_buf_addf(&label, "source '%s'", name);
	ret = tf_fetch(&o, label.buf, (const char *const *)argv + i, NULL,
		       (size_t)(argc - i), sha256, &path);
	if (!ret)
		printf("%s\n", path.buf);
	tf_buf_release(&path);
	tf_buf_release(&label);
	return ret ? 1 : 0;
}
