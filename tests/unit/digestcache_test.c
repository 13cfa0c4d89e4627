#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "digestcache.h"
#include "path.h"

static struct stat fake(long long mtime, long long ctime)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_dev = 7;
	st.st_ino = 42;
	st.st_size = 100;
	st.st_mtim.tv_sec = (time_t)mtime;
	st.st_ctim.tv_sec = (time_t)ctime;
	return st;
}

/* Stored, saved, loaded again: a hit only for the same stat identity. */
static void test_roundtrip(const char *file)
{
	unsigned char md[TF_SHA256_LEN], got[TF_SHA256_LEN];
	struct stat st = fake(1000, 1000), other;

	memset(md, 0xab, sizeof(md));
	tf_digest_cache_open(file);
	CHECK(!tf_digest_cache_lookup("/src/a.c", &st, got));
	tf_digest_cache_store("/src/a.c", &st, md);
	tf_digest_cache_store("/src/with\nnewline", &st, md);
	tf_digest_cache_close(1);

	tf_digest_cache_open(file);
	CHECK(tf_digest_cache_lookup("/src/a.c", &st, got));
	CHECK(!memcmp(got, md, sizeof(md)));
	CHECK(!tf_digest_cache_lookup("/src/b.c", &st, got));
	CHECK(!tf_digest_cache_lookup("/src/with\nnewline", &st, got));
	other = st;
	other.st_ctim.tv_sec++; /* rewritten, size and mtime put back */
	CHECK(!tf_digest_cache_lookup("/src/a.c", &other, got));
	other = st;
	other.st_ino++;
	CHECK(!tf_digest_cache_lookup("/src/a.c", &other, got));
	other = st;
	other.st_size++;
	CHECK(!tf_digest_cache_lookup("/src/a.c", &other, got));
	tf_digest_cache_close(0);
}

/* An entry not older than the cache file is racily clean: dropped. */
static void test_racy(const char *file)
{
	unsigned char md[TF_SHA256_LEN], got[TF_SHA256_LEN];
	struct stat st = fake(4000000000LL, 4000000000LL);

	memset(md, 1, sizeof(md));
	tf_digest_cache_open(file);
	tf_digest_cache_store("/src/future.c", &st, md);
	tf_digest_cache_close(1);
	tf_digest_cache_open(file);
	CHECK(!tf_digest_cache_lookup("/src/future.c", &st, got));
	tf_digest_cache_close(0);
}

static void test_garbage(const char *file)
{
	unsigned char got[TF_SHA256_LEN];
	struct stat st = fake(1000, 1000);
	const char text[] = "tfbuild-file-digests 1\nnot hex 1 2 3 4 5 /src/a.c\n"
			    "0000 1 2\n\n";

	CHECK_INT(tf_write_file_atomic(file, text, sizeof(text) - 1, 0), 0);
	tf_digest_cache_open(file);
	CHECK(!tf_digest_cache_lookup("/src/a.c", &st, got));
	tf_digest_cache_close(0);
	/* Without a cache open, nothing hits and nothing is kept. */
	CHECK(!tf_digest_cache_lookup("/src/a.c", &st, got));
}

int main(void)
{
	char dir[] = "/tmp/digestcache_test.XXXXXX";
	struct tf_buf file = TF_BUF_INIT;

	if (!mkdtemp(dir))
		return 1;
	tf_path_join(&file, dir, "file-digests");
	test_roundtrip(file.buf);
	test_racy(file.buf);
	test_garbage(file.buf);
	tf_rm_rf(dir);
	tf_buf_release(&file);
	return unit_done();
}
