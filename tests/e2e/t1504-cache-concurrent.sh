#!/bin/sh
# Four runs at once in four build trees sharing one local store finish
# with identical wheels and an intact store; `tfbuild cache gc
# --max-size` evicts least-recently-used archives down to the limit and
# leaves alone an archive a build is restoring from (it holds a lock).
. "$(dirname "$0")/../lib/test-lib.sh"

export TFBUILD_STORE=1
mkdir -p proj/src
for i in 1 2 3; do echo "int f$i(void) { return $i; }" >proj/src/f$i.c; done
cat >proj/r.yaml <<'EOF'
schema: 1
name: cc
version: 1.0.0
sources:
  - {name: src, path: src}
steps:
  - name: one
    source: src
    run: $CC $CFLAGS -shared -o "$STAGE/libone.so" f1.c
  - name: two
    source: src
    run: $CC $CFLAGS -shared -o "$STAGE/libtwo.so" f2.c
  - name: three
    source: src
    run: |
      head -c 300000 /dev/zero | tr '\0' x >"$STAGE/big.txt"
      $CC $CFLAGS -shared -o "$STAGE/libthree.so" f3.c
  - name: pkg
    needs: [one, two, three]
    run: |
      mkdir -p "$STAGE/cc"
      cp ${stage.one}/*.so ${stage.two}/*.so ${stage.three}/*.so "$STAGE/cc/"
      echo "# cc" >"$STAGE/cc/__init__.py"
wheels:
  - name: cc
    version: 1.0.0
    files:
      - {from: pkg, src: cc, dst: .}
EOF
wheel=cc-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
store=shared/store

expect_success 'four concurrent runs share one store' '
	for i in 1 2 3 4; do
		"$TFBUILD" recipe -q -j2 --cache shared --build-dir b$i --out out$i \
			proj/r.yaml >log$i 2>&1 &
		eval pid$i=$!
	done &&
	wait $pid1 && wait $pid2 && wait $pid3 && wait $pid4
'

expect_success 'with identical wheels and an intact store' '
	for i in 2 3 4; do cmp out1/$wheel out$i/$wheel || exit 1; done &&
	"$TFBUILD" cache verify --cache shared &&
	"$TFBUILD" cache stats --cache shared >stats &&
	grep -q "^entries: 4$" stats &&
	test -z "$(ls $store/tmp)"
'

expect_success 'a fifth run restores everything from it' '
	"$TFBUILD" recipe --cache shared --build-dir b5 --out out5 proj/r.yaml 2>err >/dev/null &&
	grep -q "^tfbuild: 0 of 4 steps ran" err && cmp out1/$wheel out5/$wheel
'

# The archive of step "three" (the biggest), named in its action entry.
three_blob() {
	key=$("$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); print([s for s in d[\"predicate\"][\"runDetails\"][\"byproducts\"] if s[\"name\"]==\"step:x86_64:three\"][0][\"annotations\"][\"cacheKey\"])" out1/cc.intoto.json) &&
	sed -n "s/^cas //p" $store/ac/*/$key
}

expect_success 'gc --max-size evicts least-recently-used archives to the limit' '
	"$TFBUILD" cache stats --cache shared >before &&
	total=$(sed -n "s/^bytes: //p" before) &&
	big=$(three_blob) && test -n "$big" &&
	touch -d @1000000000 $store/cas/*/$big &&
	limit=$((total - 1)) &&
	"$TFBUILD" cache gc --cache shared --max-size $limit >out &&
	grep -q "^evicted 1 archives" out &&
	test ! -e $store/cas/*/$big &&
	"$TFBUILD" cache stats --cache shared >after &&
	test "$(sed -n "s/^bytes: //p" after)" -le $limit &&
	grep -q "^entries: 3$" after
'

expect_success 'an archive in use is not evicted' '
	"$TFBUILD" recipe -q --cache shared --build-dir b6 --out out6 proj/r.yaml || exit 1
	big=$(three_blob) && test -n "$big" || exit 1
	"$TOOL_DIR/test-cache" hold shared $big >held &
	holder=$!

	i=0 && while ! grep -q held held; do
		i=$((i + 1)); test $i -lt 100 || { kill $holder; exit 1; }; sleep 0.1
	done &&
	"$TFBUILD" cache gc --cache shared --max-size 0 >out;
	rc=$?; kill $holder; wait $holder 2>/dev/null || :
	test $rc = 0 &&
	grep -q "^evicted [0-9]* archives (.*), skipped 1 in use$" out &&
	test -e $store/cas/*/$big &&
	"$TFBUILD" cache stats --cache shared >after &&
	grep -q "^archives: 1$" after &&
	"$TFBUILD" cache gc --cache shared --max-size 0 >out &&
	"$TFBUILD" cache stats --cache shared >after &&
	grep -q "^archives: 0$" after && grep -q "^entries: 0$" after
'

test_done
