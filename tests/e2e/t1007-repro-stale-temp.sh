#!/bin/sh
# A run killed outright (SIGKILL, a power cut) cannot clean up after
# itself: the next run, holding the output folder's lock, removes what
# such a run leaves there (pack's temporary directory, SHA256SUMS's and
# the provenance's temporary files) and nothing else. SHA256SUMS and the
# provenance go before a new wheel moves in, so a run killed between two
# moves leaves none naming other bytes than the wheels beside them. The
# run holding the build tree's lock removes tfbuild's temporaries there.
. "$(dirname "$0")/../lib/test-lib.sh"

pure_project || exit 1
wheel=pure-1.0.0-py3-none-any.whl
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }

expect_success 'a clean run' '
	run >/dev/null 2>&1 && test -f "out/$wheel"
'

expect_success 'what a killed run left in the output folder goes' '
	mkdir -p out/.tfbuild-wheels.Ab3dE9/0 &&
	echo partial >out/.tfbuild-wheels.Ab3dE9/0/.$wheel.x1Y2z3 &&
	echo partial >out/SHA256SUMS.tmp.q9W8e7 &&
	echo partial >out/pure.intoto.json.tmp.Zz0Zz0 &&
	run 2>err >/dev/null &&
	grep -q "removed .*out/.tfbuild-wheels.Ab3dE9., left by an interrupted run" err &&
	ls -A out >actual &&
	printf "%s\n" SHA256SUMS "$wheel" pure.intoto.json | sort >expect &&
	sort actual >sorted && compare expect sorted
'

expect_success 'files of the user that only look alike stay' '
	echo mine >out/SHA256SUMS.tmp.toolong7 &&
	echo mine >out/my-SHA256SUMS.tmp.abcdef &&
	echo mine >out/notes.tmp.abcdef &&
	mkdir out/.tfbuild-wheels.mine-12 &&
	echo mine >out/.tfbuild-wheels.Qq1Qq1 &&
	run 2>err >/dev/null &&
	! grep -q "interrupted run" err &&
	test -f out/SHA256SUMS.tmp.toolong7 && test -f out/my-SHA256SUMS.tmp.abcdef &&
	test -f out/notes.tmp.abcdef && test -d out/.tfbuild-wheels.mine-12 &&
	test -f out/.tfbuild-wheels.Qq1Qq1
'

# What path.h's temporaries look like where a killed run leaves them,
# and look-alikes tfbuild did not make, or that `explain` may be writing
# without the lock (the tool probes, the digest cache, toolchain files).
expect_success 'what a killed run left in the build tree goes, and only that' '
	t=proj/build/r/$(uname -m) &&
	test -d "$t/stamps" &&
	echo partial >"$t/stamps/wheel-pure.tmp.Qw3rT1" &&
	mkdir -p "$t/src/.tree.Zx9Y8w/pure" "$t/stage/.restore.Cc3Dd4" &&
	echo partial >"$t/src/.tree.Zx9Y8w/pure/__init__.py" &&
	echo mine >proj/build/.file-digests.tmp.Ab3dE9 &&
	mkdir -p "$t/.python-include.Aa1Bb2" "$t/toolchain" proj/build/.x.Gg7Hh8 \
		"$t/work/.keep.Ii9Jj0" "$t/src/.tree.toolong7" &&
	echo mine >"$t/toolchain/meson-cross.ini.tmp.Ee5Ff6" &&
	echo mine >"$t/work/notes.tmp.Kk1Ll2" &&
	echo mine >"$t/stamps/notes.tmp.abc" &&
	mkdir proj/build/other && echo mine >proj/build/other/x.tmp.Mm3Nn4 &&
	run 2>err >/dev/null &&
	grep "interrupted run" err | sed "s|$PWD/||" | sort >actual &&
	sort >expect <<-EOF &&
	tfbuild: removed '\''$t/src/.tree.Zx9Y8w'\'', left by an interrupted run
	tfbuild: removed '\''$t/stage/.restore.Cc3Dd4'\'', left by an interrupted run
	tfbuild: removed '\''$t/stamps/wheel-pure.tmp.Qw3rT1'\'', left by an interrupted run
	EOF
	compare expect actual &&
	test -f proj/build/.file-digests.tmp.Ab3dE9 && test -d "$t/.python-include.Aa1Bb2" &&
	test -f "$t/toolchain/meson-cross.ini.tmp.Ee5Ff6" && test -d proj/build/.x.Gg7Hh8 &&
	test -d "$t/work/.keep.Ii9Jj0" && test -d "$t/src/.tree.toolong7" &&
	test -f "$t/work/notes.tmp.Kk1Ll2" && test -f "$t/stamps/notes.tmp.abc" &&
	test -f proj/build/other/x.tmp.Mm3Nn4 &&
	rm -r proj/build/.file-digests.tmp.Ab3dE9 "$t/.python-include.Aa1Bb2" \
		"$t/toolchain/meson-cross.ini.tmp.Ee5Ff6" proj/build/.x.Gg7Hh8 \
		"$t/work/.keep.Ii9Jj0" "$t/src/.tree.toolong7" "$t/work/notes.tmp.Kk1Ll2" \
		"$t/stamps/notes.tmp.abc" proj/build/other
'

expect_success 'SHA256SUMS and the provenance go before a new wheel moves in' '
	command -v strace >/dev/null || { echo "strace missing" >&2; false; } &&
	echo "VALUE = 2" >proj/tree/pure/__init__.py &&
	(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	 strace -f -qq -e trace=unlink,unlinkat,rename,renameat,renameat2 -o trace \
		"$TFBUILD" recipe --out out proj/r.yaml >/dev/null 2>&1) &&
	grep -n "out/SHA256SUMS\"\|out/pure.intoto.json\"\|out/$wheel\"" trace >moves &&
	cat moves &&
	sed -n 1p moves | grep -q "unlink.*out/SHA256SUMS\"" &&
	sed -n 2p moves | grep -q "unlink.*out/pure.intoto.json\"" &&
	sed -n 3p moves | grep -q "rename.*out/$wheel\"" &&
	(cd out && sha256sum -c SHA256SUMS) &&
	grep -q "$(sha256sum "out/$wheel" | cut -c1-64)" out/pure.intoto.json
'

expect_success 'a run that changes no wheel keeps them' '
	(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	 strace -f -qq -e trace=unlink,unlinkat,rename,renameat,renameat2 -o trace \
		"$TFBUILD" recipe --out out proj/r.yaml >/dev/null 2>&1) &&
	! grep "out/" trace
'

test_done
