#!/bin/sh
# recipes/torch-m1.yaml: the m1 backend as a PyTorch device, built against
# Debian's torch and checked against it (issue 13). One build feeds every
# check: torch's headers cost a minute per compile here.
#   - builds from a clean checkout; a second run runs no command; a second
#     checkout gives byte-identical wheels;
#   - Requires-Dist derived from torch's own metadata; pip install and
#     pip check pass in a venv that sees Debian's torch;
#   - tensors on privateuseone: m1's kernels, ATen's, the CPU fallback and
#     views agree with the CPU; AVX2 natively, SSE2 under qemu64;
#   - verify --framework accepts it against Debian's torch and refuses it
#     against another torch build;
#   - a recipe expecting torch 1.12, and a backend built with the other
#     C++ ABI, are refused before a wheel is written;
#   - verify --framework refuses it against arm64 torch (Debian's packages
#     unpacked, cached outside the repository), naming the architecture.
. "$(dirname "$0")/../lib/test-lib.sh"

recipe=recipes/torch-m1.yaml
site=/usr/lib/python3/dist-packages
check="$SRC_ROOT/backend/torch_m1/tests/check_device.py"

# checkout DIR: what the recipe reads, as a clean checkout has it.
checkout() {
	mkdir -p "$1" && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" "$1/"
}
build() { # checkout build-dir out [options]
	c=$1 b=$2 o=$3; shift 3
	"$TFBUILD" recipe --target all -j 2 --build-dir "$b" --out "$o" "$@" \
		"$c/$recipe"
}

checkout a && checkout b || exit 1

expect_success 'the wheel builds from a clean checkout' '
	build a build-a wheels-a 2>err &&
	grep -q "^tfbuild: 1 of 1 steps ran, 0 up to date$" err &&
	ls wheels-a/torch_m1-0.1.0-cp311-cp311-manylinux_2_*_x86_64.whl
'
whl=$(ls wheels-a/torch_m1-*_x86_64.whl 2>/dev/null)

expect_success 'a second run runs no command' '
	build a build-a wheels-a 2>err &&
	grep -q "^tfbuild: 0 of 1 steps ran, 1 up to date$" err
'

expect_success 'a second checkout gives byte-identical wheels' '
	build b build-b wheels-b 2>err &&
	for w in wheels-a/*.whl; do
		cmp "$w" "wheels-b/$(basename "$w")" || exit 1
	done
'

expect_success 'the extension has the suffix an x86-64 CPython 3.11 imports' '
	unzip -l "$whl" | grep -q " torch_m1/_C\.cpython-311-x86_64-linux-gnu\.so$"
'

expect_success 'Requires-Dist is the framework build, read from its own metadata' '
	v=$(/usr/bin/python3 -c "import importlib.metadata as m; print(m.version(\"torch\"))") &&
	test -n "$v" &&
	unzip -p "$whl" "*.dist-info/METADATA" >metadata &&
	grep -qx "Requires-Dist: torch==$v" metadata &&
	unzip -p "$whl" "*.dist-info/tfbuild/framework.json" >fw.json &&
	/usr/bin/python3 - "$v" <<-\PY
	import json, sys
	fw = json.load(open("fw.json"))["framework"]
	assert fw["name"] == "torch" and fw["version"] == sys.argv[1], fw
	assert fw["cxx11-abi"] is True, fw
	sonames = [p["soname"] for p in fw["providers"]]
	assert sonames == ["libc10.so.1.13", "libtorch_cpu.so.1.13"], sonames
	assert all(len(p["exports-sha256"]) == 64 for p in fw["providers"])
	PY
'

expect_success 'pip installs it beside Debian'"'"'s torch; pip check passes' '
	/usr/bin/python3 -m venv --system-site-packages venv &&
	venv/bin/pip install -q --no-index "$whl" &&
	venv/bin/pip check
'

if grep -qw avx2 /proc/cpuinfo; then native=avx2; else native=sse2; fi
expect_success "tensors on privateuseone agree with the CPU ($native natively)" '
	(cd / && "$TRASH/venv/bin/python" "$check") >out &&
	grep -q "^ok add (m1)$" out && grep -q "^ok sub (fallback)$" out &&
	grep -q "^ok view$" out &&
	test "$(tail -n 1 out)" = "isa $native"
'

expect_success 'under qemu-x86_64 -cpu qemu64 the SSE2 kernels run' '
	(cd / && qemu-x86_64 -cpu qemu64 "$TRASH/venv/bin/python" "$check") >out &&
	test "$(tail -n 1 out)" = "isa sse2"
'

expect_success 'verify --framework accepts it against Debian'"'"'s torch' '
	"$TFBUILD" verify --framework "$site" "$whl" >out 2>err &&
	grep -q "^ok " out &&
	grep -q "built for torch .* (cxx11 ABI), and resolves against" err
'

# Another torch build: Debian's libraries, other metadata.
mkdir -p other/torch && ln -s "$site/torch/lib" other/torch/lib &&
	mkdir other/torch-2.1.0.dist-info &&
	printf "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0\n" \
		>other/torch-2.1.0.dist-info/METADATA
expect_success 'verify --framework refuses it against another torch build' '
	expect_code 6 "$TFBUILD" verify --framework other "$whl" 2>err &&
	grep -q "built for torch 1\.13\.0a0+gitunknown (cxx11 ABI), .*/other'"'"' has torch 2\.1\.0 (cxx11 ABI)$" err
'

expect_success 'a recipe expecting torch 1.12 is refused before a wheel is written' '
	expect_code 6 build a build-a wheels-v --set torch_version=1.12 2>err &&
	grep -q "framework torch: the recipe declares version 1\.12, but the headers the backend was compiled against are torch 1\.13\.0 (/.*/torch/version\.h)$" err &&
	! ls wheels-v/*.whl 2>/dev/null
'

expect_success 'a backend built with _GLIBCXX_USE_CXX11_ABI=0 is refused, naming the symbol' '
	expect_code 6 build a build-abi0 wheels-abi0 \
		--set cxxflags=-D_GLIBCXX_USE_CXX11_ABI=0 2>err &&
	grep "undefined symbol" err >msg &&
	grep -q "undefined symbol .c10::.*std::string.* is not defined by libc10\.so\.1\.13 (torch .* cxx11 ABI), which should define it: it defines .c10::.*std::__cxx11::basic_string<" msg &&
	! ls wheels-abi0/*.whl 2>/dev/null
'

# torch for arm64: Debian's packages, unpacked (no arm64 package installed),
# kept outside the repository across runs, keyed by version.
cache=${TFBUILD_TEST_CACHE:-/var/cache/tfbuild-test}
mkdir -p "$cache" 2>/dev/null && test -w "$cache" || cache="$TESTS_DIR/tmp/.cache"
ver=$(apt-cache show --no-all-versions python3-torch:arm64 2>/dev/null |
	sed -n "s/^Version: //p")
arm64="$cache/torch-arm64-$ver"
if [ -n "$ver" ] && [ ! -f "$arm64/.done" ]; then
	rm -rf "$arm64.tmp" && mkdir -p "$arm64.tmp/debs" &&
	(cd "$arm64.tmp/debs" && apt-get download -q "libtorch1.13:arm64=$ver" \
		"python3-torch:arm64=$ver" >/dev/null 2>&1) &&
	for d in "$arm64.tmp"/debs/*.deb; do dpkg -x "$d" "$arm64.tmp/root" || exit 1; done &&
	touch "$arm64.tmp/root/.done" && rm -rf "$arm64" &&
	mv "$arm64.tmp/root" "$arm64" && rm -rf "$arm64.tmp"
fi
expect_success 'verify --framework refuses it against arm64 torch, naming the architecture' '
	test -f "$arm64/.done" &&
	expect_code 6 "$TFBUILD" verify --framework "$arm64/usr/lib/python3/dist-packages" "$whl" 2>err &&
	grep -q "_C\.cpython-311-x86_64-linux-gnu\.so: is x86-64, but the framework.s lib[a-z0-9_]*\.so\.1\.13 (.*/aarch64-linux-gnu/.*) is aarch64: checked against another architecture.s torch$" err
'

test_done
