/* Helpers every command shares; kept out of main.c so test tools link. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/base.h"

int tf_usage_error(const struct tf_cmd *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s", msg);
	fprintf(stderr,
		"usage: tfbuild %s %s\nSee 'tfbuild help %s' for the options.\n",
		c->name, c->synopsis, c->name);
	return TF_EXIT_USAGE;
}

int tf_cmd_regular_file(const char *path)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = tf_path_regular_check(path, &why);

	if (ret)
		error("%s", why.buf);
	tf_buf_release(&why);
	return ret;
}

void tf_args_release(struct tf_args *a)
{
	tf_strvec_release(&a->targets);
	tf_strvec_release(&a->sets);
	tf_strvec_release(&a->args);
}

const char tf_exit_codes_text[] =
	"exit codes:\n"
	"  0  success\n"
	"  1  other failure (out of memory, I/O outside a stage)\n"
	"  2  usage error (unknown command or option, bad argument)\n"
	"  3  recipe error (does not parse or validate)\n"
	"  4  fetch error (download failed, checksum mismatch, not cached offline)\n"
	"  5  build error (extract, patch or build step failed)\n"
	"  6  wheel error (could not be written, or failed verification)\n"
	"  130, 143, 129  died of SIGINT, SIGTERM, SIGHUP, after stopping every\n"
	"     process it started and removing its temporary files\n";
