#!/bin/sh
# Drips end in bounded time (issue 35 item 6). `tfbuild lock` against an
# index that drips a byte a second ran on past 400 s: pip's --timeout is
# per socket read. pip now runs within TFBUILD_PIP_MAX_TIME, its process
# group stopped past it. A download dripping 2 KiB/s ended only at
# TFBUILD_FETCH_MAX_TIME's hour: the low-speed limit (the minimum rate)
# is 4 KiB/s over 60 s, so it fails after 4 attempts, in minutes. The
# tests set the times lower to end in seconds, show the 2 KiB/s drip
# running on with the limit below it, and check that the defaults are
# the ones docs/security.md gives.
. "$(dirname "$0")/../lib/test-lib.sh"

unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_INDEX_URL TFBUILD_PIP_PYTHON \
	TFBUILD_PIP_MAX_TIME TFBUILD_FETCH_LOW_SPEED_LIMIT \
	TFBUILD_FETCH_LOW_SPEED_TIME TFBUILD_FETCH_MAX_TIME
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null TFBUILD_FETCH_RETRY_DELAY_MS=50
SQ="'"

mkdir -p www/simple/fwk && echo ok >www/small.txt || exit 1
start_httpd "$TRASH/www" || exit 1

cat >fw.yaml <<'EOF_R'
schema: 1
name: fw
version: "1.0"
target-wheels: ["fwk==1.0"]
steps:
  - {name: s, run: "true"}
EOF_R
# src NAME URL: a recipe whose one source is URL
src() {
	cat >"$1.yaml" <<EOF
schema: 1
name: $1
version: "1.0"
sources:
  - name: s
    url: $2
    sha256: $(sha256_of www/small.txt)
steps:
  - {name: s, run: "true"}
EOF
}
# The row of docs/security.md's limits table for VARIABLE: its default.
doc_default() {
	grep "| \`$1\` " "$SRC_ROOT/docs/security.md" | awk -F' [|] ' '{ print $2 }'
}
# What pip left running: processes whose arguments name this test's cache.
pips() { ps -eo args | grep -F "$TRASH/home/.cache" | grep -v grep; }

expect_success 'lock against an index dripping a byte a second ends at TFBUILD_PIP_MAX_TIME' '
	start=$(date +%s) &&
	expect_code 4 timeout 60 env PIP_INDEX_URL=$HTTP_URL/drip/simple/ \
		TFBUILD_PIP_MAX_TIME=3 "$TFBUILD" lock fw.yaml >out 2>err &&
	end=$(date +%s) &&
	test $((end - start)) -lt 15 &&
	grep -q "^tfbuild: target [a-z0-9_]*: wheel ${SQ}fwk==1.0${SQ}: pip download did not finish within 3 seconds and was stopped (TFBUILD_PIP_MAX_TIME)" err &&
	test -z "$(pips)" &&
	test ! -e fw.lock.json &&
	test -z "$(ls home/.cache/tfbuild/tmp)"
'

expect_success 'TFBUILD_PIP_MAX_TIME that is not a number of seconds is named' '
	expect_code 4 env PIP_INDEX_URL=$HTTP_URL/drip/simple/ \
		TFBUILD_PIP_MAX_TIME=soon "$TFBUILD" lock fw.yaml >out 2>err &&
	grep -qx "tfbuild: TFBUILD_PIP_MAX_TIME: invalid time ${SQ}soon${SQ} (a positive number of seconds)" err
'

expect_success 'an endless 2 KiB/s drip fails by the minimum rate, after its attempts' '
	src rate "$HTTP_URL/rate/2048/x" &&
	start=$(date +%s) &&
	expect_code 4 timeout 60 env TFBUILD_FETCH_LOW_SPEED_TIME=2 \
		"$TFBUILD" fetch -q --cache c rate.yaml 2>err &&
	end=$(date +%s) &&
	test $((end - start)) -lt 30 &&
	grep -q "^tfbuild: source .s.: $HTTP_URL/rate/2048/x: Operation too slow. Less than 4096 bytes/sec transferred the last 2 seconds (after 4 attempts)$" err &&
	! ls c/sha256/* 2>/dev/null
'

expect_success 'with the minimum rate below it, the same drip runs on to TFBUILD_FETCH_MAX_TIME' '
	expect_code 4 timeout 60 env TFBUILD_FETCH_LOW_SPEED_TIME=2 \
		TFBUILD_FETCH_LOW_SPEED_LIMIT=1024 TFBUILD_FETCH_MAX_TIME=8 \
		"$TFBUILD" fetch -q --cache c rate.yaml 2>err &&
	grep -q "^tfbuild: source .s.: $HTTP_URL/rate/2048/x: not whole after 8 seconds, [0-9]* bytes in (TFBUILD_FETCH_MAX_TIME)$" err
'

expect_success 'the download bounds by default are the ones docs/security.md gives' '
	src small "$HTTP_URL/small.txt" &&
	"$TFBUILD" fetch -v --cache c small.yaml >out 2>err &&
	rate=$(doc_default TFBUILD_FETCH_LOW_SPEED_LIMIT) &&
	slow=$(doc_default TFBUILD_FETCH_LOW_SPEED_TIME) &&
	all=$(doc_default TFBUILD_FETCH_MAX_TIME) &&
	test "$rate" = "4096 bytes/s" && test "$slow" = "60 s" && test "$all" = "3600 s" &&
	grep -qF "small.txt: bounds: at least ${rate% bytes/s} bytes/s over ${slow% s} s (TFBUILD_FETCH_LOW_SPEED_LIMIT, _TIME), ${all% s} s in all (TFBUILD_FETCH_MAX_TIME)" err
'

expect_success 'pip'"$SQ"'s bound by default is the one docs/security.md gives' '
	pip=$(doc_default TFBUILD_PIP_MAX_TIME) &&
	test "$pip" = "3600 s" &&
	expect_code 4 env PIP_INDEX_URL=$HTTP_URL/simple/ "$TFBUILD" lock -v fw.yaml >out 2>err &&
	grep -q "wheel ${SQ}fwk==1.0${SQ}: pip may take ${pip% s} s (TFBUILD_PIP_MAX_TIME)$" err
'

test_done
