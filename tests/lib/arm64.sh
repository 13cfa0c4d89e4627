# The arm64 CPython of the tests that run aarch64 wheels under
# qemu-aarch64 (t0901, t2201, t13xx through thirdparty.sh), sourced after
# test-lib.sh: Debian's packages unpacked into tests/tmp/.arm64-sysroot,
# made once and kept across runs. It is made under its lock: scripts
# running at the same time make it once, and none replaces it under
# another that runs it.
#
#   arm64_sysroot      make $arm64_root unless it is there
#   py_arm64 ARGS...   run its python3.11 under qemu-aarch64

arm64_root="$TESTS_DIR/tmp/.arm64-sysroot"

arm64_sysroot() {
	[ -x "$arm64_root/usr/bin/python3.11" ] ||
		with_lock "$arm64_root.lock" arm64_sysroot_fill ||
		{ echo "cannot build the arm64 sysroot"; return 1; }
}

arm64_sysroot_fill() { # under the lock: another may have made it
	[ ! -x "$arm64_root/usr/bin/python3.11" ] || return 0
	rm -rf "$arm64_root.tmp" && mkdir -p "$arm64_root.tmp/debs" &&
	(cd "$arm64_root.tmp/debs" && apt-get download -q python3.11-minimal:arm64 \
		libpython3.11-minimal:arm64 libpython3.11-stdlib:arm64 libc6:arm64 \
		zlib1g:arm64 libexpat1:arm64 libffi8:arm64 >/dev/null 2>&1) &&
	for d in "$arm64_root.tmp"/debs/*.deb; do dpkg -x "$d" "$arm64_root.tmp/root" || return 1; done &&
	rm -rf "$arm64_root" && mv "$arm64_root.tmp/root" "$arm64_root" &&
	rm -rf "$arm64_root.tmp"
}

py_arm64() { qemu-aarch64 -L "$arm64_root" "$arm64_root/usr/bin/python3.11" "$@"; }
