#!/bin/sh
# One tree per running step (issue 14 item 7): steps that run in one
# source tree, or read the tree another step runs in, never run at the
# same time, even with --jobs to spare; each finds the tree fresh.
. "$(dirname "$0")/../lib/test-lib.sh"

# The steps leave marks outside their own directories, the test's way of
# seeing who else was in a tree; the step sandbox forbids that (t2120), so they run
# without it.
export TFBUILD_SANDBOX=off

mkdir -p proj/src && echo hello >proj/src/file.txt
cat >proj/r.yaml <<'EOF'
schema: 1
name: onetree
version: 1.0.0
sources:
  - name: s
    path: src
steps:
  - name: a
    source: s
    run: &check |
      # Mark the tree busy, give another step time to come in, and
      # record whether anyone else was in it meanwhile.
      test ! -e ../other-was-here || echo "stale marker" >$STAGE/seen
      ls busy.* 2>/dev/null >$STAGE/before || true
      touch busy.$TFSTEP extra.$TFSTEP
      sleep 2
      ls busy.* >$STAGE/during
      ls extra.* >$STAGE/extras
      rm busy.$TFSTEP
    env: { TFSTEP: a }
  - name: b
    source: s
    run: *check
    env: { TFSTEP: b }
  - name: c
    run: |
      # Reads s's tree by path while a or b may run in it.
      ls ${src.s} >$STAGE/listing
      touch ${src.s}/busy.c
      sleep 2
      ls ${src.s}/busy.* >$STAGE/during
      rm ${src.s}/busy.c
EOF

expect_success 'three steps on one tree, -j 3: each had it to itself' '
	"$TFBUILD" -q recipe -j 3 --out out proj/r.yaml &&
	S=proj/build/r/x86_64/stage &&
	for s in a b; do
		echo "busy.$s" >expect && compare expect $S/$s/during &&
		test ! -s $S/$s/before &&
		echo "extra.$s" >expect && compare expect $S/$s/extras || exit 1
	done &&
	echo "$TRASH/proj/build/r/x86_64/src/s/busy.c" >expect &&
	compare expect $S/c/during
'

expect_success 'docs/recipe.md says steps on one source run one at a time' '
	grep -q "one at a time" "$SRC_ROOT/docs/recipe.md"
'

test_done
