#!/bin/sh
# On a machine with a GPU (and no network): m1's CUDA kernels against the
# CPU's results, and one 4096x4096 matmul timed beside cuBLAS's, printed
# as a table (docs/frameworks.md records it). DIR is what prepare.sh
# made; cuBLAS's libcublas.so.13 is taken from DIR/lib, else from
# CUBLAS_LIB, a pip-installed nvidia-cublas, or the machine's toolkit
# (the line "cuBLAS from ..." says which).
#
#   sh run.sh [DIR]     exit 0: all match; 1: a result differs; 2: no GPU
set -u
dir=$(cd "${1:-$(dirname "$0")}" && pwd)
test -x "$dir/m1_cuda_bench" || { echo "run.sh: no m1_cuda_bench in '$dir' (run prepare.sh)" >&2; exit 2; }
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(uname -m)"
command -v nvidia-smi >/dev/null && nvidia-smi -L
from=
for d in "$dir/lib" "${CUBLAS_LIB:-}" \
	$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "lib"))' 2>/dev/null) \
	/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
	if test -n "$d" && test -e "$d/libcublas.so.13"; then from=$d; break; fi
done
if test -n "$from"; then
	echo "cuBLAS from $from"
	LD_LIBRARY_PATH=$from${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
else
	echo "cuBLAS: libcublas.so.13 not found (DIR/lib, CUBLAS_LIB, nvidia-cublas, /usr/local/cuda)"
fi
exec "$dir/m1_cuda_bench"
