#ifndef TF_ZIPCHECK_H
#define TF_ZIPCHECK_H

struct tf_buf;

/*
 * The zip structure of a wheel, checked before its content: an
 * installer (pip reads the central directory with Python's zipfile) and
 * a streaming reader (the local headers) must see the same wheel. Both
 * listings come from the wheel reader (wheelread.h: libarchive's
 * seekable and streamable zip readers); zipcheck.c parses itself only
 * the end records and the central directory's fixed headers, as
 * Python's zipfile reads them.
 */

/*
 * 0 if the zip at path has: its end-of-central-directory record as its
 * last 22 bytes (no comment, nothing appended), the same entries in
 * the same order with the same sizes in its central directory and its
 * local headers (no two central entries sharing one local header, no
 * name that differs), no NUL in a central directory name, every entry
 * stored or deflated (what every installer reads), and at most
 * TFBUILD_VERIFY_MAX_BYTES uncompressed bytes in all. Else -1 with why
 * filled ("demo/x.py: ...").
 */
int tf_zipcheck(const char *path, struct tf_buf *why);

/*
 * For a wheel this process just wrote (tf_verify_wheel_packed), only
 * the end record (as above) and the names in its central directory, as
 * Python's zipfile reads them, one at a time: to compare with the local
 * headers a streaming reader lists, in one pass, keeping no listing.
 */
struct tf_zip_names;
/* NULL with why filled if the end record is not the archive's last. */
struct tf_zip_names *tf_zip_names_open(const char *path, struct tf_buf *why);
/* The next name, or NULL at the end; *bad set if it cannot be read. */
const char *tf_zip_names_next(struct tf_zip_names *w, int *bad);
void tf_zip_names_close(struct tf_zip_names *w);

#endif
