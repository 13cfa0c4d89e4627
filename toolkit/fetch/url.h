#ifndef TF_URL_H
#define TF_URL_H

/*
 * A source URL as tfbuild shows and records it, computed once when the
 * recipe is planned: without user:password@ credentials, and a file URL
 * that points inside or beside the recipe's checkout as a path relative
 * to the recipe's directory ("file:../build/mirror/x.tar.gz"), so
 * messages, --json events and the provenance name no secret and no path
 * of the build machine, and two checkouts record the same thing.
 *
 * Paths in URLs (RFC 3986). A path of the build machine put into a URL
 * is percent-encoded whole (tf_url_encode_path): the recipe's ${...}
 * built-ins that name a directory are, when a source URL is expanded
 * (plan/vars.h), so a checkout whose path holds a space, a quote, '%',
 * '#', '?' or non-ASCII bytes gives a URL that means that path. The
 * text a user wrote stays as written, %XX and all, and is never encoded
 * twice; only the bytes no URL may hold (controls, space, non-ASCII,
 * backslash, '"', '<', '>', '^', '`', '{', '|', '}' and a '%' not
 * starting %XX) are escaped, on the way to libcurl and into the shown
 * form (tf_url_normalize), so no URL fails as "bad/illegal format".
 */

#include <stddef.h>

struct tf_buf;

/* Length of a leading "scheme://", or 0 if url does not start with one. */
size_t tf_url_scheme_len(const char *url);
/* Append url to out with any user:password@ credentials replaced by "***@". */
void tf_url_redact(const char *url, struct tf_buf *out);
/*
 * Append path percent-encoded for a URL's path: every byte but the
 * unreserved ones (A-Z a-z 0-9 - . _ ~) and '/' as %XX.
 */
void tf_url_encode_path(const char *path, struct tf_buf *out);
/*
 * Append url with the bytes no URL may hold escaped as %XX (above);
 * text without a scheme is appended as it is.
 */
void tf_url_normalize(const char *url, struct tf_buf *out);
/*
 * Append the canonical form of url to out; recipe_dir is absolute. A
 * file URL's path is compared with recipe_dir decoded, and what is left
 * of it is kept percent-encoded: "file:../build/mirror/x%20y.tar.gz".
 */
void tf_url_canonical(const char *url, const char *recipe_dir,
		      struct tf_buf *out);

#endif
