#!/bin/sh
# `tfbuild explain` writes nothing (issue 34): not in the build tree, the
# recipe's own folder or the cache, for every recipe in recipes/ on a
# fresh tree and after a run, nor on a recipe it refuses. Planning only
# computes; the provisioning stage of `tfbuild recipe` is what makes a
# target's roots, tool files, host tools and Python include directory
# (docs/architecture.md), and the same listing sees that it does.
. "$(dirname "$0")/../lib/test-lib.sh"

# A copy of the recipes and what they reach, so the default build tree
# (beside the recipe) is this test's own.
mkdir src &&
	cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/patches" "$SRC_ROOT/backend" src/ &&
	rm -rf src/recipes/build src/build || exit 1
export TFBUILD_RECIPE_ROOT="$TRASH/src"
unset TF_SYSROOT_CACHE
# The refused recipe: its toolchain is found, then a step names a
# variable there is none of.
sed 's/make CC="\$CC"/make CC="${no_such_variable}"/' src/recipes/greet.yaml \
	>src/recipes/refused.yaml || exit 1

# Every path below the recipes' folder and the cache, with its type,
# size, mtime and mode: a file written, removed or touched shows.
listing() {
	find src "$XDG_CACHE_HOME" -printf '%p %y %s %T@ %m\n' 2>/dev/null |
		sort
}

# explain every recipe for every target; whatever it answers, it writes
# nothing. Exit codes: 0, 1 (a toolchain missing here) or 3 (refused).
explain_all() {
	for r in src/recipes/*.yaml; do
		"$TFBUILD" explain --target all "$r" >out 2>err
		code=$?
		case $code in 0 | 1 | 3) ;; *)
			echo "explain $r exited $code" >&2 && cat err >&2 &&
				return 1
			;;
		esac
	done
}

expect_success 'explain on every recipe, on a fresh tree, writes nothing' '
	listing >before &&
	explain_all &&
	listing >after &&
	compare before after
'

expect_success 'explain on a refused recipe writes nothing and says why' '
	listing >before &&
	expect_code 3 "$TFBUILD" explain src/recipes/refused.yaml 2>err &&
	grep "no_such_variable" err &&
	listing >after &&
	compare before after
'

expect_success 'the run provisions: the same listing sees what it writes' '
	sh src/recipes/mirror.sh src/build/mirror >/dev/null &&
	listing >before &&
	"$TFBUILD" -q recipe --target all -j 2 src/recipes/greet.yaml &&
	listing >after &&
	! compare before after >/dev/null &&
	test -d src/recipes/build/greet/aarch64/toolchain &&
	test -d src/recipes/build/greet/aarch64/host-tools
'

expect_success 'explain on every recipe, after a run, writes nothing' '
	listing >before &&
	explain_all &&
	listing >after &&
	compare before after
'

expect_success 'explain after the run: every step of it is up to date' '
	"$TFBUILD" explain --target all src/recipes/greet.yaml >out &&
	grep "up to date" out &&
	! grep -v "up to date" out
'

test_done
