/*
 * How every part of verify/ reports a defect of the wheel it reads: one
 * line naming the wheel and the entry. A file of its own so that the
 * checks verify.c calls (distinfo.c, distvariant.c, sbomcheck.c) report
 * without calling back into verify.c.
 */
#include "verifier.h"

#include <stdarg.h>

#include "base/base.h"

int tf_verify_defect(const struct verifier *v, const char *entry,
		     const char *fmt, ...)
{
	struct tf_buf what = TF_BUF_INIT, msg = TF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(&what, fmt, ap);
	va_end(ap);
	/* libarchive ends some messages with a newline: keep one line. */
	while (what.len && (what.buf[what.len - 1] == '\n' ||
			    what.buf[what.len - 1] == ' '))
		tf_buf_setlen(&what, what.len - 1);
	tf_buf_addstr(&msg, v->path);
	tf_buf_addstr(&msg, ": ");
	if (entry) {
		tf_buf_addstr(&msg, entry);
		tf_buf_addstr(&msg, ": ");
	}
	tf_buf_addstr(&msg, what.buf);
	error("%s", msg.buf);
	tf_buf_release(&what);
	tf_buf_release(&msg);
	return -1;
}
