#include "unit.h"

#include <stdlib.h>

#include "buf.h"
#include "patch.h"

/* Scan a whole patch text; return the first unsafe path or NULL. */
static char *scan(const char *text, int strip)
{
	struct tf_patch_scan s = TF_PATCH_SCAN_INIT(strip);
	struct tf_buf line = TF_BUF_INIT, bad = TF_BUF_INIT;
	char *ret = NULL;

	while (*text && !ret) {
		size_t n = strcspn(text, "\n");

		tf_buf_reset(&line);
		tf_buf_add(&line, text, n);
		if (tf_patch_scan_line(&s, line.buf, &bad))
			ret = tf_buf_detach(&bad);
		text += n;
		text += *text == '\n';
	}
	tf_buf_release(&line);
	tf_buf_release(&bad);
	return ret;
}

static void test_scan(void)
{
	static const struct {
		int strip;
		const char *patch;
		const char *bad; /* NULL: safe */
	} cases[] = {
		{ 1, "--- a/src/a.c\t2024-01-01\n+++ b/src/a.c\t2024-01-01\n",
		  NULL },
		{ 1, "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n",
		  "../../etc/passwd" },
		{ 1, "--- a/src/a.c\n+++ b/src/../../x\n", "src/../../x" },
		{ 0, "--- /etc/passwd\n", "/etc/passwd" },
		/* -p1 turns "/etc/passwd" into "etc/passwd", as patch does. */
		{ 1, "--- /etc/passwd\n", NULL },
		{ 1, "--- /dev/null\n+++ b/new.c\n", NULL },
		{ 0, "--- /dev/null\n+++ new.c\n", NULL },
		/* A name ends at a tab, so a date after it is no part of it. */
		{ 1, "--- a/x.c\t../../2024\n", NULL },
		/* Without a tab it ends at the first space. */
		{ 1, "--- a/.. x\n", ".." },
		/* With a tab later, it may hold spaces. */
		{ 1, "--- a/my dir/../../x\t2024\n", "my dir/../../x" },
		{ 1, "--- a/my file.c\t2024\n", NULL },
		/* Too few slashes: patch ignores the name. */
		{ 2, "--- a/..\n", NULL },
		{ 1, "--- a//..//x\n", "..//x" },
		{ 1, "--- \"a/\\056\\056/x\"\n", "../x" },
		{ 1, "--- \"a/b\\tc\"\n", NULL },
		{ 1, "--- a/../x\r\n", "../x" },
		{ 1, "*** a/../x\n", "../x" },
		{ 0, "Index: ../x\n", "../x" },
		{ 1, "diff --git a/x b/../y\n", "../y" },
		{ 1, "diff --git a/x b/x\n", NULL },
		{ 1, "diff --git \"a/x y\" \"b/../y\"\n", "../y" },
		{ 1, "diff --git a/x b/y\nrename from x\nrename to ../../y\n",
		  "../../y" },
		{ 1, "diff --git a/x b/y\ncopy from /etc/passwd\n",
		  "/etc/passwd" },
		{ 1, "diff --git a/x b/y\nrename from old dir/x\n", NULL },
		/* A removed line "-- ../x" inside a hunk is no header. */
		{ 1,
		  "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n keep\n"
		  "--- a/../x\n",
		  NULL },
		{ 1,
		  "--- a/q.sql\n+++ b/q.sql\n@@ -1 +1,2 @@\n keep\n"
		  "+++ a/../x\n",
		  NULL },
		/* ...but after the hunk's counted lines, it is. */
		{ 1,
		  "--- a/q.sql\n+++ b/q.sql\n@@ -1 +1 @@\n-old\n+new\n"
		  "--- a/../x\n",
		  "../x" },
		/* A line that cannot be in the hunk ends it early. */
		{ 1, "--- a/q\n+++ b/q\n@@ -1,5 +1,5 @@\n a\nIndex: x/../z\n",
		  "../z" },
		{ 1,
		  "--- a/q\n+++ b/q\n@@ -1,2 +1,2 @@\n a\n\\ No newline at end of file\n"
		  " b\n--- a/../w\n",
		  "../w" },
		{ 1, "random text\n-- a/../x\n", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = scan(cases[i].patch, cases[i].strip);

		if (cases[i].bad) {
			CHECK_STR(got, cases[i].bad);
		} else {
			CHECK(got == NULL);
			if (got)
				printf("#   case %zu: got '%s'\n", i, got);
		}
		free(got);
	}
}

static void test_explain(void)
{
	static const struct {
		const char *output; /* what GNU patch printed */
		int strip;
		const char *want; /* messages joined with '\n' */
	} cases[] = {
		{ "checking file src/a.c\nHunk #2 FAILED at 40.\n"
		  "1 out of 2 hunks FAILED\n",
		  1, "hunk #2 of 'src/a.c' does not apply (at line 40)" },
		{ "checking file src/a.c\nHunk #1 FAILED at 3.\n"
		  "Hunk #3 FAILED at 70.\n2 out of 3 hunks FAILED\n"
		  "checking file src/b.c\nHunk #1 FAILED at 1 (different line endings).\n",
		  1,
		  "hunk #1 of 'src/a.c' does not apply (at line 3)\n"
		  "hunk #3 of 'src/a.c' does not apply (at line 70)\n"
		  "hunk #1 of 'src/b.c' does not apply (at line 1, different line endings)" },
		{ "checking file src/a.c\n"
		  "Reversed (or previously applied) patch detected!  Skipping patch.\n"
		  "2 out of 2 hunks ignored\n",
		  1, "already applied or reversed on 'src/a.c'" },
		{ "can't find file to patch at input line 3\n"
		  "Perhaps you used the wrong -p or --strip option?\n"
		  "The text leading up to this was:\n"
		  "--------------------------\n"
		  "|--- a/src/missing.c\t2024-01-01 00:00:00\n"
		  "|+++ b/src/missing.c\t2024-01-01 00:00:00\n"
		  "--------------------------\n"
		  "No file to patch.  Skipping patch.\n"
		  "1 out of 1 hunk ignored\n",
		  1, "'src/missing.c' does not exist in the source tree" },
		{ "can't find file to patch at input line 4\n"
		  "The text leading up to this was:\n"
		  "--------------------------\n"
		  "|diff --git a/x b/x\n"
		  "|--- /dev/null\n"
		  "|+++ b/dir/x\n"
		  "--------------------------\n"
		  "No file to patch.  Skipping patch.\n",
		  1, "'dir/x' does not exist in the source tree" },
		{ "can't find file to patch at input line 7\n"
		  "The text leading up to this was:\n"
		  "--------------------------\n"
		  "|some words\n"
		  "--------------------------\n"
		  "No file to patch.  Skipping patch.\n",
		  1,
		  "the file patched at line 7 does not exist in the source tree" },
		{ "checking file a b.c\nHunk #1 FAILED at 1.\n", 1,
		  "hunk #1 of 'a b.c' does not apply (at line 1)" },
		{ "File src/l is not a regular file -- refusing to patch\n"
		  "1 out of 1 hunk ignored\n",
		  1, "'src/l' is not a regular file" },
		{ "patch: **** Only garbage was found in the patch input.\n", 1,
		  "patch: Only garbage was found in the patch input." },
		{ "tfbuild: cannot run 'patch': No such file or directory\n", 1,
		  "cannot run 'patch': No such file or directory" },
		{ "checking file src/a.c\nHunk #1 succeeded at 12 (offset 3 lines).\n",
		  1, "" },
		{ "Hunk #x FAILED at 1.\nHunk #1 FAILED at\n", 1, "" },
		{ "", 1, "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct tf_strvec msgs = TF_STRVEC_INIT;
		struct tf_buf got = TF_BUF_INIT;

		tf_patch_explain(cases[i].output, cases[i].strip, &msgs);
		tf_strvec_join(&msgs, "\n", &got);
		CHECK_STR(got.buf, cases[i].want);
		tf_strvec_release(&msgs);
		tf_buf_release(&got);
	}
}

int main(void)
{
	test_scan();
	test_explain();
	return unit_done();
}
