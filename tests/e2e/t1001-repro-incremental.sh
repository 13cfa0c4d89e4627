#!/bin/sh
# An unchanged rebuild runs no build command and rewrites no wheel; a
# change to one source file re-runs exactly the steps that depend on it;
# explain says which input changed; --force rebuilds everything.
. "$(dirname "$0")/../lib/test-lib.sh"

# The steps count their runs in a file outside their own directories,
# which the step sandbox forbids (t2120): they run without it.
export TFBUILD_SANDBOX=off

mkdir -p proj/liba proj/libb
echo 'int a(void) { return 1; }' >proj/liba/a.c
echo 'int b(void) { return 2; }' >proj/libb/b.c
cat >proj/r.yaml <<'EOF'
schema: 1
name: inc
version: 1.0.0
sources:
  - {name: liba, path: liba}
  - {name: libb, path: libb}
steps:
  - name: a
    source: liba
    run: |
      echo RUN a >>"$HOME/../commands.log"
      $CC $CFLAGS -shared -o "$STAGE/liba.so" a.c
  - name: b
    source: libb
    run: |
      echo RUN b >>"$HOME/../commands.log"
      $CC $CFLAGS -shared -o "$STAGE/libb.so" b.c
  - name: pkg
    needs: [a]
    run: |
      echo RUN pkg >>"$HOME/../commands.log"
      mkdir -p "$STAGE/inc" && cp ${stage.a}/liba.so "$STAGE/inc/"
      echo "# pkg" >"$STAGE/inc/__init__.py"
wheels:
  - name: inc
    version: 1.0.0
    files:
      - {from: pkg, src: inc, dst: .}
      - {from: b, src: libb.so, dst: inc}
EOF
log=proj/build/r/x86_64/commands.log
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }
wheel=out/inc-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl

expect_success 'the first run builds every step' '
	run 2>err >/dev/null &&
	printf "RUN a\nRUN b\nRUN pkg\n" >expect && sort "$log" >actual &&
	compare expect actual &&
	grep -q "^tfbuild: 3 of 3 steps ran$" err
'

expect_success 'a second run with nothing changed runs no command' '
	rm "$log" && touch -d @1000000000 "$wheel" &&
	run 2>err >/dev/null &&
	test ! -e "$log" &&
	grep -q "^tfbuild: 0 of 3 steps ran, 3 up to date$" err
'

expect_success 'and rewrites no wheel' '
	test "$(stat -c %Y "$wheel")" = 1000000000 &&
	grep -q "is unchanged$" err
'

expect_success 'explain says every step is up to date' '
	"$TFBUILD" explain proj/r.yaml >out.txt &&
	printf "%s\n" "x86_64 a: up to date (nothing changed)" \
		"x86_64 b: up to date (nothing changed)" \
		"x86_64 pkg: up to date (nothing changed)" >expect &&
	compare expect out.txt
'

expect_success 'touching a file without changing it rebuilds nothing' '
	touch proj/liba/a.c &&
	run 2>err >/dev/null && test ! -e "$log"
'

expect_success 'after editing one source file, explain names the change' '
	echo "int a2(void) { return 3; }" >>proj/liba/a.c &&
	"$TFBUILD" explain proj/r.yaml >out.txt &&
	printf "%s\n" "x86_64 a: will run (source '"'"'liba'"'"' changed)" \
		"x86_64 b: up to date (nothing changed)" \
		"x86_64 pkg: will run (needs '"'"'a'"'"', which will run)" >expect &&
	compare expect out.txt
'

expect_success 'and the run rebuilds that step and the steps after it only' '
	run 2>err >/dev/null &&
	printf "RUN a\nRUN pkg\n" >expect && compare expect "$log" &&
	grep -q "^tfbuild: 2 of 3 steps ran, 1 up to date$" err
'

expect_success 'a changed script re-runs its step, explain says so' '
	rm "$log" &&
	sed -i "s/echo RUN b >>/echo RUN b  >>/" proj/r.yaml &&
	"$TFBUILD" explain proj/r.yaml | grep -q "^x86_64 b: will run (script changed)$" &&
	run 2>/dev/null >/dev/null && printf "RUN b\n" >expect && compare expect "$log"
'

expect_success 'a step whose stage was tampered with runs again' '
	rm "$log" && echo x >>proj/build/r/x86_64/stage/b/libb.so &&
	run 2>err >/dev/null && printf "RUN b\n" >expect && compare expect "$log" &&
	grep -q "building b for x86_64 (its stage was changed or removed)" err
'

expect_success '--force rebuilds every step' '
	rm "$log" && run --force 2>/dev/null >/dev/null &&
	test "$(wc -l <"$log")" = 3
'

expect_success 'a different --jobs does not count as a change' '
	rm "$log" && run -j 1 2>/dev/null >/dev/null && test ! -e "$log"
'

test_done
