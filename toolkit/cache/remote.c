#include "remote.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "dl/dl.h"
#include "base/base.h"

#define LOW_SPEED_BYTES 1024L

struct tf_remote {
	CURL *curl;  /* owned, reused: one connection */
	char *base;  /* owned: the URL without a trailing '/' */
	char *shown; /* owned: base without credentials */
	long timeout;
	char errbuf[CURL_ERROR_SIZE];
};

/* base without user:password@, through libcurl's URL parser. */
static char *redact(const char *url)
{
	CURLU *u = curl_url();
	char *s = NULL, *ret;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) ||
	    curl_url_set(u, CURLUPART_USER, NULL, 0) ||
	    curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) ||
	    curl_url_get(u, CURLUPART_URL, &s, 0)) {
		curl_url_cleanup(u);
		return NULL;
	}
	ret = tf_strdup(s);
	curl_free(s);
	curl_url_cleanup(u);
	return ret;
}

struct tf_remote *tf_remote_new(const char *url, long timeout)
{
	struct tf_remote *r;
	size_t n = strlen(url);
	char *shown;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return error("remote cache: '%s' is not an http:// or https:// URL",
			     url),
		       NULL;
	if (tf_dl_curl() < 0)
		return NULL;
	while (n > 1 && url[n - 1] == '/')
		n--;
	shown = redact(url);
	if (!shown)
		return error("remote cache: cannot parse the URL"), NULL;
	while (strlen(shown) > 1 && shown[strlen(shown) - 1] == '/')
		shown[strlen(shown) - 1] = '\0';
	r = tf_calloc(1, sizeof(*r));
	r->base = tf_strndup(url, n);
	r->shown = shown;
	r->timeout = timeout > 0 ? timeout : 30;
	r->curl = curl_easy_init();
	if (!r->curl) {
		tf_remote_free(r);
		return error("remote cache: cannot start libcurl"), NULL;
	}
	return r;
}

void tf_remote_free(struct tf_remote *r)
{
	if (!r)
		return;
	if (r->curl)
		curl_easy_cleanup(r->curl);
	free(r->base);
	free(r->shown);
	free(r);
}

const char *tf_remote_shown(const struct tf_remote *r)
{
	return r->shown;
}

struct sink {
	struct tf_buf *out; /* or fd */
	int fd;
	long long cap, got;
	struct tf_sha256 *h;
	int over; /* 1: more than cap arrived */
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;

	if (s->got + (long long)n > s->cap) {
		s->over = 1;
		return 0;
	}
	s->got += (long long)n;
	if (s->h)
		tf_sha256_update(s->h, p, n);
	if (s->fd >= 0)
		return tf_write_all(s->fd, p, n) ? 0 : n;
	return tf_buf_add(s->out, p, n) ? 0 : n;
}

static size_t on_read(char *p, size_t size, size_t nmemb, void *arg)
{
	int fd = *(int *)arg;
	ssize_t n;

	do
		n = read(fd, p, size * nmemb);
	while (n < 0 && errno == EINTR);
	return n < 0 ? CURL_READFUNC_ABORT : (size_t)n;
}

static void setup(struct tf_remote *r, const char *path)
{
	char *url = tf_xstrfmt("%s/%s", r->base, path);
	CURL *c = r->curl;

	curl_easy_reset(c);
	r->errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, r->timeout);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED_BYTES);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, r->timeout);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "tfbuild/" TF_VERSION);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->errbuf);
	free(url);
}

/* Why a transfer failed, without the URL. */
static int failed(struct tf_remote *r, CURLcode rc, const char *what,
		  const char *path, struct tf_buf *why)
{
	return tf_why(why, "%s %s: %s", what, path,
		      *r->errbuf ? r->errbuf : curl_easy_strerror(rc));
}

enum tf_remote_result tf_remote_get(struct tf_remote *r, const char *path,
				    struct tf_buf *out, int fd, long long cap,
				    struct tf_sha256 *h, struct tf_buf *why)
{
	struct sink s = { out, fd, cap, 0, h, 0 };
	long code = 0;
	CURLcode rc;

	setup(r, path);
	curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(r->curl, CURLOPT_FAILONERROR, 0L);
	rc = curl_easy_perform(r->curl);
	curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code == 404 && (rc == CURLE_OK || rc == CURLE_WRITE_ERROR))
		return TF_REMOTE_NOT_FOUND;
	if (s.over)
		tf_why(why, "GET %s: more than the %lld bytes expected", path,
		       cap);
	else if (rc != CURLE_OK)
		failed(r, rc, "GET", path, why);
	else if (code != 200)
		tf_why(why, "GET %s: HTTP %ld", path, code);
	else
		return TF_REMOTE_OK;
	return TF_REMOTE_ERROR;
}

int tf_remote_put(struct tf_remote *r, const char *path, const void *data,
		  int fd, long long len, struct tf_buf *why)
{
	struct tf_buf ignore = TF_BUF_INIT;
	struct sink s = { &ignore, -1, 1 << 16, 0, NULL, 0 };
	long code = 0;
	CURLcode rc;

	setup(r, path);
	if (!data && lseek(fd, 0, SEEK_SET) < 0)
		return tf_why(why, "PUT %s: cannot read the file: %s", path,
			      strerror(errno));
	curl_easy_setopt(r->curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(r->curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	if (data) {
		/* Small bodies (action entries) go as they are. */
		curl_easy_setopt(r->curl, CURLOPT_UPLOAD, 0L);
		curl_easy_setopt(r->curl, CURLOPT_CUSTOMREQUEST, "PUT");
		curl_easy_setopt(r->curl, CURLOPT_POSTFIELDS, data);
		curl_easy_setopt(r->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)len);
	} else {
		curl_easy_setopt(r->curl, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(r->curl, CURLOPT_READDATA, &fd);
	}
	curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &s);
	rc = curl_easy_perform(r->curl);
	curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &code);
	tf_buf_release(&ignore);
	if (rc != CURLE_OK)
		return failed(r, rc, "PUT", path, why);
	if (code < 200 || code > 299)
		return tf_why(why, "PUT %s: HTTP %ld", path, code);
	return 0;
}
