#!/bin/sh
# Logs, extraction and the files given to verify and diff are bounded
# (issue 26): a step printing far past TFBUILD_STEP_LOG_MAX leaves a log
# of the cap plus its last 64 KiB, with a line saying how much was
# dropped, and its last lines are shown when it fails; an archive that
# expands past TFBUILD_EXTRACT_MAX_RATIO times its size is refused
# naming the member; `verify --sums` and `diff` refuse a FIFO at once
# (timeout guards against a hang).
. "$(dirname "$0")/../lib/test-lib.sh"

cat >noisy.yaml <<'EOF'
schema: 1
name: lg
version: 1.0.0
steps:
  - name: noisy
    run: |
      yes "noise noise noise noise noise noise" | head -n 540000
      echo "the real cause: foo.h: No such file or directory" >&2
      exit 3
EOF

expect_success 'a step printing 19 MB keeps the cap and its tail' '
	expect_code 5 env TFBUILD_STEP_LOG_MAX=1M \
		"$TFBUILD" recipe -q --build-dir b --out out noisy.yaml 2>err &&
	log=b/noisy/x86_64/logs/noisy.log &&
	test "$(wc -c <"$log")" -lt $((1048576 + 65536 + 200)) &&
	grep -a "^\[tfbuild: the log is capped at 1048576 bytes (TFBUILD_STEP_LOG_MAX): [0-9]* bytes of output were dropped; its last 65536 bytes follow\]$" "$log" &&
	tail -n 1 "$log" | grep "the real cause" &&
	grep "^the real cause: foo.h: No such file or directory$" err
'

expect_success 'under the cap, the log is all the output' '
	expect_code 5 "$TFBUILD" recipe -q --build-dir b --out out noisy.yaml 2>err &&
	test "$(wc -c <b/noisy/x86_64/logs/noisy.log)" = 19440049 &&
	grep "^the real cause" err
'

expect_success 'an archive expanding past the ratio is refused, naming the member' '
	mkdir -p bomb/t && head -c 50000000 /dev/zero >bomb/t/zeros &&
	(cd bomb && tar -cJf ../bomb.tar.xz t) &&
	sha=$(sha256_of bomb.tar.xz) &&
	cat >bomb.yaml <<-EOF &&
	schema: 1
	name: bm
	version: 1.0.0
	sources:
	  - {name: t, url: "file://$TRASH/bomb.tar.xz", sha256: $sha}
	steps:
	  - {name: s, source: t, run: "true"}
	EOF
	expect_code 5 env TFBUILD_EXTRACT_MIN_BYTES=1M TFBUILD_EXTRACT_MAX_RATIO=10 \
		"$TFBUILD" recipe -q --cache c --build-dir b --out out bomb.yaml 2>err &&
	grep "bomb.tar.xz: member .t/zeros.: extracting it would exceed the limit of [0-9]* bytes (TFBUILD_EXTRACT_MAX_RATIO times the archive.s [0-9]* bytes: TFBUILD_EXTRACT_MAX_RATIO, TFBUILD_EXTRACT_MIN_BYTES)" err &&
	! test -e b/bomb/x86_64/src/t
'

expect_success 'verify --sums and diff refuse a FIFO without blocking' '
	mkfifo fifo &&
	expect_code 6 timeout 20 "$TFBUILD" verify --sums fifo 2>err &&
	grep "^tfbuild: fifo: not a regular file (a FIFO)$" err &&
	expect_code 6 timeout 20 "$TFBUILD" verify --provenance fifo 2>err &&
	grep "^tfbuild: fifo: not a regular file (a FIFO)$" err &&
	expect_code 6 timeout 20 "$TFBUILD" diff fifo fifo 2>err &&
	grep "^tfbuild: fifo: not a regular file (a FIFO)$" err &&
	mkdir d &&
	expect_code 6 timeout 20 "$TFBUILD" verify --sums d 2>err &&
	grep "^tfbuild: d: not a regular file (a directory)$" err
'

test_done
