# Shared by the JAX PJRT plugin tests (t2060-t2062): the plugin built by
# tfbuild from recipes/jax-m1.yaml itself (its target-wheels pinned in
# recipes/jax-m1.lock.json), and jax/jaxlib from the index, pinned by
# sha256 (tests/requirements/), for the venvs that load it.
#
# Nothing large is fetched or unpacked twice across runs; all of it
# lives in the test cache (${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}),
# outside the test's directory:
#   target-roots/target-sites/   tfbuild's ${target_site} per target
#                                (TF_SYSROOT_CACHE, as t1104): tensorflow
#                                and jaxlib unpacked, 1.5-2.2 GB each
#   jax/downloads/               tfbuild's download cache (--cache): the
#                                pinned wheels, by sha256 (about 1 GB);
#                                with the store off (TFBUILD_STORE=0, set
#                                by test-lib.sh) it holds nothing else
#   pip/                         pip's own cache (PIP_CACHE_DIR)
#   jax/wheels-ARCH-KEY/         jax_wheels' downloads, per requirements
#                                file
#
#   jax_wheels REQ ARCH        the wheels of REQ for cp311 on ARCH
#                              (x86_64 or aarch64), in a cached directory,
#                              printed
#   jax_arm64_site REQ         REQ installed for arm64 CPython 3.11 into a
#                              cached directory (jax/aarch64-site-KEY),
#                              printed; made once, under its lock
#   jax_build CHECKOUT BUILD OUT [tfbuild options]
#                              the jax_m1_plugin wheels, built by tfbuild
#                              from CHECKOUT/recipes/jax-m1.yaml

jax_cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/jax
jax_req=$SRC_ROOT/tests/requirements
TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
PIP_CACHE_DIR=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/pip
export TF_SYSROOT_CACHE PIP_CACHE_DIR

_jax_key() { cat "$@" | sha256sum | cut -c1-16; }

_jax_pip() {
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip "$@"
}

jax_wheels() { # REQ ARCH
	d=$jax_cache/wheels-$2-$(_jax_key "$1")
	if [ ! -d "$d" ]; then
		with_lock "$d.lock" _jax_wheels_fill "$1" "$2" "$d" || return 1
	fi
	echo "$d"
}

_jax_wheels_fill() { # REQ ARCH DIR: under DIR's lock
	[ ! -d "$3" ] || return 0
	rm -rf "$3.tmp" &&
		_jax_pip download -q --require-hashes --only-binary=:all: \
			--implementation cp --python-version 3.11 \
			--platform "manylinux_2_28_$2" \
			--platform "manylinux_2_27_$2" \
			--platform "manylinux_2_17_$2" \
			--platform "manylinux2014_$2" \
			-d "$3.tmp" -r "$1" >&2 &&
		mv "$3.tmp" "$3"
}

jax_arm64_site() { # REQ
	d=$jax_cache/aarch64-site-$(_jax_key "$1")
	if [ ! -d "$d" ]; then
		with_lock "$d.lock" _jax_arm64_site_fill "$1" "$d" || return 1
	fi
	echo "$d"
}

_jax_arm64_site_fill() { # REQ DIR: under DIR's lock
	[ ! -d "$2" ] || return 0
	w=$(jax_wheels "$1" aarch64) &&
		rm -rf "$2.tmp" &&
		_jax_pip install -q --no-index --find-links "$w" --target "$2.tmp" \
			--only-binary=:all: --implementation cp --python-version 3.11 \
			--platform manylinux_2_28_aarch64 --platform manylinux_2_27_aarch64 \
			--platform manylinux_2_17_aarch64 --platform manylinux2014_aarch64 \
			--require-hashes -r "$1" >&2 &&
		mv "$2.tmp" "$2"
}

jax_build() { # CHECKOUT BUILD OUT [options]
	c=$1 b=$2 o=$3
	shift 3
	# zig's cache for macos-arm64: the suite's (tests/lib/macho.sh)
	mkdir -p "$jax_cache/downloads" &&
		ZIG_GLOBAL_CACHE_DIR=$TEST_CACHE/zig \
		"$TFBUILD" recipe -j 2 --cache "$jax_cache/downloads" \
			--build-dir "$b" --out "$o" "$@" "$c/recipes/jax-m1.yaml"
}
