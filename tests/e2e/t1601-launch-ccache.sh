#!/bin/sh
# --launcher ccache with Redis as ccache's remote storage (issue 10 item
# 3): a build in one checkout fills Redis; a build in a fresh checkout
# with an empty local ccache gets its compiles from Redis (ccache's own
# statistics say so); Make (with a script that quotes "$CC"), CMake and
# Meson all compile through ccache, for both targets; the wheels are
# byte-identical to a build without a launcher, and the launcher is not
# part of any step's key.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/e2e/launch/lib.sh"

for p in ccache redis-server; do
	command -v $p >/dev/null || { echo "$p is not installed (ci/install-deps.sh installs it)"; exit 1; }
done

# A Redis of our own on a free port, without persistence.
start_redis() {
	for try in 1 2 3; do
		port=$(free_port)
		redis-server --bind 127.0.0.1 --port "$port" --save '' \
			--appendonly no --dir "$TRASH" --logfile "$TRASH/redis.log" &
		redis_pid=$!
		wait_port "$port" && return 0
		kill $redis_pid 2>/dev/null
	done
	return 1
}
start_redis || { echo "redis-server did not start"; cat redis.log; exit 1; }
at_exit "stop_pid $redis_pid"
export CCACHE_REMOTE_STORAGE="redis://127.0.0.1:$port"
# Not for steps: only the launcher's own variables pass.
export DISTCC_HOSTS=127.0.0.1:1 TFBUILD_TEST_LEAK=1

# A step that reaches Redis, or says why not: with ccache's remote
# storage set, the step sandbox keeps the host's network for every step.
mkdir -p reach && cat >reach/r.yaml <<EOF || exit 1
schema: 1
name: reach
version: 1.0.0
steps:
  - name: s
    run: |
      $PYTHON -c 'import socket; socket.create_connection(("127.0.0.1", $port), 5); print("reached")' \\
        >"\$STAGE/got" 2>&1 || true
EOF

# Each recipe and target has its ccache directory below CCACHE_DIR
# (CCACHE_DIR/tfbuild/RECIPE-TARGET-HASH): a statistic is their sum.
stat_of() {
	for d in "$1"/tfbuild/*/; do
		CCACHE_DIR="$d" ccache --print-stats | awk -v k="$2" '$1 == k { print $2 }'
	done | awk '{ n += $1 } END { print n + 0 }'
}

expect_success 'ccache 4 with Redis remote storage is what the test uses' '
	ccache --version | grep -q "redis-storage"
'

expect_success 'ccache'"'"'s remote storage: steps reach it, and the run says why' '
	CCACHE_DIR=$TRASH/ccR "$TFBUILD" recipe --launcher ccache --out outR reach/r.yaml 2>err &&
	grep -qx "reached" reach/build/r/x86_64/stage/s/got &&
	grep -qx "tfbuild: step .s. for x86_64 has the network (ccache.s remote storage: remote_storage is set)" err
'

expect_success 'without a remote storage a ccache step has no network' '
	env -u CCACHE_REMOTE_STORAGE CCACHE_DIR=$TRASH/ccR "$TFBUILD" recipe --force \
		--launcher ccache --out outR reach/r.yaml 2>err &&
	! grep -q "has the network" err &&
	! grep -q "reached" reach/build/r/x86_64/stage/s/got
'

expect_success 'a build without a launcher (the reference)' '
	launch_checkout plain && launch_build plain out0
'

expect_success 'checkout A with --launcher ccache fills the local cache and Redis' '
	launch_checkout A &&
	CCACHE_DIR=$TRASH/ccA launch_build A outA --launcher ccache &&
	n=$(stat_of "$TRASH/ccA" remote_storage_write) && test "$n" -gt 0 &&
	test "$(stat_of "$TRASH/ccA" direct_cache_hit)" = 0
'

expect_success 'checkout B with an empty local ccache gets every compile from Redis' '
	launch_checkout other/B && test ! -e ccB &&
	CCACHE_DIR=$TRASH/ccB launch_build other/B outB --launcher ccache &&
	for d in ccB/tfbuild/*/; do CCACHE_DIR=$d ccache -s -v; done >stats && cat stats &&
	hits=$(stat_of "$TRASH/ccB" remote_storage_hit) &&
	misses=$(stat_of "$TRASH/ccB" cache_miss) &&
	echo "remote hits: $hits, misses: $misses" &&
	test "$hits" -ge 14 && test "$misses" = 0 &&
	sed -n "/^Remote storage:/,/Hits:/p" stats | grep -q "Hits: *[1-9]"
'

expect_success 'every build system compiled through ccache, for both targets' '
	for t in x86_64 aarch64; do
		T=other/B/build/r/$t/toolchain &&
		grep -q "^set(CMAKE_C_COMPILER_LAUNCHER \"/usr/bin/ccache\")" $T/toolchain.cmake &&
		grep -q "^set(CMAKE_CXX_COMPILER_LAUNCHER \"/usr/bin/ccache\")" $T/toolchain.cmake &&
		grep -q "^c = \[./usr/bin/ccache., ./usr/bin/.*gcc.\]" $T/meson-*.ini &&
		grep -q "^cpp = \[./usr/bin/ccache., ./usr/bin/.*g++.\]" $T/meson-*.ini || exit 1
	done &&
	grep -q "ccache" other/B/build/r/aarch64/logs/ms.log
'

expect_success 'the wheels are byte-identical to the build without a launcher' '
	same_wheels out0 outA && same_wheels out0 outB &&
	compare out0/SHA256SUMS outB/SHA256SUMS
'

expect_success '$CC keeps its value; only CCACHE_* of the caller reach steps' '
	S=other/B/build/r &&
	echo gcc >expect && compare expect $S/x86_64/stage/mk/cc &&
	echo aarch64-linux-gnu-gcc >expect && compare expect $S/aarch64/stage/mk/cc &&
	E=$S/aarch64/stage/mk/env &&
	grep -qx "CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$port" $E &&
	grep -qx "CCACHE_DIR=$TRASH/ccB/tfbuild/launch-aarch64-[0-9a-f]\{16\}" $E &&
	grep -qx "CCACHE_NOHASHDIR=1" $E && grep -qx "CCACHE_COMPILERCHECK=content" $E &&
	grep -qx "CCACHE_BASEDIR=$TRASH/other/B" $E &&
	grep -q "^PATH=$TRASH/other/B/build/r/aarch64/toolchain/launcher:" $E &&
	! grep -q "^DISTCC_\|^TFBUILD_TEST_LEAK" $E
'

expect_success 'the launcher is not in the step keys: without it, nothing reruns' '
	launch_build other/B outB2 -v 2>err && cat err &&
	grep -q "0 of 6 steps ran" err && same_wheels out0 outB2 &&
	! grep -q CCACHE other/B/build/r/x86_64/toolchain/toolchain.cmake
'

test_done
