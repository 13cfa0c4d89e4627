#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "path.h"
#include "spool.h"

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* What goes in, over many 64 KiB chunks, comes back; no name is left. */
static void test_roundtrip(const char *dir)
{
	struct tf_spool s = TF_SPOOL_INIT;
	struct tf_buf want = TF_BUF_INIT, got = TF_BUF_INIT;
	char chunk[1000];
	ssize_t n;
	int i;

	CHECK_INT(tf_spool_open(&s, dir), 0);
	CHECK_INT(entries(dir), 0);
	for (i = 0; i < 20000; i++) {
		char line[64];
		int k = snprintf(line, sizeof(line),
				 "pkg/m%05d.py,sha256=x,%d\n", i, i * 7);

		tf_spool_add(&s, line, (size_t)k);
		tf_buf_add(&want, line, (size_t)k);
	}
	CHECK_INT(s.size, want.len);
	CHECK_INT(tf_spool_rewind(&s), 0);
	while ((n = tf_spool_read(&s, chunk, sizeof(chunk))) > 0)
		tf_buf_add(&got, chunk, (size_t)n);
	CHECK_INT(n, 0);
	CHECK_INT(got.len, want.len);
	CHECK(!memcmp(got.buf, want.buf, want.len));
	tf_spool_release(&s);
	tf_spool_release(&s);
	CHECK_INT(entries(dir), 0);
	tf_buf_release(&want);
	tf_buf_release(&got);
}

/* No such folder: -1 with errno, for the caller to name the folder. */
static void test_no_dir(const char *dir)
{
	struct tf_spool s = TF_SPOOL_INIT;
	char *missing = tf_xstrfmt("%s/missing", dir);

	errno = 0;
	CHECK_INT(tf_spool_open(&s, missing), -1);
	CHECK_INT(errno, ENOENT);
	tf_spool_release(&s);
	free(missing);
}

int main(void)
{
	char dir[] = "/tmp/spool_test.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_roundtrip(dir);
	test_no_dir(dir);
	tf_rm_rf(dir);
	return unit_done();
}
