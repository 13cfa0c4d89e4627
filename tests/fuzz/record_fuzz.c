/*
 * RECORD, the CSV file every wheel lists its files in: tf_record_next()
 * rewrites the buffer in place, so it is the parser most likely to write
 * past what it was given. Each row must move forward and its fields must
 * lie inside the buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "verify.h"

static int inside(const char *p, const char *buf, size_t size)
{
	return p >= buf && p <= buf + size && p + strlen(p) <= buf + size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size);
	size_t len = strlen(buf);
	struct tf_record_reader r = TF_RECORD_READER_INIT(buf);
	char *last = buf;
	int got;

	while ((got = tf_record_next(&r)) > 0) {
		FUZZ_ASSERT(r.pos > last && r.pos <= buf + len);
		FUZZ_ASSERT(inside(r.path, buf, len) &&
			    inside(r.hash, buf, len) &&
			    inside(r.size, buf, len));
		FUZZ_ASSERT(r.row_line >= 1 && r.row_line <= r.line);
		last = r.pos;
	}
	FUZZ_ASSERT(got == 0 || got == -1);
	FUZZ_ASSERT(r.pos >= last && r.pos <= buf + len);
	free(buf);
	return 0;
}
