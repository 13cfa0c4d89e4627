#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>
#include <minizip/unzip.h>

#include "zipout.h"

/* Source-like text that libdeflate's levels 6 and 7 deflate differently. */
static unsigned char *salad(size_t n, unsigned seed)
{
	static const char *const words[] = {
		"def",  "self",  "return", "tensor", "index",  "    ",
		"\n",   "(",     ")",      "kernel", "stride", "for",
		"in",   "range", "if",     "else",   "buffer", "device",
		"1024", "32",    ",",      ":",      "import", "yield",
	};
	unsigned char *p = malloc(n);
	size_t i = 0;

	while (i < n) {
		const char *w;

		seed = seed * 1103515245u + 12345u;
		w = words[(seed >> 16) % (sizeof(words) / sizeof(words[0]))];
		while (*w && i < n)
			p[i++] = (unsigned char)*w++;
		if (i < n)
			p[i++] = ' ';
	}
	return p;
}

static size_t deflated(int level, const unsigned char *in, size_t n,
		       unsigned char *out, size_t room)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	size_t len = libdeflate_deflate_compress(c, in, n, out, room);

	libdeflate_free_compressor(c);
	return len;
}

/* The entry's stored (raw) bytes, read back with minizip. */
static size_t raw_entry(unzFile u, const char *name, unsigned char *out,
			size_t room)
{
	int method, level, n;

	if (unzLocateFile(u, name, 1) != UNZ_OK ||
	    unzOpenCurrentFile2(u, &method, &level, 1) != UNZ_OK)
		return 0;
	n = unzReadCurrentFile(u, out, (unsigned)room);
	unzCloseCurrentFile(u);
	return n > 0 ? (size_t)n : 0;
}

/*
 * zlib's level 6 is libdeflate's 6 for an entry that fits in deflate's
 * 32 KiB window, and libdeflate's 7 for a longer one (zipout.c says
 * why); the thread count changes nothing.
 */
static void test_level_by_length(const char *dir, int jobs)
{
	static const size_t sizes[] = { 1000, 32768, 32769, 100000 };
	char path[4096];
	unsigned char *got = malloc(1 << 18), *want = malloc(1 << 18);
	struct tf_zipout *z;
	unzFile u;
	size_t i;

	snprintf(path, sizeof(path), "%s/levels-%d.zip", dir, jobs);
	z = tf_zipout_open(path, 6, jobs, path);
	CHECK(z != NULL);
	if (!z)
		goto out;
	for (i = 0; i < 4; i++) {
		unsigned char *in = salad(sizes[i], (unsigned)i);
		char name[32];

		snprintf(name, sizeof(name), "e%zu", sizes[i]);
		CHECK_INT(tf_zipout_begin(z, name, 0644, 1700000000,
					  (long long)sizes[i]),
			  0);
		CHECK_INT(tf_zipout_write(z, in, sizes[i]), 0);
		CHECK_INT(tf_zipout_end(z), 0);
		free(in);
	}
	CHECK_INT(tf_zipout_close(z), 0);
	u = unzOpen64(path);
	CHECK(u != NULL);
	for (i = 0; u && i < 4; i++) {
		unsigned char *in = salad(sizes[i], (unsigned)i);
		int small = sizes[i] <= 32768;
		char name[32];
		size_t n, w;
		int same6, same7;

		snprintf(name, sizeof(name), "e%zu", sizes[i]);
		n = raw_entry(u, name, got, 1 << 18);
		w = deflated(6, in, sizes[i], want, 1 << 18);
		same6 = n == w && !memcmp(got, want, n);
		w = deflated(7, in, sizes[i], want, 1 << 18);
		same7 = n == w && !memcmp(got, want, n);
		printf("# %s: %zu bytes deflated to %zu\n", name, sizes[i], n);
		CHECK(n > 0);
		CHECK(small ? same6 : same7);
		/* Otherwise the check above could not tell the levels apart. */
		CHECK(!(same6 && same7) || sizes[i] == 1000);
		free(in);
	}
	if (u)
		unzClose(u);
out:
	free(got);
	free(want);
}

static int same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca = EOF, cb = EOF, same = fa && fb;

	while (same && (ca = getc(fa)) == (cb = getc(fb)) && ca != EOF)
		;
	same = same && ca == cb;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

int main(void)
{
	char dir[] = "/tmp/zipout_test.XXXXXX";
	char one[4096], three[4096];

	if (!mkdtemp(dir))
		return 1;
	test_level_by_length(dir, 1);
	test_level_by_length(dir, 3);
	snprintf(one, sizeof(one), "%s/levels-1.zip", dir);
	snprintf(three, sizeof(three), "%s/levels-3.zip", dir);
	CHECK(same_bytes(one, three));
	unlink(one);
	unlink(three);
	rmdir(dir);
	return unit_done();
}
