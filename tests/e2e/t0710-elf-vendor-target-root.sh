#!/bin/sh
# Vendoring for a cross target with `target-packages` (issue 29, bug 1):
# the library is taken from the root the arm64 packages were unpacked
# into, with no `library-dirs`, not from the build machine (which lacks
# libzstd1:arm64 here), and the wheel's record names the Debian package
# and version it came from. A library of that name found outside the
# root while a target package ships it is refused.
. "$(dirname "$0")/../lib/test-lib.sh"

# The .debs and roots are shared with the other tests (t1205).
TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE

mkdir -p proj/src
cat >proj/src/zq.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include <zstd.h>
int main(void)
{
	char in[64] = "vendored from the target root", c[128], out[64];
	size_t n = ZSTD_compress(c, sizeof(c), in, strlen(in) + 1, 3);
	if (ZSTD_isError(n) || ZSTD_isError(ZSTD_decompress(out, sizeof(out), c, n)))
		return 1;
	printf("%s: zstd %s\n", out, ZSTD_versionString());
	return 0;
}
EOF
cat >proj/zq.yaml <<'EOF'
schema: 1
name: zq
version: 1.0.0
targets: [aarch64]
target-packages: [libzstd-dev]
sources:
  - name: src
    path: src
steps:
  - name: prog
    source: src
    run: |
      mkdir -p $STAGE/zq
      $CC $CFLAGS -o $STAGE/zq/zq zq.c $LDFLAGS -lzstd
      : >$STAGE/zq/__init__.py
wheels:
  - name: zq
    version: 1.0.0
    files:
      - { from: prog, src: zq, dst: . }
    libraries:
      libzstd.so.1: vendor
EOF

expect_success 'the build machine has no libzstd1:arm64 (else this test proves nothing)' '
	! dpkg -s libzstd1:arm64 >/dev/null 2>&1
'

"$TFBUILD" recipe --target aarch64 -j 2 --build-dir build --out out proj/zq.yaml >log 2>&1 ||
	{ cat log; exit 1; }
whl=$(ls out/zq-1.0.0-*.whl)
root=$(sed -n "s/^PKG_CONFIG_SYSROOT_DIR=.\(.*\).$/\1/p" build/zq/aarch64/toolchain/pkg-config)
real=$(readlink -f "$root/usr/lib/aarch64-linux-gnu/libzstd.so.1")
rm -rf x && mkdir x && (cd x && unzip -q "../$whl")
vendored=$(ls x/zq.libs/libzstd-*.so.1)

expect_success 'an aarch64 wheel vendors libzstd.so.1 from the target root, without library-dirs' '
	case $whl in out/zq-1.0.0-py3-none-manylinux_*_aarch64.whl) ;; *) echo "wheel: $whl"; exit 1 ;; esac &&
	case $root in "$TF_SYSROOT_CACHE"/arm64-*) ;; *) echo "root: $root"; exit 1 ;; esac &&
	test -f "$vendored" &&
	h=$(sha256sum <"$real") && h=$(echo "$h" | cut -c1-8) &&
	test "x/zq.libs/libzstd-$h.so.1" = "$vendored" &&
	readelf -d "$vendored" >dyn &&
	grep -F "Library soname: [libzstd-$h.so.1]" dyn &&
	readelf -d x/zq/zq >dyn &&
	grep -F "Shared library: [libzstd-$h.so.1]" dyn &&
	grep -F "Library runpath: [\$ORIGIN/../zq.libs]" dyn
'

expect_success 'the vendored bytes are the target root'"'"'s, apart from the rewritten soname' '
	cp "$real" orig.so && patchelf --page-size 65536 --set-soname "$(basename "$vendored")" orig.so &&
	patchelf --page-size 65536 --set-rpath "\$ORIGIN" orig.so &&
	cmp orig.so "$vendored"
'

expect_success 'the record names the arm64 package and version it came from' '
	v=$(sed -n "s/^libzstd1:arm64=\([^ ]*\) .*/\1/p" "$root/.tfbuild-packages") &&
	test -n "$v" &&
	grep -F "\"package\": \"libzstd1:arm64=$v\"" x/zq-1.0.0.dist-info/tfbuild/libraries.json &&
	"$TFBUILD" verify -v "$whl" 2>err &&
	grep -F "vendored '"'"'libzstd.so.1'"'"' as zq.libs/$(basename "$vendored"), from Debian package libzstd1:arm64=$v" err
'

expect_success 'the wheel runs under qemu-aarch64 with the vendored copy' '
	qemu-aarch64 -L "$root" x/zq/zq >run.txt &&
	grep -q "^vendored from the target root: zstd " run.txt
'

# A copy of the root (the shared one is left alone) that lacks the
# soname link, and the same library in a directory of the recipe's.
expect_success 'a library found outside the root that a target package ships is refused' '
	mkdir -p cache2 elsewhere &&
	ln -s "$TF_SYSROOT_CACHE/debs" cache2/debs &&
	cp -a "$root" cache2/ &&
	root2=cache2/$(basename "$root") &&
	rm "$root2/usr/lib/aarch64-linux-gnu/libzstd.so.1" &&
	cp "$real" elsewhere/libzstd.so.1 &&
	sed "s|^      libzstd.so.1: vendor$|&\n    library-dirs: [\"$TRASH/elsewhere\"]|" proj/zq.yaml >proj/zq2.yaml &&
	grep -q "library-dirs" proj/zq2.yaml &&
	(TF_SYSROOT_CACHE=$TRASH/cache2 && export TF_SYSROOT_CACHE &&
	 expect_code 6 "$TFBUILD" recipe --target aarch64 -j 2 --build-dir build2 --out out2 proj/zq2.yaml >log 2>err) &&
	grep -F "vendored '"'"'libzstd.so.1'"'"' was found at '"'"'$TRASH/elsewhere/libzstd.so.1'"'"', outside the target root, but target package libzstd1:arm64=" err &&
	! ls out2/*.whl
'

test_done
