#!/bin/sh
# Patch: a patch that does not apply cleanly changes nothing and says
# which hunk of which file failed, which file is missing, or that it was
# already applied; a patch naming a path outside the tree never runs.
. "$(dirname "$0")/../lib/test-lib.sh"

P=patches/tfmini

# sums: a checksum listing of the tree, to show it did not change.
sums() { (cd tree && find . -type f -exec sha256sum {} + | sort -k2); }

# fails NAME STRIP MESSAGE...: applying $P/NAME fails with those lines
# and leaves the tree byte for byte as it was.
fails() {
	name=$1 strip=$2
	shift 2
	sums >before &&
	expect_code 1 "$TOOL_DIR/test-extract" patch tree "$P/$name" "$P/$name" "$strip" 2>err &&
	for m in "$@"; do echo "tfbuild: $P/$name: $m"; done >expect &&
	compare expect err &&
	sums >after &&
	compare before after
}

expect_success 'set up a tree and patches' '
	mkdir -p tree/src $P &&
	seq 1 60 >tree/src/a.c &&
	seq 100 130 >tree/src/b.c &&
	cat >$P/0001-a.patch <<-\EOF_P &&
	--- a/src/a.c
	+++ b/src/a.c
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
	sed "s/^ 38$/ 38 changed upstream/" $P/0001-a.patch >$P/0002-x.patch &&
	sed "s/^ 2$/ 2 changed upstream/" $P/0001-a.patch >$P/0003-fuzz.patch &&
	sed "s|src/a.c|src/missing.c|" $P/0001-a.patch >$P/0004-missing.patch &&
	cat >$P/0005-b.patch <<-\EOF_P &&
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
	EOF_P
	cat $P/0005-b.patch $P/0002-x.patch >$P/0006-multi.patch &&
	sed "s|a/src/a.c|a/../../etc/passwd|; s|b/src/a.c|b/../../etc/passwd|" \
		$P/0001-a.patch >$P/0007-escape.patch &&
	printf "diff --git a/x b/x\nrename from x\nrename to ../x\n" >$P/0008-rename.patch &&
	sed "s|a/src/a.c|/etc/passwd|; s|b/src/a.c|/etc/passwd|" \
		$P/0001-a.patch >$P/0009-abs.patch
'

expect_success 'a hunk that does not apply is named, nothing changes' '
	fails 0002-x.patch 1 "hunk #2 of '\''src/a.c'\'' does not apply (at line 37)"
'

expect_success 'a hunk that needs fuzz does not apply' '
	fails 0003-fuzz.patch 1 "hunk #1 of '\''src/a.c'\'' does not apply (at line 2)"
'

expect_success 'a later file failing leaves the earlier file untouched' '
	fails 0006-multi.patch 1 "hunk #2 of '\''src/a.c'\'' does not apply (at line 37)" &&
	seq 100 130 >expect-b &&
	compare expect-b tree/src/b.c
'

expect_success 'a missing file is named' '
	fails 0004-missing.patch 1 "'\''src/missing.c'\'' does not exist in the source tree"
'

expect_success 'a patch applied twice is reported as already applied' '
	"$TOOL_DIR/test-extract" patch tree $P/0001-a.patch $P/0001-a.patch 1 &&
	fails 0001-a.patch 1 "already applied or reversed on '\''src/a.c'\''"
'

expect_success 'a path with ".." is refused before patch runs' '
	fails 0007-escape.patch 1 "refusing path '\''../../etc/passwd'\'' outside the source tree"
'

expect_success 'a git rename to ".." is refused' '
	fails 0008-rename.patch 1 "refusing path '\''../x'\'' outside the source tree"
'

expect_success 'an absolute path is refused at strip 0' '
	fails 0009-abs.patch 0 "refusing path '\''/etc/passwd'\'' outside the source tree"
'

expect_success 'a missing patch file' '
	expect_code 1 "$TOOL_DIR/test-extract" patch tree $P/none.patch $P/none.patch 1 2>err &&
	echo "tfbuild: cannot open patch '\''$P/none.patch'\'': No such file or directory" >expect &&
	compare expect err
'

expect_success 'a file that is not a patch' '
	echo "just words" >$P/0010-garbage.patch &&
	fails 0010-garbage.patch 1 "patch: Only garbage was found in the patch input."
'

expect_success 'without GNU patch installed, the error says so' '
	mkdir empty-path &&
	sums >before &&
	expect_code 1 env PATH="$TRASH/empty-path" "$TOOL_DIR/test-extract" \
		patch tree $P/0005-b.patch $P/0005-b.patch 1 2>err &&
	echo "tfbuild: $P/0005-b.patch: cannot run '\''patch'\'': No such file or directory" >expect &&
	compare expect err &&
	sums >after &&
	compare before after
'

test_done
