#!/bin/sh
# tier: expensive (JAX; make test QUICK=1 skips it, CI runs it)
# recipes/jax-m1.yaml on aarch64 (issue 25): the aarch64 wheel, built by
# `tfbuild recipe --target aarch64` against the arm64 wheels the lock
# file pins (tensorflow's PJRT header, jaxlib's release), loaded by
# the released arm64 jax/jaxlib 0.10.2 from the index (hash-pinned,
# installed with pip --target into a root cached outside the repository)
# in Debian's arm64 CPython 3.11, under qemu-aarch64: the same checks as
# on x86_64 (t2060), on the NEON kernels' ISA. The run's time is printed
# (no timed assertion).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/jax.sh"

# The arm64 CPython root is tfbuild's own target root (cached as t1205's,
# in TF_SYSROOT_CACHE, which tests/lib/jax.sh sets).
cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}
check="$SRC_ROOT/backend/pjrt_m1/tests/check_jax.py"
mkdir -p c && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" c/ || exit 1

expect_success 'the aarch64 wheel builds' '
	jax_build c build wheels --target aarch64 2>err &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-manylinux_*_aarch64.whl
'
awhl=$(ls wheels/jax_m1_plugin-*_aarch64.whl 2>/dev/null)

expect_success 'the aarch64 wheel: Requires-Dist derived, verify names the framework ABI' '
	unzip -p "$awhl" "*.dist-info/METADATA" | grep "^Requires-Dist:" >got &&
	printf "Requires-Dist: jaxlib==0.10.2\nRequires-Dist: jax==0.10.2\n" >want &&
	compare want got &&
	"$TFBUILD" verify "$awhl" 2>err &&
	grep -qx "tfbuild: $awhl: built for jaxlib 0.10.2 (PJRT C API 0.90)" err
'

# A recipe that names $TARGET_PYTHON gets Debian's arm64 CPython in its
# target root (docs/cross.md#target-python).
mkdir -p py/none && cat >py/pyroot.yaml <<'EOF_Y'
schema: 1
name: pyroot
version: 1.0.0
targets: [aarch64]
sources:
  - {name: none, path: none}
steps:
  - name: py
    source: none
    run: $TARGET_PYTHON -c 'import platform; print(platform.machine())' >$STAGE/m
EOF_Y
expect_success 'an arm64 CPython 3.11 root' '
	"$TFBUILD" recipe --target aarch64 -j 2 --build-dir pybuild --out pyout \
		py/pyroot.yaml 2>err &&
	grep -qx aarch64 pybuild/pyroot/aarch64/stage/py/m
'
root=$(sed -n "s/^PKG_CONFIG_SYSROOT_DIR='\(.*\)'$/\1/p" \
	pybuild/pyroot/aarch64/toolchain/pkg-config 2>/dev/null)

# jax for arm64, installed once per requirements file.
asite=$jax_cache/aarch64-site-$(_jax_key "$jax_req/jax-0.10.2.txt")
expect_success 'arm64 jax 0.10.2 from the index (hash-pinned), in a cached directory' '
	asite=$(jax_arm64_site "$jax_req/jax-0.10.2.txt") &&
	file -L "$asite"/jaxlib/libjax_common.so | grep -q "ARM aarch64"
'

mkdir -p awheel && (cd awheel && unzip -q "$TRASH/$awhl")
start=$(date +%s)
expect_success 'under qemu-aarch64, arm64 jax lists m1; arrays round trip; jit is refused (neon)' '
	test -n "$root" &&
	(cd / && env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 JAX_M1_DEVICES=2 \
		PYTHONPATH="$TRASH/awheel:$asite" \
		PYTHONPYCACHEPREFIX="$cache/pycache/jax-aarch64" \
		qemu-aarch64 -L "$root" "$root/usr/bin/python3.11" "$check") >out 2>err &&
	grep -qx "from $TRASH/awheel/jax_m1_plugin" out &&
	grep -qx "jax 0.10.2" out &&
	grep -q "^ok devices \[M1Device(id=0), M1Device(id=1)\] kind M1 memory device$" out &&
	grep -qx "ok 60 arrays round trip bit for bit" out &&
	grep -qx "ok strided host array" out &&
	grep -qx "ok copy between m1 devices" out &&
	grep -qx "ok to the cpu and computed there" out &&
	grep -q "^ok jit refused: UNIMPLEMENTED: PJRT_Client_Compile: the m1 plugin cannot compile StableHLO" out &&
	grep -qx "ok delete" out &&
	test "$(tail -n 1 out)" = "isa neon"
'
echo "# the aarch64 JAX run took $(($(date +%s) - start)) s under qemu-aarch64"

test_done
