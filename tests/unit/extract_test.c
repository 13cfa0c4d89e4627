#include "unit.h"

#include "buf.h"
#include "extract.h"

static void test_strip(void)
{
	static const struct {
		const char *path;
		int strip;
		const char *want; /* NULL: nothing left */
	} cases[] = {
		{ "pkg-1.0/src/a.c", 1, "src/a.c" },
		{ "pkg-1.0/src/a.c", 0, "pkg-1.0/src/a.c" },
		{ "pkg-1.0/src/a.c", 2, "a.c" },
		{ "pkg-1.0/src/a.c", 3, NULL },
		{ "pkg-1.0/", 1, NULL },
		{ "pkg-1.0", 1, NULL },
		{ "./pkg-1.0/a.c", 1, "a.c" },
		{ ".", 0, NULL },
		{ "a//b/./c/", 0, "a/b/c" },
		{ "a//b/./c/", 1, "b/c" },
		{ "pkg/sub/", 1, "sub" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct tf_buf out = TF_BUF_INIT;
		int left =
			tf_extract_strip(cases[i].path, cases[i].strip, &out);

		CHECK_INT(left, cases[i].want != NULL);
		CHECK_STR(out.buf, cases[i].want ? cases[i].want : "");
		tf_buf_release(&out);
	}
}

static void test_strip_appends(void)
{
	struct tf_buf out = TF_BUF_INIT;

	tf_buf_addstr(&out, "x:");
	CHECK_INT(tf_extract_strip("p/a/b", 1, &out), 1);
	CHECK_STR(out.buf, "x:a/b");
	CHECK_INT(tf_extract_strip("p/", 1, &out), 0);
	CHECK_STR(out.buf, "x:a/b");
	tf_buf_release(&out);
}

static void test_symlink(void)
{
	static const struct {
		const char *path;   /* the link, relative to the root */
		const char *target; /* what it points at */
		enum tf_link_check want;
	} cases[] = {
		{ "link", "a.txt", TF_LINK_INSIDE },
		{ "link", "./sub/a.txt", TF_LINK_INSIDE },
		{ "link", ".", TF_LINK_INSIDE },
		{ "link", "", TF_LINK_INSIDE },
		{ "link", "/etc/passwd", TF_LINK_OUTSIDE },
		{ "link", "/", TF_LINK_OUTSIDE },
		{ "link", "..", TF_LINK_OUTSIDE },
		{ "link", "../x", TF_LINK_OUTSIDE },
		{ "sub/link", "../x", TF_LINK_INSIDE },
		{ "sub/link", "..", TF_LINK_INSIDE },
		{ "sub/link", "../../x", TF_LINK_OUTSIDE },
		{ "a/b/link", "../../x", TF_LINK_INSIDE },
		{ "a/b/link", ".././../x", TF_LINK_INSIDE },
		{ "a/b/link", "../../../x", TF_LINK_OUTSIDE },
		{ "a/b/link", "..//..//..", TF_LINK_OUTSIDE },
		{ "link", "a/..", TF_LINK_DOTDOT_AFTER_NAME },
		{ "a/link", "../b/../c", TF_LINK_DOTDOT_AFTER_NAME },
		{ "link", "a/../../x", TF_LINK_DOTDOT_AFTER_NAME },
		{ "link", "...", TF_LINK_INSIDE },
		{ "link", "..a/b", TF_LINK_INSIDE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		enum tf_link_check got = tf_extract_check_symlink(
			cases[i].path, cases[i].target);

		CHECK_INT(got, cases[i].want);
		if (got != cases[i].want)
			printf("#   link '%s' -> '%s'\n", cases[i].path,
			       cases[i].target);
	}
}

int main(void)
{
	test_strip();
	test_strip_appends();
	test_symlink();
	return unit_done();
}
