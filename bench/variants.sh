#!/bin/sh
# Variants or run-time dispatch (docs/isa.md): the m1 kernels' time per
# call (bench/m1-kernels.c) built as recipes/m1-plugin.yaml builds them
# (every table, chosen once at start, called through the table) and as
# recipes/m1-plugin-variants.yaml's variants (one table for the level's
# -march, called by name), on relu, add and matmul of small and large
# sizes, raw and through the plugin API; the scalar kernels compiled for
# x86-64-v1 and for v3 (what a variant lets the compiler do with code
# nobody vectorised by hand); and the size of each variant's wheel.
# aarch64 runs under qemu-aarch64: its times are the emulator's, not a
# CPU's, and say nothing about dispatch there. Results in
# bench/tmp/variants-results.md.
#
#   sh bench/variants.sh              (make tfbuild first)
#   BENCH_SCALE=0.2                   shorter trials (default 1: ~2e7
#                                     element operations each)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

D=$B/variants
OUT=$B/variants-results.md
SCALE=${BENCH_SCALE:-1}
INC=$ROOT/recipes/upstream/tfmini-1.0.0/include
mkdir -p "$D"
[ -x "$TFBUILD" ] || die "no tfbuild at $TFBUILD (run make)"
grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo ||
	die "this CPU has no AVX2+FMA: the v3 builds would not run"

# build NAME CC ISA CFLAGS: backend/Makefile into $D/NAME, and the
# driver linked with its archive as $D/NAME/m1-kernels.
build() {
	name=$1 cc=$2 isa=$3 cflags=$4
	ar=ar
	[ "$cc" = gcc ] || ar=aarch64-linux-gnu-ar
	rm -rf "$D/$name"
	make -s -C "$ROOT/backend" O="$D/$name" CC="$cc" AR="$ar" \
		CFLAGS="$cflags" ISA="$isa" TFMINI_INCLUDE="$INC" >/dev/null ||
		die "cannot build $name"
	only=
	[ -z "$isa" ] || only=-DM1_ONLY_$isa
	# shellcheck disable=SC2086 # $cflags and $only are lists of flags
	$cc -std=c11 -D_GNU_SOURCE $cflags $only -I"$INC" \
		-I"$ROOT/backend/src" -o "$D/$name/m1-kernels" \
		"$BENCH_DIR/m1-kernels.c" "$D/$name/libtfmini_m1.a" -lm ||
		die "cannot link the driver for $name"
}

# The recipes' flags: CFLAGS "-O2 -fPIC" plus each variant's cflags.
build dispatch gcc "" "-O2 -fPIC"
build v1 gcc sse2 "-O2 -fPIC -march=x86-64"
build v3 gcc avx2 "-O2 -fPIC -march=x86-64-v3"
# The scalar table alone, for v1 and for v3, at -O2 and -O3, and with
# FMA contraction allowed (exact for m1's matmul, kernels.h).
build scalar-v1 gcc scalar "-O2 -fPIC -march=x86-64"
build scalar-v3 gcc scalar "-O2 -fPIC -march=x86-64-v3"
build scalar-v1-O3 gcc scalar "-O3 -fPIC -march=x86-64"
build scalar-v3-O3 gcc scalar "-O3 -fPIC -march=x86-64-v3"
build scalar-v3-O3-fma gcc scalar "-O3 -fPIC -march=x86-64-v3 -ffp-contract=fast"
build dispatch-arm aarch64-linux-gnu-gcc "" "-O2 -fPIC"
build v8.0a-arm aarch64-linux-gnu-gcc neon "-O2 -fPIC -march=armv8-a"

raw=$D/raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
TFMINI_M1_ISA=avx2 "$D/dispatch/m1-kernels" dispatch-avx2 avx2 "$SCALE" >>"$raw"
TFMINI_M1_ISA=sse2 "$D/dispatch/m1-kernels" dispatch-sse2 sse2 "$SCALE" >>"$raw"
TFMINI_M1_ISA=scalar "$D/dispatch/m1-kernels" dispatch-scalar scalar "$SCALE" >>"$raw"
for v in v3 v1 scalar-v1 scalar-v3 scalar-v1-O3 scalar-v3-O3 scalar-v3-O3-fma; do
	"$D/$v/m1-kernels" "$v" "" "$SCALE" >>"$raw"
done
qemu="qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu cortex-a53"
arm_scale=$(awk -v s="$SCALE" 'BEGIN { print s / 20 }')
$qemu "$D/dispatch-arm/m1-kernels" qemu-dispatch-neon neon "$arm_scale" >>"$raw"
$qemu "$D/v8.0a-arm/m1-kernels" qemu-v8.0a "" "$arm_scale" >>"$raw"

# The variant wheels, for their sizes.
if [ ! -d "$D/wheels" ]; then
	sh "$ROOT/recipes/mirror.sh" "$D/mirror" >/dev/null
	"$TFBUILD" -q recipe --target all -j 2 --build-dir "$D/build" \
		--out "$D/wheels.tmp" --set mirror="file://$D/mirror" \
		"$ROOT/recipes/m1-plugin-variants.yaml" && mv "$D/wheels.tmp" "$D/wheels"
fi

# ns BUILD OP SIZE PATH: the time of one line of $raw.
ns() {
	awk -v b="$1" -v o="$2" -v s="$3" -v p="$4" \
		'$1 == b && $2 == o && $3 == s && $4 == p { print $5 }' "$raw"
}

{
	echo "### Time per call (ns, least of 7 trials of thread CPU time)"
	echo
	echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs;" \
		"load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after."
	echo
	echo "| op | size | dispatch, avx2 via table | v3, direct | dispatch, sse2 via table | v1, direct | dispatch avx2, plugin API | v3, plugin API |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '$1 == "v3" && $4 == "direct" { print $2, $3 }' "$raw" | while read -r op n; do
		echo "| $op | $n | $(ns dispatch-avx2 "$op" "$n" avx2) | $(ns v3 "$op" "$n" direct) | $(ns dispatch-sse2 "$op" "$n" sse2) | $(ns v1 "$op" "$n" direct) | $(ns dispatch-avx2 "$op" "$n" api) | $(ns v3 "$op" "$n" api) |"
	done
	echo
	echo "### The scalar kernels, compiled per level (ns per call, direct)"
	echo
	echo "| op | size | v1 -O2 | v3 -O2 | v1 -O3 | v3 -O3 | v3 -O3 -ffp-contract=fast | hand-written avx2 (v3) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '$1 == "v3" && $4 == "direct" { print $2, $3 }' "$raw" | while read -r op n; do
		echo "| $op | $n | $(ns scalar-v1 "$op" "$n" direct) | $(ns scalar-v3 "$op" "$n" direct) | $(ns scalar-v1-O3 "$op" "$n" direct) | $(ns scalar-v3-O3 "$op" "$n" direct) | $(ns scalar-v3-O3-fma "$op" "$n" direct) | $(ns v3 "$op" "$n" direct) |"
	done
	echo
	echo "### aarch64 under qemu-aarch64 -cpu cortex-a53 (emulator time, not a CPU's)"
	echo
	echo "| op | size | dispatch, neon via table | v8.0a, direct | dispatch, plugin API | v8.0a, plugin API |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	awk '$1 == "qemu-v8.0a" && $4 == "direct" { print $2, $3 }' "$raw" | while read -r op n; do
		echo "| $op | $n | $(ns qemu-dispatch-neon "$op" "$n" neon) | $(ns qemu-v8.0a "$op" "$n" direct) | $(ns qemu-dispatch-neon "$op" "$n" api) | $(ns qemu-v8.0a "$op" "$n" api) |"
	done
	echo
	echo "### Size"
	echo
	echo "| wheel | wheel bytes | .text of libtfmini_m1.so |"
	echo "| --- | ---: | ---: |"
	for w in "$D"/wheels/*.whl; do
		rm -rf "$D/x" && mkdir -p "$D/x" && (cd "$D/x" && unzip -q "$w")
		so=$D/x/tfmini_m1_plugin/libtfmini_m1.so
		objdump=objdump
		case $w in *aarch64*) objdump=aarch64-linux-gnu-objdump ;; esac
		text=$((0x$($objdump -h "$so" | awk '$2 == ".text" { print $3 }')))
		echo "| ${w##*manylinux2014_} | $(stat -c %s "$w") | $text |"
	done
} | tee "$OUT"
