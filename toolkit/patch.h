#ifndef TF_PATCH_H
#define TF_PATCH_H

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
int tf_patch_apply(const char *tree, const char *patch_path,
		   const char *label, int strip);

#endif
