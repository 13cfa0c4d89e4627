# Shared by the JAX PJRT plugin tests (t2060-t2062): jax and jaxlib from
# the index, pinned by sha256 (tests/requirements/), downloaded once into
# a cache outside the repository, keyed by the requirements file's hash.
#
#   jax_wheels REQ ARCH        the wheels of REQ for cp311 on ARCH
#                              (x86_64 or aarch64), in a cached directory,
#                              printed
#   jax_site                   a directory standing for the recipe's
#                              ${target_site}: tensorflow-cpu's PJRT
#                              header and jaxlib 0.10.2's dist-info, printed
#   jax_build CHECKOUT BUILD OUT [tfbuild options]
#                              the jax_m1_plugin wheels, built by tfbuild
#                              from recipes/jax-m1.yaml
#
# Until target-wheels lands, jax_build builds from a copy of
# recipes/jax-m1.yaml without its target-wheels block, with target_site
# set to jax_site's directory. When it lands, jax_build runs the recipe
# itself and jax_site goes.

jax_cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/jax
jax_req=$SRC_ROOT/tests/requirements

_jax_key() { cat "$@" | sha256sum | cut -c1-16; }

_jax_pip() {
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip "$@"
}

jax_wheels() { # REQ ARCH
	d=$jax_cache/wheels-$2-$(_jax_key "$1")
	if [ ! -d "$d" ]; then
		mkdir -p "$jax_cache" && rm -rf "$d.tmp" &&
			_jax_pip download -q --require-hashes --only-binary=:all: \
				--implementation cp --python-version 3.11 \
				--platform "manylinux_2_28_$2" \
				--platform "manylinux_2_27_$2" \
				--platform "manylinux_2_17_$2" \
				--platform "manylinux2014_$2" \
				-d "$d.tmp" -r "$1" >&2 &&
			mv "$d.tmp" "$d" || return 1
	fi
	echo "$d"
}

jax_site() {
	d=$jax_cache/site-$(_jax_key "$jax_req/pjrt-header.txt" \
		"$jax_req/jax-0.10.2.txt")
	if [ ! -d "$d" ]; then
		h=$jax_cache/header-$(_jax_key "$jax_req/pjrt-header.txt")
		if [ ! -d "$h" ]; then
			rm -rf "$h.tmp" &&
				_jax_pip download -q --require-hashes --no-deps \
					--only-binary=:all: --implementation cp \
					--python-version 3.11 \
					--platform manylinux_2_27_x86_64 -d "$h.tmp" \
					-r "$jax_req/pjrt-header.txt" >&2 &&
				mv "$h.tmp" "$h" || return 1
		fi
		w=$(jax_wheels "$jax_req/jax-0.10.2.txt" x86_64) &&
			rm -rf "$d.tmp" && mkdir -p "$d.tmp" &&
			(cd "$d.tmp" &&
			 unzip -q "$h"/tensorflow_cpu-2.21.0-*.whl \
				"tensorflow/include/xla/pjrt/c/*" &&
			 unzip -q "$w"/jaxlib-0.10.2-*.whl \
				"jaxlib-0.10.2.dist-info/*") &&
			mv "$d.tmp" "$d" || return 1
	fi
	echo "$d"
}

jax_build() { # CHECKOUT BUILD OUT [options]
	c=$1 b=$2 o=$3; shift 3
	site=$(jax_site) || return 1
	# recipes/jax-m1.yaml less target-wheels, with target_site declared.
	sed '/^target-wheels:/,/^[a-z]/{/^target-wheels:/d;/^ /d;}' \
		"$c/recipes/jax-m1.yaml" >"$c/recipes/jax-m1-local.yaml" &&
		printf 'variables:\n  target_site: %s\n' "$site" \
			>>"$c/recipes/jax-m1-local.yaml" &&
		"$TFBUILD" recipe -j 2 --build-dir "$b" --out "$o" "$@" \
			"$c/recipes/jax-m1-local.yaml"
}
