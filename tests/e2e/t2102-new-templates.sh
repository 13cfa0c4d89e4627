#!/bin/sh
# Each template of tfbuild new builds, tests and packs as written (issue
# 29 item 3): `tfbuild new T x` then `tfbuild recipe --target all
# x/recipe.yaml` builds both targets and runs the template's tests on
# each (aarch64 under qemu); every wheel passes tfbuild verify and PyPI's
# checkers (tests/lib/checkers.sh); the x86_64 wheel installs into a fresh venv and works;
# a failing test fails the run (shell: bash) where sh would pass it.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE

for t in c-library cmake-library meson-library python-extension; do
	# The Python package of each: hello_<template>.
	n=hello-$t m=hello_$(echo $t | tr - _)
	expect_success "$t: both targets build, their tests run on each" '
		"$TFBUILD" -q new $t $n &&
		"$TFBUILD" -q recipe --target all -j 2 --out out-$t $n/recipe.yaml &&
		for a in x86_64 aarch64; do
			cat $n/build/recipe/$a/logs/*.log >log &&
			grep -q "^Ran 4 tests" log && grep -q "^OK$" log || exit 1
		done &&
		ls out-$t/*x86_64*.whl && ls out-$t/*aarch64*.whl
	'
	expect_success "$t: every wheel verifies and passes PyPI's checkers" '
		"$TFBUILD" verify out-$t/*.whl && check_wheels out-$t/*.whl
	'
	expect_success "$t: the x86_64 wheel installs into a fresh venv and works" '
		rm -rf venv && /usr/bin/python3 -m venv --without-pip venv &&
		tools_pip --python venv/bin/python install -q --no-index \
			--no-deps out-$t/*x86_64*.whl &&
		(cd / && "$TRASH/venv/bin/python" -c "import $m; print($m.total([1, 2, 3, 4]), $m.add(2, 3))") >actual &&
		echo "10 5" >expect && compare expect actual
	'
done

expect_success 'a failing unittest fails the run (exit 5) through | tail' '
	cp -R hello-python-extension bad && rm -rf bad/build &&
	f=src/tests/test_hello_python_extension.py &&
	sed -i "s/add(2, 3), 5)/add(2, 3), 6)/" bad/$f &&
	! cmp -s hello-python-extension/$f bad/$f &&
	expect_code 5 "$TFBUILD" recipe --out bad-out bad/recipe.yaml 2>err &&
	grep -q "^FAILED (failures=1)" err &&
	! ls bad-out/*.whl 2>/dev/null
'

expect_success 'the same recipe in sh (dash, no pipefail) passes it, as documented' '
	rm -rf bad/build &&
	sed -i "s/^shell: bash$/shell: sh/" bad/recipe.yaml &&
	"$TFBUILD" -q recipe --out sh-out bad/recipe.yaml &&
	grep -q "^FAILED (failures=1)" bad/build/recipe/*/logs/unittest.log
'

test_done
