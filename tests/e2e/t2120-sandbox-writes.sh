#!/bin/sh
# The step sandbox (issue 26, docs/security.md#the-step-sandbox): a step
# that tries to overwrite what other runs trust (a verified download in
# the cache, a step-store entry), another source's tree, the recipe's own
# `path:` source, a patch, the recipe itself, the user's HOME and the
# host's /tmp changes none of them; the same step with --sandbox=off
# changes every one (what it did before the sandbox: the test is real).
# A recipe that lives in HOME (~/proj) gets its own directory back, not
# the rest of HOME (~/.ssh).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }

hosttmp=/tmp/tfbuild-t2120-$$
at_exit "rm -f $hosttmp"
mkdir -p pkg/pkg mine other &&
	echo 'int x;' >pkg/pkg/a.c &&
	tar -C pkg -czf pkg.tar.gz pkg &&
	echo mine >mine/file && echo other >other/file &&
	printf -- '--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-int x;\n+int y;\n' >fix.patch || exit 1
sum=$(sha256_of pkg.tar.gz)

# A first recipe fills the download cache and the step store.
cat >r0.yaml <<EOF
schema: 1
name: r0
version: 1.0.0
sources:
  - name: pkg
    url: file://$TRASH/pkg.tar.gz
    sha256: $sum
    strip: 1
steps:
  - name: one
    run: echo one >"\$STAGE/one"
EOF

# The attacker: each write goes on when one fails, and says how it went
# (a write into a hidden place succeeds, into an empty tmpfs).
cat >r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
sources:
  - name: pkg
    url: file://$TRASH/pkg.tar.gz
    sha256: $sum
    strip: 1
    patches:
      strip: 1
      series: [fix.patch]
  - name: mine
    path: mine
  - name: other
    path: other
steps:
  - name: evil
    source: mine
    run: |
      try() { if sh -c "\$1" 2>&1; then echo "wrote: \$1"; else echo "refused: \$1"; fi; }
      try 'echo pwned >$TRASH/cache/sha256/$sum'
      for f in \$(find $TRASH/cache/store -type f 2>/dev/null); do try "echo pwned >\$f"; done
      try 'echo pwned >\${src.other}/file'
      try 'echo pwned >$TRASH/mine/file'
      try 'echo pwned >>$TRASH/fix.patch'
      try 'echo "# pwned" >>$TRASH/r.yaml'
      try 'echo pwned >$TRASH/home/pwned'
      try 'echo pwned >$hosttmp'
      echo built >"\$STAGE/out"
EOF

expect_success 'setup: the cache holds the download and a step-store entry' '
	TFBUILD_STORE=1 "$TFBUILD" recipe --cache cache r0.yaml 2>err &&
	test -f cache/sha256/$sum &&
	test -n "$(find cache/store -type f -path "*/cas/*")"
'

expect_success 'in the sandbox every write fails, the step succeeds' '
	TFBUILD_STORE=1 "$TFBUILD" recipe --cache cache r.yaml 2>err &&
	grep -q "Read-only file system" build/r/x86_64/logs/evil.log &&
	test "$(cat build/r/x86_64/stage/evil/out)" = built
'

expect_success 'the download cache is untouched' '
	test "$(sha256_of cache/sha256/$sum)" = $sum
'

expect_success 'every step-store entry is untouched' '
	! grep -r -q pwned cache/store
'

expect_success 'another source tree, the path: source, the patch, the recipe are untouched' '
	test "$(cat build/r/x86_64/src/other/file)" = other &&
	test "$(cat mine/file)" = mine &&
	! grep -qx pwned fix.patch && ! grep -qx "# pwned" r.yaml
'

expect_success 'HOME and the host /tmp are untouched' '
	test ! -e home/pwned && test ! -e $hosttmp
'

expect_success 'with --sandbox=off the same step writes every one of them' '
	TFBUILD_STORE=1 "$TFBUILD" recipe --sandbox=off --force --cache cache r.yaml 2>err &&
	grep -q "^tfbuild: warning: steps run without a sandbox (--sandbox=off)" err &&
	! grep "^refused" build/r/x86_64/logs/evil.log &&
	test "$(cat cache/sha256/$sum)" = pwned &&
	grep -r -q pwned cache/store &&
	test "$(cat build/r/x86_64/src/other/file)" = pwned &&
	test "$(cat mine/file)" = pwned &&
	grep -qx pwned fix.patch && grep -qx "# pwned" r.yaml &&
	test -f home/pwned && test -f $hosttmp
'

# A recipe in HOME (HOME is $TRASH/home here): ~/proj/r.yaml, whose
# directory and the one above (HOME itself) are places of the run.
mkdir -p home/proj home/.ssh && echo key-$$ >home/.ssh/id_test &&
	echo data-$$ >home/proj/data || exit 1
cat >home/proj/r.yaml <<EOF
schema: 1
name: inhome
version: 1.0.0
steps:
  - name: peek
    run: |
      cat $TRASH/home/.ssh/id_test >"\$STAGE/ssh" 2>&1 || true
      cat $TRASH/home/proj/data >"\$STAGE/data" 2>&1 || true
EOF

expect_success 'a recipe in HOME: its directory is there, HOME'"'"'s other files are not' '
	"$TFBUILD" recipe --cache cache home/proj/r.yaml 2>err &&
	S=home/proj/build/r/x86_64/stage/peek &&
	grep -qx data-$$ $S/data &&
	! grep -q key-$$ $S/ssh
'

expect_success 'with --sandbox=off the same step reads ~/.ssh' '
	"$TFBUILD" recipe --sandbox=off --force --cache cache home/proj/r.yaml 2>err &&
	grep -qx key-$$ home/proj/build/r/x86_64/stage/peek/ssh
'

test_done
