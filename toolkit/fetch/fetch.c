/*
 * Fetch: downloads into the content-addressed cache, hashing the bytes as
 * they arrive. The only file that includes libcurl.
 *
 * Why a cache hit is trusted. A file is only ever renamed into
 * <cache>/sha256/<hex> after the SHA-256 of exactly the bytes written to
 * it matched <hex>; it is fsynced and made read-only (0444) first, and the
 * rename is atomic. A killed tfbuild therefore leaves at most a temp file
 * in <cache>/tmp/ (never used; deleted once a day old), never a partial or
 * unverified file under sha256/. So a hit is used without re-hashing.
 * With opts->recheck a hit is re-hashed anyway, and one that no longer
 * matches (disk corruption, someone writing into the cache) is deleted
 * and fetched again.
 *
 * A download tries each URL in order, each up to 1 + retries times. Only
 * transient failures are retried, after an exponential backoff: could
 * not resolve or connect, timeout (including the low-speed limit), a
 * connection cut short, HTTP 408, 429 and 5xx. An attempt after bytes
 * already arrived resumes with a Range request and continues the same
 * running digest; a server that answers with the whole file instead makes
 * the temp file and the digest start over. A checksum mismatch or a
 * permanent error (HTTP 404, TLS verification...) moves on to the next
 * URL at once.
 *
 * Bounds: one URL gets max_time seconds for all its attempts (a server
 * that drips a byte at a time above the low-speed limit is cut off
 * then), and its body may not be longer than the source's `size:`, or
 * TFBUILD_FETCH_MAX_BYTES without one; a body of another size than
 * `size:` is refused before its digest is even compared.
 */
#include "fetch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "dl/dl.h"
#include "base/base.h"
#include "ui/ui.h"
#include "url.h"

#ifndef TF_VERSION
#define TF_VERSION "dev"
#endif

#define MAX_REDIRS 10L
/*
 * The slowest a download may be, bytes per second, for as long as
 * opts->low_speed_time says (60 s): an attempt under it ends (and is
 * retried, resuming). Above 2 KiB/s, so an endless drip at that rate
 * fails in minutes (4 attempts of 60 s), not at TF_FETCH_MAX_TIME.
 */
#define LOW_SPEED_BYTES 4096L
#define LOW_SPEED_TIME 60L

/*
 * The fetch timings a pipeline (or a test) may change without a
 * rebuild: a positive integer from the environment, else def.
 * docs/security.md#network lists them.
 */
static long env_seconds(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 10);
	return *end || n <= 0 ? def : n;
}
#define MAX_DELAY_MS 30000L /* cap on one backoff delay */
#define STALE_TMP_SECONDS (24L * 60 * 60)

/* One URL's download: where the bytes go and what has arrived so far. */
struct xfer {
	CURL *curl;          /* owned */
	const char *subject; /* borrowed; "label: redacted URL", for messages */
	/* info() or verbose(): where retry notices go */
	void (*note)(const char *fmt, ...) TF_PRINTF(1, 2);
	int fd;              /* borrowed temp file, or -1 to only hash */
	struct tf_sha256 *h; /* owned; digest of the bytes [0, got) */
	long long got;       /* bytes received, hashed and written */
	long long from;      /* offset the current attempt started at */
	int checked;         /* the response status was looked at */
	long status;         /* an HTTP status refused this attempt, else 0 */
	int write_errno;     /* errno of a failed write to fd, else 0 */
	uint64_t max_bytes;  /* the most the body may have */
	long long size;      /* the exact size wanted, or 0 */
	int too_big;         /* 1: the body went past max_bytes */
	long max_time;       /* seconds for all attempts together */
	long long deadline;  /* when they are up: monotonic, ms */
	char errbuf[CURL_ERROR_SIZE]; /* libcurl's detail on the last failure */
};

/* What one attempt came to, and so what to do next. */
enum outcome {
	DONE,    /* all bytes arrived */
	RETRY,   /* transient failure: back off, then resume or retry */
	RESTART, /* the server refused to resume: start over at once */
	FAIL,    /* permanent failure: give up on this URL */
};

static int global_init(void)
{
	static int done;
	CURLcode rc;

	if (done)
		return 0;
	if (tf_dl_curl() < 0)
		return -1;
	rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK)
		return error("cannot initialize libcurl: %s",
			     curl_easy_strerror(rc));
	done = 1;
	return 0;
}

/* Throw away what arrived so far: the next byte is byte 0 again. */
static int restart(struct xfer *x)
{
	tf_sha256_free(x->h);
	x->h = tf_sha256_new();
	x->got = 0;
	if (x->fd >= 0 &&
	    (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0)) {
		x->write_errno = errno;
		return -1;
	}
	return 0;
}

/*
 * Look at the status once per attempt, before any byte is kept. HTTP must
 * answer 200, or 206 to a resume; file: URLs have no status (0). A 200 to
 * a resume is the whole file again, so start over. libcurl already
 * refuses most of those (CURLE_RANGE_ERROR); this covers the rest.
 */
static int check_response(struct xfer *x)
{
	long code = 0;

	x->checked = 1;
	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code == 0 || (code == 206 && x->from > 0))
		return 0;
	if (code == 200)
		return x->from > 0 ? restart(x) : 0;
	x->status = code;
	return -1;
}

/* libcurl's write callback: keep and hash the bytes; 0 aborts. */
static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t len = size * nmemb;

	if (!x->checked && check_response(x) < 0)
		return 0;
	if ((uint64_t)x->got + len > x->max_bytes) {
		x->too_big = 1;
		return 0;
	}
	if (x->fd >= 0 && tf_write_all(x->fd, p, len) < 0) {
		x->write_errno = errno;
		return 0;
	}
	tf_sha256_update(x->h, p, len);
	x->got += (long long)len;
	tf_ui_fetch_progress(x->subject, x->got);
	return len;
}

static CURL *new_handle(const struct tf_fetch_opts *o, const char *url,
			struct xfer *x)
{
	long connect = o->connect_timeout > 0 ? o->connect_timeout : 30;
	long slow = o->low_speed_time > 0
			    ? o->low_speed_time
			    : env_seconds("TFBUILD_FETCH_LOW_SPEED_TIME",
					  LOW_SPEED_TIME),
	     rate = env_seconds("TFBUILD_FETCH_LOW_SPEED_LIMIT",
				LOW_SPEED_BYTES);
	CURL *c;

	if (global_init() < 0)
		return NULL;
	c = curl_easy_init();
	if (!c) {
		error("%s: cannot create a libcurl handle", x->subject);
		return NULL;
	}
	/* Redirects may not lead to file: a server must not make us read
	   local files. TLS verification is libcurl's default; say it anyway. */
	if (curl_easy_setopt(c, CURLOPT_URL, url) ||
	    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file") ||
	    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") ||
	    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L) ||
	    curl_easy_setopt(c, CURLOPT_MAXREDIRS, MAX_REDIRS) ||
	    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L) ||
	    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L) ||
	    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect) ||
	    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, rate) ||
	    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, slow) ||
	    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) ||
	    curl_easy_setopt(c, CURLOPT_USERAGENT, "tfbuild/" TF_VERSION) ||
	    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data) ||
	    curl_easy_setopt(c, CURLOPT_WRITEDATA, x) ||
	    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, x->errbuf)) {
		error("%s: cannot set up libcurl", x->subject);
		curl_easy_cleanup(c);
		return NULL;
	}
	verbose("%s: bounds: at least %ld bytes/s over %ld s "
		"(TFBUILD_FETCH_LOW_SPEED_LIMIT, _TIME), %ld s in all "
		"(TFBUILD_FETCH_MAX_TIME)",
		x->subject, rate, slow, x->max_time);
	return c;
}

static int transient_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

static int transient_status(long status)
{
	return status == 408 || status == 429 ||
	       (status >= 500 && status < 600);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Decide what a finished attempt means; why gets the cause if it failed. */
static enum outcome classify(struct xfer *x, CURLcode rc, struct tf_buf *why)
{
	tf_buf_reset(why);
	if (x->too_big) {
		if (x->size)
			tf_buf_addf(why,
				    "the body is larger than the %lld bytes "
				    "its size: says",
				    x->size);
		else
			tf_buf_addf(why,
				    "the body is larger than %llu bytes "
				    "(TFBUILD_FETCH_MAX_BYTES; a source may "
				    "give its size:)",
				    (unsigned long long)x->max_bytes);
		return FAIL;
	}
	if (rc != CURLE_OK && !x->status && now_ms() >= x->deadline) {
		tf_buf_addf(why,
			    "not whole after %ld seconds, %lld bytes in "
			    "(TFBUILD_FETCH_MAX_TIME)",
			    x->max_time, x->got);
		return FAIL;
	}
	if (x->write_errno) {
		tf_buf_addf(why, "cannot write the download: %s",
			    strerror(x->write_errno));
		return FAIL;
	}
	if (x->status) {
		tf_buf_addf(why, "HTTP %ld", x->status);
		if (x->status == 416 && x->from > 0)
			return RESTART;
		return transient_status(x->status) ? RETRY : FAIL;
	}
	if (rc == CURLE_OK)
		return DONE;
	if (rc == CURLE_RANGE_ERROR && x->from > 0) {
		tf_buf_addstr(why, "the server does not resume transfers");
		return RESTART;
	}
	tf_buf_addstr(why, x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
	return transient_curl(rc) ? RETRY : FAIL;
}

static enum outcome attempt(struct xfer *x, struct tf_buf *why)
{
	CURLcode rc;
	long long left = x->deadline - now_ms();

	x->from = x->got;
	x->checked = 0;
	x->status = 0;
	x->errbuf[0] = '\0';
	if (x->from)
		verbose("%s: resuming at byte %lld", x->subject, x->from);
	curl_easy_setopt(x->curl, CURLOPT_RESUME_FROM_LARGE,
			 (curl_off_t)x->from);
	/* What is left of the URL's time; 1 ms at least: 0 means none. */
	curl_easy_setopt(x->curl, CURLOPT_TIMEOUT_MS,
			 (long)(left > 0 ? left : 1));
	rc = curl_easy_perform(x->curl);
	/* An empty body never reached on_data: check the status now. */
	if (rc == CURLE_OK && !x->checked)
		check_response(x);
	return classify(x, rc, why);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Attempts until done, a permanent failure or no retries left. */
static int retry_loop(const struct tf_fetch_opts *o, struct xfer *x,
		      struct tf_buf *why)
{
	int tries = 1 + (o->retries >= 0 ? o->retries : 3), n = 1;
	long delay = o->retry_delay_ms > 0
			     ? o->retry_delay_ms
			     : env_seconds("TFBUILD_FETCH_RETRY_DELAY_MS", 500);

	for (;;) {
		enum outcome r = attempt(x, why);

		if (r == DONE)
			return 0;
		if (r == RESTART) {
			x->note("%s: %s; starting over", x->subject, why->buf);
			if (restart(x) < 0) {
				classify(x, CURLE_OK, why);
				return -1;
			}
			continue;
		}
		if (r == FAIL || n >= tries) {
			if (n > 1)
				tf_buf_addf(why, " (after %d attempts)", n);
			return -1;
		}
		x->note("%s: %s; %s in %ld ms (attempt %d of %d)", x->subject,
			why->buf, x->got ? "resuming" : "retrying", delay,
			n + 1, tries);
		sleep_ms(delay);
		delay = delay * 2 < MAX_DELAY_MS ? delay * 2 : MAX_DELAY_MS;
		n++;
	}
}

/*
 * Download url, writing to fd unless it is -1, and put the SHA-256 of
 * the bytes in hex. Reports its own failure, naming subject.
 */
static int download(const struct tf_fetch_opts *o, const char *subject,
		    const char *url, int fd, int loud, char hex[65])
{
	struct xfer x = { .subject = subject, .fd = fd };
	struct tf_buf why = TF_BUF_INIT, norm = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	int ret = -1;

	x.note = loud ? info : verbose;
	x.size = o->size > 0 ? o->size : 0;
	if (x.size)
		x.max_bytes = (uint64_t)x.size;
	else if (tf_limit_get(&TF_LIMIT_FETCH_BYTES, &x.max_bytes) < 0)
		return -1;
	x.max_time = o->max_time > 0 ? o->max_time
				     : env_seconds("TFBUILD_FETCH_MAX_TIME",
						   TF_FETCH_MAX_TIME);
	x.deadline = now_ms() + x.max_time * 1000;
	x.h = tf_sha256_new();
	/* A space or a non-ASCII byte the user typed is escaped, not refused. */
	tf_url_normalize(url, &norm);
	x.curl = new_handle(o, norm.buf, &x);
	if (!x.curl)
		goto out;
	if (retry_loop(o, &x, &why) < 0) {
		error("%s: %s", subject, why.buf);
		goto out;
	}
	if (x.size && x.got != x.size) {
		error("%s: the body has %lld bytes, not the %lld its size: says",
		      subject, x.got, x.size);
		goto out;
	}
	tf_sha256_final(x.h, md);
	x.h = NULL;
	tf_sha256_hex(md, hex);
	verbose("%s: %lld bytes, sha256 %s", subject, x.got, hex);
	ret = 0;
out:
	curl_easy_cleanup(x.curl);
	tf_sha256_free(x.h);
	tf_buf_release(&why);
	tf_buf_release(&norm);
	return ret;
}

/* Best effort: make a rename in path's directory survive a crash. */
static void sync_dir_of(const char *path)
{
	struct tf_buf dir = TF_BUF_INIT;
	int fd;

	tf_path_dirname(&dir, path);
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	tf_buf_release(&dir);
}

/* The verified temp file becomes durable, read-only, and then visible. */
static int commit_file(const char *subject, int fd, const char *tmp,
		       const char *dest)
{
	if (fsync(fd) < 0 || fchmod(fd, 0444) < 0)
		return error_errno("%s: cannot write '%s'", subject, tmp);
	if (rename(tmp, dest) < 0)
		return error_errno("%s: cannot rename '%s' to '%s'", subject,
				   tmp, dest);
	sync_dir_of(dest);
	return 0;
}

/*
 * Download one URL into tmpdir, check its digest and move it to dest;
 * messages name it as shown, or redacted if shown is NULL.
 */
static int fetch_url(const struct tf_fetch_opts *o, const char *label,
		     const char *url, const char *shown_as, const char *sha256,
		     const char *tmpdir, const char *dest)
{
	struct tf_buf shown = TF_BUF_INIT, subject = TF_BUF_INIT;
	struct tf_buf tmp = TF_BUF_INIT;
	char hex[TF_SHA256_HEX_LEN + 1];
	int fd = -1, ret = -1;

	if (shown_as)
		tf_buf_addstr(&shown, shown_as);
	else
		tf_url_redact(url, &shown);
	tf_buf_addf(&subject, "%s: %s", label, shown.buf);
	if (!tf_url_scheme_len(url)) {
		error("%s: not a URL", subject.buf);
		goto out;
	}
	info("%s: fetching %s", label, shown.buf);
	tf_buf_addf(&tmp, "%s/%s.XXXXXX", tmpdir, sha256);
	fd = tf_signals_mkstemp(tmp.buf, O_CLOEXEC);
	if (fd < 0) {
		error_errno("%s: cannot create a temporary file in '%s'", label,
			    tmpdir);
		goto out;
	}
	if (download(o, subject.buf, url, fd, 1, hex) < 0)
		goto out;
	if (strcmp(hex, sha256)) {
		error("%s: checksum mismatch: expected %s, got %s", subject.buf,
		      sha256, hex);
		goto out;
	}
	ret = commit_file(subject.buf, fd, tmp.buf, dest);
out:
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && ret)
		unlink(tmp.buf);
	if (fd >= 0)
		tf_signals_temp_forget(tmp.buf);
	tf_buf_release(&shown);
	tf_buf_release(&subject);
	tf_buf_release(&tmp);
	return ret;
}

/*
 * 1 if dest holds the file (re-hashed first with o->recheck), 0 if it
 * must be fetched, -1 on error.
 */
static int cache_lookup(const struct tf_fetch_opts *o, const char *label,
			const char *dest, const char *sha256)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	struct stat st;

	if (lstat(dest, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return error_errno("%s: cannot read '%s'", label, dest);
	}
	if (!S_ISREG(st.st_mode))
		return error("%s: '%s' is not a regular file", label, dest);
	/* Held until the run ends, and marked used (the LRU clock): gc
	   skips it. Gone meanwhile (gc removed it): fetch it again. */
	switch (tf_lock_use(dest, NULL)) {
	case 0:
		verbose("%s: '%s' was removed meanwhile", label, dest);
		return 0;
	case 1:
		break;
	default:
		return -1;
	}
	if (!o->recheck) {
		verbose("%s: in the cache: %s", label, dest);
		return 1;
	}
	if (tf_sha256_file(dest, md, NULL) < 0)
		return -1;
	tf_sha256_hex(md, hex);
	if (!strcmp(hex, sha256)) {
		verbose("%s: in the cache and rechecked: %s", label, dest);
		return 1;
	}
	warning("%s: cached '%s' is corrupt (sha256 %s); deleting it", label,
		dest, hex);
	if (unlink(dest) < 0)
		return error_errno("%s: cannot delete '%s'", label, dest);
	return 0;
}

int tf_fetch_cached_check(const char *path, const char *sha256,
			  struct tf_buf *why)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	struct tf_buf err = TF_BUF_INIT;
	struct stat st;
	int ret = 0;

	/* Not through tf_sha256_file: a FIFO put there must not block. */
	if (tf_path_regular_check(path, &err) < 0 || lstat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode)) {
		ret = tf_why(why, "cached '%s' is not a regular file%s%s", path,
			     err.len ? ": " : "", err.buf);
	} else if (tf_sha256_file(path, md, NULL) < 0) {
		ret = tf_why(why, "cannot read cached '%s'", path);
	} else {
		tf_sha256_hex(md, hex);
		if (strcmp(hex, sha256))
			ret = tf_why(why,
				     "cached '%s' was changed since it was "
				     "verified: its name says sha256 %s, its "
				     "bytes hash to %s",
				     path, sha256, hex);
	}
	tf_buf_release(&err);
	return ret;
}

int tf_fetch_cache_verify(const char *cache_dir)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT, why = TF_BUF_INIT;
	size_t i;
	int bad = 0;

	tf_path_join(&dir, cache_dir, "sha256");
	if (!tf_path_exists(dir.buf))
		goto out;
	if (tf_list_dir(dir.buf, &names) < 0) {
		bad = -1;
		goto out;
	}
	for (i = 0; i < names.nr; i++) {
		tf_buf_reset(&path);
		tf_buf_reset(&why);
		tf_path_join(&path, dir.buf, names.v[i]);
		if (!tf_sha256_is_hex(names.v[i])) {
			warning("'%s' is not a download's name; left alone",
				path.buf);
			continue;
		}
		if (!tf_fetch_cached_check(path.buf, names.v[i], &why))
			continue;
		bad++;
		if (unlink(path.buf) < 0)
			error_errno("%s; cannot remove it", why.buf);
		else
			error("%s; removed it", why.buf);
	}
out:
	tf_strvec_release(&names);
	tf_buf_release(&dir);
	tf_buf_release(&path);
	tf_buf_release(&why);
	return bad;
}

/* Delete temp files that a killed tfbuild left more than a day ago. */
static void clean_stale_tmp(const char *tmpdir)
{
	time_t old = time(NULL) - STALE_TMP_SECONDS;
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	struct stat st;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
			    0 ||
		    !S_ISREG(st.st_mode) || st.st_mtime >= old)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			verbose("deleted stale temporary file '%s/%s'", tmpdir,
				de->d_name);
	}
	closedir(d);
}

/* Create <cache>/sha256 and <cache>/tmp; tmpdir gets the latter. */
static int prepare_cache(const char *cache_dir, struct tf_buf *tmpdir)
{
	struct tf_buf dir = TF_BUF_INIT;
	int ret;

	tf_path_join(&dir, cache_dir, "sha256");
	tf_path_join(tmpdir, cache_dir, "tmp");
	ret = tf_mkdir_p(dir.buf) < 0 || tf_mkdir_p(tmpdir->buf) < 0 ? -1 : 0;
	if (!ret)
		clean_stale_tmp(tmpdir->buf);
	tf_buf_release(&dir);
	return ret;
}

/* Try each URL in turn until one gives the file; report if none did. */
static int fetch_any(const struct tf_fetch_opts *o, const char *label,
		     const char *const *urls, const char *const *shown,
		     size_t nurls, const char *sha256, const char *dest)
{
	struct tf_buf tmpdir = TF_BUF_INIT;
	size_t i;
	int ret = -1;

	if (prepare_cache(o->cache_dir, &tmpdir) < 0)
		goto out;
	for (i = 0; ret && i < nurls; i++)
		ret = fetch_url(o, label, urls[i], shown ? shown[i] : NULL,
				sha256, tmpdir.buf, dest);
	if (ret)
		error("%s: no URL gave the expected file (sha256 %s)", label,
		      sha256);
out:
	tf_buf_release(&tmpdir);
	return ret;
}

int tf_fetch(const struct tf_fetch_opts *o, const char *label,
	     const char *const *urls, const char *const *shown, size_t nurls,
	     const char *sha256, struct tf_buf *path_out)
{
	struct tf_buf dest = TF_BUF_INIT;
	int ret = -1, hit, tries;

	if (!o->cache_dir)
		BUG("tf_fetch without a cache_dir");
	if (!tf_sha256_is_hex(sha256))
		return error("%s: invalid sha256 '%s': want 64 lowercase hex "
			     "digits",
			     label, sha256);
	tf_path_join(&dest, o->cache_dir, "sha256/");
	tf_buf_addstr(&dest, sha256);
	hit = cache_lookup(o, label, dest.buf, sha256);
	/* A download is held like a hit; gc may remove it before that. */
	for (tries = 0; !hit && tries < 3; tries++) {
		if (o->offline) {
			error("%s: not in the cache and --offline given "
			      "(sha256 %s)",
			      label, sha256);
			hit = -1;
		} else if (fetch_any(o, label, urls, shown, nurls, sha256,
				     dest.buf)) {
			hit = -1;
		} else {
			hit = tf_lock_use(dest.buf, NULL);
		}
	}
	if (!hit)
		error("%s: '%s' was removed each time it was fetched; is "
		      "'tfbuild cache gc' running in a loop?",
		      label, dest.buf);
	ret = hit > 0 ? 0 : -1;
	if (!ret)
		tf_buf_addstr(path_out, dest.buf);
	tf_buf_release(&dest);
	return ret;
}

int tf_fetch_cached(const struct tf_fetch_opts *o, const char *label,
		    const char *sha256, struct tf_buf *path_out)
{
	struct tf_buf dest = TF_BUF_INIT;
	int hit;

	if (!tf_sha256_is_hex(sha256))
		return error("%s: invalid sha256 '%s'", label, sha256);
	tf_path_join(&dest, o->cache_dir, "sha256/");
	tf_buf_addstr(&dest, sha256);
	hit = cache_lookup(o, label, dest.buf, sha256);
	if (hit > 0)
		tf_buf_addstr(path_out, dest.buf);
	tf_buf_release(&dest);
	return hit;
}

int tf_fetch_adopt(const struct tf_fetch_opts *o, const char *label,
		   const char *path, const char *shown, const char *want,
		   char hex[65], struct tf_buf *path_out)
{
	struct tf_buf tmpdir = TF_BUF_INIT, tmp = TF_BUF_INIT,
		      dest = TF_BUF_INIT;
	int in = -1, fd = -1, ret = -1, held;
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	static char block[1 << 16];
	ssize_t n;

	if (prepare_cache(o->cache_dir, &tmpdir) < 0)
		goto out;
	in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0) {
		error_errno("%s: cannot read '%s'", label, shown);
		goto out;
	}
	/* Copied while hashed, into the cache's own tmp/: one pass, and
	 * the rename below never crosses a file system. */
	tf_buf_addf(&tmp, "%s/adopt.XXXXXX", tmpdir.buf);
	fd = tf_signals_mkstemp(tmp.buf, O_CLOEXEC);
	if (fd < 0) {
		error_errno("%s: cannot create a temporary file in '%s'", label,
			    tmpdir.buf);
		goto out;
	}
	while ((n = read(in, block, sizeof(block))) > 0) {
		tf_sha256_update(h, block, (size_t)n);
		if (tf_write_all(fd, block, (size_t)n) < 0) {
			error_errno("%s: cannot write '%s'", label, tmp.buf);
			goto out;
		}
	}
	if (n < 0) {
		error_errno("%s: cannot read '%s'", label, shown);
		goto out;
	}
	tf_sha256_final(h, md);
	h = NULL;
	tf_sha256_hex(md, hex);
	if (want && strcmp(hex, want)) {
		error("%s: '%s' has sha256 %s, but %s is pinned", label, shown,
		      hex, want);
		goto out;
	}
	tf_path_join(&dest, o->cache_dir, "sha256/");
	tf_buf_addstr(&dest, hex);
	ret = commit_file(label, fd, tmp.buf, dest.buf);
	/* Held for the run, as a cache hit is. */
	if (!ret && (held = tf_lock_use(dest.buf, NULL)) <= 0)
		ret = held < 0 ? -1
			       : error("%s: '%s' was removed as soon as it "
				       "was stored; run again",
				       label, dest.buf);
	if (!ret)
		tf_buf_addstr(path_out, dest.buf);
out:
	if (in >= 0)
		close(in);
	if (fd >= 0) {
		close(fd);
		if (ret)
			unlink(tmp.buf);
		tf_signals_temp_forget(tmp.buf);
	}
	tf_sha256_free(h);
	tf_buf_release(&tmpdir);
	tf_buf_release(&tmp);
	tf_buf_release(&dest);
	return ret;
}

int tf_fetch_digest(const struct tf_fetch_opts *o, const char *url,
		    char hex[65])
{
	struct tf_buf shown = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	int ret;

	if (!tf_url_scheme_len(url)) {
		if (tf_sha256_file(url, md, NULL) < 0)
			return -1;
		tf_sha256_hex(md, hex);
		return 0;
	}
	tf_url_redact(url, &shown);
	if (o->offline && strncasecmp(url, "file://", 7))
		ret = error("%s: not fetched: --offline given", shown.buf);
	else
		ret = download(o, shown.buf, url, -1, 0, hex);
	tf_buf_release(&shown);
	return ret;
}
