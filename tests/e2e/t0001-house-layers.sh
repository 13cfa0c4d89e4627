#!/bin/sh
# The house rules of toolkit/ (docs/architecture.md), as code: the layers
# written once in toolkit/LAYERS, one door per folder, no circle of
# includes, die() only in cli/, libarchive and the locale switch only in
# their files, no C file over 1,000 lines. tests/lib/layers.py derives
# all of it from the tree; here it runs on the real tree, then on copies
# with one rule broken each, which it must name.
. "$(dirname "$0")/../lib/test-lib.sh"

# The programs outside toolkit/ that call it, for a copy of toolkit/.
layers() {
	"$PYTHON" "$TESTS_DIR/lib/layers.py" "$1" "$SRC_ROOT/tests/unit" \
		"$SRC_ROOT/tests/tool" "$SRC_ROOT/tests/fuzz" "$SRC_ROOT/bench"
}

expect_success 'toolkit/ keeps every house rule' '
	layers "$SRC_ROOT/toolkit" >out 2>&1 || { cat out; false; }
'

# A copy of toolkit/ (sources only) to break one rule in.
# Made once, then copied whole for each case (one cp, not one a file).
copy() {
	if ! test -d tk.orig; then
		cp -R "$SRC_ROOT/toolkit" tk.orig &&
		find tk.orig -type f ! -name "*.[ch]" ! -name "*.inc" \
			! -name LAYERS -exec rm -f {} + || return 1
	fi
	rm -rf tk && cp -R tk.orig tk
}

expect_success 'the copy keeps them too' '
	copy && layers tk
'

expect_success 'an include from a lower layer to a higher one is an arrow up' '
	copy &&
	echo "#include \"cli/cli.h\"" >>tk/base/buf.c &&
	! layers tk >out &&
	grep -x "base/buf.c:[0-9]*: includes \"cli/cli.h\": an arrow up, from base/ (layer 1) to cli/ (layer [0-9]*)" out
'

expect_success 'a header of another folder other than its door is refused' '
	copy &&
	echo "#include \"audit/elf.h\"" >>tk/pack/pack.c &&
	! layers tk >out &&
	grep -x "pack/pack.c:[0-9]*: includes \"audit/elf.h\" inside audit/; only its door \"audit/audit.h\" may be included from outside" out
'

expect_success 'folders on one layer know nothing of each other' '
	copy &&
	echo "#include \"ui/ui.h\"" >>tk/dl/dl.c &&
	! layers tk >out &&
	grep -x "dl/dl.c:[0-9]*: includes \"ui/ui.h\": dl/ and ui/ are on the same layer" out
'

expect_success 'a circle between two modules of one folder is named' '
	copy &&
	printf "#include \"b.h\"\n" >tk/base/a.h &&
	printf "#include \"a.h\"\n" >tk/base/b.h &&
	! layers tk >out &&
	grep -x "a circle of includes between modules: base/a, base/b" out
'

expect_success 'a circle between folders is named, even with the layers written to allow one way' '
	copy &&
	sed "s/^layer base .*/layer base ui/; s/^layer dl ui /layer dl /" \
		"$SRC_ROOT/toolkit/LAYERS" >tk/LAYERS &&
	echo "#include \"base/base.h\"" >>tk/ui/ui.h &&
	echo "#include \"ui/ui.h\"" >>tk/base/log.c &&
	! layers tk >out &&
	grep -x "a circle of includes between folders: base, ui" out
'

expect_success 'die() outside cli/ is refused; in a comment or a string it is not a call' '
	copy &&
	printf "/* die(1, \"x\") */\nstatic const char *s = \"die(\";\nvoid f(void) { die(1, \"x\"); }\n" >>tk/plan/vars.c &&
	! layers tk >out &&
	n=$(($(wc -l <"$SRC_ROOT/toolkit/plan/vars.c") + 3)) &&
	grep -x "plan/vars.c:$n: calls die(), which only cli/ may call" out &&
	test "$(grep -c die out)" = 1
'

expect_success 'libarchive outside its three files and its loader is refused' '
	copy &&
	echo "void g(void) { archive_read_new(); }" >>tk/verify/diff.c &&
	! layers tk >out &&
	grep "^verify/diff.c:[0-9]*: calls archive_read_new(), which only source/extract.c wheel/wheelread.c cache/archive.c dl/libarchive.c may call$" out
'

expect_success 'a C file over 1,000 lines is refused' '
	copy &&
	awk "BEGIN { for (i = 0; i < 1001; i++) print \"/* \" i \" */\" }" >>tk/base/limit.c &&
	! layers tk >out &&
	grep -x "base/limit.c: [0-9]* lines, over 1000" out
'

expect_success 'a folder missing from LAYERS, and a file outside any folder, are refused' '
	copy &&
	mkdir tk/extra && echo "int x;" >tk/extra/x.c && echo "int y;" >tk/y.c &&
	! layers tk >out &&
	grep -x "extra/x.c: folder extra/ is on no layer in LAYERS" out &&
	grep -x "y.c: not in a folder" out
'

expect_success 'an include of a file that is not there is refused' '
	copy &&
	echo "#include \"elf.h\"" >>tk/pack/pack.c &&
	! layers tk >out &&
	grep -x "pack/pack.c:[0-9]*: includes \"elf.h\", which is not there" out
'

expect_success 'a *_check function that prints is refused; one that fills a reason is not' '
	copy &&
	printf "%s\n" "static int quiet_check(const char *v, struct tf_buf *why)" "{" \
		"	return *v ? 0 : tf_why(why, \"empty\");" "}" \
		"int tf_loud_check(const char *v)" "{" "	if (!*v)" \
		"		return error(\"empty\");" "	return 0;" "}" >>tk/plan/vars.c &&
	! layers tk >out &&
	n=$(($(wc -l <"$SRC_ROOT/toolkit/plan/vars.c") + 8)) &&
	grep -x "plan/vars.c:$n: tf_loud_check() calls error(): a \*_check function fills a reason and never prints" out &&
	! grep quiet_check out
'

expect_success 'a library header outside the files LAYERS names is refused' '
	copy &&
	sed -i "1i #include <yaml.h>" tk/plan/vars.c &&
	! layers tk >out &&
	grep -x "plan/vars.c:1: includes <yaml.h>, which only recipe/recipe_internal.h may include" out
'

# docs/architecture.md matches the tree: a paragraph per folder, every
# C file named, and the layers as LAYERS has them.
expect_success 'docs/architecture.md has a paragraph for each folder, naming each C file' '
	arch="$SRC_ROOT/docs/architecture.md" &&
	for d in "$SRC_ROOT"/toolkit/*/; do
		f=$(basename "$d") &&
		n=$(sed -n "s/^layer \(.*\)/\1/p" "$SRC_ROOT/toolkit/LAYERS" |
			sed "s/#.*//" | grep -n -w "$f" | cut -d: -f1) &&
		grep -qx "### \`$f/\` (layer $n)" "$arch" ||
		{ echo "no paragraph for $f/ (layer $n)"; return 1; } &&
		for c in "$d"*.c; do
			grep -q "\`$(basename "$c")\`" "$arch" ||
			{ echo "$c is not named"; return 1; }
		done
	done
'

expect_success 'each door opens with what its folder owns' '
	for d in "$SRC_ROOT"/toolkit/*/; do
		f=$(basename "$d") &&
		sed -n "4,5p" "$d$f.h" | grep -q "^ \* $f/: " ||
		{ echo "$d$f.h does not open with \" * $f/: ...\""; return 1; }
	done
'

test_done
