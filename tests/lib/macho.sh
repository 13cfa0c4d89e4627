# Mach-O test inputs built by the suite itself (never committed
# binaries): zig, pinned in ci/zig.txt and installed by make deps into
# ${TFBUILD_TOOLS:-/opt/tfbuild-tools}/zig, cross-compiles and links C
# for macOS. Its first build of a target fills its cache (~20 s each
# on 2 cores): the cache is kept in the test cache, shared by scripts
# under a lock.
#
#   zig_cc ARGS...   zig cc with the shared cache
#
# zig's quirks (docs/verify.md): the minimum macOS comes only from the
# -target suffix (aarch64-macos.12.0); the install name defaults to the
# -o path, so pass -Wl,-install_name,@rpath/NAME; STABS keep build
# paths unless -s; a failed link leaves a 0-byte output.
ZIG=$(ls -d "${TFBUILD_TOOLS:-/opt/tfbuild-tools}"/zig/lib/python3*/site-packages/ziglang/zig 2>/dev/null | head -n 1)
zig_cache=$TEST_CACHE/zig

zig_cc() {
	[ -n "$ZIG" ] || { echo "zig is not installed: run make deps (ci/zig.txt)" >&2 && return 1; }
	ZIG_GLOBAL_CACHE_DIR=$zig_cache ZIG_LOCAL_CACHE_DIR=$zig_cache \
		with_lock "$zig_cache.lock" "$ZIG" cc "$@"
}

# macos_wheel_fetch REQ PLATFORM WHEEL: the one wheel REQ pins (by its
# hash) for PLATFORM (macosx_12_0_arm64), into WHEEL's path in the test
# cache, once: downloaded into a temporary beside it, then renamed.
# Callers run it under with_lock.
macos_wheel_fetch() {
	[ -f "$3" ] && return 0
	mkdir -p "$(dirname "$3")" &&
	rm -rf "$3.tmp" &&
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip download -q \
		--no-deps --only-binary=:all: --platform "$2" \
		--python-version 3.11 --implementation cp --require-hashes \
		-r "$1" -d "$3.tmp" &&
	mv "$3.tmp/$(basename "$3")" "$3" &&
	rm -rf "$3.tmp"
}
