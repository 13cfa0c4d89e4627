#!/bin/sh
# tier: expensive (JAX and CUDA for two targets; make test QUICK=1 skips it, CI runs it)
# recipes/jax-cuda-m1.yaml for aarch64 too (issue 38): `tfbuild recipe
# --target all` from a clean copy of the checkout, /usr/local/cuda hidden
# (as t2276), builds both wheels with the build machine's nvcc and nvvm
# (`host-wheels`, the x86_64 wheels, unpacked once into ${host_site} for
# both targets) and each target's runtime and headers (`target-wheels`:
# the aarch64 step compiles against nvidia-cuda-runtime's and -crt's
# aarch64 (sbsa) wheels, nvcc's host pass running aarch64-linux-gnu-g++).
#   - a second run runs nothing; a second checkout at another path gives
#     the same aarch64 wheel, byte for byte;
#   - the aarch64 wheel: its libraries are aarch64 ELF, libcudart not
#     vendored, RUNPATH $ORIGIN/../nvidia/cu13/lib, which reaches the
#     libcudart.so.13 of nvidia-cuda-runtime's aarch64 wheel once both
#     are installed into one site-packages; its SBOM records nvcc and nvvm
#     as the build machine's tools (host-wheel:, tfbuild:use build-tool),
#     the run's provenance once (host-wheel:REQUIREMENT);
#   - `tfbuild verify` passes it and prints its GPU architectures;
#   - under qemu-aarch64, Debian's arm64 CPython 3.11 (tfbuild's own target
#     root, as t2061) with jax 0.10.2's arm64 closure (hash-pinned) and
#     the wheel plus the aarch64 nvidia-cuda-runtime (hash-pinned from the
#     lock) installed: JAX's first use prints the plugin's one line (no
#     CUDA device: CUDA's reason), lists only the CPU and computes on it.
# No GPU runs the aarch64 kernels here: what is proven is the build and
# the load. Caches as t2276's and t2061's (tests/lib/jax.sh).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/jax.sh"
. "$TESTS_DIR/lib/cuda.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }
command -v qemu-aarch64 >/dev/null || { skip "qemu-aarch64 is not installed"; test_done; exit 0; }
if test -e /usr/local/cuda && ! unshare -m sh -c 'mount -t tmpfs none /usr/local/cuda' 2>/dev/null; then
	skip "/usr/local/cuda cannot be hidden here (unshare -m, mount: root only)"
	test_done
	exit 0
fi

cuda=$(cuda_root) || exit 1
TFBUILD_CUOBJDUMP=$cuda/bin/cuobjdump
export TFBUILD_CUOBJDUMP
unset LD_LIBRARY_PATH
cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}
lock=$SRC_ROOT/recipes/jax-cuda-m1.lock.json

# hidden CMD...: CMD with every /usr/local/cuda* covered by an empty
# tmpfs, in a mount namespace of its own (t2273).
hidden() {
	unshare -m sh -c 'for d in /usr/local/cuda*; do
		test ! -d "$d" || mount -t tmpfs tfbuild-hidden "$d" || exit 1
	done && exec "$@"' sh "$@"
}

checkout() {
	mkdir -p "$1/recipes" &&
	cp "$SRC_ROOT/recipes/jax-cuda-m1.yaml" "$lock" "$1/recipes/" &&
	cp -R "$SRC_ROOT/backend" "$SRC_ROOT/gpu" "$1/"
}

build() { # CHECKOUT BUILD OUT
	mkdir -p "$jax_cache/downloads" &&
	hidden "$TFBUILD" recipe -j 2 --target all --cache "$jax_cache/downloads" \
		--build-dir "$2" --out "$3" "$1/recipes/jax-cuda-m1.yaml"
}

# pin TARGET REQUIREMENT: the sha256 the lock pins.
pin() {
	"$PYTHON" -c 'import json, sys
for p in json.load(open(sys.argv[1]))["pins"]:
    if p["target"] == sys.argv[2] and p["requirement"] == sys.argv[3]:
        print(p["sha256"])' "$lock" "$1" "$2"
}

expect_success 'both wheels build, nvcc from the host wheels, /usr/local/cuda hidden' '
	checkout c &&
	build c build wheels 2>err &&
	grep -q "^tfbuild: 6 of 6 steps ran$" err &&
	ls wheels/jax_cuda_m1_plugin-1.0.0-py3-none-manylinux_*_x86_64.whl &&
	ls wheels/jax_cuda_m1_plugin-1.0.0-py3-none-manylinux_*_aarch64.whl &&
	for t in x86_64 aarch64; do
		log=$(ls build/jax-cuda-m1/$t/logs/pjrt*.log) &&
		grep "/nvidia/cu13/bin/nvcc " "$log" | head -n 1 >nvcc.$t &&
		grep -q "$TF_SYSROOT_CACHE/target-sites/host-x86_64-[0-9a-f]*/nvidia/cu13/bin/nvcc -ccbin " nvcc.$t &&
		! grep -q /usr/local/cuda "$log" || return 1
	done &&
	sed "s/ -ccbin.*//" nvcc.x86_64 >a && sed "s/ -ccbin.*//" nvcc.aarch64 >b &&
	compare a b &&
	grep -q -- "-ccbin aarch64-linux-gnu-g++ " nvcc.aarch64 &&
	grep -q -- "-I$TF_SYSROOT_CACHE/target-sites/aarch64-[0-9a-f]*/nvidia/cu13/include " \
		build/jax-cuda-m1/aarch64/logs/pjrt*.log
'
awhl=$(ls wheels/jax_cuda_m1_plugin-*_aarch64.whl 2>/dev/null)
xwhl=$(ls wheels/jax_cuda_m1_plugin-*_x86_64.whl 2>/dev/null)

expect_success 'a second run runs nothing and writes the same wheels' '
	cp "$awhl" a.whl && cp "$xwhl" x.whl &&
	build c build wheels 2>err &&
	grep -q "^tfbuild: 0 of 6 steps ran, 6 up to date$" err &&
	cmp a.whl "$awhl" && cmp x.whl "$xwhl"
'

expect_success 'another checkout at another path: byte-identical aarch64 wheel' '
	checkout elsewhere/c2 &&
	build elsewhere/c2 elsewhere/build elsewhere/wheels 2>err &&
	grep -q "^tfbuild: 6 of 6 steps ran$" err &&
	cmp "$awhl" "elsewhere/$awhl" &&
	unzip -p "$awhl" >all &&
	! grep -a -e "$TRASH" -e "$TF_SYSROOT_CACHE" -e "$jax_cache" all &&
	! grep -a tmpxft_ all
'

runpath() { readelf -d "$1" | sed -n "s/.*(RUNPATH).*\[\(.*\)\]$/\1/p"; }

expect_success 'the aarch64 wheel: aarch64 ELF, GetPjrtApi only, libcudart from the runtime wheel' '
	rm -rf x && mkdir x && (cd x && unzip -q "../$awhl") &&
	p=x/jax_cuda_m1_plugin &&
	for so in $p/libpjrt_cuda_m1.so $p/libm1_cuda.so; do
		readelf -h $so | grep -q "Machine: *AArch64" || return 1
	done &&
	nm -D --defined-only $p/libpjrt_cuda_m1.so | grep -v " [AUw] " | sed "s/.* //" >syms &&
	echo GetPjrtApi | compare - syms &&
	readelf -d $p/libm1_cuda.so | grep -q "NEEDED.*\[libcudart\.so\.13\]" &&
	echo "\$ORIGIN/../nvidia/cu13/lib" >expect && runpath $p/libm1_cuda.so >actual &&
	compare expect actual &&
	! find x -name "libcudart*" | grep . &&
	grep "^Requires-Dist:" x/*.dist-info/METADATA >actual &&
	printf "%s\n" "Requires-Dist: nvidia-cuda-runtime<14,>=13.5.37" \
		"Requires-Dist: jaxlib==0.10.2" "Requires-Dist: jax==0.10.2" >expect &&
	compare expect actual
'

expect_success 'its SBOM: nvcc and nvvm are the build machine'"'"'s tools, the runtime the aarch64 wheel' '
	sbom=$(ls x/*.dist-info/sboms/tfbuild.cdx.json) &&
	"$PYTHON" -c "import json, sys
for c in json.load(open(sys.argv[1]))[\"components\"]:
    r = c[\"bom-ref\"]
    if r.startswith((\"host-wheel:\", \"target-wheel:nvidia\")):
        use = [p[\"value\"] for p in c[\"properties\"] if p[\"name\"] == \"tfbuild:use\"]
        print(r, c[\"scope\"], *use)
" "$sbom" >actual &&
	cat >expect <<-EOF &&
	host-wheel:nvidia_cuda_nvcc-13.5.37-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl excluded build-tool
	host-wheel:nvidia_nvvm-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl excluded build-tool
	target-wheel:nvidia_cuda_crt-13.5.37-py3-none-manylinux2014_aarch64.manylinux_2_17_aarch64.whl excluded build
	target-wheel:nvidia_cuda_runtime-13.5.37-py3-none-manylinux2014_aarch64.manylinux_2_17_aarch64.whl required build run
	EOF
	compare expect actual
'

expect_success 'the provenance: the host wheels once for the run, each target'"'"'s wheels per target' '
	grep -o "\"name\": *\"[a-z-]*wheel:[^\"]*nvidia[^\"]*\"" wheels/jax-cuda-m1.intoto.json |
		sed "s/^\"name\": *//" | sort >actual &&
	printf "\"%s\"\n" host-wheel:nvidia-cuda-nvcc==13.5.37 host-wheel:nvidia-nvvm==13.5.37 \
		target-wheel:aarch64:nvidia-cuda-crt==13.5.37 target-wheel:aarch64:nvidia-cuda-runtime==13.5.37 \
		target-wheel:x86_64:nvidia-cuda-crt==13.5.37 target-wheel:x86_64:nvidia-cuda-runtime==13.5.37 |
		sort >expect &&
	compare expect actual
'

expect_success 'verify passes the aarch64 wheel and prints its GPU architectures' '
	"$TFBUILD" verify -v "$awhl" >out 2>err &&
	grep "GPU code" err >actual &&
	echo "tfbuild: $awhl: jax_cuda_m1_plugin/libm1_cuda.so: GPU code: sm_80 sm_90 compute_90" >expect &&
	compare expect actual &&
	grep -q "built for jaxlib 0.10.2 (PJRT C API 0.90)" err
'

# The arm64 CPython root: tfbuild's own target root, cached (t2061's).
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

# The wheel and the aarch64 nvidia-cuda-runtime the lock pins, into one
# site-packages (as pip installs them on an aarch64 machine).
expect_success 'the wheel and nvidia-cuda-runtime'"'"'s aarch64 wheel installed: the RUNPATH reaches its libcudart' '
	rt=$(pin aarch64 nvidia-cuda-runtime==13.5.37) && test -n "$rt" &&
	printf "%s\n" "nvidia-cuda-runtime==13.5.37 --hash=sha256:$rt" \
		"jax_cuda_m1_plugin @ file://$TRASH/$awhl --hash=sha256:$(sha256sum "$awhl" | cut -d" " -f1)" >req.txt &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip install -q --no-deps \
		--target aplug --only-binary=:all: --implementation cp --python-version 3.11 \
		--platform manylinux_2_17_aarch64 --platform manylinux2014_aarch64 \
		--require-hashes -r req.txt &&
	lib=aplug/jax_cuda_m1_plugin/../nvidia/cu13/lib/libcudart.so.13 &&
	readelf -h "$lib" | grep -q "Machine: *AArch64" &&
	test "$(runpath aplug/jax_cuda_m1_plugin/libm1_cuda.so)" = "\$ORIGIN/../nvidia/cu13/lib"
'

# py_a64 CODE: arm64 CPython under qemu-aarch64 with the two sites.
py_a64() {
	(cd / && env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
		PYTHONPATH="$TRASH/aplug:$asite" \
		PYTHONPYCACHEPREFIX="$cache/pycache/jax-aarch64" \
		qemu-aarch64 -L "$root" "$root/usr/bin/python3.11" -c "$1")
}

start=$(date +%s)
expect_success 'under qemu-aarch64: the plugin says why in one line; only the CPU; jax.numpy computes on it' '
	test -n "$root" &&
	py_a64 "
import jax_cuda_m1_plugin as p
n, why = p.cuda_devices()
print(n, why)
" >why 2>err &&
	test ! -s err &&
	grep -Eqx "0 [^:]+" why &&
	py_a64 "
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
" >actual 2>err &&
	printf "%s\n" imported \
		"jax_cuda_m1_plugin: no CUDA device: $(cut -d" " -f2- why): the m1 platform is not registered" >expect.err &&
	compare expect.err err &&
	printf "%s\n" "[CpuDevice(id=0)]" "True True True True" >expect &&
	compare expect actual
'
echo "# the aarch64 JAX run took $(($(date +%s) - start)) s under qemu-aarch64"

test_done
