#!/bin/sh
# The local store of step outputs: a build tree removed, or another one,
# gets every step restored from the store instead of run, with the same
# wheel; a corrupt archive is reported once, removed, and its step
# builds; --force and --no-store build; a stage naming its build tree is
# not stored; `tfbuild cache stats|verify|clear`.
. "$(dirname "$0")/../lib/test-lib.sh"

# The steps count their runs in a file outside their own directories,
# which the step sandbox forbids (t2120): they run without it, and each
# run warns of that once.
export TFBUILD_SANDBOX=off

export TFBUILD_STORE=1
mkdir -p proj/liba
echo 'int a(void) { return 1; }' >proj/liba/a.c
cat >proj/r.yaml <<'EOF'
schema: 1
name: st
version: 1.0.0
sources:
  - {name: liba, path: liba}
steps:
  - name: a
    source: liba
    run: |
      echo RUN a >>"$HOME/../../../../commands.log"
      $CC $CFLAGS -shared -o "$STAGE/liba.so" a.c
  - name: pkg
    needs: [a]
    run: |
      echo RUN pkg >>"$HOME/../../../../commands.log"
      mkdir -p "$STAGE/st" && cp ${stage.a}/liba.so "$STAGE/st/"
      echo "# st" >"$STAGE/st/__init__.py"
wheels:
  - name: st
    version: 1.0.0
    files:
      - {from: pkg, src: st, dst: .}
EOF
# commands.log sits beside the build trees, so removing one keeps it.
log=proj/commands.log
run() { "$TFBUILD" recipe "$@" proj/r.yaml; }
wheel=st-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
store="$XDG_CACHE_HOME/tfbuild/store"

expect_success 'the first run builds and stores every step' '
	run --out out1 --build-dir proj/b1 2>err >/dev/null &&
	printf "RUN a\nRUN pkg\n" >expect && compare expect "$log" &&
	"$TFBUILD" cache stats >stats &&
	grep -q "^entries: 2$" stats && grep -q "^archives: 2$" stats
'

expect_success 'the build tree removed: every step is restored, none runs' '
	rm -rf proj/b1 "$log" &&
	run --out out2 --build-dir proj/b1 2>err >/dev/null &&
	test ! -e "$log" &&
	grep -q "^tfbuild: restored a for x86_64 from the local store (key [0-9a-f]\{12\})$" err &&
	grep -q "^tfbuild: restored pkg for x86_64 from the local store" err &&
	grep -q "^tfbuild: 0 of 2 steps ran, 2 restored$" err &&
	cmp out1/$wheel out2/$wheel &&
	test -x proj/b1/r/x86_64/stage/a/liba.so
'

expect_success 'and the next run finds it up to date' '
	run --out out2 --build-dir proj/b1 2>err >/dev/null &&
	! grep -q restored err && test ! -e "$log"
'

expect_success 'another build tree shares the store' '
	run --out out3 --build-dir proj/b2 2>err >/dev/null &&
	test ! -e "$log" && cmp out1/$wheel out3/$wheel
'

expect_success 'the provenance says where each output came from' '
	grep -q "\"origin\": \"local-store\"" out3/st.intoto.json &&
	grep -q "\"cacheKey\": \"[0-9a-f]\{64\}\"" out3/st.intoto.json &&
	grep -q "\"origin\": \"built\"" out1/st.intoto.json
'

expect_success 'a corrupt archive is reported once, removed, and its step builds' '
	key=$(sed -n "s/.*\"cacheKey\": \"\([0-9a-f]*\)\".*/\1/p" out1/st.intoto.json | head -1) &&
	cas=$(sed -n "s/^cas //p" "$store"/ac/*/"$key") &&
	blob=$(ls "$store"/cas/*/"$cas") &&
	chmod u+w "$blob" && printf x >>"$blob" &&
	run --out out4 --build-dir proj/b3 2>err >/dev/null &&
	test "$(grep "warning" err | grep -vc "steps run without a sandbox")" = 1 &&
	grep -q "^tfbuild: warning: local store .*: the entry of key $(echo $key | cut -c1-12)\.\.\. is corrupt (.* is corrupt: its bytes hash to [0-9a-f]*); removed it, the step builds$" err
'

expect_success 'the rebuilt output is stored again, the store is intact' '
	printf "RUN a\n" >expect && compare expect "$log" &&
	cmp out1/$wheel out4/$wheel &&
	"$TFBUILD" cache verify &&
	key=$(sed -n "s/.*\"cacheKey\": \"\([0-9a-f]*\)\".*/\1/p" out1/st.intoto.json | head -1) &&
	cas=$(sed -n "s/^cas //p" "$store"/ac/*/"$key") &&
	test "$(sha256_of "$store"/cas/*/"$cas")" = "$cas"
'

expect_success '--force and --no-store run every step' '
	rm -f "$log" &&
	run --out out5 --build-dir proj/b1 --force 2>err >/dev/null &&
	printf "RUN a\nRUN pkg\n" >expect && compare expect "$log" &&
	rm -rf proj/b1 "$log" &&
	run --out out5 --build-dir proj/b1 --no-store 2>err >/dev/null &&
	compare expect "$log" && ! grep -q restored err
'

expect_success 'a stage that names its build tree is not stored' '
	cat >proj/where.yaml <<-\EOF &&
	schema: 1
	name: where
	version: 1.0.0
	steps:
	  - name: w
	    run: echo "$STAGE" >"$STAGE/where.txt"
	wheels:
	  - name: where
	    version: 1.0.0
	    files:
	      - {from: w, src: where.txt, dst: where}
	EOF
	"$TFBUILD" -v recipe --out out6 proj/where.yaml >out 2>err &&
	grep -q "not caching .*where.txt. contains" err &&
	rm -rf proj/build &&
	"$TFBUILD" recipe --out out6 proj/where.yaml 2>err >/dev/null &&
	grep -q "^tfbuild: 1 of 1 steps ran" err
'

# A recipe without sources: nothing but the restore makes stamps/.
cat >proj/nosrc.yaml <<'EOF'
schema: 1
name: nosrc
version: 1.0.0
steps:
  - name: gen
    run: |
      echo RUN gen >>"$HOME/../../../../commands.log"
      mkdir -p "$STAGE/nosrc" && echo "# nosrc" >"$STAGE/nosrc/__init__.py"
wheels:
  - name: nosrc
    version: 1.0.0
    files:
      - {from: gen, src: nosrc, dst: .}
EOF

expect_success 'a step with no source is restored into a new build tree quietly, and not run' '
	rm -f "$log" &&
	"$TFBUILD" recipe --out out7 --build-dir proj/b7 proj/nosrc.yaml 2>err >/dev/null &&
	printf "RUN gen\n" >expect && compare expect "$log" &&
	rm -rf proj/b7 "$log" &&
	"$TFBUILD" recipe --out out8 --build-dir proj/b7 proj/nosrc.yaml 2>err >/dev/null &&
	test ! -e "$log" &&
	grep -q "^tfbuild: restored gen for x86_64 from the local store" err &&
	! grep -i "cannot\|error" err &&
	test -e proj/b7/nosrc/x86_64/stamps/step-gen &&
	cmp out7/nosrc-1.0.0-py3-none-any.whl out8/nosrc-1.0.0-py3-none-any.whl
'

expect_success 'cache clear empties the store' '
	"$TFBUILD" cache clear &&
	"$TFBUILD" cache stats >stats &&
	grep -q "^entries: 0$" stats && grep -q "^archives: 0$" stats
'

expect_success 'cache usage errors' '
	expect_code 2 "$TFBUILD" cache 2>err &&
	expect_code 2 "$TFBUILD" cache frob 2>err &&
	grep -q "${q:-}.frob. is not stats, gc, clear, verify or keygen" err &&
	expect_code 2 "$TFBUILD" cache gc 2>err &&
	grep -q "gc needs --max-size SIZE" err &&
	expect_code 2 "$TFBUILD" cache gc --max-size 12Q 2>err
'

test_done
