#!/bin/sh
# verify checks the loading conventions of the frameworks plugins target
# (toolkit/plugin/conventions.c, docs/frameworks.md), each with its own message:
# torch.backends / jax_plugins / torch_xla.plugins entry points name a
# module of the wheel; a PJRT plugin library exports GetPjrtApi; a
# tensorflow-plugins/ library exports SE_InitPlugin, and TF_InitKernel when
# it registers kernels. Wheels made the way another tool would (mkwheel.py)
# and the m1-plugin recipe's wheels, which follow tfmini's convention.
. "$(dirname "$0")/../lib/test-lib.sh"

dir="$SRC_ROOT/tests/e2e/conventions"
plat=py3-none-linux_x86_64
lib() { # NAME FLAGS...: a plugin library
	n=$1; shift
	cc -shared -fPIC -o "$n" "$@" "$dir/plugin.c"
}
mkwheel() { /usr/bin/python3 "$dir/mkwheel.py" "$@"; }
printf "def initialize():\n    pass\n" >mod.py

lib pjrt_ok.so -DPJRT && lib pjrt_bad.so && lib se_ok.so -DSE_INIT &&
lib kern_bad.so -DSE_INIT -DUSES_KERNELS &&
lib kern_ok.so -DSE_INIT -DUSES_KERNELS -DTF_KERNEL || exit 1

# refused NAME PATTERN WHEEL-ARGS...: verify refuses, with that message.
refused() {
	n=$1 pat=$2; shift 2
	mkwheel "$n-1.0-$plat.whl" "$n" 1.0 "$@" &&
	expect_code 6 "$TFBUILD" verify "$n-1.0-$plat.whl" 2>err &&
	cat err && grep -q -- "$pat" err
}

expect_success 'a torch.backends entry point whose module is missing' '
	refused tb "entry point .m1 = torch_m1x:init. in group .torch\.backends. names module .torch_m1x., which is not in the wheel (torch\.backends: torch imports" \
		--ep torch.backends m1 torch_m1x:init torch_m1/__init__.py=mod.py
'

expect_success 'a jax_plugins entry point whose module is missing' '
	refused jp "in group .jax_plugins. names module .jax_m1., which is not in the wheel (jax_plugins: jax imports" \
		--ep jax_plugins m1 jax_m1 jax_m1x/__init__.py=mod.py \
		jax_m1x/pjrt_ok.so=pjrt_ok.so
'

expect_success 'a torch_xla.plugins entry point whose module is missing' '
	refused tx "in group .torch_xla\.plugins. names module .xla_m1\.plugin., which is not in the wheel (torch_xla\.plugins:" \
		--ep torch_xla.plugins m1 xla_m1.plugin:M1Plugin xla_m1/__init__.py=mod.py
'

expect_success 'a PJRT plugin library without GetPjrtApi' '
	refused pj "jax_m1/libpjrt_m1\.so: a PJRT plugin library that does not export GetPjrtApi (JAX/PJRT plugin:" \
		jax_m1/__init__.py=mod.py jax_m1/libpjrt_m1.so=pjrt_bad.so
'

expect_success 'a jax_plugins wheel with no library exporting GetPjrtApi' '
	refused jn "declares a jax_plugins entry point but no shared library in it exports GetPjrtApi" \
		--ep jax_plugins m1 jax_m1 jax_m1/__init__.py=mod.py \
		jax_m1/libm1.so=pjrt_bad.so
'

expect_success 'a tensorflow-plugins library without SE_InitPlugin' '
	refused ts "tensorflow-plugins/libm1\.so: a TensorFlow plugin library that does not export SE_InitPlugin (TensorFlow PluggableDevice:" \
		tensorflow-plugins/libm1.so=pjrt_bad.so
'

expect_success 'a tensorflow-plugins library registering kernels without TF_InitKernel' '
	refused tk "tensorflow-plugins/libm1\.so: registers kernels but does not export TF_InitKernel" \
		tensorflow-plugins/libm1.so=kern_bad.so
'

expect_success 'plugins that follow their conventions pass' '
	mkwheel jax_ok-1.0-$plat.whl jax_ok 1.0 --ep jax_plugins m1 jax_m1 \
		--requires "jaxlib==0.10.2" \
		jax_m1/__init__.py=mod.py jax_m1/libpjrt_m1.so=pjrt_ok.so &&
	mkwheel tf_ok-1.0-$plat.whl tf_ok 1.0 --requires "tensorflow<2.22,>=2.21.0" \
		tensorflow-plugins/libm1.so=kern_ok.so \
		tensorflow-plugins/libse.so=se_ok.so &&
	mkwheel tb_ok-1.0-$plat.whl tb_ok 1.0 --ep torch.backends m1 torch_m1:init \
		torch_m1/__init__.py=mod.py &&
	"$TFBUILD" verify jax_ok-1.0-$plat.whl tf_ok-1.0-$plat.whl tb_ok-1.0-$plat.whl
'

expect_success 'the m1-plugin recipe'"'"'s wheels (tfmini'"'"'s convention) pass' '
	sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null &&
	"$TFBUILD" -q recipe -j 2 --build-dir build --out m1 \
		--set mirror="file://$TRASH/mirror" "$SRC_ROOT/recipes/m1-plugin.yaml" &&
	"$TFBUILD" verify m1/*.whl >out &&
	test "$(grep -c "^ok " out)" = 2
'

expect_success 'a JAX plugin may export GetPjrtApi from a library of any name' '
	mkwheel jax_any-1.0-$plat.whl jax_any 1.0 --ep jax_plugins m1 jax_m1 \
		--requires "jax==0.10.2" jax_m1/__init__.py=mod.py jax_m1/libm1.so=pjrt_ok.so \
		jax_m1/libother.so=se_ok.so &&
	"$TFBUILD" verify jax_any-1.0-$plat.whl
'

# Only a library some convention is about is inflated and read: a wheel
# of ordinary libraries (the bench's 1 GiB binary tree) is not copied out.
expect_success 'libraries no convention is about are not extracted' '
	command -v strace >/dev/null || { echo "strace missing" >&2; false; } &&
	mkwheel plain-1.0-$plat.whl plain 1.0 plain/liba.so=pjrt_bad.so \
		plain/libb.so.1=se_ok.so &&
	(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	 strace -f -qq -e trace=mkdir,openat -o trace \
		"$TFBUILD" verify plain-1.0-$plat.whl) &&
	! grep tfbuild-conventions trace &&
	mkwheel tfp-1.0-$plat.whl tfp 1.0 --requires tensorflow-cpu==2.21.0 \
		tensorflow-plugins/libm1.so=kern_ok.so \
		plain/liba.so=pjrt_bad.so &&
	(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	 strace -f -qq -e trace=openat -o trace \
		"$TFBUILD" verify tfp-1.0-$plat.whl) &&
	test "$(grep -c "tfbuild-conventions.*O_CREAT" trace)" = 1
'

# A wheel with no entry points and no library a convention always checks
# is not read once more for the conventions: verify's first pass saw
# every name. One with a PJRT plugin library is.
expect_success 'a wheel nothing is about is not read again for the conventions' '
	opens() { # WHEEL: how often verify opens it
		(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		 strace -f -qq -e trace=openat -o trace "$TFBUILD" verify "$1" >/dev/null) &&
		grep -c "\"$1\", O_RDONLY" trace
	} &&
	mkwheel none-1.0-$plat.whl none 1.0 none/liba.so=pjrt_bad.so none/mod.py=mod.py &&
	mkwheel pj-1.0-$plat.whl pj 1.0 pj/libpjrt_pj.so=pjrt_ok.so pj/mod.py=mod.py &&
	a=$(opens none-1.0-$plat.whl) && b=$(opens pj-1.0-$plat.whl) &&
	echo "opened $a and $b times" &&
	test "$b" = $((a + 1))
'

test_done
