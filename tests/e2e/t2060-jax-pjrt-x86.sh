#!/bin/sh
# recipes/jax-m1.yaml: the m1 backend as a JAX PJRT plugin (issue 25),
# loaded by the released jax/jaxlib 0.10.2 from the index, on x86_64.
#   - both py3-none wheels build; the plugin exports GetPjrtApi only;
#     entry point "m1" in "jax_plugins"; _build.py records PJRT 0.90
#     (from the header) and jaxlib 0.10.2 (from its dist-info);
#   - the plugin's C API alone: every slot set, buffers round trip;
#   - in a venv with jax 0.10.2 (hash-pinned) and the wheel: jax lists
#     the m1 devices; arrays of ten dtypes and six shapes (a scalar,
#     0-size ones, strided) go there and back bit for bit; copies
#     between devices and to the CPU; jit on m1 raises the plugin's
#     message; the CPU stays the default backend;
#   - JAX_PLATFORMS=cpu leaves m1 alone; with ENABLE_PJRT_COMPATIBILITY
#     off (jaxlib then wants its own PJRT 0.112 exactly, and a refused
#     plugin breaks every JAX call) the package says so once and
#     registers nothing, and the CPU still works.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/jax.sh"

check="$SRC_ROOT/backend/pjrt_m1/tests/check_jax.py"
mkdir -p c && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" c/ || exit 1

expect_success 'both wheels build: py3-none, one per target' '
	jax_build c build wheels --target all 2>err &&
	grep -q "^tfbuild: 6 of 6 steps ran$" err &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-manylinux_*_x86_64.whl &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-manylinux_*_aarch64.whl
'

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels wheels/*.whl
'
whl=$(ls wheels/jax_m1_plugin-*_x86_64.whl 2>/dev/null)

expect_success 'the wheel: the library, its entry point, what it was built for' '
	unzip -l "$whl" | grep -q " jax_m1_plugin/libpjrt_m1\.so$" &&
	unzip -p "$whl" "*.dist-info/entry_points.txt" >ep &&
	printf "[jax_plugins]\nm1 = jax_m1_plugin\n\n" >ep.want &&
	compare ep.want ep &&
	unzip -p "$whl" jax_m1_plugin/_build.py >b.py &&
	grep -qx "PJRT_API_VERSION = (0, 90)" b.py &&
	grep -qx "JAXLIB_BUILT_FOR = \"0.10.2\"" b.py &&
	grep -qx "JAXLIB_WINDOW = (\"0.10\", \"0.11\")" b.py &&
	unzip -p "$whl" jax_m1_plugin/libpjrt_m1.so >lib.so &&
	nm -D --defined-only lib.so | grep -v " [AUw] " | sed "s/.* //" >syms &&
	echo GetPjrtApi | compare - syms
'

# The recipe's test (the plugin's C API alone), run on each target: under
# qemu-aarch64 for aarch64, and on the baseline CPU (qemu) as api@baseline.
L=build/jax-m1-local
expect_success 'the plugin through its C API: every slot, buffers, refusals, each ISA' '
	for l in $L/x86_64/logs/api.log $L/x86_64/logs/api@baseline.log \
		$L/aarch64/logs/api.log; do
		grep -qx "ok version 0.90" $l &&
		grep -qx "ok all 128 slots set" $l &&
		grep -qx "ok 13 types round trip" $l &&
		grep -qx "ok scalar, 0-size, strided, events, delete" $l &&
		grep -qx "ok done" $l || exit 1
	done &&
	grep -qx "ok isa sse2" $L/x86_64/logs/api@baseline.log &&
	grep -qx "ok isa neon" $L/aarch64/logs/api.log
'

expect_success 'a venv with jax 0.10.2 from the index (hash-pinned) and the wheel' '
	w=$(jax_wheels "$jax_req/jax-0.10.2.txt" x86_64) &&
	"$PYTHON" -m venv venv &&
	venv/bin/pip install -q --disable-pip-version-check --no-index \
		--find-links "$w" --require-hashes -r "$jax_req/jax-0.10.2.txt" &&
	venv/bin/pip install -q --disable-pip-version-check --no-index "$whl" &&
	venv/bin/pip check
'

if grep -qw avx2 /proc/cpuinfo; then native=avx2; else native=sse2; fi
expect_success "jax lists m1's devices; arrays round trip bit for bit; jit is refused ($native)" '
	(cd / && JAX_M1_DEVICES=2 "$TRASH/venv/bin/python" "$check") >out 2>err &&
	grep -qx "from $TRASH/venv/lib/python3.11/site-packages/jax_m1_plugin" out &&
	grep -qx "jax 0.10.2" out &&
	grep -q "^ok devices \[M1Device(id=0), M1Device(id=1)\] kind M1 memory device$" out &&
	grep -qx "ok 60 arrays round trip bit for bit" out &&
	grep -qx "ok strided host array" out &&
	grep -qx "ok copy between m1 devices" out &&
	grep -qx "ok to the cpu and computed there" out &&
	grep -qx "ok jit refused: UNIMPLEMENTED: PJRT_Client_Compile: the m1 plugin cannot compile StableHLO (it only holds arrays: device_put and transfers back to the host)" out &&
	grep -qx "ok delete" out &&
	test "$(tail -n 1 out)" = "isa $native"
'

expect_success 'JAX_PLATFORMS=cpu: m1 is not started, the CPU works' '
	(cd / && JAX_PLATFORMS=cpu "$TRASH/venv/bin/python" -c "
import jax, jax.numpy as jnp
print(jax.devices(), int(jnp.arange(4).sum()))
try:
    jax.devices(\"m1\")
except RuntimeError as e:
    print(\"no m1:\", e)
") >out 2>err &&
	grep -qx "\[CpuDevice(id=0)\] 6" out &&
	grep -q "^no m1: Unknown backend m1" out &&
	! grep -i "m1" err
'

# jaxlib itself, with compatibility off, wants its own version exactly,
# and a plugin it refuses fails every JAX call: the package sees the
# setting first and registers nothing.
expect_success 'ENABLE_PJRT_COMPATIBILITY=false: one message, the CPU works' '
	(cd / && ENABLE_PJRT_COMPATIBILITY=false "$TRASH/venv/bin/python" -c "
import jax, jax.numpy as jnp
print(int(jnp.arange(4).sum()))
try:
    jax.devices(\"m1\")
except RuntimeError as e:
    print(\"no m1:\", e)
") >out 2>err &&
	grep -qx 6 out &&
	grep -q "^no m1: Unknown backend m1" out &&
	echo "jax_m1_plugin 1.0.0 is PJRT C API 0.90, and ENABLE_PJRT_COMPATIBILITY=false makes jaxlib accept only its own PJRT version: the m1 platform is not registered" >want &&
	compare want err
'

test_done
