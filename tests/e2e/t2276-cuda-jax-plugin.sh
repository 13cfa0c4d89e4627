#!/bin/sh
# tier: expensive (JAX; make test QUICK=1 skips it, CI runs it)
# recipes/jax-cuda-m1.yaml (issue 38, items 1 and 4): the m1 backend on
# CUDA as a JAX PJRT plugin, built by `tfbuild recipe` from a clean copy
# of the checkout (recipes/, backend/, gpu/) with /usr/local/cuda hidden
# (a private mount namespace, as t2273): nvcc, cicc and the CUDA headers
# come from the index's wheels through the recipe's lock, nvcc and nvvm
# unpacked into ${host_site} (`host-wheels`), the runtime and its
# headers into ${target_site}, and the step shows it ran that nvcc.
# (The aarch64 wheel of the same recipe: t2277.)
#   - a second run runs nothing; a second checkout at another path gives
#     the same bytes (nvcc's output included), with no path of the build
#     machine or the cache in them, and none of nvcc's tmpxft_<pid> names
#     (they made the bytes follow the order make -j started its jobs in);
#   - the wheel: the two libraries, GetPjrtApi the plugin's only export,
#     libcudart not vendored, the RUNPATHs, Requires-Dist (jaxlib, jax
#     and the nvidia-cuda-runtime window);
#   - `tfbuild verify` (with the index's cuobjdump) passes it and prints
#     its GPU architectures;
#   - a fresh venv: jax 0.10.2's hash-pinned closure, then the wheel,
#     which brings nvidia-cuda-runtime from the index pip is configured
#     with; on this machine without a GPU JAX's first use prints the
#     plugin's one line (no CUDA device: CUDA's reason), JAX
#     lists only the CPU and computes on it; the package's own functions
#     load libm1_cuda.so and libcudart from site-packages;
#   - bench/gpu/prepare.sh --wheels with the wheel and its closure, and
#     run.sh installing them with --no-index: no GPU, said, exit 2.
# The download cache (the pinned wheels, about 1.1 GB with tensorflow's)
# and the target site are the JAX tests' (tests/lib/jax.sh), so a rerun
# fetches nothing; the toolchain for cuobjdump is tests/lib/cuda.sh's.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/jax.sh"
. "$TESTS_DIR/lib/cuda.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }
if test -e /usr/local/cuda && ! unshare -m sh -c 'mount -t tmpfs none /usr/local/cuda' 2>/dev/null; then
	skip "/usr/local/cuda cannot be hidden here (unshare -m, mount: root only)"
	test_done
	exit 0
fi

cuda=$(cuda_root) || exit 1
TFBUILD_CUOBJDUMP=$cuda/bin/cuobjdump
export TFBUILD_CUOBJDUMP
unset LD_LIBRARY_PATH

# hidden CMD...: CMD with every /usr/local/cuda* covered by an empty
# tmpfs, in a mount namespace of its own (t2273).
hidden() {
	unshare -m sh -c 'for d in /usr/local/cuda*; do
		test ! -d "$d" || mount -t tmpfs tfbuild-hidden "$d" || exit 1
	done && exec "$@"' sh "$@"
}

# checkout DIR: what the recipe reads, as a clean checkout has it.
checkout() {
	mkdir -p "$1/recipes" &&
	cp "$SRC_ROOT/recipes/jax-cuda-m1.yaml" \
		"$SRC_ROOT/recipes/jax-cuda-m1.lock.json" "$1/recipes/" &&
	cp -R "$SRC_ROOT/backend" "$SRC_ROOT/gpu" "$1/"
}

# build CHECKOUT BUILD OUT: the recipe, /usr/local/cuda hidden.
build() {
	mkdir -p "$jax_cache/downloads" &&
	hidden "$TFBUILD" recipe -j 2 --cache "$jax_cache/downloads" \
		--build-dir "$2" --out "$3" "$1/recipes/jax-cuda-m1.yaml"
}

start=$(date +%s)
expect_success 'the wheel builds with the index nvcc from the lock, /usr/local/cuda hidden' '
	checkout c &&
	build c build wheels 2>err &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err &&
	ls wheels/jax_cuda_m1_plugin-1.0.0-py3-none-manylinux_*_x86_64.whl &&
	log=$(ls build/jax-cuda-m1/x86_64/logs/pjrt*.log) &&
	grep "/nvidia/cu13/bin/nvcc " "$log" | head -n 1 >nvcc &&
	grep -q "$TF_SYSROOT_CACHE/target-sites/host-x86_64-[0-9a-f]*/nvidia/cu13/bin/nvcc -ccbin " nvcc &&
	grep -q -- "-I$TF_SYSROOT_CACHE/target-sites/x86_64-[0-9a-f]*/nvidia/cu13/include " "$log" &&
	! grep -q /usr/local/cuda "$log"
'
echo "# the first build took $(($(date +%s) - start)) s"
whl=$(ls wheels/jax_cuda_m1_plugin-*_x86_64.whl 2>/dev/null)

expect_success 'a second run runs nothing and writes the same wheel' '
	cp "$whl" first.whl &&
	build c build wheels 2>err &&
	grep -q "^tfbuild: 0 of 3 steps ran, 3 up to date$" err &&
	cmp first.whl "$whl"
'

expect_success 'another checkout at another path: byte-identical wheel' '
	checkout elsewhere/c2 &&
	build elsewhere/c2 elsewhere/build elsewhere/wheels 2>err &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err &&
	cmp "$whl" "elsewhere/$whl" &&
	unzip -p "$whl" >all &&
	! grep -a -e "$TRASH" -e "$TF_SYSROOT_CACHE" -e "$jax_cache" all &&
	! grep -a tmpxft_ all
'

# runpath FILE: its DT_RUNPATH, or nothing.
runpath() {
	readelf -d "$1" | sed -n "s/.*(RUNPATH).*\[\(.*\)\]$/\1/p"
}

expect_success 'the wheel: two libraries, GetPjrtApi only, libcudart from the runtime wheel' '
	rm -rf x && mkdir x && (cd x && unzip -q "../$whl") &&
	p=x/jax_cuda_m1_plugin &&
	nm -D --defined-only $p/libpjrt_cuda_m1.so | grep -v " [AUw] " | sed "s/.* //" >syms &&
	echo GetPjrtApi | compare - syms &&
	readelf -d $p/libpjrt_cuda_m1.so | grep -q "NEEDED.*\[libm1_cuda\.so\]" &&
	echo "\$ORIGIN" >expect && runpath $p/libpjrt_cuda_m1.so >actual &&
	compare expect actual &&
	readelf -d $p/libm1_cuda.so | grep -q "NEEDED.*\[libcudart\.so\.13\]" &&
	echo "\$ORIGIN/../nvidia/cu13/lib" >expect && runpath $p/libm1_cuda.so >actual &&
	compare expect actual &&
	! find x -name "libcudart*" | grep . &&
	printf "[jax_plugins]\nm1 = jax_cuda_m1_plugin\n\n" >expect &&
	compare expect x/*.dist-info/entry_points.txt &&
	grep "^Requires-Dist:" x/*.dist-info/METADATA >actual &&
	printf "%s\n" "Requires-Dist: nvidia-cuda-runtime<14,>=13.5.37" \
		"Requires-Dist: jaxlib==0.10.2" "Requires-Dist: jax==0.10.2" >expect &&
	compare expect actual
'

expect_success 'verify passes it and prints its GPU architectures' '
	"$TFBUILD" verify -v "$whl" >out 2>err &&
	grep "GPU code" err >actual &&
	echo "tfbuild: $whl: jax_cuda_m1_plugin/libm1_cuda.so: GPU code: sm_80 sm_90 compute_90" >expect &&
	compare expect actual &&
	grep -q "built for jaxlib 0.10.2 (PJRT C API 0.90)" err &&
	printf "sm_80\nsm_90\ncompute_90\n" >expect &&
	unzip -p "$whl" "*.dist-info/tfbuild/cuda-archs" >actual &&
	compare expect actual
'

# jax 0.10.2 and its closure, every file hash-pinned, from the index pip
# is configured for; then the wheel, whose nvidia-cuda-runtime comes from
# the same index (at the version the build pinned). --no-compile as t2105.
expect_success 'a fresh venv: jax 0.10.2, then the wheel, which brings nvidia-cuda-runtime' '
	"$PYTHON" -m venv venv &&
	venv/bin/pip --disable-pip-version-check install -q --no-compile --require-hashes \
		-r "$jax_req/jax-0.10.2.txt" &&
	echo "nvidia-cuda-runtime==13.5.37" >constraints.txt &&
	venv/bin/pip --disable-pip-version-check install -q --no-compile \
		-c constraints.txt "$whl" &&
	venv/bin/pip --disable-pip-version-check check &&
	venv/bin/python -c "import importlib.metadata as m; print(m.version(\"nvidia-cuda-runtime\"))" >actual &&
	echo 13.5.37 >expect &&
	compare expect actual
'

expect_success 'the package finds no device, in one line with CUDA'"'"'s reason' '
	(cd / && "$TRASH/venv/bin/python" -c "
import jax_cuda_m1_plugin as p
n, why = p.cuda_devices()
print(n, why)
") >out 2>err &&
	test ! -s err &&
	if test "$(cut -d" " -f1 out)" != 0; then
		echo "# this machine has a CUDA device: $(cat out)"
	fi &&
	grep -Eqx "0 [^:]+" out
'

# JAX calls the plugin's initialize() when it first makes its backends
# (jax.devices() here), not at import: the line comes there, alone.
expect_success 'jax'"'"'s first use: the plugin says why in one line; only the CPU; jax.numpy computes on it' '
	(cd / && "$TRASH/venv/bin/python" -c "
import sys
import jax, jax.numpy as jnp, numpy as np
print(\"imported\", file=sys.stderr, flush=True)
print(jax.devices())
x = np.arange(-6, 6, dtype=np.float32).reshape(3, 4)
y = np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5)
r = jnp.maximum(jnp.asarray(x), 0)
s = jnp.asarray(x) + jnp.asarray(x)
m = jnp.asarray(x) @ jnp.asarray(y)
print(np.array_equal(np.asarray(r), np.maximum(x, 0)),
      np.array_equal(np.asarray(s), x + x),
      np.allclose(np.asarray(m), x @ y, rtol=1e-5, atol=1e-5),
      r.devices() == {jax.devices(\"cpu\")[0]})
") >actual 2>err &&
	(cd / && "$TRASH/venv/bin/python" -c "
import jax_cuda_m1_plugin as p
print(p.cuda_devices()[1])
") >why &&
	printf "%s\n" imported \
		"jax_cuda_m1_plugin: no CUDA device: $(cat why): the m1 platform is not registered" >expect.err &&
	compare expect.err err &&
	printf "%s\n" "[CpuDevice(id=0)]" "True True True True" >expect &&
	compare expect actual
'

# bench/gpu with the wheel (issue 38, item 5): what a lent GPU machine
# gets, prepared here from the wheel, jax 0.10.2's pinned closure and the
# index's nvidia-cuda-runtime; run.sh installs them into a fresh venv
# with --no-index and runs jax_check.py and the bench with the installed
# wheel's libraries. Here, without a GPU, both say so and it exits 2.
expect_success 'bench/gpu: the wheel installed with --no-index into a fresh venv, and no GPU said' '
	mkdir -p wh &&
	cp "$whl" "$(jax_wheels "$jax_req/jax-0.10.2.txt" x86_64)"/*.whl \
		"$(cuda_wheels "$SRC_ROOT/tests/requirements/cuda-toolchain.txt")"/nvidia_cuda_runtime-13.5.37-*x86_64.whl wh/ &&
	sh "$SRC_ROOT/bench/gpu/prepare.sh" --wheels wh "$cuda" gpu >out 2>&1 &&
	(cd gpu/wheels && sha256sum -c --quiet SHA256SUMS) &&
	ls gpu/wheels | grep -c "\.whl$" >actual && echo 8 >expect && compare expect actual &&
	if (cd / && "$TRASH/venv/bin/python" -c "
import jax_cuda_m1_plugin as p, sys
sys.exit(p.cuda_devices()[0] > 0)"); then
		why=$(cd / && "$TRASH/venv/bin/python" -c "
import jax_cuda_m1_plugin as p
print(p.cuda_devices()[1])") &&
		expect_code 2 env PYTHON="$PYTHON" sh gpu/run.sh gpu >out 2>err &&
		grep -qx "jax_cuda_m1_plugin: no CUDA device: $why: the m1 platform is not registered" err &&
		grep -qx "no CUDA device: $why" out &&
		grep -q "^jax_cuda_m1_plugin  *1\.0\.0$" out &&
		grep -q "^nvidia-cuda-runtime  *13\.5\.37$" out &&
		grep -qx "== the bench, with the installed wheel'"'"'s libm1_cuda.so" out &&
		tail -n 1 out | grep -Eqx "no CUDA device: [^:]+"
	else
		echo "# this machine has a CUDA device: run.sh must pass" &&
		env PYTHON="$PYTHON" sh gpu/run.sh gpu
	fi
'

expect_success 'outside its jaxlib window the package registers nothing, and says why' '
	(cd / && "$TRASH/venv/bin/python" -c "
import jax_cuda_m1_plugin as p
print(p.window_problem(\"0.9.2\"))
print(p.window_problem(\"0.10.7\"))
") >actual &&
	cat >expect <<-EOF &&
	jax_cuda_m1_plugin 1.0.0 was built for jaxlib 0.10.2 (PJRT C API 0.90; it loads into jaxlib >=0.10,<0.11), but the running jaxlib is 0.9.2: the m1 platform is not registered
	None
	EOF
	compare expect actual
'

test_done
