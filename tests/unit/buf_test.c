#include "unit.h"

#include <stdlib.h>

#include "buf.h"
#include "hash.h"
#include "path.h"

static void test_buf(void)
{
	struct tf_buf b = TF_BUF_INIT;

	CHECK(b.buf != NULL && b.buf[0] == '\0');
	tf_buf_addstr(&b, "abc");
	tf_buf_addf(&b, "-%d", 42);
	CHECK_STR(b.buf, "abc-42");
	CHECK_INT(b.len, 6);
	tf_buf_reset(&b);
	CHECK_STR(b.buf, "");
	tf_buf_release(&b);
	tf_buf_release(&b);
	CHECK(b.buf != NULL && b.len == 0);
}

static void test_buf_cap(void)
{
	struct tf_buf b = TF_BUF_INIT;

	b.cap = 4;
	CHECK_INT(tf_buf_addstr(&b, "abcd"), 0);
	CHECK_INT(tf_buf_addch(&b, 'e'), -1);
	CHECK_STR(b.buf, "abcd");
	tf_buf_release(&b);
}

static void test_trim(void)
{
	char a[] = "  key = value \t\n", b[] = "", c[] = " \t ";

	CHECK_STR(tf_str_trim(a), "key = value");
	CHECK_STR(tf_str_trim(b), "");
	CHECK_STR(tf_str_trim(c), "");
}

static void test_strvec(void)
{
	struct tf_strvec sv = TF_STRVEC_INIT;
	struct tf_buf b = TF_BUF_INIT;
	int i;

	CHECK(sv.v[0] == NULL);
	for (i = 0; i < 20; i++)
		tf_strvec_pushf(&sv, "s%d", i);
	CHECK_INT(sv.nr, 20);
	CHECK(sv.v[20] == NULL);
	tf_strvec_join(&sv, ",", &b);
	CHECK(!strncmp(b.buf, "s0,s1,s2,", 9));
	tf_strvec_release(&sv);
	tf_strvec_release(&sv);
	CHECK(sv.nr == 0 && sv.v[0] == NULL);
	tf_buf_release(&b);
}

static void test_paths(void)
{
	static const struct {
		const char *path;
		int safe;
	} cases[] = {
		{ "a/b", 1 },    { "a/../b", 0 }, { "/etc/passwd", 0 },
		{ "..", 0 },     { "", 0 },       { "a/..b", 1 },
		{ "a/b/..", 0 }, { "./a", 1 },    { "a//b", 1 },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		CHECK_INT(tf_path_is_safe_relative(cases[i].path),
			  cases[i].safe);
	tf_path_join(&b, "a/", "/b");
	CHECK_STR(b.buf, "a/b");
	tf_buf_reset(&b);
	tf_path_dirname(&b, "x/y/z.yaml");
	CHECK_STR(b.buf, "x/y");
	tf_buf_reset(&b);
	tf_path_dirname(&b, "z.yaml");
	CHECK_STR(b.buf, ".");
	CHECK_STR(tf_path_basename("x/y/z.yaml"), "z.yaml");
	tf_buf_release(&b);
}

/* RFC 4648 section 10's vectors, and what decoding refuses. */
static void test_base64(void)
{
	static const char *const plain[] = { "",     "f",     "fo",    "foo",
					     "foob", "fooba", "foobar" };
	static const char *const coded[] = {
		"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"
	};
	static const char *const bad[] = { "Zg=",   "Z===", "Zg=a",
					   "Zm9v!", "Zm=v", "Zm9vY" };
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
		tf_buf_reset(&b);
		tf_base64_encode(plain[i], strlen(plain[i]), &b);
		CHECK_STR(b.buf, coded[i]);
		tf_buf_reset(&b);
		CHECK_INT(tf_base64_decode(coded[i], strlen(coded[i]), &b), 0);
		CHECK_STR(b.buf, plain[i]);
		CHECK_INT(b.len, strlen(plain[i]));
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		tf_buf_reset(&b);
		CHECK_INT(tf_base64_decode(bad[i], strlen(bad[i]), &b), -1);
		CHECK_INT(b.len, 0);
	}
	tf_buf_release(&b);
}

int main(void)
{
	test_base64();
	test_buf();
	test_buf_cap();
	test_trim();
	test_strvec();
	test_paths();
	return unit_done();
}
