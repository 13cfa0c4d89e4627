#ifndef TF_METADATA_H
#define TF_METADATA_H

/*
 * metadata/: the values of Python's packaging standards, as pure
 * functions with no I/O: names, PEP 440 versions and wheel tags
 * (pyname.h), versions compared and specifier sets as intervals
 * (pep440.h), the tags a target accepts and which wheel fits it best
 * (compat.h), CUDA architecture names (cudaarch.h), and validators for
 * core metadata values: SPDX expressions, specifiers, PEP 508
 * requirements, content types, URLs, e-mails (below).
 *
 * Each validator returns 0 if the value is valid, or -1 with what is
 * wrong appended to why (nothing printed): the caller says where the
 * value came from.
 */

#include "pep440.h"
#include "compat.h"
#include "pyname.h"
#include "cudaarch.h"

struct tf_buf;

/*
 * An SPDX license expression (SPDX 2.3 annex D, as PEP 639's
 * License-Expression): license ids from the SPDX list (toolkit/
 * spdx_ids.inc), "+" after an id, "LicenseRef-X", "DocumentRef-X:
 * LicenseRef-Y", "WITH" an exception id, "AND", "OR" (upper case) and
 * parentheses. Ids match case-insensitively, as SPDX says.
 */
int tf_spdx_check(const char *expr, struct tf_buf *why);

/* A PEP 440 specifier set: ">=3.8", ">=1.0,!=1.3.*,<2". Not empty. */
int tf_specifiers_check(const char *spec, struct tf_buf *why);

/*
 * A PEP 508 dependency specifier: NAME[EXTRAS] (SPECIFIERS | @ URL)
 * [; MARKER], with the marker grammar and variables of PEP 508.
 */
int tf_requirement_check(const char *req, struct tf_buf *why);

/*
 * A Description-Content-Type: text/plain, text/x-rst or text/markdown,
 * optionally "; charset=UTF-8" and for markdown "; variant=GFM" or
 * "CommonMark" (what PyPI and twine accept).
 */
int tf_content_type_check(const char *type, struct tf_buf *why);

/* A Project-URL's URL: http:// or https:// and no white space. */
int tf_url_check(const char *url, struct tf_buf *why);

/* An email address for Author-email: LOCAL@DOMAIN, no white space. */
int tf_email_check(const char *email, struct tf_buf *why);

#endif
