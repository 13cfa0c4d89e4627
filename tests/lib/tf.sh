# recipes/tf-m1.yaml and TensorFlow from the index for the tf_m1 tests
# (t2040-t2042), sourced after test-lib.sh. Everything downloaded is
# pinned with hashes (the recipe's lock file, tests/requirements/
# tensorflow-*.txt) and kept outside the repository across runs, under
# $TFBUILD_TEST_CACHE (/var/tmp/tfbuild-test-cache): tfbuild's download
# cache (tfbuild/), the target sites it unpacks the TensorFlow wheels
# into (target-roots/target-sites/, through TF_SYSROOT_CACHE as t1104
# keeps its roots), pip's cache (pip/), the site-packages directories of
# the runtime closures (tf-site/) and the arm64 root.
#
#   tf_checkout DIR       what the recipe reads, copied to DIR as a clean
#                         checkout has it (recipes/tf-m1.*, backend/)
#   tf_build CHECKOUT BUILD OUT [OPTION...]
#                         tfbuild recipe --target all CHECKOUT/recipes/tf-m1.yaml
#                         (--target $tf_targets where a test sets it: one
#                         that reads one target's wheel builds that one)
#   tf_wheel OUT TARGET   print the path of TARGET's wheel in OUT
#                         (x86_64, aarch64 or macos-arm64)
#   tf_built_site BUILD TARGET
#                         print the ${target_site} the build compiled
#                         against (read from the step's log)
#   tf_site TARGET REQ    print a site-packages directory holding REQ for
#                         CPython 3.11 on TARGET (x86_64|aarch64), made
#                         once per requirements file (keyed by its hash)
#                         with pip install --target --platform: the
#                         runtime closure, where ${target_site} holds the
#                         tensorflow wheel alone
#   tf_venv DIR REQ [WHEEL]
#                         a venv of Debian's python3 in DIR with REQ and
#                         WHEEL, in one pip install --require-hashes (the
#                         local wheel named by file URL with its sha256)
#                         and --no-compile: byte-compiling all of
#                         TensorFlow's modules is half of the install's
#                         CPU (23 of 46 s here) and nothing a test reads;
#                         Python compiles what it imports

tf_cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}
# The index comes from pip's own configuration; only the caches are
# moved out of the test's $HOME so that a second run downloads nothing.
PIP_CACHE_DIR=$tf_cache/pip
PIP_DISABLE_PIP_VERSION_CHECK=1
TF_SYSROOT_CACHE=$tf_cache/target-roots
export PIP_CACHE_DIR PIP_DISABLE_PIP_VERSION_CHECK TF_SYSROOT_CACHE

tf_checkout() { # dir
	mkdir -p "$1/recipes" &&
	cp "$SRC_ROOT/recipes/tf-m1.yaml" "$SRC_ROOT/recipes/tf-m1.lock.json" \
		"$1/recipes/" &&
	cp -R "$SRC_ROOT/backend" "$1/"
}

tf_build() { # checkout build out [options]
	c=$1 b=$2 o=$3 && shift 3 &&
	# zig's cache for macos-arm64: the suite's (tests/lib/macho.sh)
	ZIG_GLOBAL_CACHE_DIR=$TEST_CACHE/zig \
	"$TFBUILD" recipe --target "${tf_targets:-all}" -j 2 --cache "$tf_cache/tfbuild" \
		--build-dir "$b" --out "$o" "$@" "$c/recipes/tf-m1.yaml"
}

tf_wheel() { # out target
	case $2 in macos-arm64) set -- "$1" arm64 ;; esac &&
	set -- "$1"/tf_m1-0.1.0-py3-none-*_"$2".whl &&
	test $# = 1 && test -f "$1" && echo "$1"
}

tf_built_site() { # build target
	sed -n "s|.* -I\([^ ]*\)/tensorflow/include .*|\1|p" \
		"$1/tf-m1/$2/logs/tf_m1.log" | sed -n 1p | grep .
}

# pip 23 takes a platform tag literally: name each glibc level the wheels
# of the closure use, down to manylinux2014 (manylinux_2_17). The
# requirements are resolved for manylinux_2_28, which Debian 12's glibc
# 2.36 runs.
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
		with_lock "$dir.lock" tf_site_fill "$1" "$2" "$dir"
	fi &&
	echo "$dir/site-packages"
}

tf_site_fill() { # target requirements dir: under dir's lock
	test -d "$3/site-packages" && return 0
	rm -rf "$3.tmp" && mkdir -p "$3.tmp" &&
	/usr/bin/python3 -m pip install -q --require-hashes \
		--root-user-action=ignore --only-binary=:all: \
		$(tf_platforms "$1") --python-version 3.11 \
		--implementation cp --abi cp311 --abi abi3 --abi none \
		--target "$3.tmp/site-packages" -r "$2" >&2 &&
	mv "$3.tmp" "$3"
}

tf_venv() { # dir requirements [wheel]
	/usr/bin/python3 -m venv "$1" &&
	cp "$2" "$1/requirements.txt" &&
	if test -n "${3:-}"; then
		printf "tf-m1 @ file://%s --hash=sha256:%s\n" \
			"$(realpath "$3")" "$(sha256sum "$3" | cut -c1-64)" \
			>>"$1/requirements.txt"
	fi &&
	"$1/bin/pip" install -q --no-compile --require-hashes -r "$1/requirements.txt"
}
