#!/bin/sh
# Every wheel field is checked when the recipe is planned, at its
# position, with exit 3, before anything is fetched or built: a two-line
# summary no longer builds everything and then fails to pack. Golden
# file: tests/e2e/recipes/wheel-fields.err. The license is checked as an
# SPDX expression when the recipe is loaded, before planning; its errors
# are t0709's (tests/e2e/metadata/).
. "$(dirname "$0")/../lib/test-lib.sh"

R="$SRC_ROOT/tests/e2e/recipes"

expect_success 'every wheel field error, at its position, exit 3, nothing fetched' '
	(cd "$R" && expect_code 3 "$TFBUILD" recipe --build-dir "$TRASH/build" \
		--cache "$TRASH/cache" wheel-fields.yaml) 2>actual &&
	compare "$R/wheel-fields.err" actual &&
	test ! -e "$TRASH/build" && test ! -e "$TRASH/cache"
'

expect_success 'a two-line summary alone: exit 3 with its position, before any fetch' '
	start_httpd "$TRASH/srv" && mkdir -p srv &&
	cat >two.yaml <<-EOF &&
	schema: 1
	name: two
	version: 1.0.0
	sources:
	  - name: up
	    url: $HTTP_URL/up-1.0.tar.gz
	    sha256: 0000000000000000000000000000000000000000000000000000000000000000
	steps:
	  - name: lib
	    source: up
	    run: "touch \$HOME/../ran"
	wheels:
	  - name: two
	    version: 1.0.0
	    platform: linux_x86_64
	    summary: "one\ntwo"
	    files:
	      - {from: lib, src: pkg, dst: .}
	EOF
	expect_code 3 "$TFBUILD" recipe --out out two.yaml 2>err &&
	echo "tfbuild: two.yaml:16:14: '"'"'summary'"'"' contains a line break; it must be one line" >expect &&
	compare expect err &&
	! grep -q "up-1.0" "$TRASH/.httpd.log" &&
	test ! -e build && test ! -e out
'

expect_success 'explain and fetch check the same fields' '
	(cd "$R" && expect_code 3 "$TFBUILD" fetch --cache "$TRASH/cache" wheel-fields.yaml) 2>err &&
	compare "$R/wheel-fields.err" err
'

test_done
