#!/bin/sh
# Prepare, on a machine without a GPU, what run.sh needs on one that has
# it (no network there): m1's CUDA kernels (gpu/cuda_m1) and the
# bench program, built with the index's nvcc, never /usr/local/cuda.
#
#   sh bench/gpu/prepare.sh [--wheels DIR [--python V]] CUDA OUT [CUBLAS_WHEEL]
#
# CUDA is the index's toolkit unpacked (DIR/bin/nvcc, DIR/include,
# DIR/lib/libcudart.so.13: tests/lib/cuda.sh's cuda_root). OUT gets
# m1_cuda_bench (RUNPATH $ORIGIN/lib), lib/libm1_cuda.so,
# lib/libcudart.so.13 and run.sh: some 2 MB. With the nvidia-cublas
# wheel, its libcublas.so.13 and libcublasLt.so.13 go to OUT/lib too
# (some 530 MB: more than a lent GPU machine's 64 MiB carry, so there
# run.sh looks for them on the machine instead).
#
# --wheels DIR: the wheel as users install it, too. DIR holds
# jax_cuda_m1_plugin's x86_64 wheel (recipes/jax-cuda-m1.yaml's), and
# with it, unless --python is given, what it needs for the GPU machine's
# Python (jax, jaxlib and their closure, nvidia-cuda-runtime: pip's
# wheels); they are copied to OUT/wheels with OUT/wheels/SHA256SUMS,
# and run.sh installs them into a fresh venv there with --no-index.
# --python V: download those for CPython V instead (here, with pip from
# the index it is configured with): jax and jaxlib at the version the
# wheel requires, their closure at tests/requirements/jax-0.10.2.txt's
# versions, nvidia-cuda-runtime at the wheel's lower bound.
set -eu
wheels='' python=''
while test $# -gt 0; do
	case $1 in
	--wheels) wheels=$2; shift 2 ;;
	--python) python=$2; shift 2 ;;
	*) break ;;
	esac
done
test $# -ge 2 || { echo "usage: prepare.sh [--wheels DIR [--python V]] CUDA OUT [CUBLAS_WHEEL]" >&2; exit 2; }
cuda=$1 out=$2 cublas=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
m1=$here/../../gpu/cuda_m1
test -x "$cuda/bin/nvcc" || { echo "prepare.sh: no nvcc in '$cuda/bin'" >&2; exit 1; }
mkdir -p "$out/lib" "$out/obj"
out=$(cd "$out" && pwd)
make -s -C "$m1" CUDA="$cuda" O="$out/obj" "$out/obj/libm1_cuda.so"
cp "$out/obj/libm1_cuda.so" "$cuda/lib/libcudart.so.13" "$out/lib/"
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -I"$cuda/include" -I"$m1/src" \
	-o "$out/m1_cuda_bench" "$here/m1_cuda_bench.c" \
	"$out/lib/libm1_cuda.so" "$out/lib/libcudart.so.13" -ldl -lm \
	-Wl,-rpath,'$ORIGIN/lib'
cp "$here/run.sh" "$out/run.sh"
if test -n "$cublas"; then
	python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.endswith(("/libcublas.so.13", "/libcublasLt.so.13")):
        open(sys.argv[2] + "/" + n.rsplit("/", 1)[1], "wb").write(z.read(n))
' "$cublas" "$out/lib"
fi
rm -rf "$out/obj"
cp "$here/jax_check.py" "$out/jax_check.py"
if test -n "$wheels"; then
	plugin=$(ls "$wheels"/jax_cuda_m1_plugin-*_x86_64.whl 2>/dev/null | head -n 1)
	test -n "$plugin" || { echo "prepare.sh: no jax_cuda_m1_plugin x86_64 wheel in '$wheels'" >&2; exit 1; }
	rm -rf "$out/wheels" && mkdir "$out/wheels"
	if test -z "$python"; then
		cp "$wheels"/*.whl "$out/wheels/"
	else
		# The versions of the closure t2276 pins, the framework and the
		# runtime at the wheel's own requirements.
		sed -n 's/^\([A-Za-z0-9_.-]*==[^ ]*\).*/\1/p' \
			"$here/../../tests/requirements/jax-0.10.2.txt" >"$out/wheels/constraints.txt"
		unzip -p "$plugin" '*.dist-info/METADATA' |
			sed -n 's/^Requires-Dist: nvidia-cuda-runtime<[^,]*,>=\([^ ;]*\).*/nvidia-cuda-runtime==\1/p' \
			>>"$out/wheels/constraints.txt"
		cp "$plugin" "$out/wheels/"
		PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip download -q -d "$out/wheels" \
			--only-binary=:all: --implementation cp --python-version "$python" \
			--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
			--platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
			-c "$out/wheels/constraints.txt" "$out/wheels/$(basename "$plugin")"
		rm "$out/wheels/constraints.txt"
	fi
	(cd "$out/wheels" && sha256sum -- *.whl >SHA256SUMS)
fi
echo "prepared $out: $(ls "$out/lib" | tr '\n' ' ')"
