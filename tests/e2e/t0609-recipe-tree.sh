#!/bin/sh
# The recipe's tree (docs/security.md#local-paths), which `path:` sources
# and patches must stay inside: the nearest directory above the recipe
# holding .git, else the directory above the recipe's own, unless
# TFBUILD_RECIPE_ROOT names it. The rest of the suite names it
# (test-lib.sh), so that it passes outside a checkout too (issue 29
# item 2); here it is unset, in a directory outside any checkout.
. "$(dirname "$0")/../lib/test-lib.sh"
unset TFBUILD_RECIPE_ROOT

top=$(mktemp -d /tmp/tfbuild-t0609.XXXXXX) || exit 1
at_exit "rm -rf '$top'"

mkdir -p "$top/proj/a/b" "$top/proj/src" && echo "X = 1" >"$top/proj/src/x.py"
# r.yaml in proj/a/b uses proj/src (../../src) and, when asked, $1.
recipe() {
	cat >"$top/proj/a/b/r.yaml" <<-EOF
	schema: 1
	name: pure
	version: 1.0.0
	sources:
	  - {name: tree, path: ${1:-../../src}}
	wheels:
	  - name: pure
	    version: 1.0.0
	    files:
	      - {from: tree, src: x.py, dst: .}
	EOF
}

expect_success 'no .git above: the tree is the directory above the recipe'"'"'s' '
	recipe &&
	expect_code 3 "$TFBUILD" explain "$top/proj/a/b/r.yaml" 2>err &&
	cat err &&
	grep -qx "tfbuild: $top/proj/a/b/r.yaml:5:24: source directory '"'"'../../src'"'"' resolves to '"'"'$top/proj/src'"'"', outside the recipe'"'"'s tree '"'"'$top/proj/a'"'"' (TFBUILD_RECIPE_ROOT)" err &&
	recipe ../c && mkdir -p "$top/proj/a/c" && cp "$top/proj/src/x.py" "$top/proj/a/c/" &&
	"$TFBUILD" explain "$top/proj/a/b/r.yaml"
'

expect_success 'a .git above (a checkout): the tree is the checkout' '
	recipe && mkdir "$top/proj/.git" &&
	"$TFBUILD" explain "$top/proj/a/b/r.yaml" &&
	recipe ../../../../ &&
	expect_code 3 "$TFBUILD" explain "$top/proj/a/b/r.yaml" 2>err &&
	cat err &&
	grep -q "outside the recipe'"'"'s tree '"'"'$top/proj'"'"' (TFBUILD_RECIPE_ROOT)\$" err &&
	rmdir "$top/proj/.git"
'

expect_success 'TFBUILD_RECIPE_ROOT names the tree, with or without .git' '
	recipe &&
	TFBUILD_RECIPE_ROOT="$top/proj" "$TFBUILD" explain "$top/proj/a/b/r.yaml" &&
	expect_code 3 env TFBUILD_RECIPE_ROOT="$top/proj/a/b" "$TFBUILD" explain "$top/proj/a/b/r.yaml" 2>err &&
	grep -q "outside the recipe'"'"'s tree '"'"'$top/proj/a/b'"'"' (TFBUILD_RECIPE_ROOT)\$" err
'

test_done
