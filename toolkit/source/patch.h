#ifndef TF_PATCH_H
#define TF_PATCH_H

struct tf_buf;
struct tf_strvec;

/*
 * Patch: apply a unified diff to a tree with GNU patch, zero fuzz.
 */

/*
 * Apply the patch at patch_path to the directory tree with -p<strip>.
 * Before running patch, refuse a patch whose file names (after strip)
 * are absolute or contain "..", naming the patch and the path. Runs
 * `patch --dry-run` first so that a failing patch changes nothing; on
 * failure the error names label (the patch as the recipe wrote it), the
 * file and the hunk, e.g.
 *   tfbuild: patches/x/0002-y.patch: hunk #2 of 'src/a.c' does not apply (at line 40)
 * Returns 0 or -1.
 */
int tf_patch_apply(const char *tree, const char *patch_path, const char *label,
		   int strip);

/*
 * A patch file that cannot be read gives "tfbuild: cannot open patch
 * 'LABEL': <strerror>". The other messages, each as "tfbuild: LABEL: ...":
 *   refusing path '../../etc/passwd' outside the source tree
 *   'src/missing.c' does not exist in the source tree
 *   already applied or reversed on 'src/a.c'
 *   hunk #1 of 'src/a.c' does not apply (at line 3, different line endings)
 *   'src/l' is not a regular file
 *   patch: <a fatal error from patch itself>
 *   patch failed (exit status 2): <patch's last line>   (nothing better known)
 */

/* Pure helpers, exposed for the unit tests. */

/* The state of a scan of a patch's headers, line by line. */
struct tf_patch_scan {
	int strip;     /* the -p level */
	long old_left; /* lines of the current hunk still due from the old file */
	long new_left; /* and from the new file */
};

#define TF_PATCH_SCAN_INIT(strip) \
	{                         \
		(strip), 0, 0     \
	}

/*
 * Look at the next line of a patch (without its newline). If it is a
 * header naming a file ("--- ", "+++ ", "*** ", "Index: ", "diff --git",
 * git's "rename/copy from/to") and that name, stripped as patch -p<strip>
 * would strip it (git's rename and copy names have no prefix and are not
 * stripped), is absolute or has a ".." component, put the stripped name
 * in bad and return 1; else return 0. Names end as patch ends them
 * (at a tab, or at white space when no tab follows); C-quoted names are
 * decoded; "/dev/null" is ignored. Bodies of unified hunks are counted
 * off and skipped, so a removed line "-- x" is not taken for a header.
 */
int tf_patch_scan_line(struct tf_patch_scan *s, const char *line,
		       struct tf_buf *bad);

/*
 * Read GNU patch's output (run with LC_ALL=C QUOTING_STYLE=literal) and
 * push one message per failure onto msgs, without the "tfbuild: LABEL: "
 * prefix: a failed hunk, a missing file (named from patch's quote of the
 * headers, stripped by strip), a reversed patch, a file that is not a
 * regular file, or a fatal error of patch. Lines it does not know add
 * nothing. Each message is one printable line: control characters in
 * names (a C-quoted "\n", an escape sequence) become '?'.
 */
void tf_patch_explain(const char *output, int strip, struct tf_strvec *msgs);

#endif
