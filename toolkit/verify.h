#ifndef TF_VERIFY_H
#define TF_VERIFY_H

/*
 * Verify: check an existing wheel independently of how it was made.
 */

/*
 * Check the wheel at path: the filename parses (name, version, tags);
 * exactly one NAME-VERSION.dist-info with METADATA, WHEEL and RECORD;
 * METADATA's Name/Version and WHEEL's Tag lines agree with the filename;
 * every entry is listed in RECORD with a matching sha256 and size;
 * RECORD lists nothing that is missing; no duplicate, absolute or ".."
 * entry names. Prints the first defect as
 *   tfbuild: dist/x.whl: pkg/lib.so: sha256 does not match RECORD
 * and returns -1; returns 0 if the wheel is sound.
 */
int tf_verify_wheel(const char *path);

#endif
