#!/bin/sh
# recipes/serd.yaml, a real upstream project built with Meson: from the
# release tarball that Debian's source package carries, served locally,
# it builds for both targets (its Python test runs on each, aarch64 under
# qemu); the wheels verify, install and run (x86-64 in a fresh venv,
# aarch64 in Debian's arm64 CPython under qemu-aarch64); the aarch64
# configure log names aarch64 tools only; a second run runs nothing; a
# build from another checkout is byte-identical.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/thirdparty.sh"

tp_serve serd || exit 1
tp_checkout one && tp_checkout other/checkout || exit 1

expect_success 'serd builds for x86_64 and aarch64, and its Python test passes on both' '
	tp_build one out1 serd 2>err >/dev/null || { cat err; exit 1; }
	grep -q "^tfbuild: building python for aarch64" err &&
	grep -q "^tfbuild: building python for x86_64" err &&
	grep -q "serd aarch64 ok" one/build/*/aarch64/logs/python.log one/build/aarch64/logs/python.log 2>/dev/null
'

expect_success 'both wheels pass tfbuild verify' '
	tp_wheel out1 serd x86_64 && tp_wheel out1 serd aarch64 &&
	"$TFBUILD" verify out1/*.whl >v && test "$(grep -c "^ok " v)" = 2
'

expect_success 'PyPI'"'"'s checkers pass both wheels (tests/lib/checkers.sh)' '
	check_wheels out1/*.whl
'

expect_success 'METADATA checks out with python3-packaging and license-expression' '
	tp_metadata_ok out1/*.whl
'

expect_success 'the wheels install and run on x86_64 and on aarch64 (qemu)' '
	tp_check_both out1 serd
'

expect_success 'the aarch64 Meson configure log names aarch64 tools only' '
	tp_aarch64_tools_only one lib
'

expect_success 'a second run with nothing changed runs no command' '
	tp_no_command_runs one out1 serd
'

expect_success 'a build from another checkout is byte-identical' '
	tp_build other/checkout out2 serd 2>err >/dev/null || { cat err; exit 1; }
	tp_same_bytes out1 out2
'

test_done
