#!/bin/sh
# Wheel files `from:` a source: packed straight from its prepared tree,
# with no step copying it to a stage; a step of the same name wins; an
# edit to the source is packed on the next run.
. "$(dirname "$0")/../lib/test-lib.sh"

pure_project || exit 1
mkdir -p proj/tree/other
echo 'ignored' >proj/tree/other/x.txt
wheel=out/pure-1.0.0-py3-none-any.whl
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }

expect_success 'a recipe with no step packs a source tree' '
	run 2>err >/dev/null && "$TFBUILD" verify "$wheel" &&
	unzip -Z1 "$wheel" | grep -v "^pure-1.0.0.dist-info/" >actual &&
	printf "pure/__init__.py\n" >expect && compare expect actual &&
	test "$(unzip -p "$wheel" pure/__init__.py)" = "VALUE = 1"
'

expect_success 'an edit to the source is in the next wheel' '
	echo "VALUE = 2" >proj/tree/pure/__init__.py &&
	run 2>err >/dev/null && test "$(unzip -p "$wheel" pure/__init__.py)" = "VALUE = 2"
'

expect_success 'a pattern matching nothing names the source tree' '
	sed -i "s/src: pure,/src: nothing,/" proj/r.yaml &&
	expect_code 6 run 2>err >/dev/null &&
	grep -q "wheel .pure.: .nothing. matches nothing in the tree of source .tree. (" err
'

expect_success 'a step with the same name as a source is the one used' '
	cat >proj/r.yaml <<-EOF2 &&
	schema: 1
	name: pure
	version: 1.0.0
	sources:
	  - {name: tree, path: tree}
	steps:
	  - name: tree
	    source: tree
	    run: mkdir -p "\$STAGE/pure" && echo "VALUE = 3" >"\$STAGE/pure/__init__.py"
	wheels:
	  - name: pure
	    version: 1.0.0
	    files:
	      - {from: tree, src: pure, dst: .}
	EOF2
	run 2>err >/dev/null && test "$(unzip -p "$wheel" pure/__init__.py)" = "VALUE = 3"
'

test_done
