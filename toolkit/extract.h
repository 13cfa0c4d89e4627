#ifndef TF_EXTRACT_H
#define TF_EXTRACT_H

/*
 * Extract: unpack a source archive with libarchive (tar, tar.gz, tar.xz,
 * tar.bz2, tar.zst, zip, ...), streaming. extract.c is the only reader of
 * archives besides verify.c.
 */

/*
 * Extract archive into dest, an existing empty directory, dropping the
 * first strip path components of each member (members left with nothing
 * are skipped). Refuses, naming the archive (label) and the member:
 * absolute paths, ".." components, hard or symbolic links that point
 * outside dest, device nodes, FIFOs and sockets. Timestamps are not
 * restored (the build sets SOURCE_DATE_EPOCH instead); permissions are
 * reduced to 0755/0644 plus the owner's exec bit. Returns 0 or -1.
 * On failure dest may hold a partial tree: the caller extracts into a
 * temporary directory and removes it.
 */
int tf_extract(const char *archive, const char *label, const char *dest,
	       int strip);

#endif
