#!/bin/sh
# A path given twice in a wheel (issue 29, trap 7): two license files of
# one file name (both .dist-info/licenses/NAME), or a file rule given
# twice, are refused when the recipe is loaded, or planned once ${...}
# is expanded: exit 3, naming both places, before anything is built. It
# used to build everything and then fail to pack with exit 6 and
# "'licenses/LICENSE' cannot go into .dist-info". What only packing can
# know (two rules' matches meeting at one path, a glob matching two
# files of one name) is refused there, exit 6, saying "duplicate" and
# naming both rules and both files. Two directories of one name still
# merge, as cp -R would.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p a b && echo "license A" >a/LICENSE && echo "license B" >b/LICENSE

# r.yaml: license files from line 18, one a line; then `files:`, the
# rule packing pkg/ and the rules given. Lists are separated by ';'.
recipe() { # license files, file rules
	{
		cat <<-EOF
		schema: 1
		name: twice
		version: 1.0.0
		variables: {lic: LICENSE, d: pkg}
		sources:
		  - {name: a, path: a}
		  - {name: b, path: b}
		steps:
		  - name: one
		    run: |
		      mkdir -p \$STAGE/pkg \$STAGE/x/sub \$STAGE/y/sub \$STAGE/y/pkg
		      echo p >\$STAGE/pkg/__init__.py; echo x >\$STAGE/x/f.txt; echo y >\$STAGE/y/f.txt
		      echo xs >\$STAGE/x/sub/one.txt; echo ys >\$STAGE/y/sub/two.txt; echo yp >\$STAGE/y/pkg/__init__.py
		wheels:
		  - name: twice
		    version: 1.0.0
		    license-files:
		EOF
		printf "%s\n" "$1" | tr ";" "\n" | sed "s/^/      - /"
		echo "    files:"
		echo "      - {from: one, src: pkg, dst: .}"
		test -z "$2" || printf "%s\n" "$2" | tr ";" "\n" | sed "s/^/      - /"
	} >r.yaml
}
run() { "$TFBUILD" recipe --out out r.yaml; }

expect_success 'two license files of one name: exit 3 at load, both places, nothing built' '
	recipe "a/LICENSE;b/LICENSE" "" &&
	expect_code 3 run 2>err &&
	echo "tfbuild: r.yaml:19:9: '"'"'.dist-info/licenses/LICENSE'"'"' is in the wheel twice: also from r.yaml:18:9 (a license file keeps only its file name there; copy one to another name in a step)" >expect &&
	compare expect err &&
	test ! -e build && test ! -e out
'

expect_success 'two sources'"'"' LICENSE (${src.NAME}/LICENSE): the same, at load' '
	recipe "\"\${src.a}/LICENSE\";\"\${src.b}/LICENSE\"" "" &&
	expect_code 3 run 2>err &&
	echo "tfbuild: r.yaml:19:9: '"'"'.dist-info/licenses/LICENSE'"'"' is in the wheel twice: also from r.yaml:18:9 (a license file keeps only its file name there; copy one to another name in a step)" >expect &&
	compare expect err &&
	test ! -e build
'

expect_success 'a name known once expanded: exit 3 at plan, both places' '
	recipe "a/LICENSE;\"b/\${lic}\"" "" &&
	expect_code 3 run 2>err &&
	echo "tfbuild: r.yaml:19:9: '"'"'.dist-info/licenses/LICENSE'"'"' is in the wheel twice: also from r.yaml:18:9 (a license file keeps only its file name there; copy one to another name in a step)" >expect &&
	compare expect err &&
	test ! -e build
'

expect_success 'a file rule given twice: exit 3 at load, both rules' '
	recipe a/LICENSE "{from: one, src: pkg, dst: .}" &&
	expect_code 3 run 2>err &&
	echo "tfbuild: r.yaml:21:9: '"'"'pkg'"'"' is in the wheel twice: also from r.yaml:20:9" >expect &&
	compare expect err &&
	test ! -e build
'

expect_success 'a file rule given twice once expanded: exit 3 at plan' '
	recipe a/LICENSE "{from: one, src: x/f.txt, dst: \"\${d}\"};{from: one, src: x/f.txt, dst: pkg}" &&
	expect_code 3 run 2>err &&
	echo "tfbuild: r.yaml:22:9: '"'"'pkg/f.txt'"'"' is in the wheel twice: also from r.yaml:21:9" >expect &&
	compare expect err &&
	test ! -e build
'

expect_success 'two rules meeting at one file: exit 6 at packing, "duplicate", both rules and files' '
	recipe a/LICENSE "{from: one, src: \"x/*.txt\", dst: pkg};{from: one, src: y/f.txt, dst: pkg}" &&
	expect_code 6 run 2>err &&
	grep "^tfbuild: r.yaml:" err >actual &&
	echo "tfbuild: r.yaml:22:9: wheel '"'"'twice'"'"': '"'"'pkg/f.txt'"'"' is in the wheel twice (a duplicate): '"'"'y/f.txt'"'"' of step '"'"'one'"'"' here, also '"'"'x/f.txt'"'"' of step '"'"'one'"'"' from r.yaml:21:9" >expect &&
	compare expect actual &&
	test ! -e out/twice-1.0.0-py3-none-any.whl
'

expect_success 'one glob matching two files of one name: exit 6, both files' '
	recipe a/LICENSE "{from: one, src: \"[xy]/f.txt\", dst: pkg}" &&
	expect_code 6 run 2>err &&
	grep -q "^tfbuild: r.yaml:21:9: wheel '"'"'twice'"'"': '"'"'pkg/f.txt'"'"' is in the wheel twice (a duplicate): '"'"'y/f.txt'"'"' of step '"'"'one'"'"' here, also '"'"'x/f.txt'"'"' of step '"'"'one'"'"' from r.yaml:21:9$" err
'

expect_success 'two directories of one name merge, as cp -R would' '
	recipe a/LICENSE "{from: one, src: x/sub, dst: pkg};{from: one, src: y/sub, dst: pkg}" &&
	run 2>err >/dev/null &&
	unzip -Z1 out/twice-1.0.0-py3-none-any.whl | grep "^pkg/" >actual &&
	printf "pkg/__init__.py\npkg/sub/one.txt\npkg/sub/two.txt\n" >expect &&
	compare expect actual
'

expect_success 'a file in one rule and in another'"'"'s tree: exit 6, both' '
	recipe a/LICENSE "{from: one, src: y/pkg/__init__.py, dst: pkg}" &&
	expect_code 6 run 2>err &&
	grep -q "^tfbuild: r.yaml:21:9: wheel '"'"'twice'"'"': '"'"'pkg/__init__.py'"'"' is in the wheel twice (a duplicate): '"'"'y/pkg/__init__.py'"'"' of step '"'"'one'"'"' here, also '"'"'pkg/__init__.py'"'"' of step '"'"'one'"'"' from r.yaml:20:9$" err
'

test_done
