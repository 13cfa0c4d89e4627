#!/bin/sh
# `tfbuild cache gc` over everything the cache grows: a recipe with a
# downloaded source (file://), a target root (zlib1g-dev:arm64) and a
# target site (a wheel from a pypiserver this script starts) fills every
# kind; `cache stats` shows each; `gc --max-size 0` removes them all and
# the next run makes them again with byte-identical wheels; one LRU
# order runs across kinds; what a running tfbuild holds is skipped and
# counted; a killed gc's temporaries go at the next gc; of the step
# sandbox's prepared /etc copies all but the newest go, never one in use.
. "$(dirname "$0")/../lib/test-lib.sh"

TOOLS=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
if ! [ -x "$TOOLS/pypi-server" ]; then
	skip "no pypi-server in $TOOLS (make deps installs it)"
	test_done
	exit 0
fi
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_INDEX_URL TFBUILD_PIP_PYTHON
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null TFBUILD_STORE=1
# Roots and sites in a place of this test's own, which gc empties; the
# .debs are copied from the suite's shared cache when it has them (apt
# downloads the others).
TF_SYSROOT_CACHE=$TRASH/roots
export TF_SYSROOT_CACHE
cache=$XDG_CACHE_HOME/tfbuild
seed_debs() {
	mkdir -p roots/debs &&
	for p in libc6 libgcc-s1 libstdc++6 zlib1g zlib1g-dev; do
		cp "$TEST_CACHE"/target-roots/debs/${p}_*_arm64.deb roots/debs/ 2>/dev/null || :
	done
}
seed_debs

mkdir idx &&
"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx hdr 0.1 py3-none-any 'hdr/hdr.h=#define HDR 1' >/dev/null || exit 1
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$TOOLS/pypi-server" run -i 127.0.0.1 -p "$port" --backend simple-dir idx >pypi.log 2>&1 &
pypi_pid=$!
at_exit "stop_pid $pypi_pid"
export PIP_INDEX_URL=http://127.0.0.1:$port/simple/
i=0
until curl -sf "$PIP_INDEX_URL" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "pypiserver did not start" >&2; cat pypi.log; exit 1; }
	sleep 0.1
done

mkdir -p src/gcd-src && echo hello >src/gcd-src/hello.txt &&
tar -C src -czf src.tar.gz gcd-src && sha=$(sha256_of src.tar.gz) || exit 1
recipe_head() {
	cat <<EOF_H
schema: 1
name: $1
version: 1.0.0
targets: [aarch64]
target-packages: [zlib1g-dev]
target-wheels:
  aarch64: ["hdr==0.1"]
sources:
  - {name: src, url: "file://$TRASH/src.tar.gz", sha256: $sha, strip: 1}
EOF_H
}
{ recipe_head gcd && cat <<'EOF'; } >gcd.yaml
steps:
  - name: pkg
    source: src
    run: |
      mkdir -p $STAGE/gcd
      cp hello.txt ${target_site}/hdr/hdr.h $STAGE/gcd/
      grep "^zlib1g-dev:arm64=" ${target_root}/.tfbuild-packages | cut -d' ' -f1 >$STAGE/gcd/zlib.txt
      echo "VALUE = 1" >$STAGE/gcd/__init__.py
wheels:
  - name: gcd
    version: 1.0.0
    files:
      - {from: pkg, src: gcd, dst: .}
EOF
# A run that holds everything while its step waits on a FIFO; the FIFO
# is outside the step's directories, so no sandbox for it.
mkfifo fifo
{ recipe_head hold && cat <<EOF; } >hold.yaml
steps:
  - name: wait
    source: src
    run: |
      touch $TRASH/started
      read x <$TRASH/fifo
EOF

expect_success 'a run fills the store, the downloads, a root and a site' '
	"$TFBUILD" lock gcd.yaml >log 2>&1 && cp gcd.lock.json hold.lock.json &&
	"$TFBUILD" recipe --target aarch64 --out out1 gcd.yaml >log 2>&1 &&
	"$TFBUILD" cache stats >stats &&
	grep -q "^archives: 1$" stats &&
	grep -q "^downloads: 2, [1-9][0-9]* bytes ($cache/sha256)$" stats &&
	grep -q "^target roots: 1, and [1-9][0-9]* .debs, [1-9][0-9]* bytes ($TRASH/roots)$" stats &&
	grep -q "^target sites: 1, [1-9][0-9]* bytes ($TRASH/roots/target-sites)$" stats &&
	total=$(sed -n "s/^total bytes: //p" stats) &&
	sum=$(sed -n "s/^bytes: //p;s/^[a-z ]*: .* \([0-9]*\) bytes (.*/\1/p" stats | awk "{ s += \$1 } END { print s }") &&
	test "$total" = "$sum" &&
	test "$(stat -c %Y roots/arm64-*/.tfbuild-packages)" -ge "$(date -d "-1 hour" +%s)"
'

expect_success 'a reused root and site, and a cache hit, move their clocks' '
	touch -d @1000000000 roots/arm64-*/.tfbuild-packages roots/target-sites/*/.tfbuild-wheels $cache/sha256/* &&
	rm -rf build &&
	"$TFBUILD" recipe --target aarch64 --no-store --out out1b gcd.yaml >log 2>&1 &&
	for f in roots/arm64-*/.tfbuild-packages roots/target-sites/*/.tfbuild-wheels $cache/sha256/*; do
		test "$(stat -c %Y $f)" -gt 1000000000 || { echo "$f not marked used"; exit 1; }
	done
'

expect_success 'gc --max-size 0 removes every kind' '
	"$TFBUILD" cache gc --max-size 0 >out &&
	grep -q "^evicted 1 archives ([1-9][0-9]* bytes)$" out &&
	grep -q "^removed 2 downloads ([1-9][0-9]* bytes)$" out &&
	grep -q "^removed 1 target roots and [1-9][0-9]* .debs ([1-9][0-9]* bytes)$" out &&
	grep -q "^removed 1 target sites ([1-9][0-9]* bytes)$" out &&
	grep -q "^the cache holds 0 bytes$" out &&
	test -z "$(find $cache/sha256 roots/debs roots/target-sites -mindepth 1)" &&
	! ls -d roots/arm64-* 2>/dev/null &&
	! ls -a roots roots/target-sites | grep -q "\.gc-" &&
	"$TFBUILD" cache stats >stats && grep -q "^total bytes: 0$" stats
'

expect_success 'the next run makes them again, with byte-identical wheels' '
	seed_debs && rm -rf build &&
	"$TFBUILD" recipe --target aarch64 --out out2 gcd.yaml >log 2>&1 &&
	grep -q "fetching" log && grep -q "unpacking 1 wheel into" log &&
	grep -q "unpacking [0-9]* packages into" log &&
	ls out1/*.whl >w && test $(wc -l <w) = 1 &&
	cmp out1/$(basename $(cat w)) out2/$(basename $(cat w)) &&
	unzip -p out2/$(basename $(cat w)) gcd/hdr.h | grep -q "#define HDR 1" &&
	unzip -p out2/$(basename $(cat w)) gcd/zlib.txt | grep -q "^zlib1g-dev:arm64="
'

expect_success 'one LRU order across kinds: an older site goes before a newer archive' '
	touch -d @1100000000 $cache/store/cas/*/* $cache/sha256/* roots/debs/* roots/arm64-*/.tfbuild-packages &&
	touch -d @1050000000 $cache/store/cas/*/* &&
	touch -d @1000000000 roots/target-sites/*/.tfbuild-wheels &&
	"$TFBUILD" cache stats >stats &&
	total=$(sed -n "s/^total bytes: //p" stats) &&
	"$TFBUILD" cache gc --max-size $((total - 1)) >out &&
	grep -q "^removed 1 target sites" out && grep -q "^evicted 0 archives" out &&
	grep -q "^removed 0 downloads" out && grep -q "^removed 0 target roots and 0 .debs" out &&
	"$TFBUILD" cache stats >stats &&
	total=$(sed -n "s/^total bytes: //p" stats) &&
	"$TFBUILD" cache gc --max-size $((total - 1)) >out &&
	grep -q "^evicted 1 archives" out && grep -q "^removed 0 downloads" out &&
	grep -q "^removed 0 target roots and 0 .debs" out &&
	ls -d roots/arm64-*
'

expect_success 'what a running tfbuild holds is skipped and counted; removed once it ended' '
	rm -f started &&
	{ TFBUILD_SANDBOX=off "$TFBUILD" recipe --target aarch64 --build-dir hold-build hold.yaml >hold.log 2>&1 & } &&
	holder=$! &&
	i=0 && while ! test -e started; do
		i=$((i + 1))
		test $i -lt 1200 && kill -0 $holder 2>/dev/null ||
			{ cat hold.log; stop_pid $holder; exit 1; }
		sleep 0.1
	done &&
	"$TFBUILD" cache gc --max-size 0 >out; rc=$?
	timeout 60 sh -c "echo done >fifo"; wait $holder; hold_rc=$?
	cat out && test $rc = 0 && test $hold_rc = 0 &&
	grep -q "^removed 0 downloads (0 bytes), skipped 2 in use$" out &&
	grep -q "^removed 0 target roots and [0-9]* .debs ([0-9]* bytes), skipped 1 in use$" out &&
	grep -q "^removed 0 target sites (0 bytes), skipped 1 in use$" out &&
	ls -d roots/arm64-* roots/target-sites/aarch64-* &&
	"$TFBUILD" cache gc --max-size 0 >out &&
	grep -q "^removed 2 downloads" out && grep -q "^removed 1 target roots" out &&
	grep -q "^removed 1 target sites" out && grep -q "^the cache holds 0 bytes$" out
'

expect_success 'a killed gc leaves a temporary that the next gc removes' '
	sh -c "exit 0" & dead=$! && wait $dead &&
	mkdir -p roots/.arm64-0123456789abcdef.gc-$dead/usr roots/target-sites/.aarch64-x.gc-$dead \
		roots/.arm64-fedcba9876543210.gc-$$ &&
	echo x >roots/.arm64-0123456789abcdef.gc-$dead/usr/f &&
	"$TFBUILD" cache gc --max-size 100G >out &&
	grep -q "^removed 2 temporaries left by killed runs (2 bytes)$" out &&
	test ! -e roots/.arm64-0123456789abcdef.gc-$dead &&
	test ! -e roots/target-sites/.aarch64-x.gc-$dead &&
	test -d roots/.arm64-fedcba9876543210.gc-$$
'

# The step sandbox's prepared /etc copies ($cache/sandbox/etc-HEX): gc
# removes all but the most recently used, never one a running tfbuild
# holds, and a killed run's temporary a day old.
cat >etc.yaml <<EOF
schema: 1
name: etc
version: 1.0.0
steps:
  - name: wait
    run: |
      touch started
      i=0; while [ ! -e go ] && [ ! -e $TRASH/go ] && [ \$i -lt 600 ]; do i=\$((i + 1)); sleep 0.1; done
      cat /etc/hosts >"\$STAGE/hosts"
EOF
zeros=0000000000000000000000000000000000000000000000000000000000000000
ones=1111111111111111111111111111111111111111111111111111111111111111
W=etc-build/etc/x86_64/work/wait

expect_success 'gc leaves the copy a running tfbuild holds, removes the older one' '
	rm -rf $cache/sandbox &&
	{ "$TFBUILD" recipe --build-dir etc-build --out etc-out etc.yaml >etc.log 2>&1 & } &&
	holder=$! &&
	i=0 && while ! test -e $W/started; do
		i=$((i + 1))
		test $i -lt 1200 && kill -0 $holder 2>/dev/null ||
			{ cat etc.log; stop_pid $holder; exit 1; }
		sleep 0.1
	done &&
	held=$(ls -d $cache/sandbox/etc-*) && test -d "$held" &&
	mkdir $cache/sandbox/etc-$zeros $cache/sandbox/etc-$ones $cache/sandbox/.etc-stale.Ab12Cd &&
	echo x >$cache/sandbox/etc-$zeros/hosts &&
	touch -d @1000000000 "$held" $cache/sandbox/etc-$zeros $cache/sandbox/.etc-stale.Ab12Cd &&
	"$TFBUILD" cache gc --max-size 100G >out; rc=$?
	touch $W/go; wait $holder; hold_rc=$?
	cat out && test $rc = 0 && test $hold_rc = 0 &&
	grep -qx "removed 1 prepared /etc copies (2 bytes), skipped 1 in use" out &&
	grep -qx "removed 1 temporaries left by killed runs (0 bytes)" out &&
	test -d "$held" && test -d $cache/sandbox/etc-$ones &&
	test ! -e $cache/sandbox/etc-$zeros && test ! -e $cache/sandbox/.etc-stale.Ab12Cd &&
	test -s etc-build/etc/x86_64/stage/wait/hosts
'

expect_success 'once that run ended, its copy goes too; the newest stays; a run makes its own again' '
	held=$(ls -d $cache/sandbox/etc-* | grep -v $ones) && test -d "$held" &&
	touch -d @1000000000 "$held" &&
	"$TFBUILD" cache gc --max-size 100G >out &&
	grep -qx "removed 1 prepared /etc copies ([1-9][0-9]* bytes)" out &&
	test ! -e "$held" && test -d $cache/sandbox/etc-$ones &&
	touch go && "$TFBUILD" recipe --force --build-dir etc-build --out etc-out etc.yaml >etc.log 2>&1 &&
	test -d "$held"
'

test_done
