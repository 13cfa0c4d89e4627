#!/bin/sh
# Recipe errors are reported as FILE:LINE:COLUMN before anything is
# fetched or run, and exit with code 3. Messages are golden: the format
# must not drift.
. "$(dirname "$0")/../lib/test-lib.sh"

R="$SRC_ROOT/tests/e2e/recipes"

# check NAME: run the recipe in tests/e2e/recipes/NAME.yaml and compare
# stderr with NAME.err (paths shown relative to that directory).
check() {
	(cd "$R" && expect_code 3 "$TFBUILD" recipe --build-dir "$TRASH/build" \
		--cache "$TRASH/cache" "$1.yaml") 2>"$1.actual" &&
	compare "$R/$1.err" "$1.actual" &&
	test ! -e "$TRASH/build" && test ! -e "$TRASH/cache"
}

for name in unknown-key wrong-type missing-key bad-sha256 undefined-var \
	    step-cycle unknown-refs bad-yaml var-cycle bad-wheel both-url-path too-deep; do
	expect_success "recipe error: $name" "check $name"
done

expect_success 'a missing recipe file exits 3 naming it' '
	expect_code 3 "$TFBUILD" recipe "$TRASH/nope.yaml" 2>err &&
	echo "tfbuild: cannot open '"'"'$TRASH/nope.yaml'"'"': No such file or directory" >expect &&
	compare expect err
'

expect_success 'fetch checks the recipe the same way' '
	(cd "$R" && expect_code 3 "$TFBUILD" fetch --cache "$TRASH/cache" unknown-key.yaml) 2>err &&
	compare "$R/unknown-key.err" err
'

expect_success '--set of an undeclared variable is an error' '
	(cd "$R" && expect_code 3 "$TFBUILD" recipe --build-dir "$TRASH/build" \
		--set nope=1 undefined-var.yaml) 2>err &&
	grep -q "^tfbuild: --set '"'"'nope=1'"'"': '"'"'nope'"'"' is not a variable of undefined-var.yaml$" err
'

test_done
