#!/bin/sh
# --launcher distcc with --distcc-hosts (issue 10 item 3): compiles of
# both targets go to a distccd on 127.0.0.1 (its log names the x86_64
# and the aarch64 cross compilers, by the same names the client uses),
# through Make, CMake and Meson; the wheels are byte-identical to a
# build without a launcher.
#
# distcc preprocesses locally and compiles the expanded text remotely, so
# GCC's DWARF column numbers follow the expanded text on lines where a
# macro expands: with -g, objects differ from a local compile in
# .debug_line columns only (and the build ID that hashes them). The
# byte-for-byte comparisons build with -g -gno-column-info; the last test
# pins the difference down for plain -g (docs/distributed.md).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/e2e/launch/lib.sh"

command -v distccd >/dev/null || { echo "distcc is not installed (ci/install-deps.sh installs it)"; exit 1; }
# distccd runs only compilers with a masquerade link in /usr/lib/distcc
# (Debian's whitelist; update-distcc-symlinks makes them).
for c in gcc g++ aarch64-linux-gnu-gcc aarch64-linux-gnu-g++; do
	test -e /usr/lib/distcc/$c || { echo "no /usr/lib/distcc/$c: run update-distcc-symlinks (ci/install-deps.sh does)"; exit 1; }
done

# Run as root, distccd becomes the distccd user: its log must be
# writable, and reachable, which $TRASH need not be (a checkout in root's
# 0700 home): the log lives in a directory of its own under /tmp, which
# dlog points to.
dlog_dir=$(mktemp -d /tmp/tfbuild-t1602.XXXXXX) || exit 1
at_exit "rm -rf '$dlog_dir'"
chmod 1777 "$dlog_dir" && ln -s "$dlog_dir" dlog &&
	: >dlog/distccd.log && chmod 666 dlog/distccd.log || exit 1
start_distccd() {
	for try in 1 2 3; do
		port=$(free_port)
		distccd --daemon --no-detach --allow 127.0.0.1 --listen 127.0.0.1 \
			--port "$port" --jobs 4 --log-level info \
			--log-file "$dlog_dir/distccd.log" &
		distccd_pid=$!
		# Its log says when it listens (a probe connection would be a
		# job of its own in the log).
		i=0
		while [ $i -lt 50 ] && kill -0 $distccd_pid 2>/dev/null; do
			grep -q "listening on 127.0.0.1:$port" dlog/distccd.log && return 0
			i=$((i + 1)) && sleep 0.1
		done
		kill $distccd_pid 2>/dev/null
	done
	return 1
}
start_distccd || { echo "distccd did not start"; cat dlog/distccd.log; exit 1; }
at_exit "stop_pid $distccd_pid"
# No silent local compiles: a job distccd did not take fails the build.
export DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1

NOCOL="debug=-g -gno-column-info"

expect_success 'a build without a launcher (the reference)' '
	launch_checkout plain && launch_build plain out0 --set "$NOCOL"
'

expect_success '--launcher distcc --distcc-hosts builds both targets' '
	launch_checkout other/D &&
	launch_build other/D outD --launcher distcc --set "$NOCOL" \
		--distcc-hosts "127.0.0.1:$port/4" &&
	grep -qx "DISTCC_HOSTS=127.0.0.1:$port/4" other/D/build/r/aarch64/stage/mk/env &&
	grep -qx "DISTCC_FALLBACK=0" other/D/build/r/aarch64/stage/mk/env
'

expect_success 'distccd compiled C and C++ for x86_64 and aarch64' '
	L=dlog/distccd.log &&
	grep "COMPILE_OK" $L >jobs && cat jobs &&
	for c in /usr/bin/gcc /usr/bin/g++ /usr/bin/aarch64-linux-gnu-gcc /usr/bin/aarch64-linux-gnu-g++; do
		grep -q "COMPILE_OK .* $c " jobs || { echo "no job for $c"; exit 1; }
	done &&
	for f in a.c b.c quoted.c cm.c cmpp.cpp ms.c mspp.cpp; do
		test "$(grep -c "[ /]$f\$" jobs)" -ge 2 || { echo "$f: not for both targets"; exit 1; }
	done &&
	! grep "dcc_job_summary" $L | grep -v COMPILE_OK
'

expect_success 'the wheels are byte-identical to the build without a launcher' '
	same_wheels out0 outD
'

expect_success 'with plain -g, only DWARF column numbers differ from a local compile' '
	launch_checkout plain2 && TARGET=aarch64 launch_build plain2 outg &&
	launch_checkout other/G &&
	TARGET=aarch64 launch_build other/G outDg --launcher distcc --distcc-hosts "127.0.0.1:$port/4" &&
	for d in outg outDg; do
		rm -rf x$d && mkdir x$d && (cd x$d && unzip -q ../$d/*aarch64.whl) || exit 1
	done &&
	for f in libcm.so libms.so libquoted.so; do
		cmp xoutg/launch/$f xoutDg/launch/$f || exit 1
	done &&
	! cmp -s xoutg/launch/libmk.so xoutDg/launch/libmk.so &&
	for d in outg outDg; do
		L=x$d/launch/libmk.so &&
		objdump -d --no-show-raw-insn $L | tail -n +3 >$d.code &&
		readelf -wi $L >$d.info &&
		readelf -wl $L | grep -v "Set column to" | tail -n +3 >$d.line || exit 1
	done &&
	compare outg.code outDg.code && compare outg.info outDg.info &&
	compare outg.line outDg.line
'

expect_success 'refused before anything builds: --distcc-hosts without distcc' '
	expect_code 2 "$TFBUILD" recipe --distcc-hosts 127.0.0.1 --launcher ccache plain/r.yaml 2>err &&
	grep -q "^tfbuild: --distcc-hosts goes with --launcher distcc" err
'

test_done
