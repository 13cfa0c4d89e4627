#!/bin/sh
# Issue 39 item 5: older manylinux tags on purpose. A threaded C library
# of the test's own (pthread_create, a mutex, pthread_once and keys, and
# dlopen: all moved into libc in glibc 2.34) and a threaded Python
# extension, packed for x86_64 and aarch64 with `glibc: "2.17"` in their
# toolchains, which zig links against:
#   - the wheels are manylinux_2_17_<arch>.manylinux2014_<arch>; no
#     binary needs a glibc symbol newer than 2.17; auditwheel show finds
#     each consistent with its tags; pip installs each for a
#     manylinux_2_17 machine alone;
#   - without the key the same recipe gets manylinux_2_34, which pip
#     refuses for that machine: the key is what makes the tag;
#   - the library runs natively (ctypes from the build Python), the
#     extension imports and runs in Debian's python3, and the aarch64
#     library and extension, unpacked from their wheels, run their
#     threads under qemu-aarch64 in Debian's arm64 python3.11 from a
#     private root;
#   - a second run runs nothing; another build tree writes the same
#     bytes; CMake and Meson projects (Threads, dependency('threads'))
#     build through the toolchain and cross files to manylinux_2_17;
#   - a failed link leaves no output behind the launcher;
#   - refused: a file linked by the build machine's compiler (GLIBC_2.34,
#     named with its symbol), at pack; a glibc below 2.17, above the
#     build machine's, not 2.X, or on macos-arm64; target-packages, cc
#     or sysroot beside it, each at its FILE:LINE:COL.
# zig's cache is the suite's (tests/lib/macho.sh), filled once.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/macho.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/arm64.sh"

if [ -z "$ZIG" ]; then
	skip 'zig is not installed: run make deps (ci/zig.txt)'
	test_done
fi
export ZIG_GLOBAL_CACHE_DIR="$zig_cache"

mkdir -p src ext cm/thr ms
cat >src/thr.c <<-'EOF'
#include <dlfcn.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static long total;

static void make_key(void)
{
	pthread_key_create(&key, 0);
}

static void *work(void *arg)
{
	pthread_once(&once, make_key);
	pthread_setspecific(key, arg);
	pthread_mutex_lock(&lock);
	total += (long)pthread_getspecific(key);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* 1 + ... + n, each added by a thread of its own; -2 if dlopen fails. */
long thr_sum(int n)
{
	pthread_t t[16];
	void *self;
	int i;

	if (n < 0 || n > 16)
		return -1;
	total = 0;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], 0, work, (void *)(long)(i + 1)))
			return -1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], 0);
	self = dlopen(0, RTLD_NOW);
	if (!self)
		return -2;
	dlclose(self);
	return total;
}
EOF
cat >ext/thrext.c <<-'EOF'
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>

static void *echo(void *a)
{
	return a;
}

static PyObject *roundtrip(PyObject *self, PyObject *args)
{
	pthread_t t;
	void *r = 0;

	(void)self;
	(void)args;
	if (pthread_create(&t, 0, echo, (void *)42L))
		return PyErr_Format(PyExc_OSError, "pthread_create failed");
	pthread_join(t, &r);
	return PyLong_FromLong((long)r);
}

static PyMethodDef methods[] = { { "roundtrip", roundtrip, METH_NOARGS, 0 },
				 { 0 } };
static struct PyModuleDef mod = { PyModuleDef_HEAD_INIT, "thrext", 0, -1,
				  methods };

PyMODINIT_FUNC PyInit_thrext(void)
{
	return PyModule_Create(&mod);
}
EOF
cp src/thr.c cm/thr.c
cp src/thr.c ms/thr.c
cat >cm/CMakeLists.txt <<-'EOF'
cmake_minimum_required(VERSION 3.18)
project(thr C)
find_package(Threads REQUIRED)
add_library(thr SHARED thr.c)
target_link_libraries(thr PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
install(TARGETS thr LIBRARY DESTINATION thr)
EOF
cat >ms/meson.build <<-'EOF'
project('thr', 'c')
cc = meson.get_compiler('c')
shared_library('thr', 'thr.c',
  dependencies: [dependency('threads'), cc.find_library('dl')],
  install: true, install_dir: 'thr')
EOF

# recipe FILE [TOOLCHAINS-LINE...]: the library and the extension, for
# both targets; each further argument one line under `toolchains:`;
# $EXTRA, when set, ends the library's compile line.
recipe() {
	f=$1
	shift
	{
		cat <<-EOF
		schema: 1
		name: thr
		version: 1.0.0
		targets: [x86_64, aarch64]
		source-date-epoch: 1700000000
		EOF
		[ $# = 0 ] || echo "toolchains:"
		for l do echo "$l"; done
		cat <<-EOF
		sources:
		  - name: src
		    path: $TRASH/src
		  - name: ext
		    path: $TRASH/ext
		steps:
		  - name: lib
		    source: src
		    run: |
		      mkdir -p "\$STAGE/thr"
		      \$CC \$CFLAGS -shared -pthread -o "\$STAGE/thr/libthr.so" thr.c -ldl ${EXTRA-}
		  - name: ext
		    source: ext
		    run: |
		      mkdir -p "\$STAGE"
		      \$CC \$CFLAGS -I"\$PYTHON_INCLUDE" -shared -pthread -o "\$STAGE/thrext\${ext_suffix}" thrext.c
		wheels:
		  - name: thr
		    version: 1.0.0
		    python: py3
		    abi: none
		    summary: a threaded C library
		    license: MIT
		    files:
		      - from: lib
		        src: thr
		        dst: .
		    exports:
		      thr/libthr.so: [thr_sum]
		  - name: thrext
		    version: 1.0.0
		    python: \${python_tag}
		    abi: \${python_tag}
		    summary: a threaded Python extension
		    license: MIT
		    files:
		      - from: ext
		        src: "*.so"
		        dst: .
		EOF
	} >"$f"
}
key='  x86_64: {glibc: "2.17"}'
akey='  aarch64: {glibc: "2.17"}'

expect_success 'zig'"'"'s cache is ready for both glibc 2.17 targets (filled once)' '
	for a in x86_64 aarch64; do
		zig_cc -target $a-linux-gnu.2.17 -O2 -fPIC -shared -pthread \
			-o warm-$a.so src/thr.c -ldl && test -s warm-$a.so || return 1
	done
'

x=out/thr-1.0.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
a=out/thr-1.0.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl
expect_success 'with glibc: "2.17" both targets get manylinux_2_17 wheels, the extension too' '
	recipe r.yaml "$key" "$akey" &&
	"$TFBUILD" recipe -v --target all --out out r.yaml 2>err &&
	test -f $x && test -f $a &&
	ls out/thrext-1.0.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl \
		out/thrext-1.0.0-cp311-cp311-manylinux_2_17_aarch64.manylinux2014_aarch64.whl &&
	test $(ls out/*.whl | wc -l) = 4 &&
	grep -q "^tfbuild: wheel .thr.: platform manylinux_2_17_x86_64.manylinux2014_x86_64: the target.s toolchain links against glibc 2.17$" err &&
	grep -q "cc -target x86_64-linux-gnu.2.17 " build/r/x86_64/toolchain/zig/cc &&
	grep -q "cc -target aarch64-linux-gnu.2.17 " build/r/aarch64/toolchain/zig/cc
'

# The GLIBC_ versions FILE's symbols need, one a line.
glibc_versions() {
	readelf -V --wide "$1" | grep -o "Name: GLIBC_[0-9.]*" | sed "s/Name: //" | sort -u
}

expect_success 'no binary needs a glibc symbol newer than 2.17, and none holds a build path' '
	for f in build/r/*/stage/*/thr/libthr.so build/r/*/stage/*/thrext*.so; do
		glibc_versions $f >v && test -s v &&
		newest=$(sort -V v | tail -n 1) &&
		test "$(printf "%s\nGLIBC_2.17\n" $newest | sort -V | tail -n 1)" = GLIBC_2.17 &&
		! grep -qa "$TRASH" $f || return 1
	done &&
	glibc_versions build/r/aarch64/stage/lib/thr/libthr.so >v &&
	echo GLIBC_2.17 >want && compare want v
'

expect_success 'auditwheel show finds each wheel consistent with its manylinux_2_17 tags' '
	for w in out/*.whl; do
		checker_auditwheel $w aw.out || { cat aw.out; return 1; }
	done &&
	checker_auditwheel $a aw.out &&
	test "$(cat aw.out.tag)" = manylinux_2_17_aarch64 &&
	"$TFBUILD" verify out/*.whl >v.out &&
	test $(grep -c "^ok " v.out) = 4
'

# The platforms of a glibc 2.17 machine of arch $1, for pip.
old_machine() {
	for v in $(seq 5 17); do printf -- "--platform manylinux_2_%s_%s " $v $1; done
	printf -- "--platform manylinux2014_%s" $1
}
pip_for() { # ARCH DIR WHEEL
	PIP_DISABLE_PIP_VERSION_CHECK=1 "$PYTHON" -m pip install --no-deps \
		--no-index --target "$2" $(old_machine $1) "$3"
}

expect_success 'pip installs each for a glibc 2.17 machine alone' '
	pip_for x86_64 site-x86_64 $x >pip.out 2>&1 &&
	pip_for aarch64 site-aarch64 $a >pip.out 2>&1 &&
	test -f site-x86_64/thr/libthr.so && test -f site-aarch64/thr/libthr.so
'

expect_success 'without the key the same library gets manylinux_2_34, which that machine refuses' '
	recipe plain.yaml &&
	"$TFBUILD" recipe --target all --out plain plain.yaml 2>err &&
	ls plain/thr-1.0.0-py3-none-manylinux_2_34_x86_64.whl \
		plain/thr-1.0.0-py3-none-manylinux_2_34_aarch64.whl &&
	checker_auditwheel plain/thr-1.0.0-py3-none-manylinux_2_34_aarch64.whl aw.out &&
	test "$(cat aw.out.tag)" = manylinux_2_34_aarch64 &&
	! pip_for aarch64 refused plain/thr-1.0.0-py3-none-manylinux_2_34_aarch64.whl >pip.out 2>&1 &&
	grep -q "is not a supported wheel on this platform" pip.out
'

expect_success 'the library runs natively, from ctypes of the build Python' '
	"$PYTHON" -c "import ctypes, sys; l = ctypes.CDLL(sys.argv[1]); print(l.thr_sum(8))" \
		site-x86_64/thr/libthr.so >got &&
	echo 36 >want && compare want got
'

expect_success 'the extension imports and runs in Debian'"'"'s python3' '
	mkdir ext-site && (cd ext-site && unzip -q ../out/thrext-*x86_64.whl) &&
	PYTHONPATH=ext-site /usr/bin/python3 -c "import thrext; print(thrext.roundtrip())" >got &&
	echo 42 >want && compare want got
'

# The aarch64 wheels under qemu-aarch64, in Debian's arm64 python3.11 from
# a private root (tests/lib/arm64.sh): its libc6:arm64 is the newer glibc
# the 2.17 symbols bind against, as on a user's machine. (qemu 7.2 hangs
# in a guest's first pthread_create with libc6-arm64-cross's libc, the
# -L /usr/aarch64-linux-gnu root; with Debian's libc6:arm64 threads run.)
expect_success 'the aarch64 library runs its threads under qemu-aarch64, from ctypes of arm64 python3.11' '
	arm64_sysroot &&
	timeout 300 sh -c '"'"'qemu-aarch64 -L "$1" "$1/usr/bin/python3.11" -c "import ctypes, sys; l = ctypes.CDLL(sys.argv[1]); print(l.thr_sum(8))" "$2"'"'"' \
		- "$arm64_root" site-aarch64/thr/libthr.so >got &&
	echo 36 >want && compare want got
'

expect_success 'the aarch64 extension imports and runs its thread there' '
	mkdir ext-site-aarch64 &&
	(cd ext-site-aarch64 && unzip -q ../out/thrext-*aarch64.whl) &&
	PYTHONPATH=ext-site-aarch64 timeout 300 sh -c '"'"'qemu-aarch64 -L "$1" "$1/usr/bin/python3.11" -c "import thrext; print(thrext.roundtrip())"'"'"' \
		- "$arm64_root" >got &&
	echo 42 >want && compare want got
'

expect_success 'a second run runs nothing; another build tree writes the same bytes' '
	"$TFBUILD" recipe --target all --out out r.yaml 2>err &&
	grep -qx "tfbuild: 0 of 4 steps ran, 4 up to date" err &&
	"$TFBUILD" recipe --target all --build-dir b2 --out out2 r.yaml 2>err &&
	for w in out/*.whl; do cmp $w out2/$(basename $w) || return 1; done
'

expect_success 'a failed link leaves no output behind the launcher' '
	echo "int main(void) { return missing(); }" >bad.c &&
	echo stale >bad &&
	! build/r/x86_64/toolchain/zig/cc -o bad bad.c 2>err &&
	grep -q missing err &&
	test ! -e bad
'

# builds FILE: libthr.so by CMake and by Meson, for both targets.
builds() {
	cat >"$1" <<-EOF
	schema: 1
	name: thr-builds
	version: 1.0.0
	targets: [x86_64, aarch64]
	source-date-epoch: 1700000000
	toolchains:
	$key
	$akey
	sources:
	  - name: cm
	    path: $TRASH/cm
	  - name: ms
	    path: $TRASH/ms
	steps:
	  - name: cmake
	    source: cm
	    run: |
	      cmake -S . -B "\$BUILDDIR/b" -DCMAKE_INSTALL_PREFIX="\$STAGE" -DCMAKE_BUILD_TYPE=Release
	      cmake --build "\$BUILDDIR/b"
	      cmake --install "\$BUILDDIR/b"
	  - name: meson
	    source: ms
	    run: |
	      meson setup \${meson_args} --prefix="\$STAGE" "\$BUILDDIR/m"
	      meson install -C "\$BUILDDIR/m"
	wheels:
	  - name: thr_cmake
	    version: 1.0.0
	    python: py3
	    abi: none
	    files:
	      - from: cmake
	        src: thr
	        dst: thr
	  - name: thr_meson
	    version: 1.0.0
	    python: py3
	    abi: none
	    files:
	      - from: meson
	        src: thr
	        dst: thr
	EOF
}

expect_success 'CMake and Meson projects build through the toolchain and cross files' '
	builds b.yaml &&
	"$TFBUILD" recipe --target all --out ob b.yaml 2>err &&
	for k in cmake meson; do
		for arch in x86_64 aarch64; do
			test -f ob/thr_$k-1.0.0-py3-none-manylinux_2_17_$arch.manylinux2014_$arch.whl || return 1
		done
	done &&
	glibc_versions build/b/aarch64/stage/meson/thr/libthr.so >v &&
	echo GLIBC_2.17 >want && compare want v
'

expect_success 'a file the build machine'"'"'s compiler linked is refused at pack, with its symbol' '
	EXTRA='"'"'&& $HOSTCC -O2 -fPIC -shared -pthread -o "$STAGE/thr/libnew.so" thr.c'"'"' \
		recipe new.yaml "$key" &&
	grep -q HOSTCC new.yaml &&
	expect_code 6 "$TFBUILD" recipe --target x86_64 --out onew new.yaml 2>err &&
	grep -x "tfbuild: wheel .thr.: thr/libnew.so needs GLIBC_2.34 (symbol .[a-z_]*.), which manylinux_2_34 allows and glibc 2.17 does not: .*" err &&
	test ! -e onew/thr-1.0.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
'

build_minor=$(getconf GNU_LIBC_VERSION | sed "s/^glibc 2\.//")
expect_success 'a glibc below 2.17, above the build machine'"'"'s, not 2.X, or on macos-arm64 is refused at its place' '
	cat >bad.yaml <<-EOF &&
	schema: 1
	name: thr
	version: 1.0.0
	targets: [x86_64, aarch64, macos-arm64]
	toolchains:
	  x86_64:
	    glibc: "2.16"
	  aarch64:
	    glibc: "2.$((build_minor + 1))"
	  macos-arm64:
	    glibc: "2.17"
	steps: []
	wheels: []
	EOF
	expect_code 3 "$TFBUILD" recipe --target x86_64 bad.yaml 2>err &&
	cat >want <<-EOF &&
	tfbuild: bad.yaml:7:12: '"'"'glibc'"'"' is '"'"'2.16'"'"': zig links against glibc 2.17 or later (manylinux_2_17, the oldest policy for aarch64)
	tfbuild: bad.yaml:9:12: '"'"'glibc'"'"' is '"'"'2.$((build_minor + 1))'"'"': newer than this build machine'"'"'s glibc 2.$build_minor, whose loader runs the target'"'"'s tests
	tfbuild: bad.yaml:11:12: '"'"'glibc'"'"' is for the Linux targets: macos-arm64 has no glibc (its minimum is '"'"'macos-minimum'"'"')
	EOF
	compare want err &&
	sed "s/\"2.16\"/\"2.17.1\"/" bad.yaml >bad2.yaml &&
	expect_code 3 "$TFBUILD" recipe --target x86_64 bad2.yaml 2>err &&
	grep -qx "tfbuild: bad2.yaml:7:12: .glibc. is .2.17.1., not a glibc version 2.X (\"2.17\")" err
'

expect_success 'target-packages, cc or sysroot beside it are refused at their place' '
	cat >mix.yaml <<-EOF &&
	schema: 1
	name: thr
	version: 1.0.0
	targets: [x86_64]
	target-packages: [zlib1g-dev]
	toolchains:
	  x86_64:
	    glibc: "2.17"
	    cc: gcc
	    sysroot: /opt/sysroot
	steps: []
	wheels: []
	EOF
	expect_code 3 "$TFBUILD" recipe --target x86_64 mix.yaml 2>err &&
	grep -qx "tfbuild: mix.yaml:9:9: toolchain of target .x86_64.: with .glibc. its compiler and archiver are zig.s launchers, linking against glibc 2.17 (docs/cross.md#older-glibc); this entry cannot replace them" err &&
	grep -q "^tfbuild: mix.yaml:10:14: toolchain of target .x86_64.: with .glibc. " err &&
	grep -qx "tfbuild: mix.yaml:5:19: target .x86_64. takes no target packages with its toolchain.s .glibc. (mix.yaml:8:12): Debian.s libraries link against Debian.s own glibc, not 2.17; build what it needs in a step" err &&
	test $(wc -l <err) = 3
'

test_done
