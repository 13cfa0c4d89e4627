#!/bin/sh
# The command line: one scheme for every command. Options anywhere among
# the arguments (GNU permutation), "--" ends them, -V is --version,
# misspelled commands and options get the nearest valid one, refused
# values list the valid ones. Help, the man page and the completion
# scripts come from the same tables, and load.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p proj
cat >proj/r.yaml <<'EOF'
schema: 1
name: r
version: 1.0.0
steps:
  - name: lib
    run: |
      mkdir -p "$STAGE/pkg"
      echo "x = 1" >"$STAGE/pkg/__init__.py"
wheels:
  - name: r
    version: 1.0.0
    platform: any
    files:
      - {from: lib, src: pkg, dst: pkg}
EOF
whl=r-1.0.0-py3-none-any.whl
q="'"

expect_success 'recipe: options after the recipe' '
	"$TFBUILD" recipe proj/r.yaml --out out -j 1 -q --build-dir b >stdout &&
	test -f out/$whl && test -d b/r/x86_64 && compare /dev/null stdout
'

expect_success 'fetch, explain: options after the recipe' '
	"$TFBUILD" fetch proj/r.yaml --cache c -q >stdout && compare /dev/null stdout &&
	"$TFBUILD" explain proj/r.yaml --build-dir b -t x86_64 >stdout &&
	grep -q "^x86_64 lib: up to date" stdout
'

expect_success 'verify, diff, sha256, help: options after the arguments' '
	"$TFBUILD" verify out/$whl -q >stdout && compare /dev/null stdout &&
	"$TFBUILD" diff out/$whl out/$whl --max 3 -q >stdout && compare /dev/null stdout &&
	"$TFBUILD" sha256 out/$whl -q >stdout &&
	echo "$(sha256_of out/$whl)  out/$whl" >expect && compare expect stdout &&
	"$TFBUILD" help recipe -q >stdout && head -n 1 stdout >actual &&
	echo "usage: tfbuild recipe [OPTIONS] RECIPE.yaml" >expect && compare expect actual
'

expect_success 'global options before or after the command, = or a separate value' '
	"$TFBUILD" -q verify out/$whl >stdout && compare /dev/null stdout &&
	"$TFBUILD" verify --color=never out/$whl --color never >stdout &&
	echo "ok  out/$whl" >expect && compare expect stdout
'

expect_success '-- ends the options' '
	cp out/$whl ./--max &&
	expect_code 6 "$TFBUILD" verify -q -- --max 2>err &&
	grep -q "^tfbuild: --max: " err
'

expect_success '-V and --version' '
	"$TFBUILD" -V >v1 && "$TFBUILD" --version >v2 && compare v1 v2 &&
	grep -q "^tfbuild [0-9]" v1
'

expect_success 'a misspelled command: the nearest one is suggested, exit 2' '
	expect_code 2 "$TFBUILD" recipie proj/r.yaml 2>err &&
	echo "tfbuild: unknown command ${q}recipie${q}; did you mean ${q}recipe${q}?" >expect &&
	compare expect err &&
	expect_code 2 "$TFBUILD" verfiy x.whl 2>err &&
	grep -q "did you mean ${q}verify${q}?" err &&
	expect_code 2 "$TFBUILD" zzzzzz 2>err &&
	echo "tfbuild: unknown command ${q}zzzzzz${q}; see ${q}tfbuild --help${q}" >expect &&
	compare expect err
'

expect_success 'a misspelled option: the nearest one is suggested, exit 2' '
	expect_code 2 "$TFBUILD" recipe proj/r.yaml --taget x86_64 2>err &&
	head -n 1 err >actual &&
	echo "tfbuild: unknown option ${q}--taget${q}; did you mean ${q}--target${q}?" >expect &&
	compare expect actual &&
	sed -n 2p err | grep -q "^usage: tfbuild recipe " &&
	expect_code 2 "$TFBUILD" verify --sum x 2>err &&
	grep -q "did you mean ${q}--sums${q}?" err
'

expect_success '--target riscv64 lists the valid targets' '
	expect_code 2 "$TFBUILD" recipe proj/r.yaml --target riscv64 2>err &&
	head -n 1 err >actual &&
	echo "tfbuild: --target ${q}riscv64${q}: not a valid value; valid values are x86_64, aarch64, macos-arm64, all" >expect &&
	compare expect actual &&
	expect_code 2 "$TFBUILD" fetch -t riscv64 proj/r.yaml 2>err &&
	grep -q "^tfbuild: -t ${q}riscv64${q}: not a valid value; valid values are x86_64, aarch64, macos-arm64, all$" err
'

expect_success 'a target the recipe does not list: the ones it does' '
	sed "s/^version: 1.0.0$/version: 1.0.0\ntargets: [x86_64]/" proj/r.yaml >proj/x.yaml &&
	expect_code 2 "$TFBUILD" recipe proj/x.yaml --target aarch64 2>err &&
	echo "tfbuild: --target ${q}aarch64${q}: proj/x.yaml builds only x86_64; valid values: x86_64, all" >expect &&
	compare expect err
'

expect_success 'every refused value lists the valid ones' '
	expect_code 2 "$TFBUILD" --color=blue help 2>err &&
	grep -q "^tfbuild: --color ${q}blue${q}: not a valid value; valid values are auto, always, never$" err &&
	expect_code 2 "$TFBUILD" help --log-format xml 2>err &&
	grep -q "valid values are text, json$" err &&
	expect_code 2 "$TFBUILD" recipe -j 0 proj/r.yaml 2>err &&
	grep -q "^tfbuild: -j wants a number from 1 to 1024, not ${q}0${q}$" err &&
	expect_code 2 "$TFBUILD" recipe --out 2>err &&
	grep -q "^tfbuild: option ${q}--out${q} needs a value (DIR)$" err &&
	expect_code 2 "$TFBUILD" recipe --force=yes proj/r.yaml 2>err &&
	grep -q "^tfbuild: option ${q}--force${q} takes no value$" err
'

expect_success 'usage errors: missing and extra arguments, exit 2' '
	expect_code 2 "$TFBUILD" recipe 2>err &&
	grep -q "^tfbuild: missing the recipe file$" err &&
	expect_code 2 "$TFBUILD" explain a.yaml b.yaml 2>err &&
	grep -q "^tfbuild: too many arguments; one recipe at a time$" err &&
	expect_code 2 "$TFBUILD" 2>err && grep -q "^usage: tfbuild " err
'

expect_success '--help anywhere shows the command help, exit 0' '
	"$TFBUILD" recipe proj/r.yaml --help >h && grep -q "^usage: tfbuild recipe" h &&
	grep -q "^  -t, --target NAME" h && grep -q "^exit codes: " h &&
	"$TFBUILD" --help >h && grep -q "^  recipe " h
'

expect_success 'the man page renders and is the one tfbuild generates' '
	"$TFBUILD" help --man >gen.1 && compare "$SRC_ROOT/docs/tfbuild.1" gen.1 &&
	MANWIDTH=80 man -l "$SRC_ROOT/docs/tfbuild.1" >man.txt 2>man.err &&
	compare /dev/null man.err &&
	grep -q "tfbuild recipe \[OPTIONS\] RECIPE.yaml" man.txt &&
	grep -q -- "--target NAME" man.txt
'

expect_success 'the completion scripts are the ones tfbuild generates' '
	"$TFBUILD" help --completion bash >gen.bash &&
	compare "$SRC_ROOT/contrib/completion/tfbuild.bash" gen.bash &&
	"$TFBUILD" help --completion zsh >gen.zsh &&
	compare "$SRC_ROOT/contrib/completion/_tfbuild" gen.zsh
'

cat >comp.sh <<EOF
. "$SRC_ROOT/contrib/completion/tfbuild.bash"
c() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); COMPREPLY=(); _tfbuild; echo "\${COMPREPLY[*]}"; }
c tfbuild rec
c tfbuild recipe --tar
c tfbuild recipe --target ""
c tfbuild recipe proj/r
c tfbuild -q verif
EOF

expect_success 'bash completion loads and completes commands, options, targets, recipes' '
	bash comp.sh >actual 2>err && compare /dev/null err &&
	printf "%s\n" recipe --target "x86_64 aarch64 macos-arm64 all" proj/r.yaml verify >expect &&
	compare expect actual
'

expect_success 'zsh completion loads without error' '
	zsh -f -c "autoload -U compinit && compinit -u -d $TRASH/zcompdump &&
		source $SRC_ROOT/contrib/completion/_tfbuild &&
		[ \"\${_comps[tfbuild]}\" = _tfbuild ]" >zsh.out 2>err &&
	compare /dev/null err
'

test_done
