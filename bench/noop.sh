#!/bin/sh
# A no-op rebuild of recipes/m1-plugin.yaml --target all (issue 11: at
# most 50 ms, spawning no process). Builds it once against a local
# mirror (recipes/mirror.sh), then times BENCH_NOOP_N (default 9) runs
# with nothing changed, twice: with the caller's PATH (pyenv shims
# first, if that is how it is set up) and with a plain /usr/bin:/bin
# PATH, since tfbuild looks its tools up on PATH on every run. Counts
# the processes a no-op starts (strace -f -e trace=execve: 1 is tfbuild
# itself). With BENCH_PERF=1 and perf installed, also prints
# `perf stat -r 20` (task-clock and wall) for each PATH.
#
# Scratch in $BENCH_TMP/noop (default /var/tmp/tfbench-noop); the table
# goes to $BENCH_TMP/noop.md.
#
# bench/pack.sh sources this with BENCH_NOOP_LIB=1 (after lib.sh, and
# with CALLER_PATH set) and calls noop_case itself.
if [ "${BENCH_NOOP_LIB:-0}" != 1 ]; then
	CALLER_PATH=$PATH
	BENCH_TMP=${BENCH_TMP:-/var/tmp/tfbench-noop}
	# shellcheck source=bench/lib.sh
	. "$(dirname "$0")/lib.sh"
fi

N=${BENCH_NOOP_N:-9}
PLAIN_PATH=/usr/bin:/bin
command -v strace >/dev/null || die "install Debian's strace"

# noop_case: appends the no-op rows to $TABLE (which must exist).
noop_case() {
	w=$B/noop
	rm -rf "$w"
	mkdir -p "$w"
	sh "$ROOT/recipes/mirror.sh" "$w/mirror" >/dev/null
	set -- recipe --target all --cache "$w/cache" --build-dir "$w/build" \
		--out "$w/wheels" --set "mirror=file://$w/mirror" \
		"$ROOT/recipes/m1-plugin.yaml"
	PATH=$CALLER_PATH "$TFBUILD" -q "$@" >/dev/null ||
		die "m1-plugin: the first build failed"
	for p in caller plain; do
		case $p in
		caller) run_path=$CALLER_PATH ;;
		*) run_path=$PLAIN_PATH ;;
		esac
		rm -f "$RES/noop.$p"
		# One untimed run: the first with this PATH may refresh a cache.
		PATH=$run_path "$TFBUILD" -q "$@" >/dev/null ||
			die "m1-plugin: the no-op run failed (PATH=$run_path)"
		i=0
		saved_path=$PATH
		PATH=$run_path
		while [ $i -lt "$N" ]; do
			i=$((i + 1))
			sample "noop.$p" : "$TFBUILD" -q "$@"
		done
		PATH=$saved_path
		PATH=$run_path strace -f -qq -e trace=execve -o "$w/trace" \
			"$TFBUILD" -q "$@" >/dev/null
		n=$(grep -c 'execve(' "$w/trace")
		echo "$n" >"$B/noop.$p.execve"
		row "no-op rebuild, m1-plugin, both targets, $p PATH; execve: $n (1 = tfbuild itself)" \
			"tfbuild recipe, nothing changed" "noop.$p"
		if [ "${BENCH_PERF:-0}" = 1 ] && command -v perf >/dev/null; then
			echo "perf stat -r 20, $p PATH ($run_path):" >&2
			PATH=$run_path perf stat -r 20 -e task-clock \
				"$TFBUILD" -q "$@" 2>&1 >/dev/null |
				grep -E 'task-clock|elapsed' >&2
		fi
	done
}

# Run alone (not sourced by bench/pack.sh).
if [ "${BENCH_NOOP_LIB:-0}" != 1 ]; then
	bench_setup
	TABLE=$B/noop.md
	rm -rf "$RES"
	mkdir -p "$RES"
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	table_header
	noop_case
	{
		echo
		echo "load average: at start $load0; at end $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "machine: $(nproc) CPUs; tfbuild $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
	} >>"$TABLE"
	cat "$TABLE"
fi
