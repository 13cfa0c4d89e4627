#ifndef TF_EXTRACT_H
#define TF_EXTRACT_H

struct tf_buf;

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
 * reduced to 0755/0644 plus the owner's exec bit, and directories the
 * archive does not list get 0755, whatever the umask. Returns 0 or -1.
 * On failure dest may hold a partial tree: the caller extracts into a
 * temporary directory and removes it.
 *
 * Also refused: a symlink target with ".." after a name ("a/../b": where
 * it lands depends on whether a is itself a link), a hardlink to a
 * symlink, writing through a symlink (libarchive's own guard), and an
 * archive that yields nothing (empty, or every member stripped away).
 * Messages name the label and the member as written in the archive:
 *   tfbuild: x.tar.gz: member '../e.txt': path escapes the extraction directory
 */
int tf_extract(const char *archive, const char *label, const char *dest,
	       int strip);

/* Pure helpers, exposed for the unit tests. */

/*
 * Append path to out without its first strip components, dropping empty
 * and "." components ("./a//b/" gives "a/b" with strip 0). Returns 1 if
 * anything was left, 0 if not (out is then unchanged).
 */
int tf_extract_strip(const char *path, int strip, struct tf_buf *out);

enum tf_link_check {
	TF_LINK_INSIDE,            /* the target stays in the tree */
	TF_LINK_OUTSIDE,           /* absolute, or climbs above the root */
	TF_LINK_DOTDOT_AFTER_NAME, /* "a/..": not decidable lexically */
};

/*
 * Judge a symlink at path (relative to the root, as tf_extract_strip
 * gives it) pointing at target. Only leading ".." components are
 * allowed, as many as path has directories above the link.
 */
enum tf_link_check tf_extract_check_symlink(const char *path,
					    const char *target);

#endif
