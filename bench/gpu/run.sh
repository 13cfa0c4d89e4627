#!/bin/sh
# On a machine with a GPU (and no network): m1's CUDA kernels against the
# CPU's results, and one 4096x4096 matmul timed beside cuBLAS's, printed
# as a table (docs/frameworks.md records it). DIR is what prepare.sh
# made; cuBLAS's libcublas.so.13 is taken from DIR/lib, else from
# CUBLAS_LIB, a pip-installed nvidia-cublas, or the machine's toolkit
# (the line "cuBLAS from ..." says which).
#
# When prepare.sh was given the plugin's wheels (DIR/wheels), first the
# wheel as a user gets it: a fresh venv of PYTHON (default python3),
# `pip install --no-index` of jax-cuda-m1-plugin from DIR/wheels, which
# brings jax, jaxlib and nvidia-cuda-runtime from there too, and
# jax_check.py in it (JAX's m1 devices, arrays through CUDA memory, the
# wheel's kernels against numpy); then the bench runs the installed
# wheel's libm1_cuda.so and libcudart.so.13, not DIR/lib's. The venv is
# made in VENV (default DIR/venv), anew each run.
#
#   sh run.sh [DIR]     exit 0: all match; 1: a result differs or the
#                       install failed; 2: no GPU
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
else
	echo "cuBLAS: libcublas.so.13 not found (DIR/lib, CUBLAS_LIB, nvidia-cublas, /usr/local/cuda)"
fi

wheel_rc=
m1=
if test -d "$dir/wheels"; then
	venv=${VENV:-$dir/venv}
	echo "== the wheel: a fresh venv ($venv), pip install --no-index from $dir/wheels"
	rm -rf "$venv"
	if "${PYTHON:-python3}" -m venv "$venv" &&
		PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install -q \
			--no-index --no-compile --find-links "$dir/wheels" jax-cuda-m1-plugin; then
		"$venv/bin/python" -m pip list 2>/dev/null |
			grep -Ei '^(jax|jaxlib|jax[-_]cuda[-_]m1[-_]plugin|nvidia[-_]cuda[-_]runtime|numpy) '
		(cd / && "$venv/bin/python" "$dir/jax_check.py")
		wheel_rc=$?
		m1=$("$venv/bin/python" -c 'import jax_cuda_m1_plugin as p, os; print(os.path.dirname(p.__file__))')
	else
		echo "run.sh: the wheel did not install from $dir/wheels"
		wheel_rc=1
	fi
fi

path=$from
if test -n "$m1"; then
	# The installed wheel's kernels, and the runtime pip installed for it.
	path=$m1:$m1/../nvidia/cu13/lib${path:+:$path}
	echo "== the bench, with the installed wheel's libm1_cuda.so"
fi
if test -n "$path"; then
	LD_LIBRARY_PATH=$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
"$dir/m1_cuda_bench"
rc=$?
if test -n "$wheel_rc"; then
	# The worse of the two: a failure (1) over no GPU (2) over success.
	if test "$wheel_rc" = 1 || test "$rc" = 1; then rc=1
	elif test "$wheel_rc" = 2 || test "$rc" = 2; then rc=2
	else rc=0; fi
fi
exit $rc
