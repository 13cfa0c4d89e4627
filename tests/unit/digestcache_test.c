#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "digestcache.h"
#include "hash.h"
#include "path.h"
#include "stamp.h"

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
	const char text[] =
		"tfbuild-file-digests 1\nnot hex 1 2 3 4 5 /src/a.c\n"
		"0000 1 2\n\n";

	CHECK_INT(tf_write_file_atomic(file, text, sizeof(text) - 1, 0), 0);
	tf_digest_cache_open(file);
	CHECK(!tf_digest_cache_lookup("/src/a.c", &st, got));
	tf_digest_cache_close(0);
	/* Without a cache open, nothing hits and nothing is kept. */
	CHECK(!tf_digest_cache_lookup("/src/a.c", &st, got));
}

/* What is stored is found once settled; of two for one path, the later. */
static void test_settle(const char *file)
{
	unsigned char md1[TF_SHA256_LEN], md2[TF_SHA256_LEN],
		got[TF_SHA256_LEN];
	struct stat st = fake(1000, 1000), st2 = fake(1000, 2000);

	memset(md1, 1, sizeof(md1));
	memset(md2, 2, sizeof(md2));
	unlink(file);
	tf_digest_cache_open(file);
	tf_digest_cache_store("/src/a.c", &st, md1);
	tf_digest_cache_store("/src/a.c", &st2, md2);
	tf_digest_cache_store("/src/b.c", &st, md1);
	CHECK(!tf_digest_cache_stored("/src/a.c"));
	tf_digest_cache_settle();
	CHECK(tf_digest_cache_stored("/src/a.c"));
	CHECK(tf_digest_cache_stored("/src/b.c"));
	CHECK(!tf_digest_cache_stored("/src/c.c"));
	CHECK(!tf_digest_cache_lookup("/src/a.c", &st, got));
	CHECK(tf_digest_cache_lookup("/src/a.c", &st2, got));
	CHECK(!memcmp(got, md2, sizeof(got)));
	CHECK(tf_digest_cache_lookup("/src/b.c", &st, got));
	/* Many at once (a wheel's files) are sorted in: the later kept. */
	{
		char name[64];
		int i, all = 1;

		for (i = 40; i > 0; i--) {
			snprintf(name, sizeof(name), "/src/many/%02d.c", i);
			tf_digest_cache_store(name, &st, md1);
		}
		tf_digest_cache_store("/src/b.c", &st2, md2);
		tf_digest_cache_settle();
		for (i = 1; i <= 40; i++) {
			snprintf(name, sizeof(name), "/src/many/%02d.c", i);
			all &= tf_digest_cache_lookup(name, &st, got);
		}
		CHECK(all);
		CHECK(!tf_digest_cache_lookup("/src/b.c", &st, got));
		CHECK(tf_digest_cache_lookup("/src/b.c", &st2, got));
		CHECK(!memcmp(got, md2, sizeof(got)));
	}
	tf_digest_cache_close(1);
	/* Loaded again: found, but not stored in this run. */
	tf_digest_cache_open(file);
	CHECK(!tf_digest_cache_stored("/src/b.c"));
	tf_digest_cache_close(0);
}

static void put(const char *dir, const char *name, const char *text)
{
	struct tf_buf path = TF_BUF_INIT;

	tf_path_join(&path, dir, name);
	CHECK_INT(tf_write_file_atomic(path.buf, text, strlen(text), 0644), 0);
	tf_buf_release(&path);
}

/* The writer's digest, as pack.c stores it (wheel.h's on_file). */
static void writer_read(const char *dir, const char *name, int wrong)
{
	struct tf_buf path = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	struct stat st;

	tf_path_join(&path, dir, name);
	CHECK_INT(lstat(path.buf, &st), 0);
	CHECK_INT(tf_sha256_file(path.buf, md, NULL), 0);
	md[0] ^= (unsigned char)wrong;
	tf_digest_cache_store(path.buf, &st, md);
	tf_buf_release(&path);
}

/*
 * A tree digest after packing takes each file's digest from what the
 * writer read, without reading it again; a file changed since is an error.
 */
static void test_tree_after_packing(const char *file, const char *dir)
{
	char tree[PATH_MAX], want[TF_SHA256_HEX_LEN + 1],
		got[TF_SHA256_HEX_LEN + 1];

	snprintf(tree, sizeof(tree), "%s/tree", dir);
	CHECK_INT(tf_mkdir_p(tree), 0);
	put(tree, "a.py", "A = 1\n");
	put(tree, "b.py", "B = 2\n");
	tf_digest_cache_close(0);
	CHECK_INT(tf_tree_digest(tree, want), 0);

	unlink(file);
	tf_digest_cache_open(file);
	writer_read(tree, "a.py", 0);
	writer_read(tree, "b.py", 0);
	CHECK_INT(tf_tree_digest_packed(tree, got), 0);
	CHECK_STR(got, want);
	tf_digest_cache_close(0);

	/* A digest the writer reported is used as is: the file is not read. */
	unlink(file);
	tf_digest_cache_open(file);
	writer_read(tree, "a.py", 0xff);
	CHECK_INT(tf_tree_digest_packed(tree, got), 0);
	CHECK(strcmp(got, want) != 0);
	tf_digest_cache_close(0);

	/* Rewritten after the writer read it: the wheel may hold the old bytes. */
	unlink(file);
	tf_digest_cache_open(file);
	writer_read(tree, "a.py", 0);
	put(tree, "a.py", "A = 3\n");
	CHECK_INT(tf_tree_digest_packed(tree, got), -1);
	/* Before packing, a change is simply digested. */
	CHECK_INT(tf_tree_digest(tree, got), 0);
	CHECK(strcmp(got, want) != 0);
	tf_digest_cache_close(0);
}

/* A file's digest through the cache: read once, then found by its stat. */
static void test_file(const char *file, const char *dir)
{
	unsigned char md[TF_SHA256_LEN], want[TF_SHA256_LEN];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/w.whl", dir);
	put(dir, "w.whl", "wheel bytes\n");
	CHECK_INT(tf_sha256_file(path, want, NULL), 0);
	unlink(file);
	tf_digest_cache_open(file);
	CHECK_INT(tf_digest_cache_file(path, md), 0);
	CHECK(!memcmp(md, want, sizeof(md)));
	CHECK(tf_digest_cache_stored(path) == 0); /* not settled yet */
	tf_digest_cache_settle();
	CHECK(tf_digest_cache_stored(path));
	CHECK_INT(tf_digest_cache_file(path, md), 0);
	CHECK(!memcmp(md, want, sizeof(md)));
	put(dir, "w.whl", "other bytes\n");
	CHECK_INT(tf_digest_cache_file(path, md), 0);
	CHECK(memcmp(md, want, sizeof(md)) != 0);
	CHECK_INT(tf_digest_cache_file("/nonexistent/w.whl", md), -1);
	tf_digest_cache_close(0);
}

/*
 * A file written before paths were kept as directory and name (format 1,
 * one full path a line) is read as it is: its entries hit.
 */
static void test_format1(const char *file)
{
	unsigned char got[TF_SHA256_LEN], want[TF_SHA256_LEN];
	struct stat st = fake(1000, 2000);
	const char text[] =
		"tfbuild-file-digests 1\n"
		"abababababababababababababababababababababababababababababababab"
		" 7 42 100 1000000000000 2000000000000 /src/a.c\n"
		"0101010101010101010101010101010101010101010101010101010101010101"
		" 7 42 100 1000000000000 2000000000000 /other/a.c\n"
		"0202020202020202020202020202020202020202020202020202020202020202"
		" 7 42 100 1000000000000 2000000000000 relative\n";

	CHECK_INT(tf_write_file_atomic(file, text, sizeof(text) - 1, 0), 0);
	tf_digest_cache_open(file);
	memset(want, 0xab, sizeof(want));
	CHECK(tf_digest_cache_lookup("/src/a.c", &st, got));
	CHECK(!memcmp(got, want, sizeof(want)));
	memset(want, 1, sizeof(want));
	CHECK(tf_digest_cache_lookup("/other/a.c", &st, got));
	CHECK(!memcmp(got, want, sizeof(want)));
	memset(want, 2, sizeof(want));
	CHECK(tf_digest_cache_lookup("relative", &st, got));
	CHECK(!memcmp(got, want, sizeof(want)));
	CHECK(!tf_digest_cache_lookup("/src/b.c", &st, got));
	CHECK(!tf_digest_cache_lookup("/src", &st, got));
	CHECK(!tf_digest_cache_lookup("/nowhere/a.c", &st, got));
	CHECK(!tf_digest_cache_lookup("a.c", &st, got));
	tf_digest_cache_close(0);
}

/*
 * Many files in a few directories, one stored twice: saved and loaded,
 * each hits with its own digest, the later store of the two wins, and
 * the file is still format 1 with full paths.
 */
static void test_many(const char *file)
{
	unsigned char md[TF_SHA256_LEN], got[TF_SHA256_LEN];
	struct stat st = fake(1000, 1000);
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	int i, bad = 0;

	tf_digest_cache_open(file);
	for (i = 0; i < 3000; i++) {
		tf_buf_reset(&path);
		tf_buf_addf(&path, "/tree/d%02d/f%d.py", i % 37, i);
		memset(md, 0, sizeof(md));
		memcpy(md, &i, sizeof(i));
		tf_digest_cache_store(path.buf, &st, md);
	}
	memset(md, 0xee, sizeof(md));
	tf_digest_cache_store("/tree/d00/f0.py", &st, md);
	tf_digest_cache_close(1);

	CHECK_INT(tf_read_file(file, &text), 0);
	CHECK(strstr(text.buf, " /tree/d05/f5.py\n") != NULL);
	tf_digest_cache_open(file);
	for (i = 1; i < 3000; i++) {
		tf_buf_reset(&path);
		tf_buf_addf(&path, "/tree/d%02d/f%d.py", i % 37, i);
		memset(md, 0, sizeof(md));
		memcpy(md, &i, sizeof(i));
		bad += !tf_digest_cache_lookup(path.buf, &st, got) ||
		       memcmp(got, md, sizeof(md));
	}
	CHECK_INT(bad, 0);
	memset(md, 0xee, sizeof(md));
	CHECK(tf_digest_cache_lookup("/tree/d00/f0.py", &st, got));
	CHECK(!memcmp(got, md, sizeof(md)));
	/* The name in another directory is another file. */
	CHECK(!tf_digest_cache_lookup("/tree/d01/f0.py", &st, got));
	tf_digest_cache_close(0);
	tf_buf_release(&path);
	tf_buf_release(&text);
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
	test_settle(file.buf);
	test_tree_after_packing(file.buf, dir);
	test_file(file.buf, dir);
	test_format1(file.buf);
	test_many(file.buf);
	tf_rm_rf(dir);
	tf_buf_release(&file);
	return unit_done();
}
