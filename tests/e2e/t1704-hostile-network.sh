#!/bin/sh
# Network faults from a local server (tests/lib/httpd.py) against
# `tfbuild fetch` of a pinned source: each ends as documented
# (docs/security.md#network), within the low-speed time the test sets
# (TFBUILD_FETCH_LOW_SPEED_TIME=2), and leaves no file in the cache
# that does not match its name, and no temporary file.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/hostile/lib.sh"

export TFBUILD_FETCH_LOW_SPEED_TIME=2 TFBUILD_FETCH_RETRY_DELAY_MS=50

expect_success 'set up a source and the servers' '
	mkdir www &&
	"$PYTHON" -c "import os; open(\"www/src.tar.gz\", \"wb\").write(os.urandom(300000))" &&
	echo wrong >www/wrong.tar.gz &&
	start_httpd www &&
	echo "$HTTP_URL" >http.url &&
	openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
		-keyout key.pem -out cert.pem -days 1 2>/dev/null &&
	{ "$PYTHON" "$TESTS_DIR/lib/httpd.py" --root www --port-file tls.port \
		--tls cert.pem key.pem 2>tls.log & } &&
	echo $! >tls.pid &&
	i=0 && while [ ! -s tls.port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done &&
	test -s tls.port
'
at_exit 'stop_pid "$(cat "$TRASH/tls.pid" 2>/dev/null)"'
HTTP_URL=$(cat http.url)
TLS_URL="https://127.0.0.1:$(cat tls.port 2>/dev/null)"
SUM=$(sha256_of www/src.tar.gz)

# fault NAME URL WANT REGEX: fetch URL as the pinned source.
fault() {
	name=$1 url=$2 want=$3 rx=$4
	mkdir -p "$name" &&
	printf 'schema: 1\nname: h\nversion: "1"\nsources:\n  - name: s\n    url: %s\n    sha256: %s\n' \
		"$url" "$SUM" >"$name/r.yaml"
	timeout 60 "$TFBUILD" fetch -q "$name/r.yaml" --cache "$name/cache" >"$name/err" 2>&1
	rc=$?
	extra=
	for f in "$name"/cache/sha256/*; do
		[ -f "$f" ] || continue
		[ "$(sha256_of "$f")" = "$(basename "$f")" ] || extra=poisoned
	done
	if [ -d "$name/cache/tmp" ] && [ -n "$(ls -A "$name/cache/tmp")" ]; then
		extra=${extra:-partial}
	fi
	hostile_judge network "$name" "$want" "$rx" "$rc" "$name/err" "$extra"
}

U=$(printf '%s' "$HTTP_URL" | sed 's/[.]/\\./g')
expect_success 'connection dropped mid-body: resumed with a Range request' '
	fault dropped "$HTTP_URL/truncate/src.tar.gz" 0 ""
'
expect_success 'HTTP 500 then success: retried with backoff' '
	fault flaky "$HTTP_URL/flaky/2/src.tar.gz" 0 ""
'
expect_success 'a stall ends within the low-speed time and is resumed' '
	fault stall "$HTTP_URL/stall/src.tar.gz" 0 ""
'
expect_success 'wrong bytes: the URL and both digests named, nothing cached' '
	fault wrong "$HTTP_URL/wrong.tar.gz" 4 \
		"source '"'"'s'"'"': $U/wrong\.tar\.gz: checksum mismatch: expected $SUM, got [0-9a-f]{64}"
'
expect_success 'a redirect loop is bounded' '
	fault loop "$HTTP_URL/loop/0" 4 "source '"'"'s'"'"': $U/loop/0: Maximum \\(10\\) redirects followed"
'
expect_success 'a redirect to file:// is refused' '
	fault file-redirect "$HTTP_URL/location/file%3A%2F%2F%2Fetc%2Fpasswd" 4 \
		"source '"'"'s'"'"': $U/location/file%3A%2F%2F%2Fetc%2Fpasswd: Protocol \"file\" not supported or disabled in libcurl"
'
expect_success 'a 1-byte-per-second drip ends by the low-speed limit' '
	start=$(date +%s) &&
	TFBUILD_FETCH_RETRY_DELAY_MS=10 fault drip "$HTTP_URL/drip/x" 4 \
		"source '"'"'s'"'"': $U/drip/x: Operation too slow\\. Less than 4096 bytes/sec transferred the last 2 seconds \\(after 4 attempts\\)" &&
	test $(($(date +%s) - start)) -lt 40
'
expect_success 'TLS with an untrusted certificate is refused, naming the URL' '
	fault tls "$TLS_URL/src.tar.gz" 4 \
		"source '"'"'s'"'"': https://127\.0\.0\.1:[0-9]+/src\.tar\.gz: SSL certificate problem: self-signed certificate"
'

test_done
