#!/bin/sh
# Patch: a series of patches applies in order with GNU patch at zero fuzz;
# hunks that moved (offset) still apply; new files are created.
. "$(dirname "$0")/../lib/test-lib.sh"

expect_success 'set up a tree and a two-patch series' '
	mkdir -p tree/src patches/tfmini &&
	seq 1 60 >tree/src/a.c &&
	seq 100 130 >tree/src/b.c &&
	cat >patches/tfmini/0001-a.patch <<-\EOF_P &&
	Subject: change two lines of a.c

	--- a/src/a.c	2024-01-01 00:00:00.000000000 +0000
	+++ b/src/a.c	2024-01-01 00:00:00.000000000 +0000
	@@ -2,7 +2,7 @@
	 2
	 3
	 4
	-5
	+five
	 6
	 7
	 8
	@@ -37,7 +37,7 @@
	 37
	 38
	 39
	-40
	+forty
	 41
	 42
	 43
	EOF_P
	cat >patches/tfmini/0002-b.patch <<-\EOF_P
	diff --git a/src/b.c b/src/b.c
	index 1111111..2222222 100644
	--- a/src/b.c
	+++ b/src/b.c
	@@ -8,7 +8,7 @@
	 107
	 108
	 109
	-110
	+one-ten
	 111
	 112
	 113
	diff --git a/src/new.c b/src/new.c
	new file mode 100644
	index 0000000..3333333
	--- /dev/null
	+++ b/src/new.c
	@@ -0,0 +1,2 @@
	+int x;
	+int y;
	EOF_P
'

expect_success 'the series applies' '
	"$TOOL_DIR/test-extract" patch tree patches/tfmini/0001-a.patch patches/tfmini/0001-a.patch 1 &&
	"$TOOL_DIR/test-extract" patch tree patches/tfmini/0002-b.patch patches/tfmini/0002-b.patch 1 2>err &&
	test ! -s err &&
	seq 1 60 | sed "s/^5$/five/; s/^40$/forty/" >expect-a &&
	compare expect-a tree/src/a.c &&
	seq 100 130 | sed "s/^110$/one-ten/" >expect-b &&
	compare expect-b tree/src/b.c &&
	printf "int x;\nint y;\n" >expect-new &&
	compare expect-new tree/src/new.c &&
	(cd tree && find . | sort) >actual &&
	printf ".\n./src\n./src/a.c\n./src/b.c\n./src/new.c\n" >expect &&
	compare expect actual
'

expect_success 'a hunk that moved applies at its offset' '
	mkdir -p moved/src &&
	{ printf "new\nlines\n"; seq 1 60; } >moved/src/a.c &&
	"$TOOL_DIR/test-extract" patch moved patches/tfmini/0001-a.patch 0001-a.patch 1 &&
	{ printf "new\nlines\n"; seq 1 60 | sed "s/^5$/five/; s/^40$/forty/"; } >expect &&
	compare expect moved/src/a.c
'

expect_success 'the patch path and the tree may be relative to elsewhere' '
	mkdir -p deep/er/src &&
	seq 1 60 >deep/er/src/a.c &&
	(cd deep && "$TOOL_DIR/test-extract" patch er ../patches/tfmini/0001-a.patch x.patch 1) &&
	seq 1 60 | sed "s/^5$/five/; s/^40$/forty/" >expect &&
	compare expect deep/er/src/a.c
'

expect_success 'strip 0 works with a patch made inside the tree' '
	mkdir -p p0 &&
	seq 1 5 >p0/f &&
	printf -- "--- f\n+++ f\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n" >p0.patch &&
	"$TOOL_DIR/test-extract" patch p0 p0.patch p0.patch 0 &&
	printf "1\ntwo\n3\n4\n5\n" >expect &&
	compare expect p0/f
'

test_done
