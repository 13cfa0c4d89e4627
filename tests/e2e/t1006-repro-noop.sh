#!/bin/sh
# A no-op rebuild (issue 11) starts no process, writes, renames and
# removes nothing in the build tree or the output folder, and does not
# load libcurl, libarchive or libstdc++ (toolkit/dl/: on first use). When
# one of them cannot be loaded, the first use says which and why.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v strace >/dev/null || { skip 'strace is not installed'; test_done; }
mkdir -p proj/liba
echo 'int a(void) { return 1; }' >proj/liba/a.c
# A local archive source, so the first run extracts with libarchive.
tar -C proj -czf proj/liba.tar.gz liba
sha=$(sha256sum proj/liba.tar.gz | cut -d' ' -f1)
cat >proj/r.yaml <<EOF2
schema: 1
name: noop
version: 1.0.0
sources:
  - {name: liba, url: "file://$TRASH/proj/liba.tar.gz", sha256: $sha, strip: 1}
steps:
  - name: a
    source: liba
    run: |
      mkdir -p "\$STAGE/noop"
      \$CC \$CFLAGS -shared -o "\$STAGE/noop/liba.so" a.c
wheels:
  - name: noop
    version: 1.0.0
    files:
      - {from: a, src: noop, dst: .}
EOF2
run() { "$TFBUILD" recipe --cache cache --build-dir build --out out proj/r.yaml; }
# LeakSanitizer cannot run under ptrace: no leak check for traced runs.
traced() { # TRACE-SET
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e "trace=$1" -o trace "$TFBUILD" recipe --cache cache \
		--build-dir build --out out proj/r.yaml
}

expect_success 'the first run fetches, extracts, builds and packs' '
	run 2>err >/dev/null && ls out/noop-1.0.0-*.whl
'

expect_success 'a no-op run starts no process but tfbuild itself' '
	run 2>/dev/null >/dev/null && traced execve 2>/dev/null >/dev/null &&
	test "$(grep -c "execve(" trace)" = 1
'

expect_success 'a no-op run writes, renames and removes nothing' '
	traced openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,link,linkat,symlink,symlinkat,truncate,ftruncate,fsync,fdatasync,utimensat,fchmodat,chmod \
		2>/dev/null >/dev/null &&
	! grep -E "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(|rename|unlink|link\(|linkat\(|truncate|fsync|fdatasync|utimensat|chmod" trace &&
	! grep -E "mkdir(at)?\(.*= 0$" trace
'

# (The sanitizers' runtime needs libstdc++ itself: then it is loaded.)
expect_success 'a no-op run loads neither libcurl, libarchive nor libstdc++' '
	traced openat 2>/dev/null >/dev/null &&
	grep -q "libcrypto" trace &&
	! grep -E "libcurl|libarchive" trace &&
	{ ldd "$TFBUILD" | grep -q "libstdc++" || ! grep "libstdc++" trace; }
'

expect_success 'libcurl missing: the download says so, naming the library' '
	rm -rf cache build out &&
	! TFBUILD_DLOPEN_LIBCURL=libcurl-missing.so.4 run 2>err >/dev/null &&
	grep "cannot load libcurl-missing.so.4, needed to download: " err &&
	grep -q "install Debian.s libcurl4" err
'

expect_success 'libarchive missing: the extraction says so, naming the library' '
	rm -rf build out &&
	! TFBUILD_DLOPEN_LIBARCHIVE=libarchive-missing.so.13 run 2>err >/dev/null &&
	grep "cannot load libarchive-missing.so.13, needed to read and write archives: " err &&
	grep -q "install Debian.s libarchive13" err
'

expect_success 'a library without a needed function is refused by name' '
	rm -rf build out &&
	! TFBUILD_DLOPEN_LIBARCHIVE=libz.so.1 run 2>err >/dev/null &&
	grep "cannot load libz.so.1, needed to read and write archives: it has no archive_" err
'

expect_success 'with the libraries back, the same tree builds' '
	run 2>err >/dev/null && ls out/noop-1.0.0-*.whl
'

test_done
