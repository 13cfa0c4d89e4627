/*
 * Patches come with sources from upstream; before GNU patch runs, the
 * header scanner must find every file name that leaves the tree. The
 * input is scanned line by line as -p0 and -p1 would read it, and is
 * also read as patch's own output by the failure explainer, whose
 * messages must be printable single lines.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "patch.h"

static void scan(const char *text, int strip)
{
	struct tf_patch_scan s = TF_PATCH_SCAN_INIT(strip);
	struct tf_buf line = TF_BUF_INIT, bad = TF_BUF_INIT;

	while (*text) {
		size_t n = strcspn(text, "\n");

		tf_buf_reset(&line);
		tf_buf_add(&line, text, n);
		tf_buf_reset(&bad);
		if (tf_patch_scan_line(&s, line.buf, &bad))
			FUZZ_ASSERT(bad.len);
		FUZZ_ASSERT(s.old_left >= 0 && s.new_left >= 0);
		text += n;
		text += *text == '\n';
	}
	tf_buf_release(&line);
	tf_buf_release(&bad);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tf_strvec msgs = TF_STRVEC_INIT;
	char *text = fuzz_string(data, size);

	scan(text, 0);
	scan(text, 1);
	tf_patch_explain(text, 1, &msgs);
	/* What the patch names may hold control characters: error() shows
	   them as '?' when the messages are printed (log.h), not here;
	   t0103 checks what reaches the terminal. */
	tf_strvec_release(&msgs);
	free(text);
	return 0;
}
