/*
 * `tfbuild verify` on a hostile wheel: libarchive's seekable zip reader,
 * the .dist-info files, RECORD and, for ELF entries, the platform's
 * binary checks. The file is named x-1.0-TAGS.whl, with TAGS from the
 * first "Tag: " line in the bytes when it looks like one (a stored WHEEL
 * file shows it), so mutations keep reaching the checks past the name.
 */
#include <string.h>

#include "fuzz.h"
#include "verify.h"

/* Longest tag triple taken from the input; a file name has 255 bytes. */
#define TAG_MAX 200

static void wheel_filename(const uint8_t *data, size_t size, struct tf_buf *out)
{
	const uint8_t *tag = memmem(data, size, "\nTag: ", 6);
	size_t n = 0, dashes = 0;

	if (tag) {
		tag += 6;
		while (tag + n < data + size && n <= TAG_MAX &&
		       (strchr("-._", tag[n]) ||
			(tag[n] >= '0' && tag[n] <= '9') ||
			(tag[n] >= 'a' && tag[n] <= 'z') ||
			(tag[n] >= 'A' && tag[n] <= 'Z')) &&
		       tag[n])
			dashes += tag[n++] == '-';
	}
	if (tag && n <= TAG_MAX && dashes == 2)
		tf_buf_addf(out, "x-1.0-%.*s.whl", (int)n, (const char *)tag);
	else
		tf_buf_addstr(out, "x-1.0-py3-none-any.whl");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tf_buf dir = TF_BUF_INIT, name = TF_BUF_INIT, path = TF_BUF_INIT;

	wheel_filename(data, size, &name);
	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, name.buf, data, size, &path);
	tf_verify_wheel(path.buf);
	tf_buf_release(&name);
	tf_buf_release(&path);
	fuzz_dir_remove(&dir);
	return 0;
}
