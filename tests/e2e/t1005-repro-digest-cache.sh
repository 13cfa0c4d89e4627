#!/bin/sh
# Stat before hashing (digestcache.h): an unchanged run does not read the
# files of a source tree or stage again; a file rewritten with its size
# and mtime put back (touch -d) is still seen (its ctime changed); racily
# clean entries and a damaged cache only cost hashing again. A wheel is
# hashed once, before it is moved into the output folder (pack.c,
# check_packed): the moved wheel is not read again, with or without a
# second thread.
. "$(dirname "$0")/../lib/test-lib.sh"

# The steps count their runs in a file outside their own directories,
# which the step sandbox forbids (t2120): they run without it.
export TFBUILD_SANDBOX=off

command -v strace >/dev/null || { skip 'strace is not installed'; test_done; }
mkdir -p proj/liba
echo 'int a(void) { return 1; }' >proj/liba/a.c
cat >proj/r.yaml <<'EOF2'
schema: 1
name: inc
version: 1.0.0
sources:
  - {name: liba, path: liba}
steps:
  - name: a
    source: liba
    run: |
      echo RUN a >>"$HOME/../commands.log"
      mkdir -p "$STAGE/inc"
      $CC $CFLAGS -shared -o "$STAGE/inc/liba.so" a.c
wheels:
  - name: inc
    version: 1.0.0
    files:
      - {from: a, src: inc, dst: .}
EOF2
log=proj/build/r/x86_64/commands.log
cache=proj/build/.file-digests
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }
# reads FILE: how many times the last traced run opened FILE
reads() { grep -c "openat(.*$1\"" trace || true; }
# LeakSanitizer cannot run under ptrace: no leak check for traced runs.
traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=openat -o trace "$TFBUILD" recipe --out out proj/r.yaml
}

expect_success 'the first run builds and records the digests it took' '
	run 2>err >/dev/null && test -f "$log" && test -f "$cache" &&
	grep -q "/proj/liba/a.c\$" "$cache"
'

expect_success 'an unchanged run reads neither the source file nor the stage' '
	run 2>/dev/null >/dev/null && rm "$log" && traced 2>/dev/null >/dev/null &&
	test ! -e "$log" && test "$(reads liba/a.c)" = 0 &&
	test "$(reads stage/a/inc/liba.so)" = 0
'

expect_success 'an unchanged run does not rewrite the cache' '
	stat -c "%i %Y" "$cache" >before && sleep 0.02 && run 2>/dev/null >/dev/null &&
	stat -c "%i %Y" "$cache" >after && compare before after
'

expect_success 'same size, mtime put back, other bytes: the step runs again' '
	mtime=$(stat -c %Y proj/liba/a.c) &&
	sed -i "s/return 1/return 7/" proj/liba/a.c && touch -d "@$mtime" proj/liba/a.c &&
	run 2>err >/dev/null && test "$(cat "$log")" = "RUN a" &&
	grep -q "source .liba. changed" err
'

expect_success 'racily clean entries (the cache is not older) are hashed again' '
	rm -f "$log" && run 2>/dev/null >/dev/null &&
	touch -d @1000000000 "$cache" && traced 2>/dev/null >/dev/null &&
	test ! -e "$log" && test "$(reads liba/a.c)" = 1 &&
	test "$(stat -c %Y "$cache")" != 1000000000
'

expect_success 'a damaged cache is ignored' '
	printf "garbage\nmore garbage\n" >"$cache" && run 2>err >/dev/null &&
	test ! -e "$log" && ! grep -q warning err && head -1 "$cache" | grep -q "^tfbuild-file-digests 1$"
'

expect_success 'a tampered stage file (size and mtime put back) is still seen' '
	f=proj/build/r/x86_64/stage/a/inc/liba.so && mtime=$(stat -c %Y "$f") &&
	printf "X" | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null &&
	touch -d "@$mtime" "$f" && run 2>err >/dev/null &&
	test "$(cat "$log")" = "RUN a" && grep -q "its stage was changed or removed" err
'

# moved JOBS: a fresh packing at --jobs JOBS; the wheel in out/ is never
# opened for reading, and its digest is right in SHA256SUMS and the cache
moved() {
	rm -rf out proj/build && mkdir out &&
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=openat -o trace "$TFBUILD" recipe --jobs "$1" \
		--out out proj/r.yaml 2>/dev/null >/dev/null &&
	whl=$(cd out && ls *.whl) && test "$(reads "out/$whl")" = 0 &&
	(cd out && sha256sum -c SHA256SUMS >/dev/null) &&
	sum=$(sha256sum "out/$whl" | cut -d" " -f1) &&
	grep -q "^$sum .*out/$whl\$" "$cache"
}

expect_success 'the wheel is hashed before it moves, on a second thread' '
	moved 2
'

expect_success 'the wheel is hashed before it moves, on one thread' '
	moved 1
'

test_done
