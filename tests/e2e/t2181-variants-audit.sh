#!/bin/sh
# The ISA audit decides what a variant label may claim (docs/variants.md):
# code beyond the label's properties is refused naming the first
# instruction and the file; code needing less gets a warning; the label
# lets its level through without declaring dispatch.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/variants"

# recipe TARGET LABEL PROPERTIES CFLAGS [SOURCE]: one variant of a kernel.
recipe() {
	mkdir -p src &&
	cp "$fix/src/dot8.c" "$fix/src/atomic.c" src/ &&
	cat >r.yaml <<-EOT
	schema: 1
	name: k
	version: 1.0.0
	targets: [$1]
	variants:
	  $1:
	    - label: "$2"
	      properties: [$3]
	      cflags: $4
	sources:
	  - name: src
	    path: src
	steps:
	  - name: lib
	    source: src
	    run: |
	      mkdir -p "\$STAGE/k"
	      \$CC \$CFLAGS \${variant_cflags} -O3 -shared -o "\$STAGE/k/libk.so" ${5:-dot8.c}
	wheels:
	  - name: k
	    version: 1.0.0
	    files:
	      - from: lib
	        src: k
	        dst: .
	EOT
}

expect_success 'x86_64 :: level :: v1 compiled with -mavx2 is refused, naming the instruction' '
	recipe x86_64 x86_64_v1 "\"x86_64 :: level :: v1\"" "-mavx2" &&
	expect_code 6 "$TFBUILD" recipe --target all r.yaml --out w 2>err &&
	grep "wheel .k.: k/libk.so: needs x86-64-v3 (avx[0-9]*: v[a-z0-9]* in dot8+0x[0-9a-f]* at 0x[0-9a-f]*), above x86-64-v1" err &&
	! ls w/*.whl
'

expect_success 'the same code labelled v3 passes without declaring dispatch' '
	recipe x86_64 x86_64_v3 "\"x86_64 :: level :: v3\"" "-march=x86-64-v3" &&
	"$TFBUILD" recipe --target all r.yaml --out w 2>err &&
	! grep -i warning err &&
	ls w/k-1.0.0-*-x86_64_v3.whl
'

expect_success 'code that needs less than its label: a warning, not a refusal' '
	recipe x86_64 x86_64_v3 "\"x86_64 :: level :: v3\"" "-march=x86-64" &&
	"$TFBUILD" recipe --target all r.yaml --out w2 2>err &&
	grep "warning: wheel .k. for x86_64, variant .x86_64_v3.: it claims x86-64-v3, but no file needs more than x86-64-v1; it could serve more CPUs with a lower label" err &&
	ls w2/k-1.0.0-*-x86_64_v3.whl
'

expect_success 'aarch64 :: version :: 8.0a with an inline LSE atomic (ldadd) is refused' '
	recipe aarch64 armv8_0a "\"aarch64 :: version :: 8.0a\"" "-march=armv8.1-a -mno-outline-atomics" atomic.c &&
	expect_code 6 "$TFBUILD" recipe --target all r.yaml --out w3 2>err &&
	grep "wheel .k.: k/libk.so: needs armv8.1-a (lse: ldadd[a-z]* in bump+0x[0-9a-f]* at 0x[0-9a-f]*), above armv8.0-a" err
'

expect_success 'aarch64 :: version :: 8.0a with outline atomics (runtime dispatch) passes' '
	recipe aarch64 armv8_0a "\"aarch64 :: version :: 8.0a\"" "-march=armv8-a" atomic.c &&
	"$TFBUILD" recipe --target all r.yaml --out w4 2>err &&
	ls w4/k-1.0.0-*-armv8_0a.whl
'

expect_success 'aarch64 :: version :: 8.0a with sdot is refused' '
	recipe aarch64 armv8_0a "\"aarch64 :: version :: 8.0a\"" "-march=armv8.2-a+dotprod" &&
	expect_code 6 "$TFBUILD" recipe --target all r.yaml --out w5 2>err &&
	grep "wheel .k.: k/libk.so: needs armv8.4-a (dotprod: sdot in dot8+0x[0-9a-f]* at 0x[0-9a-f]*), above armv8.0-a" err
'

expect_success 'version 8.2a plus dotprod :: on allows sdot' '
	recipe aarch64 armv8_2a_dp "\"aarch64 :: version :: 8.2a\", \"aarch64 :: dotprod :: on\"" "-march=armv8.2-a+dotprod" &&
	"$TFBUILD" recipe --target all r.yaml --out w6 2>err &&
	ls w6/k-1.0.0-*-armv8_2a_dp.whl &&
	"$TFBUILD" verify w6/*.whl
'

expect_success 'properties the audit cannot check are refused at their position' '
	recipe x86_64 x86_64_v9 "\"x86_64 :: level :: v9\"" "-O2" &&
	expect_code 3 "$TFBUILD" recipe --target all r.yaml --out w7 2>err &&
	grep "r.yaml:[0-9]*:[0-9]*: variant property .x86_64 :: level :: v9.: x86_64 :: level :: v9: the levels are v1, v2, v3, v4" err &&
	recipe aarch64 a "\"x86_64 :: level :: v3\"" "-O2" &&
	expect_code 3 "$TFBUILD" recipe --target all r.yaml --out w7 2>err &&
	grep "a variant of aarch64 cannot claim x86_64 properties" err &&
	recipe x86_64 "null" "\"x86_64 :: level :: v3\"" "-O2" &&
	expect_code 3 "$TFBUILD" recipe --target all r.yaml --out w7 2>err &&
	grep "the null variant has no properties (PEP 825)" err &&
	recipe x86_64 Big "\"x86_64 :: level :: v3\"" "-O2" &&
	expect_code 3 "$TFBUILD" recipe --target all r.yaml --out w7 2>err &&
	grep "variant label .Big. must be 1-16 of 0-9, a-z" err
'

test_done
