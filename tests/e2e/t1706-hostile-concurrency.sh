#!/bin/sh
# Concurrent runs (docs/security.md#concurrency). Four runs sharing one
# download cache race on the same download (a slow local server keeps
# them all downloading at once): all succeed, the cache holds one intact
# file per digest and no temporary file. Four runs sharing one build tree
# and output folder: the one that locks first is held in its step until
# the other three have ended, so the overlap is certain; those fail at
# once with the "busy" message naming its pid and exit code 7, and the
# wheels left are complete, verify-clean and byte-identical to a solo
# run. Each scenario is one case of the "concurrency" row of the hostile
# table.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/hostile/lib.sh"

mkdir -p www src/pkg
# Incompressible, so /slow/ (4 KiB every 10 ms) takes about 2 s.
"$PYTHON" -c "import os; open('src/pkg/data.bin', 'wb').write(os.urandom(800000))"
echo '"""race"""' >src/pkg/__init__.py
tar -C src -czf www/src.tar.gz pkg
start_httpd www || exit 1
SUM=$(sha256_of www/src.tar.gz)
HERE=$(pwd -P)

# recipe FILE [GATE]: the recipe; its step waits (at most 60 s) for the
# file GATE to exist.
recipe() {
	cat >"$1" <<EOF
schema: 1
name: race
version: 1.0.0
sources:
  - name: src
    url: $HTTP_URL/slow/src.tar.gz
    sha256: $SUM
steps:
  - name: pkg
    source: src
    run: |
      i=0; while [ -n "${2:-}" ] && [ ! -e "${2:-}" ]; do i=\$((i+1)); [ \$i -lt 600 ] || exit 9; sleep 0.1; done
      cp -r pkg "\$STAGE/race"
wheels:
  - name: race
    version: 1.0.0
    files:
      - {from: pkg, src: race, dst: race}
EOF
}
wheel=race-1.0.0-py3-none-any.whl

# leftovers DIR: temporary files a run left in DIR (an output folder).
leftovers() {
	ls -A "$1" | grep -v -e '\.whl$' -e '^SHA256SUMS$' -e '\.intoto\.json$'
}

# cache_state CACHE: "poisoned" if a cached file does not match its name,
# "partial" if a temporary file is left, else nothing.
cache_state() {
	for f in "$1"/sha256/*; do
		[ "$(sha256_of "$f")" = "$(basename "$f")" ] || { echo poisoned; return; }
	done
	[ -z "$(ls -A "$1/tmp")" ] || echo partial
}

recipe one.yaml
expect_success 'four runs racing on one download all succeed, one intact file cached' '
	for i in 1 2 3 4; do
		"$TFBUILD" recipe -q --cache c1 --build-dir b$i --out o$i one.yaml >e$i 2>&1 &
		eval p$i=$!
	done
	rc=0
	for i in 1 2 3 4; do
		eval wait \$p$i || rc=$?
	done
	cat e1 e2 e3 e4 >err &&
	extra=$(cache_state c1) || exit 1
	for i in 1 2 3 4; do
		cmp o1/$wheel o$i/$wheel >/dev/null || extra=${extra:-partial}
		[ -z "$(leftovers o$i)" ] || extra=${extra:-partial}
	done
	hostile_judge concurrency shared-cache 0 "" $rc err $extra || exit 1
	ls c1/sha256 >list && echo $SUM >expect && compare expect list &&
	test "$(grep -c "GET /slow/src.tar.gz" .httpd.log)" = 4
'

# race NAME BUILD OUT [SPLIT]: four runs at once into output folder OUT
# and build tree BUILD (BUILD1..BUILD4 with SPLIT), with the step gated
# on NAME.go; once three have ended, open the gate. Leaves NAME.rcN,
# NAME.errN and NAME.winner (the pid of each run that was not busy).
race() {
	name=$1 build=$2 out=$3 split=${4:-}
	recipe $name.yaml "$HERE/$name.go"
	for i in 1 2 3 4; do
		"$TFBUILD" recipe -q --cache c2 --build-dir $build${split:+$i} \
			--out $out $name.yaml >$name.err$i 2>&1 &
		eval p$i=$!
	done
	n=0 && t=0
	while [ $n -lt 3 ] && [ $t -lt 600 ]; do
		sleep 0.1 && t=$((t + 1))
		n=$(grep -l "is busy" $name.err1 $name.err2 $name.err3 $name.err4 | wc -l)
	done
	touch $name.go
	: >$name.winner
	for i in 1 2 3 4; do
		eval wait \$p$i
		echo $? >$name.rc$i
		grep -q "is busy" $name.err$i || eval echo \$p$i >>$name.winner
	done
}

# judge NAME WHAT PATH OUT: one verdict for the race: exactly one winner,
# the three others exit 7 with exactly the message for WHAT at PATH
# naming the winner's pid, and OUT holds the solo run's wheel, verified
# against its SHA256SUMS, and no temporary file.
judge() {
	name=$1 what=$2 path=$3 out=$4
	echo "tfbuild: $what $path is busy: another tfbuild (pid $(head -n 1 $name.winner)) is using it" >$name.want
	extra= && rc=7 && : >$name.err
	for i in 1 2 3 4; do
		r=$(cat $name.rc$i)
		if grep -q "is busy" $name.err$i; then
			compare $name.want $name.err$i >>$name.err || rc=wrong-message
			[ $r = 7 ] || rc=$r
		else
			[ $r = 0 ] || rc=$r
			cat $name.err$i >>$name.err
		fi
	done
	[ "$(wc -l <$name.winner)" = 1 ] || rc=winners-$(wc -l <$name.winner)
	cmp solo/$wheel $out/$wheel >>$name.err 2>&1 || extra=partial
	"$TFBUILD" verify -q --sums $out/SHA256SUMS $out/$wheel >>$name.err 2>&1 || extra=partial
	[ -z "$(leftovers $out)" ] || extra=partial
	[ -z "$(cache_state c2)" ] || extra=$(cache_state c2)
	hostile_judge concurrency $name 7 "" $rc $name.err $extra
}

expect_success 'a solo run, for reference' '
	recipe solo.yaml &&
	"$TFBUILD" recipe -q --cache c2 --build-dir solo-build --out solo solo.yaml &&
	"$TFBUILD" verify solo/$wheel
'

expect_success 'four runs in one build tree and output folder: one builds, three are busy' '
	race tree tree-build tree-out &&
	judge tree "build tree" "$HERE/tree-build" tree-out
'

expect_success 'the next run there has nothing to do and changes nothing' '
	"$TFBUILD" recipe --cache c2 --build-dir tree-build --out tree-out tree.yaml 2>err &&
	grep -q "^tfbuild: 0 of 1 steps ran" err &&
	cmp solo/$wheel tree-out/$wheel && test -z "$(leftovers tree-out)"
'

expect_success 'four build trees, one output folder: the output folder is busy' '
	race out out-build out-out split &&
	judge out "output folder" "$HERE/out-out" out-out &&
	ls -d out-build* >trees && test "$(wc -l <trees)" = 1
'

expect_success 'with --wait a second run waits for the first, then succeeds' '
	recipe wait.yaml "$HERE/wait.go" || exit 1
	"$TFBUILD" recipe -q --cache c2 --build-dir wait-build --out wait-out wait.yaml >w1 2>&1 &
	p1=$!
	t=0 && while [ ! -e wait-build/wait/x86_64/logs/pkg.log ] && [ $t -lt 600 ]; do sleep 0.1; t=$((t + 1)); done
	"$TFBUILD" recipe --wait --cache c2 --build-dir wait-build --out wait-out wait.yaml >w2 2>&1 &
	p2=$!
	t=0 && while ! grep -q "^tfbuild: waiting for the build tree" w2 && [ $t -lt 600 ]; do sleep 0.1; t=$((t + 1)); done
	touch wait.go || exit 1
	wait $p1 && r1=0 || r1=$?
	wait $p2 && r2=0 || r2=$?
	cat w1 w2 >w.err || exit 1
	extra=
	cmp solo/$wheel wait-out/$wheel >/dev/null || extra=partial
	[ -z "$(leftovers wait-out)" ] || extra=partial
	[ $r1 = 0 ] || r2=$r1
	hostile_judge concurrency wait 0 "" $r2 w.err $extra &&
	grep -q "^tfbuild: waiting for the build tree $HERE/wait-build: another tfbuild (pid $p1) is using it$" w2 &&
	grep -q "^tfbuild: 0 of 1 steps ran" w2
'

test_done
