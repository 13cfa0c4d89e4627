#!/bin/sh
# Two recipe messages that said the wrong thing or nothing (issue 35
# item 6), golden as t0601's: a complex YAML key (`? [a, b]`) said
# "unknown key ''"; it is named as not a plain scalar, at its position.
# A second YAML document after a valid recipe was silently ignored (its
# steps, even its syntax errors, unseen); it is refused where it starts.
. "$(dirname "$0")/../lib/test-lib.sh"

R="$SRC_ROOT/tests/e2e/recipes"

# check NAME: run tests/e2e/recipes/NAME.yaml, compare stderr with NAME.err.
check() {
	(cd "$R" && expect_code 3 "$TFBUILD" recipe --build-dir "$TRASH/build" \
		--cache "$TRASH/cache" "$1.yaml") 2>"$1.actual" &&
	compare "$R/$1.err" "$1.actual" &&
	test ! -e "$TRASH/build" && test ! -e "$TRASH/cache"
}

for name in complex-key two-documents two-documents-bad; do
	expect_success "recipe error: $name" "check $name"
done

expect_success 'explain and fetch say the same' '
	cp "$R/two-documents.yaml" . &&
	for cmd in explain fetch; do
		expect_code 3 "$TFBUILD" $cmd two-documents.yaml 2>err &&
		compare "$R/two-documents.err" err || return 1
	done
'

expect_success 'one document with explicit markers (--- and ...) is still one recipe' '
	printf -- "--- \nschema: 1\nname: m\nversion: \"1.0\"\nsteps:\n  - {name: s, run: \"true\"}\n...\n" >m.yaml &&
	"$TFBUILD" explain m.yaml >out &&
	grep -q " s: will run" out
'

test_done
