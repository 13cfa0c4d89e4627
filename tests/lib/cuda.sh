# Shared by the GPU-code audit's tests (t2270-t2279): CUDA from the
# index's wheels, never /usr/local/cuda. Downloads are pinned by sha256
# (tests/requirements/cuda-*.txt), fetched once per cache under a lock
# and kept in ${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/cuda:
#   wheels-KEY/   the wheels of one requirements file
#   root-KEY/     cuda-toolchain.txt's wheels unpacked: nvidia/cu13/
#                 holds bin/nvcc, bin/cuobjdump, nvvm/, include/, lib/
#
#   cuda_wheels REQ   the directory of REQ's wheels, printed
#   cuda_root         the unpacked toolchain's nvidia/cu13, printed
#   cuda_nvcc ARGS    nvcc from it, with PATH free of /usr/local/cuda and
#                     CUDA_HOME, CUDA_PATH and LD_LIBRARY_PATH unset

cuda_cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/cuda

_cuda_key() { sha256sum "$1" | cut -c1-16; }

cuda_wheels() { # REQ
	d=$cuda_cache/wheels-$(_cuda_key "$1")
	if [ ! -d "$d" ]; then
		with_lock "$d.lock" _cuda_wheels_fill "$1" "$d" || return 1
	fi
	echo "$d"
}

_cuda_wheels_fill() { # REQ DIR: under DIR's lock
	[ ! -d "$2" ] || return 0
	rm -rf "$2.tmp" &&
		PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip download -q \
			--no-deps --require-hashes --only-binary=:all: \
			-d "$2.tmp" -r "$1" >&2 &&
		mv "$2.tmp" "$2"
}

cuda_root() {
	req=$SRC_ROOT/tests/requirements/cuda-toolchain.txt
	d=$cuda_cache/root-$(_cuda_key "$req")
	if [ ! -d "$d" ]; then
		w=$(cuda_wheels "$req") &&
			with_lock "$d.lock" _cuda_root_fill "$w" "$d" || return 1
	fi
	echo "$d/nvidia/cu13"
}

_cuda_root_fill() { # WHEELS DIR: under DIR's lock
	[ ! -d "$2" ] || return 0
	rm -rf "$2.tmp" && mkdir -p "$2.tmp" &&
		for w in "$1"/*.whl; do
			"$PYTHON" -m zipfile -e "$w" "$2.tmp" || return 1
		done &&
		chmod +x "$2.tmp"/nvidia/cu13/bin/* \
			"$2.tmp"/nvidia/cu13/nvvm/bin/* &&
		mv "$2.tmp" "$2"
}

cuda_nvcc() { # ARGS
	cuda_r=$(cuda_root) &&
		env -u CUDA_HOME -u CUDA_PATH -u LD_LIBRARY_PATH \
			PATH=/usr/bin:/bin "$cuda_r/bin/nvcc" "$@"
}
