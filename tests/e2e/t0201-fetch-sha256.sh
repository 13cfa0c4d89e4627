#!/bin/sh
# tfbuild sha256: files, stdin, file:// and http URLs print what sha256sum
# prints; a failed argument gives one exact error and exit 4; usage
# errors exit 2.
. "$(dirname "$0")/../lib/test-lib.sh"
# The test server is on 127.0.0.1: never send its requests to a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

mkdir srv &&
printf 'hello\n' >srv/hello.txt &&
head -c 2000000 /dev/urandom >srv/data.bin &&
start_httpd srv || exit 1
cred_url=$(echo "$HTTP_URL" | sed 's|://|://user:secret@|')
shown_url=$(echo "$HTTP_URL" | sed 's|://|://***@|')

expect_success 'files: same output as sha256sum' '
	(cd srv && sha256sum hello.txt data.bin) >expect &&
	(cd srv && tfbuild sha256 hello.txt data.bin) >actual &&
	compare expect actual
'

expect_success 'standard input for -' '
	sha256sum - <srv/data.bin >expect &&
	tfbuild sha256 - <srv/data.bin >actual &&
	compare expect actual
'

expect_success 'file:// and http URLs: same digest, the URL as the name' '
	h=$(sha256_of srv/data.bin) &&
	printf "%s  %s\n" "$h" "file://$TRASH/srv/data.bin" \
		"$h" "$HTTP_URL/data.bin" >expect &&
	tfbuild sha256 "file://$TRASH/srv/data.bin" "$HTTP_URL/data.bin" \
		>actual 2>err &&
	compare expect actual &&
	compare /dev/null err
'

expect_success 'redirects are followed' '
	printf "%s  %s\n" "$(sha256_of srv/hello.txt)" \
		"$HTTP_URL/redirect/hello.txt" >expect &&
	tfbuild sha256 "$HTTP_URL/redirect/hello.txt" >actual &&
	compare expect actual
'

expect_success 'a cut transfer is resumed with a Range request' '
	printf "%s  %s\n" "$(sha256_of srv/data.bin)" \
		"$HTTP_URL/truncate/data.bin" >expect &&
	tfbuild sha256 "$HTTP_URL/truncate/data.bin" >actual &&
	compare expect actual &&
	grep "^GET /truncate/data.bin range=bytes=1000000- 206$" .httpd.log
'

expect_success 'a 404: exact error, exit 4, other arguments still printed' '
	printf "%s  hello.txt\n" "$(sha256_of srv/hello.txt)" >expect &&
	echo "tfbuild: $HTTP_URL/missing.tar.gz: HTTP 404" >expect.err &&
	(cd srv && expect_code 4 "$TFBUILD" sha256 \
		"$HTTP_URL/missing.tar.gz" hello.txt >../actual 2>../actual.err) &&
	compare expect actual &&
	compare expect.err actual.err
'

expect_success 'a 404 is not retried' '
	echo 1 >expect &&
	grep -c "^GET /missing.tar.gz " .httpd.log >actual &&
	compare expect actual
'

expect_success 'a missing file: exact error and exit 4' '
	printf "tfbuild: cannot open \047nope\047: No such file or directory\n" \
		>expect.err &&
	expect_code 4 tfbuild sha256 nope >actual 2>actual.err &&
	compare /dev/null actual &&
	compare expect.err actual.err
'

expect_success 'credentials in a URL are never printed' '
	printf "%s  %s\n" "$(sha256_of srv/hello.txt)" \
		"$shown_url/hello.txt" >expect &&
	echo "tfbuild: $shown_url/missing: HTTP 404" >expect.err &&
	expect_code 4 tfbuild sha256 "$cred_url/hello.txt" "$cred_url/missing" \
		>actual 2>actual.err &&
	compare expect actual &&
	compare expect.err actual.err
'

expect_success 'no argument: usage error, exit 2' '
	echo "tfbuild: no FILE or URL given" >expect &&
	expect_code 2 tfbuild sha256 2>err &&
	head -n 1 err >actual &&
	compare expect actual &&
	grep "^usage: tfbuild sha256 " err
'

expect_success 'unknown option: usage error, exit 2, nothing hashed' '
	printf "tfbuild: unknown option \047--bogus\047\n" >expect &&
	expect_code 2 tfbuild sha256 srv/hello.txt --bogus >out 2>err &&
	head -n 1 err >actual &&
	compare expect actual &&
	compare /dev/null out
'

expect_success '-- ends the options' '
	cp srv/hello.txt ./-x &&
	sha256sum -- -x >expect &&
	tfbuild sha256 -- -x >actual &&
	compare expect actual
'

expect_success 'help sha256 prints the usage' '
	tfbuild help sha256 >out &&
	echo "usage: tfbuild sha256 [--] FILE|URL..." >expect &&
	head -n 1 out >actual &&
	compare expect actual
'

test_done
