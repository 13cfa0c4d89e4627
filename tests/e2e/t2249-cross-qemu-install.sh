#!/bin/sh
# Issue 39, a new user's point 6: docs/cross.md's commands for a qemu
# smoke test of an aarch64 wheel on this machine. pip's --platform
# matches only the tags it is given, so one manylinux_2_36 refuses a
# manylinux_2_17 wheel, and the documented list of every manylinux_2_X
# with --target installs it into a root; an aarch64 program then loads
# the installed library under qemu-aarch64 with the cross libc.
. "$(dirname "$0")/../lib/test-lib.sh"

if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
	skip 'aarch64-linux-gnu-gcc or qemu-aarch64 is not installed'
	test_done
fi

cat >k.c <<-'EOF'
int k_sum(const int *a, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}
EOF
cat >main.c <<-'EOF'
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int a[] = { 1, 2, 3, 36 };
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*f)(const int *, int) = h ? (int (*)(const int *, int))dlsym(h, "k_sum") : 0;

	if (!f)
		return fprintf(stderr, "%s\n", dlerror()), 1;
	printf("%d\n", f(a, 4));
	return 0;
}
EOF
aarch64-linux-gnu-gcc -O2 -fPIC -shared -o libk.so k.c &&
aarch64-linux-gnu-gcc -O2 -o main main.c -ldl || exit 1
w=$("$TOOL_DIR/test-wheel" pack w --name k --version 1 \
	--tag py3-none-manylinux_2_17_aarch64 libk.so=k/libk.so) || exit 1

expect_success 'the wheel is one tfbuild verify accepts as manylinux_2_17_aarch64' '
	"$TFBUILD" verify "$w" >out 2>err &&
	grep "^ok " out
'

expect_success 'one --platform manylinux_2_36_aarch64: pip refuses the manylinux_2_17 wheel' '
	! "$PYTHON" -m pip install --no-deps --no-index --target one \
		--platform manylinux_2_36_aarch64 "$w" >out 2>err &&
	grep "is not a supported wheel on this platform" err &&
	test ! -e one/k/libk.so
'

expect_success 'the documented --platform list and --target install it into a root' '
	plat=$(for v in $(seq 17 36); do printf -- "--platform manylinux_2_%s_aarch64 " $v; done) &&
	"$PYTHON" -m pip install --no-deps --no-index --target root/site \
		$plat --platform manylinux2014_aarch64 --platform linux_aarch64 \
		"$w" >out 2>err &&
	cmp libk.so root/site/k/libk.so
'

expect_success 'an aarch64 program loads it from the root under qemu-aarch64' '
	qemu-aarch64 -L /usr/aarch64-linux-gnu ./main root/site/k/libk.so >out &&
	echo 42 >expect &&
	compare expect out
'

test_done
