#!/bin/sh
# tfbuild new (issue 29 item 3): --list reads the embedded table (one
# line per templates/ directory); a project is written whole, with the
# placeholders filled in and the same bytes every time; refusals (a DIR
# not empty, a bad NAME, an unknown template) with their exit codes and
# nothing left behind; the generator refuses an unknown placeholder at
# build time; an installed tfbuild (make install) has the templates.
. "$(dirname "$0")/../lib/test-lib.sh"

# Every file of a tree with its mode, and its bytes' digest.
tree() {
	(cd "$1" && find . -type f -printf "%P %m\n" | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

expect_success 'new --list: one line per template directory, name and summary' '
	"$TFBUILD" new --list >out &&
	ls "$SRC_ROOT/templates" >expect &&
	cut -d" " -f1 out >actual &&
	compare expect actual &&
	for t in $(cat expect); do
		grep "^$t  " out | grep -qF "  $(head -1 "$SRC_ROOT/templates/$t/.summary")" ||
		{ echo "$t: no summary line"; exit 1; }
	done
'

expect_success 'help new documents it; completion offers the templates' '
	"$TFBUILD" help new >out &&
	grep -q "^usage: tfbuild new \[--name NAME\] TEMPLATE DIR | --list" out &&
	grep -q "tfbuild sha256 URL" out &&
	grep -q "python-extension" "$SRC_ROOT/contrib/completion/tfbuild.bash" &&
	grep -q "1:template:(c-library " "$SRC_ROOT/contrib/completion/_tfbuild"
'

expect_success 'a project: every template file, placeholders filled in' '
	"$TFBUILD" new python-extension hello-world 2>err &&
	grep -q "^tfbuild: next: tfbuild recipe --target all hello-world/recipe.yaml$" err &&
	test -f hello-world/recipe.yaml &&
	test -f hello-world/src/hello_world/_core.c &&
	test -f hello-world/src/tests/test_hello_world.py &&
	test -f hello-world/LICENSE && test -f hello-world/README.md &&
	! test -e hello-world/.summary &&
	! grep -r "{{" hello-world &&
	grep -q "^name: hello-world$" hello-world/recipe.yaml &&
	grep -q "PyInit__core" hello-world/src/hello_world/_core.c &&
	grep -q "tfbuild sha256 https://" hello-world/recipe.yaml &&
	ls -a . >out && ! grep -q "tfbuild-new" out &&
	test "$(stat -c %a hello-world)" = 755
'

expect_success 'the same bytes and modes twice; --name names it; an empty DIR is used' '
	"$TFBUILD" -q new python-extension again --name hello-world &&
	tree hello-world >a && tree again >b && compare a b &&
	mkdir empty &&
	"$TFBUILD" -q new c-library empty --name Fancy.Lib &&
	grep -q "^name: fancy-lib$" empty/recipe.yaml &&
	test -f empty/src/lib/fancy_lib.c &&
	grep -q "^#ifndef FANCY_LIB_H$" empty/src/lib/fancy_lib.h
'

expect_success 'a DIR that is not empty is refused (exit 1), untouched' '
	mkdir full && echo mine >full/notes &&
	expect_code 1 "$TFBUILD" new c-library full 2>err &&
	grep -qx "tfbuild: .full. exists and is not empty: give a new or empty directory" err &&
	ls -A full >out && echo notes >expect && compare expect out &&
	echo x >file &&
	expect_code 1 "$TFBUILD" new c-library file 2>err &&
	grep -q "^tfbuild: .file. exists and is not a directory" err &&
	ls -a . >out && ! grep -q "tfbuild-new" out
'

expect_success 'a bad NAME is a usage error (exit 2)' '
	expect_code 2 "$TFBUILD" new c-library 3d 2>err &&
	grep -q "^tfbuild: .3d. gives the module name .3d., which starts with a digit" err &&
	grep -q "give one with --name" err &&
	expect_code 2 "$TFBUILD" new c-library x --name class 2>err &&
	grep -q "a Python keyword" err &&
	expect_code 2 "$TFBUILD" new c-library x --name "-bad" 2>err &&
	grep -q "^tfbuild: .-bad. is not a distribution name" err &&
	! test -e x && ! test -e 3d
'

expect_success 'an unknown template: exit 2, the nearest and the list' '
	expect_code 2 "$TFBUILD" new c-libary x 2>err &&
	grep -q "^tfbuild: unknown template .c-libary.; did you mean .c-library.? (templates: c-library, " err &&
	expect_code 2 "$TFBUILD" new python-extension 2>err &&
	grep -q "give a TEMPLATE and a DIR" err &&
	! test -e x
'

gen=$(dirname "${TOOL_DIR:-/nonexistent}")/embed-templates
if test -x "$gen"; then
	expect_success 'the generator refuses an unknown placeholder, naming FILE:LINE' '
		mkdir -p gen/t/src && echo "a template" >gen/t/.summary &&
		printf "ok {{name}}\nbad {{nmae}}\n" >gen/t/src/f.txt &&
		! "$gen" gen out.c 2>err &&
		grep -q "^embed-templates: gen/t/src/f.txt:2: .{{nmae}}. is no placeholder (known: {{name}} {{module}} {{MODULE}} {{DEVICE}})" err &&
		! test -e out.c &&
		printf "ok {{name}}\n" >gen/t/src/f.txt &&
		"$gen" gen out.c && grep -q "\"src/f.txt\", 0644" out.c
	'
else
	skip 'the generator refuses an unknown placeholder (no embed-templates beside TOOL_DIR)'
fi

expect_success 'make install: the installed tfbuild writes the same project elsewhere' '
	mkdir -p mk/docs mk/contrib/completion &&
	cp "$SRC_ROOT/Makefile" mk/ && cp "$SRC_ROOT/docs/tfbuild.1" mk/docs/ &&
	cp "$SRC_ROOT"/contrib/completion/* mk/contrib/completion/ &&
	cp "$TFBUILD" mk/tfbuild &&
	mkdir -p mk/obj && cp "$TOOL_DIR/../libtfmacho.so" mk/obj/ &&
	make -s -C mk -o tfbuild -o obj/libtfmacho.so BIN=tfbuild install \
		DESTDIR="$TRASH/inst" PREFIX=/usr >/dev/null &&
	rm -rf mk &&
	(cd / && "$TRASH/inst/usr/bin/tfbuild" -q new python-extension "$TRASH/installed" --name hello-world) &&
	tree installed >c && compare a c
'

test_done
