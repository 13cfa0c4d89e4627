/*
 * The zip structure checks `tfbuild verify` makes before it reads a
 * wheel's content (zipcheck.c): libarchive's seekable and streamable
 * zip readers side by side, and the fixed end record. A refusal must
 * say why; an acceptance must say nothing.
 */
#include <string.h>

#include "fuzz.h"
#include "zipcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT, why = TF_BUF_INIT;
	int rc;

	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, "x-1.0-py3-none-any.whl", data, size, &path);
	rc = tf_zipcheck(path.buf, &why);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	FUZZ_ASSERT(rc == 0 ? why.len == 0 : why.len > 0);
	FUZZ_ASSERT(why.len == strlen(why.buf));
	tf_buf_release(&why);
	tf_buf_release(&path);
	fuzz_dir_remove(&dir);
	return 0;
}
