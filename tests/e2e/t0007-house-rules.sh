#!/bin/sh
# The house rules about functions and calls (tests/lib/layers.py): no
# function over 80 lines, no circle of calls between folders or through
# a folder's door, no exported function that no other file calls. Each
# runs on a copy of toolkit/ with the rule broken, and must be named at
# its place; the real tree keeps them all (t0001 runs it too).
. "$(dirname "$0")/../lib/test-lib.sh"

# layers.py on the copy tk/; the callers outside toolkit/ are the real
# tree's tests and benchmarks unless more are given.
layers() {
	"$PYTHON" "$TESTS_DIR/lib/layers.py" tk "$SRC_ROOT/tests/unit" \
		"$SRC_ROOT/tests/tool" "$SRC_ROOT/tests/fuzz" "$SRC_ROOT/bench" "$@"
}

# A fresh copy of toolkit/ (sources only, copied once) to break a rule in.
copy() {
	if ! test -d tk.orig; then
		mkdir tk.orig &&
		cp "$SRC_ROOT/toolkit/LAYERS" tk.orig/ &&
		(cd "$SRC_ROOT/toolkit" && find . -name "*.[ch]" -o -name "*.inc") |
		while read -r f; do
			mkdir -p "tk.orig/$(dirname "$f")" &&
			cp "$SRC_ROOT/toolkit/$f" "tk.orig/$f" || exit 1
		done
	fi &&
	rm -rf tk && cp -R tk.orig tk
}

# The line the next line appended to toolkit/FILE will have.
next_line() { echo $(($(wc -l <"$SRC_ROOT/toolkit/$1") + 1)); }

# A static function NAME of exactly LINES lines, from its head to its
# closing brace, as clang-format writes one.
function_of() {
	awk -v name="$1" -v lines="$2" 'BEGIN {
		print "static int " name "(void)"; print "{"; print "\tint n = 0;"
		print ""
		for (i = 0; i < lines - 6; i++) print "\tn++; /* " i " */"
		print "\treturn n;"; print "}"
	}'
}

expect_success 'toolkit/ keeps the rules, on a copy too' '
	"$PYTHON" "$TESTS_DIR/lib/layers.py" "$SRC_ROOT/toolkit" >out 2>&1 ||
	{ cat out; false; } &&
	copy && layers
'

expect_success 'a function of 81 lines is named at its head; one of 80 is not' '
	copy &&
	n=$(next_line base/words.c) &&
	{ function_of too_long 81 && function_of just_fits 80; } >>tk/base/words.c &&
	test "$(sed -n "${n}p" tk/base/words.c)" = "static int too_long(void)" &&
	test "$(sed -n "$((n + 80))p" tk/base/words.c)" = "}" &&
	! layers >out &&
	echo "base/words.c:$n: too_long() has 81 lines, over 80" >expect &&
	compare expect out
'

expect_success 'a circle of calls between two folders is named call by call, with no include to see' '
	copy &&
	a=$(next_line base/words.c) && b=$(next_line ui/ui.c) &&
	printf "%s\n" "void tf_house_a(void);" "void tf_house_b(void)" "{" \
		"	tf_house_a();" "}" >>tk/ui/ui.c &&
	printf "%s\n" "void tf_house_b(void);" "void tf_house_a(void)" "{" \
		"	tf_house_b();" "}" >>tk/base/words.c &&
	! layers >out &&
	echo "a circle of calls between folders: base/words.c:$a calls tf_house_b() in ui/ui.c, ui/ui.c:$b calls tf_house_a() in base/words.c" >expect &&
	compare expect out
'

expect_success 'a call through a macro of a header is a call' '
	copy &&
	printf "%s\n" "void tf_house_b(void);" "#define HOUSE_B() tf_house_b()" \
		>>tk/base/words.h &&
	b=$(next_line ui/ui.c) &&
	printf "%s\n" "void tf_house_a(void);" "void tf_house_b(void)" "{" \
		"	tf_house_a();" "}" >>tk/ui/ui.c &&
	a=$(($(next_line base/words.c) + 3)) &&
	printf "%s\n" "void tf_house_a(void)" "{" "	/* tf_house_b() */" \
		"	HOUSE_B();" "}" >>tk/base/words.c &&
	! layers >out &&
	echo "a circle of calls between folders: base/words.c:$a calls tf_house_b() in ui/ui.c, ui/ui.c:$b calls tf_house_a() in base/words.c" >expect &&
	compare expect out
'

expect_success 'a call back into the file behind the door is a circle; one between two other files of the folder is not' '
	copy &&
	printf "%s\n" "int tf_house_c(const struct verifier *v)" "{" \
		"	return tf_verify_is_self(v, \"x\");" "}" >>tk/verify/sbomcheck.c &&
	layers &&
	n=$(next_line verify/distinfo.c) &&
	printf "%s\n" "int tf_house_d(void)" "{" \
		"	return tf_verify_wheel(\"x\");" "}" >>tk/verify/distinfo.c &&
	! layers >out &&
	grep -x "a circle of calls through the door of verify/: verify/verify\.c:[0-9]* calls tf_verify_[a-z_]*() in verify/distinfo\.c, verify/distinfo\.c:$((n + 2)) calls tf_verify_wheel() in verify/verify\.c" out &&
	test "$(wc -l <out)" = 1
'

expect_success 'the circle verify.c had before defect.c is named' '
	copy &&
	cat tk/verify/defect.c >>tk/verify/verify.c && rm tk/verify/defect.c &&
	! layers >out &&
	grep -x "a circle of calls through the door of verify/: verify/verify\.c:[0-9]* calls tf_verify_[a-z_]*() in verify/\([a-z]*\)\.c, verify/\1\.c:[0-9]* calls tf_verify_defect() in verify/verify\.c" out
'

expect_success 'an exported function nothing calls is named; one only its file calls must be static' '
	copy &&
	printf "%s\n" "int tf_words_unused(void);" "int tf_words_own(void);" \
		"int tf_words_shared(void);" >>tk/base/words.h &&
	n=$(next_line base/words.c) &&
	printf "%s\n" "int tf_words_unused(void)" "{" "	return 0;" "}" \
		"int tf_words_own(void)" "{" "	return 1;" "}" \
		"int tf_words_shared(void)" "{" "	return tf_words_own();" "}" \
		>>tk/base/words.c &&
	printf "%s\n" "int tf_house_e(void)" "{" "	return tf_words_shared();" \
		"}" >>tk/ui/ui.c &&
	! layers >out &&
	cat >expect <<-EOF &&
	base/words.c:$n: tf_words_unused() is declared in base/words.h but nothing calls it: remove it
	base/words.c:$((n + 4)): tf_words_own() is declared in base/words.h but only base/words.c calls it: make it static
	EOF
	compare expect out
'

expect_success 'a function only a test calls is called, when the test is among the callers' '
	copy &&
	echo "int tf_words_tested(void);" >>tk/base/words.h &&
	n=$(next_line base/words.c) &&
	printf "%s\n" "int tf_words_tested(void)" "{" "	return 0;" "}" \
		>>tk/base/words.c &&
	mkdir -p users &&
	printf "%s\n" "int main(void)" "{" "	return tf_words_tested();" "}" \
		>users/words_test.c &&
	layers users &&
	! layers >out &&
	echo "base/words.c:$n: tf_words_tested() is declared in base/words.h but nothing calls it: remove it" >expect &&
	compare expect out
'

expect_success 'a door opens with one comment saying what its folder owns, not two' '
	copy &&
	awk "{ print } !done && \$0 == \" */\" {
		print \"\"; print \"/* Stamps: a second opening, pasted under the first. */\"; done = 1
	}" "$SRC_ROOT/toolkit/stamp/stamp.h" >tk/stamp/stamp.h &&
	n=$(($(grep -n "^ \*/$" tk/stamp/stamp.h | head -1 | cut -d: -f1) + 2)) &&
	test "$(sed -n "${n}p" tk/stamp/stamp.h)" = "/* Stamps: a second opening, pasted under the first. */" &&
	! layers >out &&
	echo "stamp/stamp.h:$n: a second opening comment: one says what stamp/ owns" >expect &&
	compare expect out &&
	copy &&
	sed -i "s|^ \* ui/: | * The UI: |" tk/ui/ui.h &&
	! layers >out &&
	echo "ui/ui.h:4: the door opens with a comment starting \" * ui/: \" and what the folder owns" >expect &&
	compare expect out
'

# The bound on the project headers a .c file sees, as layers.py has it.
max_headers=$(sed -n "s/^MAX_HEADERS = \([0-9]*\).*/\1/p" "$TESTS_DIR/lib/layers.py")

expect_success 'a .c file that sees one header over the bound is named; one at the bound is not' '
	test -n "$max_headers" &&
	copy &&
	i=1 && : >tk/base/wide.c &&
	while test $i -le "$max_headers"; do
		printf "#ifndef W$i\n#define W$i\n#endif\n" >tk/base/w$i.h &&
		echo "#include \"w$i.h\"" >>tk/base/wide.c &&
		i=$((i + 1)) || return 1
	done &&
	layers &&
	echo "#include \"buf.h\"" >>tk/base/wide.c &&
	! layers >out &&
	echo "base/wide.c: sees $((max_headers + 2)) project headers, over $max_headers: include only the doors it calls" >expect &&
	compare expect out
'

expect_success 'a header that includes a door for a struct it names behind a pointer is refused; one that embeds it is not' '
	copy &&
	n=$(grep -n "^struct tf_buf;$" tk/fetch/url.h | cut -d: -f1) &&
	sed -i "${n}s|.*|#include \"base/base.h\"|" tk/fetch/url.h &&
	! layers >out &&
	echo "fetch/url.h:$n: includes \"base/base.h\" only for struct tf_buf behind a pointer: declare struct tf_buf; instead" >expect &&
	compare expect out &&
	printf "%s\n" "struct tf_url_parts {" "	struct tf_buf scheme; /* owned */" \
		"};" >>tk/fetch/url.h &&
	layers
'

expect_success 'a header that includes a door and uses nothing of it is refused' '
	copy &&
	n=$(($(grep -n "^#include <stddef.h>$" tk/fetch/url.h | cut -d: -f1) + 1)) &&
	sed -i "${n}a #include \"dl/dl.h\"" tk/fetch/url.h &&
	! layers >out &&
	echo "fetch/url.h:$((n + 1)): includes \"dl/dl.h\" and uses nothing it declares" >expect &&
	compare expect out
'

test_done
