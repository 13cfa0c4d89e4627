#ifndef TF_WRITEOUT_H
#define TF_WRITEOUT_H

/*
 * The files provisioning writes into a build tree (tool files, compiler
 * wrappers) are rewritten only when their content changes, so their
 * mtimes stay put and builds that watch them do not rerun for nothing.
 * Private to provision/.
 */

#include <stddef.h>

/*
 * Write path with data unless it already holds exactly that (same
 * bytes, same mode, a regular file); mode 0 is 0644. Written atomically.
 * Returns 0, or -1 after an error.
 */
int tf_write_if_changed(const char *path, const char *data, size_t len,
			unsigned mode);

#endif
