#ifndef TF_FETCH_H
#define TF_FETCH_H

/*
 * fetch/: getting a source's bytes: downloads with libcurl into the
 * content-addressed cache, hashed as they arrive (below), and a URL as
 * shown and recorded, without credentials or build-machine paths
 * (url.h).
 *
 * fetch.c is the only file that includes libcurl.
 *
 * Cache layout: <cache_dir>/sha256/<64 hex digits> holds verified files
 * only (read-only, mode 0444); partial downloads live in <cache_dir>/tmp/
 * and are renamed into place only after their digest matched. A cache hit
 * is trusted without re-hashing unless .recheck is set: whoever uses the
 * file re-hashes it first (tf_fetch_cached_check), since a build step
 * running as the same user could have written it (docs/cache.md).
 * Every cached file a process uses (a hit, a download, an adopted file)
 * is held with a shared lock until it ends and its mtime set to now
 * (tf_lock_use, base/lock.h): `tfbuild cache gc` removes downloads
 * least recently used first and never one a running process holds.
 */

#include <stddef.h>

#include "url.h"

struct tf_buf;

struct tf_fetch_opts {
	const char *cache_dir; /* borrowed; created if missing */
	int offline;           /* 1: never touch the network, cache only */
	long connect_timeout;  /* seconds to connect, 0 for the default (30) */
	long low_speed_time;   /* abort if under 4 KiB/s this long (s), 0: 60 */
	int retries;           /* extra tries per URL on transient errors;
				    -1 for the default (3) */
	long retry_delay_ms;   /* first backoff delay, doubled each retry;
				    0 for the default (500) */
	int recheck;           /* 1: re-hash a cache hit; if it does not
				    match, delete it and fetch again */
	long max_time;         /* seconds one URL may take, all attempts
				  together; 0: TFBUILD_FETCH_MAX_TIME, else
				  3600 */
	long long size;        /* the exact size of the file (a source's
				  `size:`), or 0: at most
				  TF_LIMIT_FETCH_BYTES (base/limit.h) */
};

#define TF_FETCH_OPTS_INIT                    \
	{                                     \
		NULL, 0, 0, 0, -1, 0, 0, 0, 0 \
	}

/* Default of tf_fetch_opts.max_time, seconds. */
#define TF_FETCH_MAX_TIME 3600L

/*
 * Make sure the file with digest sha256 (64 lowercase hex) is in the
 * cache, downloading it from urls[0], then each mirror in turn, until one
 * gives the right bytes. On success append the cached file's path to
 * path_out and return 0. On failure return -1 after reporting, for each
 * URL tried, why it failed (HTTP status, curl error, or "expected X, got
 * Y" for a checksum mismatch). Supports http, https and file URLs. label
 * (e.g. "source 'tfmini'") prefixes the messages, which name urls[i] as
 * shown[i] (its canonical form, url.h), or redacted if shown is NULL.
 */
int tf_fetch(const struct tf_fetch_opts *o, const char *label,
	     const char *const *urls, const char *const *shown, size_t nurls,
	     const char *sha256, struct tf_buf *path_out);

/*
 * Whether the file with digest sha256 is in the cache (re-hashed first
 * with o->recheck): 1, its path appended to path_out; 0 if not; -1
 * after reporting. label prefixes the messages.
 */
int tf_fetch_cached(const struct tf_fetch_opts *o, const char *label,
		    const char *sha256, struct tf_buf *path_out);
/*
 * Take the file at path, which another client downloaded (pip), into the
 * cache: hash it (streaming), compare with want (64 hex digits; NULL to
 * take it whatever it is), make it read-only and rename it to
 * <cache>/sha256/<digest>, moving it when path is on the cache's file
 * system and copying it otherwise. hex gets its digest, path_out the
 * cached path. On a mismatch the file is left where it is and the
 * error names it as shown with both digests. 0 or -1 after reporting.
 */
int tf_fetch_adopt(const struct tf_fetch_opts *o, const char *label,
		   const char *path, const char *shown, const char *want,
		   char hex[65], struct tf_buf *path_out);

/*
 * 0 if the cached file at path still hashes to sha256 (streaming); else
 * -1 with why filled, naming the file and both digests. For whoever is
 * about to use a cache hit: the cache is trusted for its names, not for
 * what a process of the same user may have written since.
 */
int tf_fetch_cached_check(const char *path, const char *sha256,
			  struct tf_buf *why);

/*
 * Re-hash every file of <cache_dir>/sha256/: one whose bytes do not
 * hash to its name (or that is not a regular file) is reported, naming
 * it and both digests, and removed (the next run fetches it again).
 * Returns how many were bad, or -1 after reporting.
 */
int tf_fetch_cache_verify(const char *cache_dir);

/*
 * Stream url (http, https, file) or a local path and compute its SHA-256
 * without caching it; hex receives 64 lowercase digits. For
 * `tfbuild sha256`. Prints no progress; returns 0, or -1 after reporting
 * one error naming the (redacted) URL or the path. o->cache_dir is unused.
 */
int tf_fetch_digest(const struct tf_fetch_opts *o, const char *url,
		    char hex[65]);

#endif
