#!/bin/sh
# Hostile wheels for `tfbuild verify`: each case of tests/hostile/wheels.py
# is verified with the exit code and message its table line says. A
# wheel verify passes must install with pip (--no-deps --target into a
# fresh directory) with exactly the files its RECORD lists: what verify
# vouches for is what an installer writes.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/hostile/lib.sh"

expect_success 'generate the wheel corpus' '
	"$PYTHON" "$TESTS_DIR/hostile/wheels.py" corpus >count &&
	test "$(cat count)" -ge 20
'

# pip_matches_record WHEEL: installed files == RECORD's list.
pip_matches_record() {
	rm -rf pip-target &&
	"$PYTHON" -m pip install -q --no-deps --no-index --no-compile \
		--disable-pip-version-check --target pip-target "$1" >pip.log 2>&1 || {
		cat pip.log; return 1; }
	(cd pip-target && find . -type f ! -path "./*.dist-info/INSTALLER" \
		! -path "./*.dist-info/REQUESTED" ! -path "./*.dist-info/direct_url.json" |
		sed "s|^\./||" | LC_ALL=C sort) >installed &&
	unzip -p "$1" "*.dist-info/RECORD" | cut -d, -f1 | LC_ALL=C sort >listed &&
	compare listed installed
}

run_case() {
	name=$1 want=$2 rx=$3
	whl="corpus/$name/demo-1.0-py3-none-any.whl"
	TFBUILD_VERIFY_MAX_BYTES=64M tfbuild verify "$whl" >"corpus/$name.err" 2>&1
	rc=$?
	extra=
	if [ "$rc" = 0 ] && ! pip_matches_record "$whl" >>"corpus/$name.err" 2>&1; then
		extra=escape
	fi
	hostile_judge wheels "$name" "$want" "$rx" "$rc" "corpus/$name.err" "$extra"
}

while IFS='	' read -r name want rx; do
	expect_success "wheel $name: exit $want" "run_case '$name' '$want' '$(printf '%s' "$rx" | sed "s/'/'\\\\''/g")'"
done <corpus/cases.tsv

test_done
