#!/bin/sh
# What the step sandbox costs (issue 26): a recipe of BENCH_SANDBOX_STEPS
# (default 50) trivial steps, each `echo > $STAGE/x`, built with
# --force -j1 BENCH_N times (default 5) with the sandbox (bubblewrap) and
# with --sandbox=off; prints the median wall time of each and the cost per
# step. Then a no-op rebuild, which starts no step and so no sandbox:
# its median time, and the processes it starts (strace; 1 is tfbuild).
# Then bwrap alone, BENCH_BWRAP_N times (default 200) per set of
# namespaces, running `true`: what each namespace costs a step.
#
#   sh bench/sandbox.sh      (scratch in $BENCH_TMP/sandbox)
#
# With BENCH_BASELINE=PATH (another tfbuild, e.g. one built at an older
# revision), the step runs alternate between the two binaries run by run
# (on and off, BENCH_N times each), so a change of the machine's load
# falls on both alike, and the table gives each binary's median wall
# time and the median CPU time (user + system of the whole tree, from
# /usr/bin/time), which a busy machine inflates less; `uptime` is
# printed before and after. The bwrap section is skipped then.
# BENCH_BASELINE may also be a revision of this repository (as
# `BENCH_N=9 BENCH_BASELINE=3f23431 sh bench/sandbox.sh`): it is checked
# out in a temporary git worktree and built there (make -j2), the
# worktree removed at the end; python3 bench/sandbox_parts.py is the
# other half of docs/performance.md's tables.
BENCH_TMP=${BENCH_TMP:-/var/tmp/tfbench-sandbox}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# baseline_of REV: BENCH_BASELINE set to tfbuild built at revision REV.
baseline_of() {
	rev=$(git -C "$ROOT" rev-parse --verify -q "$1^{commit}") ||
		die "BENCH_BASELINE=$1: neither a tfbuild nor a revision"
	bt=$B/baseline-$rev
	rm -rf "$bt" && mkdir -p "$B"
	git -C "$ROOT" worktree add -q --detach "$bt" "$rev" ||
		die "cannot check out $1 in $bt"
	# shellcheck disable=SC2064 # the path is fixed now
	trap "git -C '$ROOT' worktree remove --force '$bt'" EXIT
	echo "building tfbuild at $1 in $bt" >&2
	make -C "$bt" -j2 tfbuild >"$B/baseline.log" 2>&1 ||
		{ tail -n 20 "$B/baseline.log" >&2; die "make failed in $bt"; }
	BENCH_BASELINE=$bt/tfbuild
}
if [ -n "${BENCH_BASELINE:-}" ] && ! [ -x "$BENCH_BASELINE" ]; then
	baseline_of "$BENCH_BASELINE"
fi

STEPS=${BENCH_SANDBOX_STEPS:-50}
w=$B/sandbox
rm -rf "$w" && mkdir -p "$w"
{
	printf 'schema: 1\nname: sbx\nversion: 1.0.0\nsteps:\n'
	i=0
	while [ $i -lt "$STEPS" ]; do
		printf '  - name: s%d\n    run: echo %d >"$STAGE/x"\n' $i $i
		i=$((i + 1))
	done
} >"$w/r.yaml"

# median_ms CMD...: the median wall time of BENCH_N runs, in ms.
median_ms() {
	n=0
	: >"$w/times"
	while [ $n -lt "$BENCH_N" ]; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || die "failed: $*"
		e=$(date +%s%N)
		echo $(((e - s) / 1000000)) >>"$w/times"
		n=$((n + 1))
	done
	sort -n "$w/times" | sed -n "$(((BENCH_N + 1) / 2))p"
}

# ab: BENCH_BASELINE against TFBUILD, interleaved (above).
ab() {
	[ -x "$BENCH_BASELINE" ] || die "no tfbuild at $BENCH_BASELINE"
	[ -x /usr/bin/time ] || die "install Debian's 'time' package"
	echo "uptime before: $(uptime)"
	: >"$w/ab"
	n=0
	while [ $n -lt "$BENCH_N" ]; do
		for bin in old new; do
			tf=$TFBUILD
			[ $bin = old ] && tf=$BENCH_BASELINE
			for mode in on off; do
				opt=--sandbox=$mode
				s=$(date +%s%N)
				/usr/bin/time -f '%U %S' -o "$w/cpu" "$tf" recipe -q --force -j 1 \
					"$opt" --out "$w/out-$bin" --build-dir "$w/b-$bin" "$w/r.yaml" \
					>/dev/null 2>&1 || die "failed: $tf $opt"
				e=$(date +%s%N)
				echo "$bin $mode $(((e - s) / 1000000)) $(awk '{ printf "%d", ($1 + $2) * 1000 }' "$w/cpu")" >>"$w/ab"
			done
		done
		n=$((n + 1))
	done
	echo "uptime after: $(uptime)"
	# med BIN MODE FIELD: the median of FIELD (3 wall, 4 CPU) in ms
	med() {
		awk -v b="$1" -v m="$2" '$1 == b && $2 == m { print $'"$3"' }' "$w/ab" |
			sort -n | sed -n "$(((BENCH_N + 1) / 2))p"
	}
	printf '| %d steps, --force -j1, median of %d | baseline wall ms | wall ms | baseline CPU ms | CPU ms |\n' "$STEPS" "$BENCH_N"
	printf '| --- | ---: | ---: | ---: | ---: |\n'
	for mode in on off; do
		printf '| sandbox %s | %s | %s | %s | %s |\n' "$mode" \
			"$(med old $mode 3)" "$(med new $mode 3)" "$(med old $mode 4)" "$(med new $mode 4)"
	done
	printf '| sandbox cost per step | %s | %s | %s | %s |\n' \
		"$(echo "scale=1; ($(med old on 3) - $(med old off 3)) / $STEPS" | bc)" \
		"$(echo "scale=1; ($(med new on 3) - $(med new off 3)) / $STEPS" | bc)" \
		"$(echo "scale=1; ($(med old on 4) - $(med old off 4)) / $STEPS" | bc)" \
		"$(echo "scale=1; ($(med new on 4) - $(med new off 4)) / $STEPS" | bc)"
}
if [ -n "${BENCH_BASELINE:-}" ]; then
	ab
	exit 0
fi

on=$(median_ms "$TFBUILD" recipe -q --force -j 1 --out "$w/out" "$w/r.yaml")
off=$(median_ms "$TFBUILD" recipe -q --force -j 1 --sandbox=off --out "$w/out" "$w/r.yaml")
noop=$(median_ms "$TFBUILD" recipe -q --out "$w/out" "$w/r.yaml")
procs=-
if command -v strace >/dev/null; then
	strace -f -e trace=execve -o "$w/strace" "$TFBUILD" recipe -q --out "$w/out" "$w/r.yaml" 2>/dev/null &&
		procs=$(grep -c 'execve(' "$w/strace")
fi
printf '| case | median ms |\n| --- | ---: |\n'
printf '| %d steps, --force -j1, sandbox on | %d |\n' "$STEPS" "$on"
printf '| %d steps, --force -j1, --sandbox=off | %d |\n' "$STEPS" "$off"
printf '| sandbox cost per step | %s |\n' "$(echo "scale=1; ($on - $off) / $STEPS" | bc)"
printf '| no-op rebuild (processes started: %s) | %d |\n' "$procs" "$noop"

# per_run_ms CMD...: the mean wall time of BENCH_BWRAP_N runs, in ms.
per_run_ms() {
	n=0 s=$(date +%s%N)
	while [ $n -lt "$BWRAP_N" ]; do
		"$@" >/dev/null 2>&1 || die "failed: $*"
		n=$((n + 1))
	done
	e=$(date +%s%N)
	echo "scale=1; ($e - $s) / 1000000 / $BWRAP_N" | bc
}
BWRAP_N=${BENCH_BWRAP_N:-200}
bw=$(command -v bwrap) || die "bwrap is not installed"
fs="--ro-bind / / --dev /dev --tmpfs /tmp"
printf '\n| bwrap ... true (mean of %d) | ms |\n| --- | ---: |\n' "$BWRAP_N"
printf '| sh -c true, no bwrap | %s |\n' "$(per_run_ms sh -c true)"
# shellcheck disable=SC2086
{
printf '| --unshare-all (user, pid, net, ipc, uts, cgroup), --proc: as tfbuild | %s |\n' \
	"$(per_run_ms "$bw" --die-with-parent --new-session --unshare-all $fs --proc /proc true)"
printf '| --unshare-user-try --unshare-pid --unshare-net, --proc | %s |\n' \
	"$(per_run_ms "$bw" --die-with-parent --new-session --unshare-user-try --unshare-pid --unshare-net $fs --proc /proc true)"
printf '| --unshare-all --share-net (a step with the network), --proc | %s |\n' \
	"$(per_run_ms "$bw" --die-with-parent --new-session --unshare-all --share-net $fs --proc /proc true)"
printf '| --unshare-user-try --unshare-net, no PID namespace, no /proc | %s |\n' \
	"$(per_run_ms "$bw" --die-with-parent --new-session --unshare-user-try --unshare-net $fs true)"
printf '| --unshare-user-try only, no /proc | %s |\n' \
	"$(per_run_ms "$bw" --die-with-parent --new-session --unshare-user-try $fs true)"
}
