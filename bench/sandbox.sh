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
BENCH_TMP=${BENCH_TMP:-/var/tmp/tfbench-sandbox}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

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
