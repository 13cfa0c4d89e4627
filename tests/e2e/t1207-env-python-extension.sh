#!/bin/sh
# The C and C++ extension recipe of docs/python-extensions.md (issue 29
# item 3), from tests/fixtures/pyext: the page's blocks are those files;
# it builds for both targets with the unittests run by the target's
# CPython (qemu for aarch64), every wheel verifies, the x86_64 wheels
# install with Debian's pip and import; a failing unittest fails the run
# (exit 5), while the '| tail' anti-pattern the page warns of hides it.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE
fx=$SRC_ROOT/tests/fixtures/pyext
doc=$SRC_ROOT/docs/python-extensions.md
ver=$(/usr/bin/python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')

# The fenced block after "<!-- file: tests/fixtures/pyext/PATH -->".
doc_block() {
	awk -v want="<!-- file: tests/fixtures/pyext/$1 -->" '
		$0 == want { found = 1; next }
		found == 1 && /^```/ { found = 2; next }
		found == 2 && /^```$/ { exit }
		found == 2 { print }
	' "$doc"
}

expect_success 'the page shows the fixture files as they are' '
	for f in pyext.yaml src/cdemo.c src/cxxdemo.cpp src/test_cdemo.py src/test_cxxdemo.py; do
		doc_block $f >block &&
		test -s block &&
		compare "$fx/$f" block || exit 1
	done
'

expect_success 'both targets build; the target CPython runs the unittests' '
	cp -R "$fx" pyext &&
	"$TFBUILD" -q recipe --target all -j 2 --out out pyext/pyext.yaml &&
	for t in x86_64 aarch64; do
		grep -q "^Ran 4 tests" pyext/build/pyext/$t/logs/unittest.log &&
		grep -q "^OK$" pyext/build/pyext/$t/logs/unittest.log || exit 1
	done &&
	ls out/*.whl >actual &&
	cat >expect <<-EOT &&
	out/pyext_cdemo-1.0.0-cp38-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64.whl
	out/pyext_cdemo-1.0.0-cp38-abi3-manylinux_2_5_x86_64.manylinux1_x86_64.whl
	out/pyext_cxxdemo-1.0.0-cp$ver-cp$ver-manylinux_2_24_aarch64.whl
	out/pyext_cxxdemo-1.0.0-cp$ver-cp$ver-manylinux_2_24_x86_64.whl
	EOT
	compare expect actual &&
	unzip -l out/pyext_cxxdemo-*aarch64.whl | grep -q " cxxdemo.cpython-$ver-aarch64-linux-gnu.so$" &&
	unzip -l out/pyext_cdemo-*aarch64*.whl | grep -q " cdemo.abi3.so$"
'

expect_success 'every wheel verifies' '
	for w in out/*.whl; do
		"$TFBUILD" verify "$w" || exit 1
	done
'

expect_success 'PyPI'"'"'s checkers pass every wheel, abi3audit the abi3 ones' '
	check_wheels out/*.whl >checkers &&
	cat checkers && grep -q "^checker: abi3audit --strict: pyext_cdemo-.*: PASSED$" checkers
'

expect_success 'the x86_64 wheels install into a fresh venv and import' '
	/usr/bin/python3 -m venv venv &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 venv/bin/pip install -q --no-index \
		--no-deps out/*x86_64*.whl &&
	(cd / && "$OLDPWD/venv/bin/python" -c "import cdemo, cxxdemo; print(cdemo.add(2, 3), cxxdemo.total([1, 2, 3, 4]))") >actual &&
	echo "5 10" >expect &&
	compare expect actual
'

expect_success 'a failing unittest fails the run with exit 5, its report shown' '
	cp -R "$fx" bad &&
	sed -i "s/cdemo.add(2, 3), 5)/cdemo.add(2, 3), 6)/" bad/src/test_cdemo.py &&
	! cmp -s "$fx/src/test_cdemo.py" bad/src/test_cdemo.py &&
	expect_code 5 "$TFBUILD" recipe --target x86_64 --out bad-out bad/pyext.yaml 2>err &&
	grep -q "unittest" err &&
	grep -q "^FAILED (failures=1)" err &&
	grep -q "^FAILED (failures=1)" bad/build/pyext/x86_64/logs/unittest.log &&
	test ! -e bad-out/pyext_cdemo-1.0.0-cp38-abi3-manylinux_2_5_x86_64.manylinux1_x86_64.whl
'

expect_success 'the anti-pattern: piped through tail, the same failure passes' '
	cp -R bad tail &&
	rm -rf tail/build &&
	sed -i "/-m unittest/c\\      \"\$TARGET_PYTHON\" -m unittest -v test_cdemo test_cxxdemo 2>&1 | tail -50" tail/pyext.yaml &&
	sed -i "/tail -3 /d" tail/pyext.yaml &&
	grep -q "2>&1 | tail -50$" tail/pyext.yaml &&
	! grep -q "test.log" tail/pyext.yaml &&
	"$TFBUILD" -q recipe --target x86_64 --out tail-out tail/pyext.yaml &&
	grep -q "^FAILED (failures=1)" tail/build/pyext/x86_64/logs/unittest.log
'

test_done
