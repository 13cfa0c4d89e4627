#!/bin/sh
# Hostile archives, end to end: each one is a recipe's pinned file://
# source, fetched into the cache and extracted by `tfbuild recipe`. The
# corpus and the expected outcome of each case (exit code and message)
# come from tests/hostile/archives.py. Nothing may land outside the
# build tree, no temporary tree may stay behind after a refusal, no
# extracted file may keep a setuid, setgid or sticky bit, and the bombs
# stop at the limits the test sets (docs/security.md#limits).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/hostile/lib.sh"

expect_success 'generate the archive corpus' '
	mkdir outside &&
	echo secret >outside/secret &&
	"$PYTHON" "$TESTS_DIR/hostile/archives.py" corpus "$TRASH/outside" >count &&
	test "$(cat count)" -ge 25
'

hostile_snapshot outside >outside.before

# run_case NAME FILE STRIP WANT REGEX
run_case() {
	name=$1 file=$2 strip=$3 want=$4 rx=$(printf '%s' "$5" | sed "s/@A@/$(printf '%s' "$2" | sed 's/[.]/\\\\./g')/g")
	w="w/$name"
	mkdir -p "$w" &&
	sum=$(sha256_of "corpus/$file") &&
	printf 'schema: 1\nname: h\nversion: "1"\nsources:\n  - name: s\n    url: file://%s\n    sha256: %s\n    strip: %s\n' \
		"$TRASH/corpus/$file" "$sum" "$strip" >"$w/r.yaml" &&
	TFBUILD_EXTRACT_MAX_BYTES=16M TFBUILD_EXTRACT_MAX_ENTRIES=20000 \
		tfbuild recipe -q "$w/r.yaml" --out "$w/out" >"$w/err" 2>&1
	rc=$?
	extra=
	hostile_snapshot outside >"$w/outside.after"
	cmp -s outside.before "$w/outside.after" || extra=escape
	[ ! -e /tmp/abs ] || extra=escape
	src="$w/build/r/x86_64/src"
	if [ "$rc" != 0 ] && [ -d "$src" ] && [ -n "$(ls -A "$src")" ]; then
		extra=${extra:-partial}
		echo "left in $src: $(ls -A "$src")" >>"$w/err"
	fi
	if [ "$rc" = 0 ] && [ -n "$(find "$src" -perm /7000 | head -n 1)" ]; then
		extra=${extra:-escape}
		echo "kept a special mode bit: $(find "$src" -perm /7000)" >>"$w/err"
	fi
	hostile_judge archives "$name" "$want" "$rx" "$rc" "$w/err" "$extra"
}

while IFS='	' read -r name file strip want rx; do
	expect_success "archive $name: exit $want" "run_case '$name' '$file' '$strip' '$want' '$(printf '%s' "$rx" | sed "s/'/'\\\\''/g")'"
done <corpus/cases.tsv

expect_success 'nothing appeared outside the tree' '
	hostile_snapshot outside >outside.after &&
	compare outside.before outside.after
'

test_done
