#!/bin/sh
# Packing at the speed of the hardware (issue 11): side by side in one
# run, on three trees (bench/gentree.py: generated text-like word salad,
# real Python source, generated binary-like; BENCH_MB each, default 1024):
#   tfbuild's wheel writer (obj/tool/test-wheel) at --jobs 1, 2 and 4
#     (BENCH_JOBS), python3 -m wheel pack (Debian's python3-wheel),
#     zip -6 -r, and pigz-style parallel deflate (tar | pigz -6 -p 2);
#   bench/ceiling.c on 2 threads: the tree read and deflated as the
#     writer deflates it, and nothing else (the floor for any writer on
#     this libdeflate);
#   a whole `tfbuild recipe` run (path: source read in place, packed from
#     its tree, checked) against the packing alone;
#   then a no-op rebuild of recipes/m1-plugin.yaml --target all
#     (bench/noop.sh, which also runs alone): its time, and the processes
#     it starts (strace -f -e trace=execve), with the caller's PATH (pyenv
#     shims first, if that is how it is set up) and with /usr/bin:/bin.
# Each command BENCH_N times (default 1 at 1 GiB; the no-op 9 times);
# wall time, CPU, peak RSS (the tree's and tfbuild's own) and output
# size. Data and outputs stay in BENCH_TMP (default /var/tmp/tfbench-pack),
# outside the repository; the table goes to $BENCH_TMP/pack.md.
CALLER_PATH=$PATH
BENCH_TMP=${BENCH_TMP:-/var/tmp/tfbench-pack}
BENCH_N=${BENCH_N:-1}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

MB=${BENCH_MB:-1024}
JOBS_LIST=${BENCH_JOBS:-1 2 4}
TABLE=$B/pack.md
TAG=py3-none-linux_x86_64
whl=benchpkg-1.0-$TAG.whl

command -v zip >/dev/null || die "install Debian's zip"
command -v pigz >/dev/null || die "install Debian's pigz"
command -v strace >/dev/null || die "install Debian's strace"
"$PY" -c 'import wheel' 2>/dev/null || die "install Debian's python3-wheel"

cleanup() {
	for d in out; do
		[ ! -e "$B/$d" ] || { fresh "$B/$d"; rmdir "$B/$d"; }
	done
	empty_trash
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# make_tree KIND: $B/KIND/stage, kept while BENCH_MB is the same.
make_tree() {
	d=$B/$1
	[ "$(cat "$d/mb" 2>/dev/null)" != "$MB" ] || return 0
	rm -rf "$d"
	mkdir -p "$d"
	echo "bench: generating the $1 tree, $MB MiB" >&2
	"$PY" "$BENCH_DIR/gentree.py" "$1" "$d/stage" "$MB" >"$d/gen.txt"
	(cd "$d/stage" && find benchpkg -type f | LC_ALL=C sort) |
		while read -r f; do echo "$f=$f"; done >"$d/wheel-args"
	cp "$BENCH_DIR/benchpkg.yaml" "$d/pack.yaml"
	echo "$MB" >"$d/mb"
}

case_kind() {
	kind=$1 d=$B/$1 o=$B/out
	i=0
	while [ $i -lt "$BENCH_N" ]; do
		i=$((i + 1))
		settle
		sample "$kind.wheel" "fresh '$o'" "$PY" -m wheel pack "$d/stage" -d "$o"
		cp "$o/$whl" "$B/$kind.wheel.whl"
		for j in $JOBS_LIST; do
			# Relative paths, from the stage, listed in a file: the
			# source tree's 90,000 names do not fit in argv.
			sample "$kind.tf$j" "fresh '$o'" sh -c 'cd "$1" && shift && exec "$@"' \
				sh "$d/stage" "$TOOL_DIR/test-wheel" pack "$o" \
				--name benchpkg --version 1.0 --tag "$TAG" \
				--epoch 1700000000 --level 6 --jobs "$j" \
				--files-from "$d/wheel-args"
			wc -c <"$o/$whl" >"$B/$kind.tf$j.size"
			sha256sum <"$o/$whl" >"$B/$kind.tf$j.sum"
		done
		sample "$kind.ceiling" "" "$B/ceiling" 2 "$d/stage"
		cut -d' ' -f3 "$B/cmd.out" >"$B/$kind.ceiling.size"
		sample "$kind.zip" "fresh '$o'" \
			sh -c 'cd "$1" && exec zip -q -6 -r -X "$2" .' sh "$d/stage" "$o/t.zip"
		wc -c <"$o/t.zip" >"$B/$kind.zip.size"
		sample "$kind.pigz" "fresh '$o'" \
			sh -c 'tar -C "$1" -cf - . | pigz -6 -p 2 >"$2"' sh "$d/stage" "$o/t.tgz"
		wc -c <"$o/t.tgz" >"$B/$kind.pigz.size"
		sample "$kind.recipe" "fresh '$o'" \
			"$TFBUILD" recipe --cache "$o/cache" --build-dir "$o/build" \
			--out "$o/wheels" --jobs 2 "$d/pack.yaml"
		wc -c <"$o/wheels/$whl" >"$B/$kind.recipe.size"
		empty_trash
	done
	# The thread count must not change a byte.
	[ "$(sort -u "$B/$kind".tf*.sum | wc -l)" = 1 ] ||
		die "$kind: tfbuild's wheels differ between --jobs values"
	c="$kind tree ($(cat "$d/gen.txt"))"
	wb=$(wc -c <"$B/$kind.wheel.whl")
	row "$c" "python3 -m wheel pack" "$kind.wheel" "" "$wb"
	for j in $JOBS_LIST; do
		row "$c" "tfbuild writer, --jobs $j" "$kind.tf$j" "$kind.wheel" \
			"$(cat "$B/$kind.tf$j.size")"
		echo "$kind tf$j size/wheel $(awk -v a="$(cat "$B/$kind.tf$j.size")" \
			-v b="$wb" 'BEGIN { printf "%.4f", a / b }')" >>"$B/sizes"
	done
	row "$c" "deflate alone, 2 threads (bench/ceiling.c)" "$kind.ceiling" \
		"$kind.wheel" "$(cat "$B/$kind.ceiling.size")"
	row "$c" "zip -6 -r" "$kind.zip" "$kind.wheel" "$(cat "$B/$kind.zip.size")"
	row "$c" "tar \\| pigz -6 -p 2" "$kind.pigz" "$kind.wheel" "$(cat "$B/$kind.pigz.size")"
	row "$c" "tfbuild recipe (source read in place, packed, checked; --jobs 2)" \
		"$kind.recipe" "$kind.tf2" "$(cat "$B/$kind.recipe.size")"
}

# The no-op rebuild of m1-plugin: bench/noop.sh (caller's and plain PATH).
# shellcheck source=bench/noop.sh
BENCH_NOOP_LIB=1
. "$BENCH_DIR/noop.sh"

bench_setup
cc -O2 -pthread -o "$B/ceiling" "$BENCH_DIR/ceiling.c" -ldeflate ||
	die "cannot build ceiling (libdeflate-dev)"
rm -rf "$RES" "$B/sizes"
mkdir -p "$RES"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
make_tree text
make_tree source
make_tree binary
table_header
case_kind text
case_kind source
case_kind binary
noop_case
{
	echo
	echo "tfbuild's size / wheel pack's:"
	sed 's/^/    /' "$B/sizes"
	echo "load average: at start $load0; at end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "machine: $(nproc) CPUs, $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
	echo "BENCH_MB=$MB BENCH_N=$BENCH_N tfbuild $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
} >>"$TABLE"
cat "$TABLE"
