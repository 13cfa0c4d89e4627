#!/bin/sh
# Issue 39, a new user's point 4: `isa.dispatch` may be declared per
# target (`dispatch: {x86_64: [GLOB...]}`): the x86_64 wheel declares
# its file's dispatch, the aarch64 wheel of the same recipe does not,
# so `verify -v` says "(dispatches)" only where the file's own target
# declared it. A plain list still declares it for every target.
. "$(dirname "$0")/../lib/test-lib.sh"

cp -R "$SRC_ROOT/tests/fixtures/dispatch" src &&
cat >src/plain.c <<-'EOF' || exit 1
int sum(const int *a, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += a[i] * 3;
	return s;
}
EOF

# recipe FILE DISPATCH: both targets, libk.so in a wheel, isa.dispatch
# as given (the x86_64 library's AVX2 kernel has a name that says
# nothing: undecided, so packing needs the declaration).
recipe() {
	cat >"$1" <<-EOF
	schema: 1
	name: k
	version: 1.0.0
	targets: [x86_64, aarch64]
	sources:
	  - name: src
	    path: src
	steps:
	  - name: lib
	    source: src
	    run: |
	      mkdir -p \$STAGE/k
	      case \${target} in
	      x86_64) \$CC -O2 -fPIC -shared -DAVX2_NAME=sum_wide -o \$STAGE/k/libk.so cpuid.c ;;
	      *) \$CC -O2 -fPIC -shared -o \$STAGE/k/libk.so plain.c ;;
	      esac
	wheels:
	  - name: k
	    version: 1.0.0
	    platform: linux_\${target}
	    isa:
	      dispatch: $2
	    files:
	      - from: lib
	        src: k/libk.so
	        dst: k
	EOF
}

expect_success 'per target: only the x86_64 wheel declares its dispatch' '
	recipe r.yaml "{x86_64: [k/libk.so]}" &&
	"$TFBUILD" recipe --target all --out out r.yaml >log 2>&1 &&
	unzip -p out/k-1.0.0-py3-none-linux_x86_64.whl k-1.0.0.dist-info/tfbuild-isa >x86 &&
	grep -x "Dispatch: k/libk.so" x86 &&
	unzip -l out/k-1.0.0-py3-none-linux_aarch64.whl >list &&
	grep -q " k/libk.so$" list &&
	if grep -q tfbuild-isa list; then
		unzip -p out/k-1.0.0-py3-none-linux_aarch64.whl k-1.0.0.dist-info/tfbuild-isa >a64 &&
		! grep Dispatch a64
	fi
'

expect_success 'verify -v says "(dispatches)" only for the target that declared it' '
	"$TFBUILD" verify -v out/k-1.0.0-py3-none-linux_x86_64.whl >o 2>x86.err &&
	grep "k/libk.so: isa x86-64-v3: .* (dispatches)$" x86.err &&
	"$TFBUILD" verify -v out/k-1.0.0-py3-none-linux_aarch64.whl >o 2>a64.err &&
	grep "k/libk.so: isa armv8.0-a" a64.err &&
	! grep "(dispatches)" a64.err
'

expect_success 'a plain list declares it for every target, as before' '
	recipe all.yaml "[k/libk.so]" &&
	"$TFBUILD" recipe --target all --build-dir ball --out oall all.yaml >log 2>&1 &&
	"$TFBUILD" verify -v oall/k-1.0.0-py3-none-linux_aarch64.whl >o 2>err &&
	grep "k/libk.so: isa armv8.0-a.* (dispatches)$" err
'

expect_success 'declared for aarch64 only, the x86_64 wheel is refused (exit 6)' '
	recipe a.yaml "{aarch64: [k/libk.so]}" &&
	expect_code 6 "$TFBUILD" recipe --target all --build-dir ba --out oa a.yaml 2>err &&
	grep "k/libk.so: .*undecided" err
'

expect_success 'an unknown target in dispatch is named at its position (exit 3)' '
	recipe bad.yaml "{sparc: [k/libk.so]}" &&
	expect_code 3 "$TFBUILD" explain bad.yaml 2>err &&
	grep -x "tfbuild: bad.yaml:22:18: '"'"'dispatch'"'"': unknown target '"'"'sparc'"'"' (known: x86_64, aarch64, macos-arm64)" err
'

test_done
