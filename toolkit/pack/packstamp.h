#ifndef TF_PACKSTAMP_H
#define TF_PACKSTAMP_H

/*
 * Pack stamps: what a wheel in the output folder was packed from, so an
 * unchanged run neither packs, audits nor verifies it again.
 *
 * The key digests everything pack.c reads for one wheel of one target:
 * tfbuild's own executable (path, size, mtime, inode: a rebuilt tfbuild
 * packs again), the recipe's bytes and every variable (so --set), the
 * target and its toolchain identity, toolfiles and target packages
 * (library resolution reads the sysroot), every source's key, every
 * step's stage digest, and the bytes of the readme and license files.
 *
 * The stamp also records the wheel it produced: its name, sha256 and
 * stat identity (size, mtime_ns, ctime_ns, inode, device) once in the
 * output folder. A wheel is kept only if the key matches and the file
 * still has that identity; any write to the wheel changes its ctime. If
 * the wheel's ctime is not older than the stamp file's own mtime (both
 * from the kernel's coarse clock: a write in the same tick is invisible
 * to stat), the wheel is hashed instead and the stamp rewritten, as git
 * does with racily clean index entries.
 */

#include "base/base.h"

struct tf_plan;
struct tf_plan_wheel;

/* The key of wheel pw of plan p; 0, or -1 after an error (a file unread). */
int tf_packstamp_key(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     char key[TF_SHA256_HEX_LEN + 1]);

/* Where the stamp of wheel pw of plan p lives (p->stamps/wheel-NAME). */
void tf_packstamp_path(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		       struct tf_buf *out);

/*
 * 1 if the stamp at path has this key and out_dir still holds the wheel
 * it recorded, unchanged: its path goes to wheel and its sha256 to hex.
 * 0 otherwise (no stamp, other key, wheel gone or changed).
 */
int tf_packstamp_fresh(const char *path, const char *key, const char *out_dir,
		       struct tf_buf *wheel, char hex[TF_SHA256_HEX_LEN + 1]);

/* Record that the wheel at `wheel` (in the output folder) was packed from key. */
int tf_packstamp_write(const char *path, const char *key, const char *wheel);

/* Remove a stamp (before packing again); a missing one is fine. */
int tf_packstamp_remove(const char *path);

#endif
