#ifndef TF_XZMEM_H
#define TF_XZMEM_H

#include <stdint.h>

/*
 * The memory an .xz or .lzma file needs to be decompressed, from its
 * headers alone: libarchive decodes xz with no memory limit, so
 * extract.c asks here first. xzmem.c is the only user of liblzma.
 */

/*
 * Set *need to the most memory any block of the xz or lzma file open as
 * fd needs (liblzma's own estimate), or 0 if the file is neither. The
 * xz index is read with at most limit bytes of memory (the caller's
 * budget): one that needs more sets *need above limit and no block is
 * read. Returns 0, or -1 after reporting (label names the archive) a
 * file that claims xz and whose block headers do not decode.
 */
int tf_xz_memusage(int fd, const char *label, uint64_t limit, uint64_t *need);

#endif
