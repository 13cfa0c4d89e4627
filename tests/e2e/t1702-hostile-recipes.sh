#!/bin/sh
# Hostile recipes, end to end: each case of tests/hostile/recipes.py is
# run by `tfbuild recipe` in a directory of its own, which is also its
# tree (TFBUILD_RECIPE_ROOT), with the exit code and message the table
# says. Nothing may appear outside the case's directory, and a refused
# recipe leaves no output behind. Then the cases a table cannot hold: a
# 100 MB scalar (refused by the 4 MiB recipe limit before any parsing),
# a directory given as the recipe.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/hostile/lib.sh"

expect_success 'generate the recipe corpus' '
	"$PYTHON" "$TESTS_DIR/hostile/recipes.py" corpus >count &&
	test "$(cat count)" -ge 35
'

# A sandboxed step's /etc is a copy tfbuild makes once in its cache
# (build/sandbox_etc.c) and every later run reuses: made here, before
# the listing, so a case that writes there, or anywhere else outside
# its directory, still shows.
expect_success 'one step makes the cache'"'"'s copy of /etc before the cases run' '
	mkdir warm &&
	printf "schema: 1\nname: warm\nversion: \"1\"\nsteps:\n  - name: s\n    run: \"true\"\n" >warm/r.yaml &&
	tfbuild recipe -q --out warm/out warm/r.yaml &&
	ls -d "$HOME"/.cache/tfbuild/sandbox/etc-*
'

# What a case may touch: its own directory. These are outside it.
snapshot_outside() {
	ls -A /tmp | grep "^hostile" || :
	hostile_snapshot "$TRASH" |
		grep -v -e "^\./corpus/" -e "^\./outside\.before " -e "^\./\.last\.log " || :
}
snapshot_outside >outside.before

run_case() {
	name=$1 want=$2 rx=$3
	(
		cd "corpus/$name" &&
		TFBUILD_RECIPE_ROOT=$PWD tfbuild recipe -q r.yaml --timeout 10s \
			--out out >err 2>&1
		echo $? >rc
	)
	rc=$(cat "corpus/$name/rc")
	extra=
	snapshot_outside >"corpus/$name.outside"
	cmp -s outside.before "corpus/$name.outside" || {
		extra=escape
		diff outside.before "corpus/$name.outside" >>"corpus/$name/err"
	}
	if [ "$rc" != 0 ] && [ -d "corpus/$name/out" ] &&
		[ -n "$(ls -A "corpus/$name/out")" ]; then
		extra=${extra:-partial}
	fi
	hostile_judge recipes "$name" "$want" "$rx" "$rc" "corpus/$name/err" "$extra"
}

while IFS='	' read -r name want rx; do
	expect_success "recipe $name: exit $want" "run_case '$name' '$want' '$(printf '%s' "$rx" | sed "s/'/'\\\\''/g")'"
done <corpus/cases.tsv

expect_success 'a 100 MB scalar is refused by the size limit, quickly' '
	mkdir big &&
	{ printf "schema: 1\nname: h\nversion: \"1\"\nvariables:\n  a: " &&
	  head -c 100000000 /dev/zero | tr "\0" x && echo; } >big/r.yaml &&
	tfbuild recipe -q big/r.yaml >big/err 2>&1; rc=$?
	hostile_judge recipes huge-scalar 3 \
		"^tfbuild: big/r\.yaml'"'"' is too large \(over 4194304 bytes\)|'"'"'big/r\.yaml'"'"' is too large \(over 4194304 bytes\)" \
		"$rc" big/err &&
	rm -f big/r.yaml
'

expect_success 'a directory given as the recipe is refused' '
	mkdir -p dir/r.yaml &&
	tfbuild recipe -q dir/r.yaml >dir/err 2>&1; rc=$?
	hostile_judge recipes directory 3 \
		"^tfbuild: cannot read '"'"'dir/r\.yaml'"'"': Is a directory$" "$rc" dir/err
'

test_done
