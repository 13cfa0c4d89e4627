#!/bin/sh
# Prepare, on a machine without a GPU, what run.sh needs on one that has
# it (no network there): m1's CUDA kernels (gpu/cuda_m1) and the
# bench program, built with the index's nvcc, never /usr/local/cuda.
#
#   sh bench/gpu/prepare.sh CUDA OUT [CUBLAS_WHEEL]
#
# CUDA is the index's toolkit unpacked (DIR/bin/nvcc, DIR/include,
# DIR/lib/libcudart.so.13: tests/lib/cuda.sh's cuda_root). OUT gets
# m1_cuda_bench (RUNPATH $ORIGIN/lib), lib/libm1_cuda.so,
# lib/libcudart.so.13 and run.sh: some 2 MB. With the nvidia-cublas
# wheel, its libcublas.so.13 and libcublasLt.so.13 go to OUT/lib too
# (some 530 MB: more than a lent GPU machine's 64 MiB carry, so there
# run.sh looks for them on the machine instead).
set -eu
test $# -ge 2 || { echo "usage: prepare.sh CUDA OUT [CUBLAS_WHEEL]" >&2; exit 2; }
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
echo "prepared $out: $(ls "$out/lib" | tr '\n' ' ')"
