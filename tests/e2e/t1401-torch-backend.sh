#!/bin/sh
# tier: expensive (torch; make test QUICK=1 skips it, CI runs it)
# recipes/torch-m1.yaml: the m1 backend as a PyTorch device, built against
# Debian's torch and checked against it (issue 13), for x86_64 and
# aarch64. One build per checkout feeds every check: torch's headers cost
# a minute per compile here.
#   - both wheels build from a clean checkout; a second run runs no
#     command; a second checkout gives byte-identical wheels;
#   - the aarch64 build compiles and links against the arm64 torch of the
#     target's root (target-packages: Debian's .debs unpacked, cached
#     outside the repository), never the build machine's, and its
#     framework check reads the arm64 libraries and metadata;
#   - the aarch64 wheel runs the device test under qemu-aarch64 with that
#     root's python3.11 and torch, taking the NEON path;
#   - an aarch64 build checked against the build machine's (x86-64) torch
#     is refused before a wheel is written, naming both architectures;
#   - Requires-Dist derived from torch's own metadata; pip install and
#     pip check pass in a venv that sees Debian's torch;
#   - tensors on privateuseone: m1's kernels, ATen's, the CPU fallback and
#     views agree with the CPU; AVX2 natively, SSE2 under qemu64;
#   - verify --framework accepts it against Debian's torch and refuses it
#     against another torch build;
#   - a recipe expecting torch 1.12, and a backend built with the other
#     C++ ABI, are refused before a wheel is written;
#   - verify --framework refuses the x86-64 wheel against arm64 torch,
#     naming the architecture.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

# The arm64 roots and their .debs are kept outside the repository across
# runs (t1205 shares them): the first run downloads ~200 MB.
cache=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}
TF_SYSROOT_CACHE=$cache/target-roots
export TF_SYSROOT_CACHE

recipe=recipes/torch-m1.yaml
site=/usr/lib/python3/dist-packages
check="$SRC_ROOT/backend/torch_m1/tests/check_device.py"

# checkout DIR: what the recipe reads, as a clean checkout has it.
checkout() {
	mkdir -p "$1" && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" "$1/"
}
build() { # checkout build-dir out [options]
	c=$1 b=$2 o=$3; shift 3
	"$TFBUILD" recipe -j 2 --build-dir "$b" --out "$o" "$@" "$c/$recipe"
}

checkout a && checkout b || exit 1

expect_success 'both wheels build from a clean checkout' '
	build a build-a wheels-a --target all 2>err &&
	grep -q "^tfbuild: 2 of 2 steps ran$" err &&
	ls wheels-a/torch_m1-0.1.0-cp311-cp311-manylinux_2_*_x86_64.whl &&
	ls wheels-a/torch_m1-0.1.0-cp311-cp311-manylinux_2_*_aarch64.whl
'

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels wheels-a/*.whl
'

expect_success 'the SBOM names the framework release: Debian'"'"'s torch for each target' '
	for w in wheels-a/*.whl; do
		a=amd64 && case $w in *aarch64*) a=arm64 ;; esac &&
		sbom_json "$w" >sbom.json &&
		grep -q "\"purl\": \"pkg:deb/debian/python3-torch@[^\"]*?arch=$a\"" sbom.json &&
		grep -q "\"value\": \"torch 1\.13" sbom.json || exit 1
	done
'
whl=$(ls wheels-a/torch_m1-*_x86_64.whl 2>/dev/null)
awhl=$(ls wheels-a/torch_m1-*_aarch64.whl 2>/dev/null)
# The aarch64 target's root: arm64 torch and its Depends closure.
root=$(sed -n "s/^PKG_CONFIG_SYSROOT_DIR='\(.*\)'$/\1/p" \
	build-a/torch-m1/aarch64/toolchain/pkg-config 2>/dev/null)
asite=$root/usr/lib/python3/dist-packages

expect_success 'a second run runs no command' '
	build a build-a wheels-a --target all 2>err &&
	grep -q "^tfbuild: 0 of 2 steps ran, 2 up to date$" err
'

expect_success 'a second checkout gives byte-identical wheels' '
	build b build-b wheels-b --target all 2>err &&
	test $(ls wheels-a/*.whl | wc -l) = 2 &&
	for w in wheels-a/*.whl; do
		cmp "$w" "wheels-b/$(basename "$w")" || exit 1
	done
'

expect_success 'each extension has the suffix its target'"'"'s CPython 3.11 imports' '
	unzip -l "$whl" | grep -q " torch_m1/_C\.cpython-311-x86_64-linux-gnu\.so$" &&
	unzip -l "$awhl" | grep -q " torch_m1/_C\.cpython-311-aarch64-linux-gnu\.so$" &&
	unzip -l "$awhl" | grep -c "\.so$" >n && echo 1 | compare - n
'

expect_success 'the arm64 torch is unpacked in the target root, installed nowhere' '
	case $root in "$TF_SYSROOT_CACHE"/arm64-*) ;; *) echo "root: $root"; exit 1 ;; esac &&
	for p in libtorch-dev libtorch1.13 python3-torch libgflags2.2; do
		grep -q "^$p:arm64=" "$root/.tfbuild-packages" || exit 1
		! dpkg-query -W "$p:arm64" 2>/dev/null || exit 1
	done &&
	file -L "$asite/torch/lib/libtorch_cpu.so" | grep -q "ARM aarch64"
'

expect_success 'the aarch64 build used the root'"'"'s torch headers, CMake files and libraries only' '
	w=build-a/torch-m1/aarch64/work/torch_m1 &&
	grep -qx "Torch_DIR:PATH=$root/usr/lib/aarch64-linux-gnu/cmake/Torch" $w/CMakeCache.txt &&
	grep -qx "c10_LIBRARY:FILEPATH=$root/usr/lib/aarch64-linux-gnu/libc10.so" $w/CMakeCache.txt &&
	! grep -v "^//" $w/CMakeCache.txt | grep "x86_64-linux-gnu" &&
	ninja -C $w -t deps >deps &&
	grep -E "/(ATen|c10|torch)/" deps >torch-headers &&
	test $(wc -l <torch-headers) -gt 100 &&
	! grep -v "^ *$root/usr/include/" torch-headers &&
	! grep "^ */usr/include/" deps &&
	grep "\.so" $w/build.ninja | grep -o "[^ ]*lib\(c10\|torch_cpu\)\.so[^ ]*" | sort -u >linked &&
	test -s linked && ! grep -v "^$root/" linked
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

expect_success 'the aarch64 Requires-Dist and record come from the arm64 torch' '
	v=$(/usr/bin/python3 -c "import importlib.metadata as m, sys; print(next(m.distributions(name=\"torch\", path=[sys.argv[1]])).version)" "$asite") &&
	test -n "$v" &&
	unzip -p "$awhl" "*.dist-info/METADATA" | grep -qx "Requires-Dist: torch==$v" &&
	unzip -p "$whl" "*.dist-info/tfbuild/framework.json" >x.json &&
	unzip -p "$awhl" "*.dist-info/tfbuild/framework.json" >a.json &&
	/usr/bin/python3 - "$v" <<-\PY
	import json, sys
	x = json.load(open("x.json"))["framework"]
	a = json.load(open("a.json"))["framework"]
	assert a["version"] == sys.argv[1] and a["cxx11-abi"] is True, a
	assert [p["soname"] for p in a["providers"]] == [p["soname"] for p in x["providers"]]
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

# The aarch64 wheel in the arm64 root's Python: the wheel's files first
# on its path (PYTHONPATH: the root has no torch_m1), .pyc files kept
# beside the cache rather than written into the shared root.
mkdir -p awheel && (cd awheel && unzip -q "$TRASH/$awhl")
expect_success 'under qemu-aarch64 with arm64 torch the NEON kernels run' '
	test -n "$root" && test ! -e "$asite/torch_m1" &&
	(cd / && env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
		PYTHONPATH="$TRASH/awheel" \
		PYTHONPYCACHEPREFIX="$cache/pycache/${root##*/}" \
		qemu-aarch64 -L "$root" "$root/usr/bin/python3.11" "$check") >out &&
	grep -q "^ok add (m1)$" out && grep -q "^ok sub (fallback)$" out &&
	grep -q "^ok view$" out && grep -qx "from $TRASH/awheel/torch_m1" out &&
	test "$(tail -n 1 out)" = "isa neon"
'

expect_success 'verify --framework accepts each against its target'"'"'s torch' '
	"$TFBUILD" verify --framework "$site" "$whl" >out 2>err &&
	grep -q "^ok " out &&
	grep -q "built for torch .* (cxx11 ABI), and resolves against" err &&
	"$TFBUILD" verify --framework "$asite" "$awhl" >out 2>err &&
	grep -q "^ok " out &&
	grep -q "built for torch .* (cxx11 ABI), and resolves against" err
'

expect_success 'an aarch64 build checked against x86-64 torch is refused before a wheel is written' '
	expect_code 6 build a build-a wheels-x --target aarch64 \
		--set torch_site=/usr/lib/python3/dist-packages 2>err &&
	grep -q "^tfbuild: wheel .torch_m1.: torch_m1/_C\.cpython-311-aarch64-linux-gnu\.so: is aarch64, but the framework.s lib[a-z0-9_]*\.so\.1\.13 (/usr/lib/x86_64-linux-gnu/.*) is x86-64: checked against another architecture.s torch$" err &&
	! ls wheels-x/*.whl 2>/dev/null
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
	expect_code 6 build a build-a wheels-v --target all --set torch_version=1.12 2>err &&
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

# libstdc++ is loaded on first use, for the demangler (toolkit/dl/).
expect_success 'without libstdc++, the framework audit names the library' '
	(export TFBUILD_DLOPEN_LIBSTDCXX=libstdc++-missing.so.6 &&
	 expect_code 6 build a build-abi0 wheels-abi0 \
		--set cxxflags=-D_GLIBCXX_USE_CXX11_ABI=0 2>err) &&
	grep -q "cannot load libstdc++-missing.so.6, needed to demangle C++ names: .*(install Debian.s libstdc++6)$" err &&
	grep -q "framework .torch.: cannot check its C++ symbols$" err &&
	! ls -A wheels-abi0 | grep .
'

expect_success 'verify --framework refuses it against arm64 torch, naming the architecture' '
	test -n "$root" &&
	expect_code 6 "$TFBUILD" verify --framework "$asite" "$whl" 2>err &&
	grep -q "_C\.cpython-311-x86_64-linux-gnu\.so: is x86-64, but the framework.s lib[a-z0-9_]*\.so\.1\.13 (.*/aarch64-linux-gnu/.*) is aarch64: checked against another architecture.s torch$" err
'

test_done
