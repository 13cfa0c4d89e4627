#ifndef TF_CACHE_REMOTE_H
#define TF_CACHE_REMOTE_H

/*
 * A client of the Bazel HTTP remote cache protocol: GET and PUT of
 * URL/ac/KEY and URL/cas/SHA256 (libcurl; the only file of the cache
 * that includes it). Credentials come from the URL's user:password (from
 * the environment or config file) or from ~/.netrc (CURLOPT_NETRC); the
 * URL shown in messages has them removed.
 */

struct tf_buf;
struct tf_sha256;

struct tf_remote;

/*
 * A client for the cache at url; timeout is the low-speed limit in
 * seconds (a transfer below 1 KiB/s for that long, or a connection not
 * made in that time, fails). NULL after reporting if url is not http(s).
 */
struct tf_remote *tf_remote_new(const char *url, long timeout);
void tf_remote_free(struct tf_remote *r);
/* The URL without credentials, for messages. */
const char *tf_remote_shown(const struct tf_remote *r);

/* What tf_remote_get gives. */
enum tf_remote_result {
	TF_REMOTE_OK,        /* got it */
	TF_REMOTE_NOT_FOUND, /* the server has no such entry (404) */
	TF_REMOTE_ERROR,     /* anything else: why says what (no report) */
};

/*
 * GET base/path into out (at most cap bytes) or, with fd >= 0, into fd
 * (at most cap bytes, hashed into h when h is not NULL).
 */
enum tf_remote_result tf_remote_get(struct tf_remote *r, const char *path,
				    struct tf_buf *out, int fd, long long cap,
				    struct tf_sha256 *h, struct tf_buf *why);
/*
 * PUT data (len bytes), or the file open at fd (len bytes from its
 * start) when data is NULL, to base/path. 0, or -1 with why.
 */
int tf_remote_put(struct tf_remote *r, const char *path, const void *data,
		  int fd, long long len, struct tf_buf *why);

#endif
