# TensorFlow from the index for the tf_m1 tests (t2040-t2042), sourced
# after test-lib.sh. Everything downloaded is pinned with hashes by
# tests/requirements/tensorflow-*.txt and kept outside the repository
# across runs: pip's cache, the target site-packages directories and the
# arm64 root live under $TFBUILD_TEST_CACHE (/var/tmp/tfbuild-test-cache).
#
#   tf_site TARGET REQ    print a site-packages directory holding REQ for
#                         CPython 3.11 on TARGET (x86_64|aarch64), made
#                         once per requirements file (keyed by its hash)
#                         with pip install --target --platform: what the
#                         recipe's ${target_site} is (recipes/tf-m1.yaml)
#   tf_venv DIR REQ       a venv of Debian's python3 in DIR with REQ
#   tf_plugin TARGET SITE OUT
#                         build backend/tf_m1 against SITE for TARGET with
#                         its Makefile, and pack the tf_m1 wheel into OUT
#                         (test-wheel) as recipes/tf-m1.yaml lays it out

tf_cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}
# The requirements are resolved for manylinux_2_28 (the wheels' tags),
# which Debian 12's glibc 2.36 runs. The index comes from pip's own configuration; only the cache is moved
# out of the test's $HOME so that a second run downloads nothing.
PIP_CACHE_DIR=$tf_cache/pip
PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_CACHE_DIR PIP_DISABLE_PIP_VERSION_CHECK

tf_plat() {
	case $1 in
	x86_64) echo manylinux_2_27_x86_64 ;;
	aarch64) echo manylinux_2_27_aarch64 ;;
	*) echo "tf_plat: unknown target '$1'" >&2; return 1 ;;
	esac
}

# pip 23 takes a platform tag literally: name each glibc level the wheels
# of the closure use, down to manylinux2014 (manylinux_2_17).
tf_platforms() {
	for v in 28 27 24 17; do
		printf -- "--platform manylinux_2_%s_%s " $v "$1"
	done
	printf -- "--platform manylinux2014_%s\n" "$1"
}

tf_site() { # target requirements
	key=$(sha256sum "$2" | cut -c1-16) &&
	dir=$tf_cache/tf-site/$1-$key &&
	if ! test -d "$dir/site-packages"; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" &&
		/usr/bin/python3 -m pip install -q --require-hashes \
			--root-user-action=ignore --only-binary=:all: \
			$(tf_platforms "$1") --python-version 3.11 \
			--implementation cp --abi cp311 --abi abi3 --abi none \
			--target "$dir.tmp/site-packages" -r "$2" >&2 &&
		mv "$dir.tmp" "$dir"
	fi &&
	echo "$dir/site-packages"
}

tf_venv() { # dir requirements
	/usr/bin/python3 -m venv "$1" &&
	"$1/bin/pip" install -q --require-hashes -r "$2"
}

tf_plugin() { # target site out
	case $1 in
	x86_64) cc=gcc ;;
	aarch64) cc=aarch64-linux-gnu-gcc ;;
	esac &&
	make -s -C "$SRC_ROOT/backend/tf_m1" CC="$cc" TF_SITE="$2" \
		O="$TRASH/build-$1" install PREFIX="$TRASH/stage-$1" >&2 &&
	tfv=$(sed -n "s/^Version: //p" "$2"/tensorflow-*.dist-info/METADATA) &&
	"$TOOL_DIR/test-wheel" pack "$3" --name tf-m1 --version 0.1.0 \
		--tag "py3-none-$(tf_plat "$1")" \
		--summary "The m1 device backend for TensorFlow" \
		--requires "tensorflow==$tfv" --requires-python ">=3.9" \
		"$TRASH/stage-$1/tensorflow-plugins/libtf_m1.so=tensorflow-plugins/libtf_m1.so" \
		"$TRASH/stage-$1/tf_m1/__init__.py=tf_m1/__init__.py" >&2
}
