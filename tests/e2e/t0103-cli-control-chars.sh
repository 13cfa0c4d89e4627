#!/bin/sh
# Text from input is cleaned in one place, the reporting function: an
# archive member, a patch file name and a recipe string holding
# ESC [31m print as ?[31m in every message (text, --json, GitHub
# Actions), and the raw escape byte never reaches the terminal.
. "$(dirname "$0")/../lib/test-lib.sh"

ESC=$(printf '\033')
mkdir -p proj

# no_raw_escape FILE...: none of the files holds the ESC byte.
no_raw_escape() {
	for f in "$@"; do
		if grep -q "$ESC" "$f"; then
			echo "raw ESC in $f:" >&2; cat -v "$f" >&2; return 1
		fi
	done
}

# run_all NAME CODE RECIPE: run the recipe as text, --json and under
# GitHub Actions, into NAME.{err,json,gha}.
run_all() {
	expect_code "$2" "$TFBUILD" recipe --out wheels "$3" >/dev/null 2>"$1.err" &&
	expect_code "$2" "$TFBUILD" recipe --json --out wheels "$3" >"$1.json" 2>/dev/null &&
	GITHUB_ACTIONS=true expect_code "$2" "$TFBUILD" recipe --out wheels "$3" \
		>"$1.gha" 2>/dev/null
}

expect_success 'an archive member named with ESC[31m' '
	/usr/bin/python3 - <<-EOF &&
	import io, tarfile
	with tarfile.open("proj/evil.tar", "w") as t:
	    data = b"x"
	    i = tarfile.TarInfo("top/../../\033[31mred")
	    i.size = len(data)
	    t.addfile(i, io.BytesIO(data))
	EOF
	cat >proj/member.yaml <<-EOF &&
	schema: 1
	name: member
	version: 1.0.0
	sources:
	  - name: evil
	    url: file://\${recipe_dir}/evil.tar
	    sha256: $(sha256_of proj/evil.tar)
	steps:
	  - name: s
	    source: evil
	    run: "true"
	EOF
	run_all member 5 proj/member.yaml &&
	grep -q "member .top/\.\./\.\./?\[31mred.: path escapes" member.err &&
	grep -q "?\[31mred" member.json && grep -q "?\[31mred" member.gha &&
	no_raw_escape member.err member.json member.gha
'

expect_success 'a patch file name with ESC[31m' '
	mkdir -p proj/tree proj/patches &&
	echo "int a;" >proj/tree/a.c &&
	printf "%s\n" "--- a/a.c" "+++ b/a.c" "@@ -1 +1 @@" "-int nothing;" "+int b;" \
		>"proj/patches/${ESC}[31m.patch" &&
	cat >proj/patch.yaml <<-EOF &&
	schema: 1
	name: patch
	version: 1.0.0
	sources:
	  - name: tree
	    path: tree
	    patches: {strip: 1, series: ["patches/\e[31m.patch"]}
	steps:
	  - name: s
	    source: tree
	    run: "true"
	EOF
	run_all patch 5 proj/patch.yaml &&
	grep -q "?\[31m\.patch" patch.err &&
	grep -q "?\[31m\.patch" patch.json && grep -q "?\[31m\.patch" patch.gha &&
	no_raw_escape patch.err patch.json patch.gha
'

expect_success 'a recipe string with ESC[31m' '
	cat >proj/string.yaml <<-EOF &&
	schema: 1
	name: string
	version: 1.0.0
	steps:
	  - name: s
	    "r\e[31mun": "true"
	    run: "true"
	EOF
	run_all string 3 proj/string.yaml &&
	grep -q "^tfbuild: proj/string.yaml:6:5: unknown key .r?\[31mun." string.err &&
	grep -q "unknown key .r?\[31mun." string.json &&
	grep -q "^::error file=proj/string.yaml,line=6,col=5::unknown key .r?\[31mun." string.gha &&
	no_raw_escape string.err string.json string.gha
'

expect_success 'a wheel entry named with ESC[31m, in verify' '
	/usr/bin/python3 - <<-EOF &&
	import zipfile
	d = "x-1.0.dist-info/"
	with zipfile.ZipFile("x-1.0-py3-none-any.whl", "w") as z:
	    z.writestr("x/\033[31m.py", "")
	    z.writestr(d + "METADATA", "Metadata-Version: 2.1\nName: x\nVersion: 1.0\n")
	    z.writestr(d + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
	    z.writestr(d + "RECORD", d + "METADATA,,\n" + d + "WHEEL,,\n" + d + "RECORD,,\n")
	EOF
	expect_code 6 "$TFBUILD" verify x-1.0-py3-none-any.whl 2>err &&
	grep -q "?\[31m" err && no_raw_escape err
'

test_done
