#!/bin/sh
# tf_fetch through test-fetch: the verified cache, mirrors, offline mode,
# redirects, retries, resume, recheck, and exact error messages.
. "$(dirname "$0")/../lib/test-lib.sh"
# The test server is on 127.0.0.1: never send its requests to a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

mkdir srv &&
printf 'demo source\n' >srv/demo.tar.gz &&
printf 'not the demo source\n' >srv/evil.tar.gz &&
head -c 3000000 /dev/urandom >srv/big.bin &&
head -c 600 /dev/urandom >srv/small.bin &&
start_httpd srv || exit 1
demo=$(sha256_of srv/demo.tar.gz)
evil=$(sha256_of srv/evil.tar.gz)
big=$(sha256_of srv/big.bin)
small=$(sha256_of srv/small.bin)
U=$HTTP_URL

fetch() { "$TOOL_DIR/test-fetch" --retry-delay-ms 10 "$@"; }
# requests PATTERN: how many requests the server logged for a path.
requests() { grep -c "^GET $1 " .httpd.log; }
# empty DIR: fail unless DIR has no entries.
empty() { test -z "$(ls -A "$1")" || { ls -lA "$1"; false; }; }

expect_success 'fetch into the cache: named by digest, read-only' '
	echo "c/sha256/$demo" >expect &&
	echo "tfbuild: source '\''demo'\'': fetching $U/demo.tar.gz" >expect.err &&
	fetch --cache c --sha256 "$demo" "$U/demo.tar.gz" >actual 2>actual.err &&
	compare expect actual &&
	compare expect.err actual.err &&
	cmp srv/demo.tar.gz "c/sha256/$demo" &&
	test "$(stat -c %a "c/sha256/$demo")" = 444 &&
	empty c/tmp
'

expect_success 'a cache hit uses no network' '
	n=$(requests /demo.tar.gz) &&
	echo "c/sha256/$demo" >expect &&
	fetch --cache c --sha256 "$demo" "$U/demo.tar.gz" >actual 2>err &&
	compare expect actual &&
	compare /dev/null err &&
	test "$(requests /demo.tar.gz)" = "$n"
'

expect_success 'checksum mismatch: exact error, next mirror used' '
	cat >expect.err <<-EOF &&
	tfbuild: source '\''demo'\'': fetching $U/evil.tar.gz
	tfbuild: source '\''demo'\'': $U/evil.tar.gz: checksum mismatch: expected $demo, got $evil
	tfbuild: source '\''demo'\'': fetching $U/demo.tar.gz
	EOF
	echo "m/sha256/$demo" >expect &&
	fetch --cache m --sha256 "$demo" "$U/evil.tar.gz" "$U/demo.tar.gz" \
		>actual 2>actual.err &&
	compare expect actual &&
	compare expect.err actual.err &&
	ls m/sha256 >actual &&
	echo "$demo" >expect &&
	compare expect actual &&
	empty m/tmp
'

expect_success 'checksum mismatch on every URL: nothing left behind' '
	cat >expect.err <<-EOF &&
	tfbuild: source '\''demo'\'': $U/evil.tar.gz: checksum mismatch: expected $demo, got $evil
	tfbuild: source '\''demo'\'': no URL gave the expected file (sha256 $demo)
	EOF
	expect_code 1 fetch -q --cache x --sha256 "$demo" "$U/evil.tar.gz" \
		>actual 2>actual.err &&
	compare /dev/null actual &&
	compare expect.err actual.err &&
	empty x/sha256 &&
	empty x/tmp
'

expect_success 'offline: a hit works without a URL' '
	echo "c/sha256/$demo" >expect &&
	fetch --offline --cache c --sha256 "$demo" >actual &&
	compare expect actual
'

expect_success 'offline: a miss fails with the exact message, no request' '
	echo "tfbuild: source '\''demo'\'': not in the cache and --offline given (sha256 $big)" >expect.err &&
	expect_code 1 fetch --offline --cache c --sha256 "$big" "$U/big.bin" \
		>actual 2>actual.err &&
	compare /dev/null actual &&
	compare expect.err actual.err &&
	test "$(requests /big.bin)" = 0
'

expect_success 'redirects are followed' '
	echo "r/sha256/$demo" >expect &&
	fetch -q --cache r --sha256 "$demo" "$U/redirect/demo.tar.gz" >actual &&
	compare expect actual &&
	grep "^GET /redirect/demo.tar.gz range=- 302$" .httpd.log
'

expect_success 'a redirect to a file: URL is refused' '
	loc=$(printf "file://%s/srv/demo.tar.gz" "$TRASH" | sed "s|:|%3A|g; s|/|%2F|g") &&
	echo "tfbuild: source '\''demo'\'': $U/location/$loc: Protocol \"file\" not supported or disabled in libcurl" >expect.err &&
	expect_code 1 fetch -q --cache f --sha256 "$demo" "$U/location/$loc" \
		>actual 2>err &&
	head -n 1 err >actual.err &&
	compare expect.err actual.err &&
	empty f/sha256
'

expect_success 'HTTP 503 is retried with backoff, then succeeds' '
	cat >expect.err <<-EOF &&
	tfbuild: source '\''demo'\'': fetching $U/flaky/2/demo.tar.gz
	tfbuild: source '\''demo'\'': $U/flaky/2/demo.tar.gz: HTTP 503; retrying in 10 ms (attempt 2 of 4)
	tfbuild: source '\''demo'\'': $U/flaky/2/demo.tar.gz: HTTP 503; retrying in 20 ms (attempt 3 of 4)
	EOF
	echo "fl/sha256/$demo" >expect &&
	fetch --cache fl --sha256 "$demo" "$U/flaky/2/demo.tar.gz" \
		>actual 2>actual.err &&
	compare expect actual &&
	compare expect.err actual.err &&
	test "$(requests /flaky/2/demo.tar.gz)" = 3
'

expect_success 'retries run out: the last error says how many attempts' '
	cat >expect.err <<-EOF &&
	tfbuild: source '\''demo'\'': $U/flaky/9/demo.tar.gz: HTTP 503 (after 2 attempts)
	tfbuild: source '\''demo'\'': no URL gave the expected file (sha256 $demo)
	EOF
	expect_code 1 fetch -q --retries 1 --cache fo --sha256 "$demo" \
		"$U/flaky/9/demo.tar.gz" 2>actual.err &&
	compare expect.err actual.err &&
	test "$(requests /flaky/9/demo.tar.gz)" = 2 &&
	empty fo/sha256 && empty fo/tmp
'

expect_success 'HTTP 404 is not retried; the next mirror is' '
	cat >expect.err <<-EOF &&
	tfbuild: source '\''demo'\'': $U/missing.tar.gz: HTTP 404
	EOF
	echo "nf/sha256/$demo" >expect &&
	fetch -q --cache nf --sha256 "$demo" "$U/missing.tar.gz" \
		"$U/demo.tar.gz" >actual 2>actual.err &&
	compare expect actual &&
	compare expect.err actual.err &&
	test "$(requests /missing.tar.gz)" = 1
'

expect_success 'a connection refused is retried, then the next mirror used' '
	echo "cr/sha256/$demo" >expect &&
	fetch -q --retries 1 --cache cr --sha256 "$demo" \
		"http://127.0.0.1:1/demo.tar.gz" "$U/demo.tar.gz" >actual 2>err &&
	compare expect actual &&
	grep "^tfbuild: source .demo.: http://127.0.0.1:1/demo.tar.gz: .*Couldn.t connect to server (after 2 attempts)$" err
'

expect_success 'a cut transfer is resumed with a Range request' '
	echo "t/sha256/$big" >expect &&
	fetch --cache t --sha256 "$big" "$U/truncate/big.bin" >actual 2>err &&
	compare expect actual &&
	grep "^GET /truncate/big.bin range=bytes=1500000- 206$" .httpd.log &&
	test "$(requests /truncate/big.bin)" = 2 &&
	grep "truncate/big.bin: transfer closed with 1500000 bytes remaining to read; resuming in 10 ms (attempt 2 of 4)$" err &&
	cmp srv/big.bin "t/sha256/$big" &&
	empty t/tmp
'

expect_success 'a server that ignores Range on the retry: start over' '
	echo "nr/sha256/$big" >expect &&
	fetch --cache nr --sha256 "$big" "$U/truncate/norange/big.bin" \
		>actual 2>err &&
	compare expect actual &&
	grep "^GET /truncate/norange/big.bin range=bytes=1500000- 200$" .httpd.log &&
	grep "norange/big.bin: the server does not resume transfers; starting over$" err &&
	cmp srv/big.bin "nr/sha256/$big"
'

expect_success 'a stalled transfer times out (low speed) and is resumed' '
	echo "st/sha256/$small" >expect &&
	fetch -q --low-speed-time 1 --cache st --sha256 "$small" \
		"$U/stall/small.bin" >actual &&
	compare expect actual &&
	grep "^GET /stall/small.bin range=bytes=300- 206$" .httpd.log &&
	cmp srv/small.bin "st/sha256/$small"
'

expect_success 'a corrupt cache entry is trusted without --recheck' '
	mkdir -p k/sha256 &&
	cp srv/evil.tar.gz "k/sha256/$demo" &&
	echo "k/sha256/$demo" >expect &&
	fetch --cache k --sha256 "$demo" "$U/demo.tar.gz" >actual &&
	compare expect actual &&
	cmp srv/evil.tar.gz "k/sha256/$demo"
'

expect_success '--recheck deletes a corrupt cache entry and fetches again' '
	cat >expect.err <<-EOF &&
	tfbuild: warning: source '\''demo'\'': cached '\''k/sha256/$demo'\'' is corrupt (sha256 $evil); deleting it
	tfbuild: source '\''demo'\'': fetching $U/demo.tar.gz
	EOF
	echo "k/sha256/$demo" >expect &&
	fetch --recheck --cache k --sha256 "$demo" "$U/demo.tar.gz" \
		>actual 2>actual.err &&
	compare expect actual &&
	compare expect.err actual.err &&
	cmp srv/demo.tar.gz "k/sha256/$demo"
'

expect_success '--recheck --offline with a corrupt entry: deleted, then a miss' '
	mkdir -p ko/sha256 &&
	cp srv/evil.tar.gz "ko/sha256/$demo" &&
	expect_code 1 fetch -q --recheck --offline --cache ko \
		--sha256 "$demo" 2>err &&
	grep "not in the cache and --offline given" err &&
	empty ko/sha256
'

expect_success 'temporary files older than a day are cleaned up' '
	mkdir -p s/tmp &&
	touch -d "2 days ago" s/tmp/old &&
	touch s/tmp/new &&
	fetch -q --cache s --sha256 "$demo" "$U/demo.tar.gz" >/dev/null &&
	ls s/tmp >actual &&
	echo new >expect &&
	compare expect actual
'

expect_success 'credentials in URLs are never printed' '
	cred=$(echo "$U" | sed "s|://|://user:secret@|") &&
	shown=$(echo "$U" | sed "s|://|://***@|") &&
	cat >expect.err <<-EOF &&
	tfbuild: source '\''demo'\'': fetching $shown/missing.tar.gz
	tfbuild: source '\''demo'\'': $shown/missing.tar.gz: HTTP 404
	tfbuild: source '\''demo'\'': no URL gave the expected file (sha256 $demo)
	EOF
	expect_code 1 fetch --cache cc --sha256 "$demo" "$cred/missing.tar.gz" \
		2>actual.err &&
	compare expect.err actual.err
'

expect_success 'a bad sha256 is refused before any download' '
	echo "tfbuild: source '\''demo'\'': invalid sha256 '\''ABC'\'': want 64 lowercase hex digits" >expect.err &&
	expect_code 1 fetch --cache b --sha256 ABC "$U/demo.tar.gz" 2>actual.err &&
	compare expect.err actual.err &&
	! test -e b
'

test_done
