#ifndef TF_PYTAG_H
#define TF_PYTAG_H

/*
 * Python tags from what an extension was built against, never from a
 * hand-set value (issue 14 item 5): the CPython version of a target's
 * headers, the tag and extension suffix that follow from it, and the
 * check that a wheel's extension modules agree with its tags.
 */

struct tf_buf;

/*
 * Read PY_MAJOR_VERSION and PY_MINOR_VERSION from include/patchlevel.h.
 * Returns 0, or -1 (nothing printed) if there is no such header.
 */
int tf_pytag_header_version(const char *include, int *major, int *minor);

/*
 * Check one wheel entry against the wheel's python, abi and platform
 * tags: a version-specific extension module (NAME.cpython-311-TRIPLET.so)
 * needs python and abi tags of exactly that CPython (cp311-cp311) and a
 * platform of the triplet's machine; a stable-ABI one (NAME.abi3.so)
 * needs cpXY tags, with abi3 or the same cpXY. Other paths pass. Returns
 * 0, or -1 with the reason appended to why.
 */
int tf_pytag_check_entry(const char *path, const char *python, const char *abi,
			 const char *platform, struct tf_buf *why);

#endif
