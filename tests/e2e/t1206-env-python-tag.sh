#!/bin/sh
# The wheel's Python tag and extension suffix come from the target's
# headers, not a hand-set value (issue 14 item 5): ${python_tag} and
# ${ext_suffix} build a C extension for both targets that imports in
# each target's CPython ($TARGET_PYTHON, under qemu for aarch64); a
# cp312 tag over 3.11 headers is a recipe error; tfbuild verify refuses
# a 3.11 extension module in a wheel tagged cp312.
. "$(dirname "$0")/../lib/test-lib.sh"

TF_SYSROOT_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}/target-roots
export TF_SYSROOT_CACHE
cp -R "$TESTS_DIR/e2e/env/hello" "$TESTS_DIR/e2e/env/hello.yaml" .
ver=$(/usr/bin/python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')
dotted=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')

expect_success 'both targets: tags and suffix from the headers, the module imports' '
	"$TFBUILD" -q recipe --target all -j 2 --out out hello.yaml &&
	for t in x86_64 aarch64; do
		w=out/hello_ext-1.0.0-cp$ver-cp$ver-linux_$t.whl &&
		unzip -l "$w" | grep -q " hello_pkg/hello.cpython-$ver-$t-linux-gnu.so$" &&
		echo $t >expect && compare expect build/hello/$t/stage/import/machine.txt || exit 1
	done &&
	"$TFBUILD" verify out/*.whl
'

expect_success 'the provenance records each target package and version' '
	v=$(dpkg-query -W -f="\${Version}" zlib1g-dev:amd64) &&
	grep -q "\"name\": \"target-package:x86_64:zlib1g-dev:amd64=$v\"" out/hello.intoto.json &&
	grep -q "\"uri\": \"pkg:deb/debian/zlib1g-dev@$v?arch=arm64\"" out/hello.intoto.json &&
	grep -q "\"name\": \"target-package:aarch64:libc6:arm64=" out/hello.intoto.json
'

expect_success 'a cp312-style tag over other headers is a recipe error at its position' '
	other=$((ver + 1)) &&
	sed "s/python: \${python_tag}/python: cp$other/; s/abi: \${python_tag}/abi: cp$other/" hello.yaml >bad.yaml &&
	expect_code 3 "$TFBUILD" recipe --target x86_64 --build-dir bad-build --out bad-out bad.yaml 2>err &&
	grep -q "^tfbuild: bad.yaml:[0-9]*:13: python tag '"'"'cp$other'"'"' does not match the x86_64 target'"'"'s Python headers (CPython $dotted, " err &&
	test ! -e bad-out
'

expect_success 'verify refuses a 3.X extension module in a wheel tagged for another CPython' '
	so=build/hello/aarch64/stage/ext/hello_pkg/hello.cpython-$ver-aarch64-linux-gnu.so &&
	other=$((ver + 1)) &&
	mkdir -p bad &&
	"$TOOL_DIR/test-wheel" pack bad --name hello-ext --version 1.0.0 \
		--tag cp$other-cp$other-linux_aarch64 "$so=hello_pkg/hello.cpython-$ver-aarch64-linux-gnu.so" >/dev/null &&
	w=bad/hello_ext-1.0.0-cp$other-cp$other-linux_aarch64.whl &&
	expect_code 6 "$TFBUILD" verify "$w" 2>err &&
	echo "tfbuild: $w: hello_pkg/hello.cpython-$ver-aarch64-linux-gnu.so: an extension module for CPython $dotted (hello.cpython-$ver-aarch64-linux-gnu.so) in a wheel tagged cp$other-cp$other; its tags must be cp$ver-cp$ver" >expect &&
	compare expect err
'

expect_success 'verify refuses an aarch64 extension module in an x86_64 wheel by its suffix' '
	so=build/hello/aarch64/stage/ext/hello_pkg/hello.cpython-$ver-aarch64-linux-gnu.so &&
	mkdir -p bad2 &&
	"$TOOL_DIR/test-wheel" pack bad2 --name hello-ext --version 1.0.0 \
		--tag cp$ver-cp$ver-linux_x86_64 "$so=hello_pkg/hello.cpython-$ver-aarch64-linux-gnu.so" >/dev/null &&
	expect_code 6 "$TFBUILD" verify bad2/*.whl 2>err &&
	grep -q "an extension module for aarch64-linux-gnu (hello.cpython-$ver-aarch64-linux-gnu.so) in a wheel for x86_64" err
'

test_done
