#include "unit.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "xzmem.h"

/* Write data to a temporary file; its fd, or -1. */
static int temp_file(const unsigned char *data, size_t size)
{
	char path[] = "/tmp/tfbuild-xzmem-test.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Found by make fuzz (xzmem): a 60-byte xz file whose index claims
 * about 190 million records. liblzma, given no memory limit, allocated
 * 3 GB for them before it noticed the file ended; then only the first
 * block was checked, so the claim passed. Now the index is read within
 * the caller's budget and its need is reported over it.
 */
static const unsigned char index_claim[] = {
	0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46,
	0xfc, 0x00, 0x21, 0x01, 0x1c, 0x00, 0x08, 0x00, 0x10, 0xcf, 0x58, 0xcc,
	0x01, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00, 0x00, 0x45, 0xae, 0xef, 0x83,
	0xf8, 0xee, 0x16, 0x0a, 0x00, 0xff, 0xe6, 0xfe, 0x5a, 0xd3, 0x7e, 0x36,
	0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a,
};

static void test_index_claim(void)
{
	uint64_t limit = (uint64_t)64 << 20, need = 0;
	int fd = temp_file(index_claim, sizeof(index_claim));

	CHECK(fd >= 0);
	CHECK_INT(tf_xz_memusage(fd, "claim.tar.xz", limit, &need), 0);
	/* What the index would take, not the first block's 8 MiB. */
	CHECK(need > (uint64_t)1 << 30);
	close(fd);
}

int main(void)
{
	test_index_claim();
	return unit_done();
}
