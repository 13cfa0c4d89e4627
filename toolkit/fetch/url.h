#ifndef TF_URL_H
#define TF_URL_H

/*
 * A source URL as tfbuild shows and records it, computed once when the
 * recipe is planned: without user:password@ credentials, and a file URL
 * that points inside or beside the recipe's checkout as a path relative
 * to the recipe's directory ("file:../build/mirror/x.tar.gz"), so
 * messages, --json events and the provenance name no secret and no path
 * of the build machine, and two checkouts record the same thing.
 */

#include "base/base.h"

/* Length of a leading "scheme://", or 0 if url does not start with one. */
size_t tf_url_scheme_len(const char *url);
/* Append url to out with any user:password@ credentials replaced by "***@". */
void tf_url_redact(const char *url, struct tf_buf *out);
/* Append the canonical form of url to out; recipe_dir is absolute. */
void tf_url_canonical(const char *url, const char *recipe_dir,
		      struct tf_buf *out);

#endif
