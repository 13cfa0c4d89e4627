#!/bin/sh
# How a run fails: checksum mismatch (next mirror tried, nothing cached),
# a patch that does not apply (hunk named, no tree left), a failing build
# step (log tail shown), and no partial wheel in the output directory.
. "$(dirname "$0")/../lib/test-lib.sh"

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" || exit 1
mkdir -p "$TRASH/bad"
printf 'not the archive\n' >"$TRASH/bad/greet-1.0.0.tar.gz"
start_httpd "$TRASH" || exit 1
good_sum=$(sha256_of "$TRASH/mirror/greet-1.0.0.tar.gz")
bad_sum=$(sha256_of "$TRASH/bad/greet-1.0.0.tar.gz")

# recipe FILE MIRRORS PATCH RUN: write a greet recipe variant.
write_recipe() {
	cat >"$1" <<EOR
schema: 1
name: greet
version: 1.0.0
sources:
  - name: greet
    url: $2
    mirrors: [$3]
    sha256: $good_sum
    strip: 1
    patches:
      strip: 1
      series: [$4]
steps:
  - name: lib
    source: greet
    run: |
      $5
      make CC="\$CC" && make install PREFIX="\$STAGE"
wheels:
  - name: greet
    version: 1.0.0
    files:
      - {from: lib, src: greet, dst: .}
EOR
}
patch_ok="$SRC_ROOT/patches/greet/0001-greeting-from-tfbuild.patch"

expect_success 'checksum mismatch: error names URL and digests, next mirror used' '
	write_recipe r.yaml "$HTTP_URL/bad/greet-1.0.0.tar.gz" \
		"$HTTP_URL/mirror/greet-1.0.0.tar.gz" "$patch_ok" true &&
	"$TFBUILD" recipe --cache cache --build-dir build --out wheels r.yaml 2>err >/dev/null &&
	grep -qF "$HTTP_URL/bad/greet-1.0.0.tar.gz: checksum mismatch: expected $good_sum, got $bad_sum" err &&
	ls cache/sha256 >cached && echo "$good_sum" >expect && compare expect cached &&
	test -f wheels/greet-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
'

expect_success 'checksum mismatch on every URL: exit 4, nothing cached or built' '
	write_recipe r2.yaml "$HTTP_URL/bad/greet-1.0.0.tar.gz" \
		"$HTTP_URL/bad/greet-1.0.0.tar.gz" "$patch_ok" true &&
	expect_code 4 "$TFBUILD" recipe --cache cache2 --build-dir build2 --out wheels2 r2.yaml 2>err &&
	test -z "$(ls cache2/sha256 2>/dev/null)" &&
	test ! -e build2/r2/x86_64/src && test ! -e wheels2
'

expect_success 'a patch that does not apply: exit 5, hunk named, no tree left' '
	mkdir -p cache3 && cp -r cache/sha256 cache3/ &&
	sed "s/^-\(.*\)hello, %s/-\1howdy, %s/" "$patch_ok" >p.patch &&
	! cmp -s p.patch "$patch_ok" &&
	write_recipe r3.yaml "$HTTP_URL/mirror/greet-1.0.0.tar.gz" \
		"$HTTP_URL/mirror/greet-1.0.0.tar.gz" "$TRASH/p.patch" true &&
	expect_code 5 "$TFBUILD" recipe --cache cache3 --build-dir build3 --out wheels3 r3.yaml 2>err &&
	grep -q "p.patch: hunk #1 of .greet.c. does not apply" err &&
	test -z "$(ls -A build3/r3/x86_64/src 2>/dev/null)" && test ! -e wheels3
'

expect_success 'a failing step: exit 5, step named, log tail and path shown, no wheel' '
	write_recipe r4.yaml "$HTTP_URL/mirror/greet-1.0.0.tar.gz" \
		"$HTTP_URL/mirror/greet-1.0.0.tar.gz" "$patch_ok" "echo compiling; echo oops >&2; exit 7" &&
	expect_code 5 "$TFBUILD" recipe --cache cache --build-dir build4 --out wheels4 r4.yaml 2>err &&
	grep -q "^tfbuild: step .lib. for x86_64 failed with exit status 7; last lines of its log:$" err &&
	grep -q "^oops$" err &&
	grep -q "^tfbuild: full log: $TRASH/build4/r4/x86_64/logs/lib.log$" err &&
	test ! -e wheels4
'

# Without the sandbox (which t2121 checks), whose environment is clean too:
# the step writes beside its stage.
expect_success 'steps get a clean environment, not the caller'"'"'s' '
	write_recipe r5.yaml "$HTTP_URL/mirror/greet-1.0.0.tar.gz" \
		"$HTTP_URL/mirror/greet-1.0.0.tar.gz" "$patch_ok" "env | sort >\$STAGE/../env.txt" &&
	SECRET_TOKEN=xyz TFBUILD_SANDBOX=off "$TFBUILD" recipe --cache cache --build-dir build5 --out wheels5 r5.yaml >/dev/null 2>&1 &&
	! grep -q SECRET_TOKEN build5/r5/x86_64/stage/env.txt &&
	grep -q "^SOURCE_DATE_EPOCH=315532800$" build5/r5/x86_64/stage/env.txt &&
	grep -q "^TARGET=x86_64$" build5/r5/x86_64/stage/env.txt &&
	grep -q "^LC_ALL=C$" build5/r5/x86_64/stage/env.txt
'

expect_success 'an archive with a ../ member: exit 5, member named, nothing outside' '
	mkdir -p evil && "$PYTHON" - "$TRASH/evil/evil.tar.gz" <<-EOF &&
	import io, sys, tarfile
	with tarfile.open(sys.argv[1], "w:gz") as t:
	    for name in ("pkg/ok.txt", "pkg/../../escaped.txt"):
	        data = b"x\\n"
	        info = tarfile.TarInfo(name)
	        info.size = len(data)
	        t.addfile(info, io.BytesIO(data))
	EOF
	sum=$(sha256_of evil/evil.tar.gz) &&
	cat >r6.yaml <<-EOF &&
	schema: 1
	name: evil
	version: 1.0.0
	sources:
	  - name: evil
	    url: $HTTP_URL/evil/evil.tar.gz
	    sha256: $sum
	    strip: 1
	EOF
	expect_code 5 "$TFBUILD" recipe --cache cache6 --build-dir build6 --out wheels6 r6.yaml 2>err &&
	grep -qx "tfbuild: evil.tar.gz: member .pkg/../../escaped.txt.: path escapes the extraction directory" err &&
	test ! -e escaped.txt && test ! -e build6/escaped.txt && test ! -e build6/r6/x86_64/escaped.txt &&
	test -z "$(ls -A build6/r6/x86_64/src 2>/dev/null)"
'

test_done
