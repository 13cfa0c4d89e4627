#!/bin/sh
# A recipe and its lock file are read only if they are regular files,
# and that is looked at before any read (issue 35 item 6): a FIFO used
# to hang `lock` and `recipe` (as the lock file) and every command (as
# the recipe or a --toolchain file), in open(2), for ever. Each is refused within a second,
# naming the file and what it is, and nothing blocks on the FIFO (no
# writer ever opens it).
. "$(dirname "$0")/../lib/test-lib.sh"

SQ="'"
cat >r.yaml <<'EOF_R'
schema: 1
name: r
version: "1.0"
target-wheels: ["goodpkg==1.0"]
steps:
  - {name: s, run: "true"}
EOF_R

expect_success 'a FIFO recipe is refused by every command, within a second' '
	mkfifo fifo.yaml &&
	echo "tfbuild: ${SQ}fifo.yaml${SQ} is not a regular file (a FIFO)" >expect &&
	for cmd in recipe explain fetch lock; do
		expect_code 3 timeout 5 "$TFBUILD" $cmd fifo.yaml 2>err &&
		compare expect err || return 1
	done
'

expect_success 'a FIFO lock file is refused by lock and recipe, within a second' '
	mkfifo r.lock.json &&
	echo "tfbuild: $TRASH/r.lock.json: not a regular file (a FIFO); a lock file is JSON in a regular file" >expect &&
	for cmd in lock recipe explain; do
		expect_code 3 timeout 5 "$TFBUILD" $cmd r.yaml 2>err &&
		compare expect err || return 1
	done
'

expect_success 'a FIFO --toolchain file is refused the same way' '
	rm r.lock.json && mkfifo tc.yaml &&
	expect_code 3 timeout 5 "$TFBUILD" explain --toolchain tc.yaml r.yaml 2>err &&
	grep -qx "tfbuild: ${SQ}tc.yaml${SQ} is not a regular file (a FIFO)" err
'

expect_success 'a directory as the lock file is named as one' '
	mkdir r.lock.json &&
	expect_code 3 timeout 5 "$TFBUILD" lock r.yaml 2>err &&
	grep -qx "tfbuild: $TRASH/r.lock.json: not a regular file (a directory); a lock file is JSON in a regular file" err
'

expect_success 'a lock file that is a symlink to a regular file is read' '
	rmdir r.lock.json &&
	printf "{\"pins\": [], \"version\": 1}\n" >real.json &&
	ln -s real.json r.lock.json &&
	expect_code 3 timeout 5 "$TFBUILD" explain r.yaml 2>err &&
	grep -q "target wheel ${SQ}goodpkg==1.0${SQ} has no pin for target" err
'

test_done
