/*
 * SHA256SUMS and provenance statements arrive beside the wheels they
 * vouch for (`tfbuild verify --sums --provenance`). The input is read as
 * both; what is read must pair every name with a hex digest.
 */
#include <string.h>

#include "attest.h"
#include "fuzz.h"
#include "hash.h"

static void check(const struct tf_sums *sums)
{
	size_t i;

	FUZZ_ASSERT(sums->names.nr == sums->digests.nr);
	for (i = 0; i < sums->digests.nr; i++) {
		FUZZ_ASSERT(strlen(sums->digests.v[i]) == TF_SHA256_HEX_LEN);
		FUZZ_ASSERT(tf_sha256_is_hex(sums->digests.v[i]));
		/* tf_sums_find is linear: look up the first few only. */
		if (i < 64)
			FUZZ_ASSERT(tf_sums_find(sums, sums->names.v[i]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT;
	struct tf_sums sums = TF_SUMS_INIT;

	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, "SHA256SUMS", data, size, &path);
	if (!tf_sums_read(path.buf, &sums))
		check(&sums);
	tf_sums_release(&sums);
	tf_sums_release(&sums);
	if (!tf_provenance_read_subjects(path.buf, &sums))
		check(&sums);
	tf_sums_release(&sums);
	tf_buf_release(&path);
	fuzz_dir_remove(&dir);
	return 0;
}
