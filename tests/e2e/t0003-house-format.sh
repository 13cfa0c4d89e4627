#!/bin/sh
# The house style, as code: every C file of toolkit/, tests/ (unit,
# tool, fuzz), bench/ and tools/ is as Debian 12's clang-format 14 formats it
# with the committed .clang-format (make deps installs clang-format-14).
# backend/ and the test fixtures are left as written: they are built
# into wheels whose bytes must not move.
. "$(dirname "$0")/../lib/test-lib.sh"

cf=clang-format-14

expect_success 'clang-format 14 is installed (make deps)' '
	command -v $cf >/dev/null
'

expect_success 'every C file is formatted as .clang-format says' '
	cd "$SRC_ROOT" &&
	set -- toolkit/*/*.[ch] tests/unit/*.[ch] tests/tool/*.c tests/fuzz/*.[ch] bench/*.c tools/*.c &&
	test $# -gt 100 &&
	$cf --dry-run --Werror "$@" >"$TRASH/out" 2>&1 ||
	{ head -40 "$TRASH/out"; echo "run: $cf -i FILE"; false; }
'

expect_success 'a file out of style is named' '
	mkdir -p fmt && cp "$SRC_ROOT/.clang-format" fmt/ &&
	printf "int f(int x){return x;}\n" >fmt/bad.c &&
	! $cf --dry-run --Werror fmt/bad.c 2>err &&
	grep -q "fmt/bad.c:1:" err
'

test_done
