#include "unit.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "fetch.h"
#include "hash.h"
#include "path.h"

static void test_redact(void)
{
	static const struct {
		const char *url, *want;
	} cases[] = {
		{ "https://user:pass@host/x.tar.gz",
		  "https://***@host/x.tar.gz" },
		{ "https://token@host/x", "https://***@host/x" },
		{ "http://u:p@host:8080/a@b?c@d#e@f",
		  "http://***@host:8080/a@b?c@d#e@f" },
		{ "http://u:p@host", "http://***@host" },
		{ "http://u:p@host?q", "http://***@host?q" },
		{ "http://u:p@host#f", "http://***@host#f" },
		{ "http://a@b:c@host/", "http://***@host/" },
		{ "HTTPS://U:P@HOST/", "HTTPS://***@HOST/" },
		{ "git+https://u:p@host/r", "git+https://***@host/r" },
		{ "http://host/x", "http://host/x" },
		{ "http://host/a@b", "http://host/a@b" },
		{ "http://host?x=a@b", "http://host?x=a@b" },
		{ "file:///tmp/a@b", "file:///tmp/a@b" },
		{ "user:pass@host/x", "user:pass@host/x" },
		{ "/local/dir@2x/file", "/local/dir@2x/file" },
		{ "1http://u@h/", "1http://u@h/" },
		{ "", "" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		tf_buf_addstr(&b, "> ");
		tf_url_redact(cases[i].url, &b);
		CHECK_STR(b.buf + 2, cases[i].want);
	}
	tf_buf_release(&b);
}

static void test_encode(void)
{
	static const struct {
		const char *in, *path, *norm;
	} cases[] = {
		{ "/a/b-c.d_e~f/x.tar.gz", "/a/b-c.d_e~f/x.tar.gz",
		  "/a/b-c.d_e~f/x.tar.gz" },
		{ "file:///b dir/x", "file%3A///b%20dir/x",
		  "file:///b%20dir/x" },
		{ "file:///q'\"<>\\^`{|}",
		  "file%3A///q%27%22%3C%3E%5C%5E%60%7B%7C%7D",
		  "file:///q'%22%3C%3E%5C%5E%60%7B%7C%7D" },
		{ "file:///p%41%2x%", "file%3A///p%2541%252x%25",
		  "file:///p%41%252x%25" },
		{ "file:///h#?&=+", "file%3A///h%23%3F%26%3D%2B",
		  "file:///h#?&=+" },
		{ "file:///\xc3\xa9\t\x7f", "file%3A///%C3%A9%09%7F",
		  "file:///%C3%A9%09%7F" },
		{ "no scheme/a b", "no%20scheme/a%20b", "no scheme/a b" },
		{ "", "", "" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		tf_url_encode_path(cases[i].in, &b);
		CHECK_STR(b.buf, cases[i].path);
		tf_buf_reset(&b);
		tf_url_normalize(cases[i].in, &b);
		CHECK_STR(b.buf, cases[i].norm);
	}
	tf_buf_release(&b);
}

/*
 * A file URL is recorded relative to the recipe's directory, compared
 * decoded, so the checkout's own path never shows, however it is spelt.
 */
static void test_canonical(void)
{
	static const char odd[] = "/c o/q'\"%41#?\xc3\xa9/recipes";
	static const struct {
		const char *url, *dir, *want;
	} cases[] = {
		{ "file:///co/recipes/../build/mirror/x.tar.gz", "/co/recipes",
		  "file:../build/mirror/x.tar.gz" },
		{ "file:///c%20o/q%27%22%2541%23%3F%C3%A9/recipes/../build/x.tgz",
		  odd, "file:../build/x.tgz" },
		{ "file:///c o/q'%22%2541%23%3F%c3%a9/recipes/./a%20b.tgz", odd,
		  "file:a%20b.tgz" },
		{ "file:///c%20o/other/x.tgz", odd, "file:../../other/x.tgz" },
		{ "file:///co/recipes/x.tgz?q#f", "/co/recipes",
		  "file:x.tgz?q#f" },
		{ "file:///else/where", "/co/recipes",
		  "file:../../else/where" },
		{ "https://u:p@h/a b", "/co/recipes", "https://***@h/a%20b" },
		{ "file:///co/x", NULL, "file:///co/x" },
		{ "/co/recipes/x", "/co/recipes", "/co/recipes/x" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		tf_url_canonical(cases[i].url, cases[i].dir, &b);
		CHECK_STR(b.buf, cases[i].want);
	}
	tf_buf_release(&b);
}

static void test_opts_init(void)
{
	struct tf_fetch_opts o = TF_FETCH_OPTS_INIT;

	CHECK(o.cache_dir == NULL);
	CHECK_INT(o.offline, 0);
	CHECK_INT(o.retries, -1);
	CHECK_INT(o.retry_delay_ms, 0);
	CHECK_INT(o.recheck, 0);
}

/* file: URLs need no network: digest, cache fill, hit and mismatch. */
static void test_file_url(void)
{
	static const char data[] = "hello tfbuild\n";
	struct tf_fetch_opts o = TF_FETCH_OPTS_INIT;
	struct tf_buf dir = TF_BUF_INIT, url = TF_BUF_INIT, path = TF_BUF_INIT;
	struct tf_buf want = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1], got[TF_SHA256_HEX_LEN + 1];
	const char *urls[1];
	struct stat st;
	const char *tmp = getenv("TMPDIR");

	if (tf_mkdtemp_in(tmp && *tmp ? tmp : "/tmp", "fetch_test", &dir) < 0) {
		CHECK(!"cannot create a temporary directory");
		return;
	}
	tf_buf_addf(&url, "%s/data", dir.buf);
	CHECK_INT(tf_write_file_atomic(url.buf, data, sizeof(data) - 1, 0), 0);
	CHECK_INT(tf_sha256_file(url.buf, md, NULL), 0);
	tf_sha256_hex(md, hex);
	CHECK_INT(tf_fetch_digest(&o, url.buf, got), 0);
	CHECK_STR(got, hex);
	tf_buf_setf(&url, "file://%s/data", dir.buf);
	CHECK_INT(tf_fetch_digest(&o, url.buf, got), 0);
	CHECK_STR(got, hex);
	/* A name with a space, typed as is or percent-encoded. */
	tf_buf_setf(&url, "%s/a b", dir.buf);
	CHECK_INT(tf_write_file_atomic(url.buf, data, sizeof(data) - 1, 0), 0);
	tf_buf_setf(&url, "file://%s/a b", dir.buf);
	CHECK_INT(tf_fetch_digest(&o, url.buf, got), 0);
	CHECK_STR(got, hex);
	tf_buf_setf(&url, "file://%s/a%%20b", dir.buf);
	CHECK_INT(tf_fetch_digest(&o, url.buf, got), 0);
	CHECK_STR(got, hex);
	tf_buf_setf(&url, "file://%s/data", dir.buf);

	tf_buf_addstr(&dir, "/cache");
	o.cache_dir = dir.buf;
	o.retries = 0;
	urls[0] = url.buf;
	CHECK_INT(tf_fetch(&o, "unit", urls, NULL, 1, hex, &path), 0);
	tf_buf_addf(&want, "%s/sha256/%s", dir.buf, hex);
	CHECK_STR(path.buf, want.buf);
	CHECK(stat(path.buf, &st) == 0 && (st.st_mode & 07777) == 0444);
	o.offline = 1;
	tf_buf_reset(&path);
	CHECK_INT(tf_fetch(&o, "unit", urls, NULL, 0, hex, &path), 0);
	CHECK_STR(path.buf, want.buf);
	o.offline = 0;
	hex[0] = hex[0] == '0' ? '1' : '0';
	CHECK_INT(tf_fetch(&o, "unit", urls, NULL, 1, hex, &path), -1);
	CHECK_INT(tf_fetch(&o, "unit", urls, NULL, 1, "not-hex", &path), -1);

	tf_buf_setlen(&dir, dir.len - strlen("/cache"));
	tf_rm_rf(dir.buf);
	tf_buf_release(&dir);
	tf_buf_release(&url);
	tf_buf_release(&path);
	tf_buf_release(&want);
}

int main(void)
{
	test_redact();
	test_encode();
	test_canonical();
	test_opts_init();
	test_file_url();
	return unit_done();
}
