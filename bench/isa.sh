#!/bin/sh
# Time the instruction-level ISA audit (docs/isa.md) beside `objdump -d`
# on the same files: the m1-plugin wheels' libraries (both targets) and
# a generated x86-64 library of about BENCH_ISA_MB MiB of code (default
# 100). Each command runs BENCH_N times (default 3); the median wall time
# is printed as a Markdown table and kept in bench/tmp/isa-results.md.
#
#   sh bench/isa.sh                   (make tfbuild unit first)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

MB=${BENCH_ISA_MB:-100}
N=${BENCH_N:-3}
D=$B/isa
OUT=$B/isa-results.md
mkdir -p "$D"
need_time
[ -x "$TOOL_DIR/test-isa" ] || die "build the test tools first: make unit"

# A library of 256 functions, each a loop of scalar, SSE2, AVX2 and FMA
# instructions, about MB MiB of .text in all.
big=$D/libbig-$MB.so
if [ ! -f "$big" ]; then
	reps=$((MB * 1024 * 1024 / 256 / 32))
	{
		echo ".text"
		i=0
		while [ $i -lt 256 ]; do
			echo ".globl f$i; .type f$i,@function; f$i:"
			echo ".rept $reps"
			echo "addq \$1, %rax; movq (%rdi), %rsi; paddd %xmm1, %xmm2"
			echo "vpaddd %ymm1, %ymm2, %ymm3; vfmadd231ps %ymm1, %ymm2, %ymm3"
			echo "imulq %rsi, %rax; leaq 8(%rdi,%rsi,4), %rdx"
			echo ".endr"
			echo "ret; .size f$i, .-f$i"
			i=$((i + 1))
		done
	} >"$D/big.S"
	gcc -shared -nostdlib -o "$big.tmp" "$D/big.S" && mv "$big.tmp" "$big"
fi

# The m1-plugin wheels for both targets, built once.
if [ ! -d "$D/m1/wheels" ]; then
	sh "$ROOT/recipes/mirror.sh" "$D/m1/mirror" >/dev/null
	"$TFBUILD" -q recipe --target all -j 2 --cache "$D/m1/cache" \
		--build-dir "$D/m1/build" --out "$D/m1/wheels" \
		--set mirror="file://$D/m1/mirror" "$ROOT/recipes/m1-plugin.yaml"
fi
rm -rf "$D/m1/x" && mkdir -p "$D/m1/x"
for w in "$D"/m1/wheels/*.whl; do
	n=$(basename "$w" .whl)
	mkdir -p "$D/m1/x/$n" && (cd "$D/m1/x/$n" && unzip -q "$w")
done

# median CMD...: "WALL CPU", the medians of N runs in seconds (CPU is
# user + system: the machine may be shared, and wall time then says
# more about the neighbours than about the command).
median() {
	: >"$D/times"
	i=0
	while [ $i -lt "$N" ]; do
		"$TIME" -f "%e %U %S" -o "$D/time" "$@" >/dev/null 2>&1 ||
			die "failed: $*"
		cat "$D/time" >>"$D/times"
		i=$((i + 1))
	done
	w=$(awk '{ print $1 }' "$D/times" | sort -n | awk '{ v[NR] = $1 }
		END { print v[int((NR + 1) / 2)] }')
	c=$(awk '{ printf "%.2f\n", $2 + $3 }' "$D/times" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	echo "$w | $c"
}

objdump_for() {
	case $(file -L "$1") in
	*aarch64*) echo aarch64-linux-gnu-objdump ;;
	*) echo objdump ;;
	esac
}

{
	echo "| file | size | audit wall (s) | audit CPU (s) | objdump -d wall (s) | objdump -d CPU (s) |"
	echo "|---|---|---|---|---|---|"
	for f in $(find "$D/m1/x" -name "*.so" | sort) "$big"; do
		size=$(stat -c %s "$f")
		a=$(median "$TOOL_DIR/test-isa" scan "$f")
		o=$(median "$(objdump_for "$f")" -d "$f")
		echo "| ${f#"$D"/} | $((size / 1024)) KiB | $a | $o |"
	done
} | tee "$OUT"
