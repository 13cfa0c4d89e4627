/*
 * The memory an .xz or .lzma source needs, read from its headers
 * (xzmem.c, liblzma's index and block header decoders) before
 * libarchive is let near it: stream flags, indexes, block headers and
 * filter chains from the input, over one or several streams. A file
 * that is not xz needs nothing; reading must not depend on anything
 * but the bytes (run twice, the answer is the same).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "xzmem.h"

/* The index memory budget: what an index may take before it is refused. */
#define LIMIT ((uint64_t)64 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT;
	uint64_t need = 1, again = 1;
	int fd, rc;

	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, "src.tar.xz", data, size, &path);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	FUZZ_ASSERT(fd >= 0);
	rc = tf_xz_memusage(fd, "src.tar.xz", LIMIT, &need);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	FUZZ_ASSERT(rc == tf_xz_memusage(fd, "src.tar.xz", LIMIT, &again));
	FUZZ_ASSERT(rc || need == again);
	if (size < 13 || (memcmp(data, xz, sizeof(xz)) && data[0] >= 225))
		FUZZ_ASSERT(rc == 0 && need == 0);
	close(fd);
	tf_buf_release(&path);
	fuzz_dir_remove(&dir);
	return 0;
}
