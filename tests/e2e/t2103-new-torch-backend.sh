#!/bin/sh
# tier: expensive (torch; make test QUICK=1 skips it, CI runs it)
# tfbuild new torch-backend (issue 29 item 5): the PyTorch PrivateUse1
# backend template builds, tests and packs as written, against Debian's
# torch 1.13. One build of both targets feeds every check (a compile
# against torch's headers is the slow part):
#   - both targets build; the unittests run on each, aarch64 in Debian's
#     arm64 CPython with the target root's torch under qemu;
#   - every wheel verifies (plain, and --framework against its target's
#     torch), passes twine check --strict and requires exactly the torch
#     build it was checked against;
#   - the x86_64 wheel installs into a venv that sees Debian's torch, pip
#     check passes, and tensors move to the device, add there and come back;
#   - a failing unittest fails the run (exit 5), and reruns the test only,
#     not the compile (the tests are a source of their own).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

# The arm64 root (torch and its Depends closure) is kept outside the
# repository across runs, as t1401 keeps it: the first run downloads
# ~200 MB.
TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE
twine=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}/twine
site=/usr/lib/python3/dist-packages
n=hello-torch m=hello_torch

expect_success 'both targets build against their torch; the unittests run on each' '
	"$TFBUILD" -q new torch-backend $n &&
	"$TFBUILD" -q recipe --target all -j 2 --out out $n/recipe.yaml &&
	for a in x86_64 aarch64; do
		for t in unittest unittest@baseline; do
			log=$n/build/recipe/$a/logs/$t.log &&
			grep -q "^Ran 6 tests" $log && grep -q "^OK$" $log || exit 1
		done
	done &&
	ls out/$m-0.1.0-cp311-cp311-manylinux_2_*_x86_64.whl &&
	ls out/$m-0.1.0-cp311-cp311-manylinux_2_*_aarch64.whl
'
whl=$(ls out/*_x86_64.whl 2>/dev/null)
awhl=$(ls out/*_aarch64.whl 2>/dev/null)

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels out/*.whl
'
root=$(sed -n "s/^PKG_CONFIG_SYSROOT_DIR='\(.*\)'$/\1/p" \
	$n/build/recipe/aarch64/toolchain/pkg-config 2>/dev/null)
asite=$root/usr/lib/python3/dist-packages

# The recipe's PYTHONPYCACHEPREFIX holds a .pyc of each module the tests
# imported, under its source's path: the aarch64 run's torch is the
# root's; none is written into the stage the wheel takes.
expect_success 'the aarch64 tests imported the arm64 root'"'"'s torch' '
	case $root in "$TF_SYSROOT_CACHE"/arm64-*) ;; *) echo "root: $root"; exit 1 ;; esac &&
	test -f "$n/build/recipe/aarch64/work/unittest/pycache$asite/torch/__init__.cpython-311.pyc" &&
	test -f "$n/build/recipe/x86_64/work/unittest/pycache$site/torch/__init__.cpython-311.pyc" &&
	! find $n/build/recipe/*/stage -name __pycache__ | grep .
'

expect_success 'every wheel verifies, against its target'"'"'s torch too, and passes twine check --strict' '
	for w in out/*.whl; do
		"$TFBUILD" verify "$w" && "$twine" check --strict "$w" >tw ||
		{ cat tw; exit 1; }
	done &&
	"$TFBUILD" verify --framework "$site" "$whl" 2>err &&
	grep -q "built for torch .* (cxx11 ABI), and resolves against" err &&
	"$TFBUILD" verify --framework "$asite" "$awhl" 2>err &&
	grep -q "built for torch .* (cxx11 ABI), and resolves against" err
'

expect_success 'each wheel requires the torch build it was checked against' '
	v=$(/usr/bin/python3 -c "import importlib.metadata as m; print(m.version(\"torch\"))") &&
	test -n "$v" &&
	for w in "$whl" "$awhl"; do
		unzip -p "$w" "*.dist-info/METADATA" | grep -qx "Requires-Dist: torch==$v" || exit 1
	done &&
	unzip -l "$awhl" | grep -q " $m/_C\.cpython-311-aarch64-linux-gnu\.so$"
'

expect_success 'the x86_64 wheel installs beside Debian'"'"'s torch and the device works' '
	/usr/bin/python3 -m venv --system-site-packages venv &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 venv/bin/pip install -q --no-index "$whl" &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 venv/bin/pip check &&
	(cd / && "$TRASH/venv/bin/python" -c "
import torch, $m
x = torch.ones(3).to($m.device)
y = torch.empty(2, device=\"privateuseone\")
z = x + x
print(x.device, y.device, z.device, z.cpu().tolist())
print($m.__file__.startswith(\"$TRASH/venv/\"))") >actual &&
	cat >expect <<-\EOF &&
	privateuseone:0 privateuseone:0 privateuseone:0 [2.0, 2.0, 2.0]
	True
	EOF
	compare expect actual
'

expect_success 'a failing unittest fails the run (exit 5); the compile does not rerun' '
	f=$n/tests/test_$m.py &&
	sed -i "s/torch.add(self.a, self.b, alpha=2)/torch.add(self.a, self.b, alpha=3)/" $f &&
	grep -q "alpha=3" $f &&
	expect_code 5 "$TFBUILD" recipe --target x86_64 --out bad-out $n/recipe.yaml 2>err &&
	grep -q "^FAILED (failures=1)" err &&
	grep -q "^tfbuild: 0 of 3 steps ran, 1 up to date, 1 skipped, 1 failed$" err &&
	! ls bad-out/*.whl 2>/dev/null
'

test_done
