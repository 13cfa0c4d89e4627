#ifndef TF_ZIPOUT_H
#define TF_ZIPOUT_H

/*
 * Zipout: write a zip archive whose entries are deflated in parallel.
 *
 * Each entry's bytes are cut into blocks of TF_ZIPOUT_BLOCK bytes (a
 * constant: never a function of the number of threads). Worker threads
 * deflate each block independently with libdeflate; a block that is not
 * the entry's last has its final-block bit cleared and is padded to a
 * byte boundary with an empty stored block, as pigz and zlib's gzjoin
 * do, so the blocks concatenate into one deflate stream. The archive
 * itself is written by zlib's minizip, which takes the precompressed
 * data as a raw entry with its CRC-32 and size. Output bytes depend only
 * on the entries and the level, never on the thread count or timing.
 *
 * Every compressed block is decompressed once by the worker that made
 * it (libdeflate, or zlib's inflate where the block structure has to be
 * walked anyway) and compared with its input before it is written: what
 * goes into the archive is proven to inflate back to the file's bytes.
 *
 * Small entries share a block (up to 64 of them, each still its own
 * deflate stream), so a tree of many small files costs one hand-off
 * between threads per block, not per file. A whole entry in one block
 * is also hashed (SHA-256) by the worker; a larger one by the caller's
 * thread as its blocks are written out, in order. Each entry's digest
 * is passed to the tf_zipout_on_entry callback when it is written.
 *
 * Memory is bounded: at most 2 blocks in flight per thread, whatever
 * the entry sizes. One caller thread feeds entries in order.
 */

#include <stddef.h>

#include "base/base.h"

#define TF_ZIPOUT_BLOCK (256 * 1024)

struct tf_zipout;

/*
 * Create the archive at path (truncated). level is deflate's 0-9, 0
 * meaning stored; jobs the compressing threads (1: none, all in the
 * caller). context names the archive in error messages. NULL with an
 * error printed on failure.
 */
struct tf_zipout *tf_zipout_open(const char *path, int level, int jobs,
				 const char *context);
/*
 * Start an entry: its name, Unix permission bits, time (seconds since
 * the epoch, UTC) and the size the caller promises to write.
 */
int tf_zipout_begin(struct tf_zipout *z, const char *name, unsigned perm,
		    long long mtime, long long size);
/*
 * Called, in entry order, as each entry is written: its name, size and
 * SHA-256 (RECORD's line). Set before the first entry.
 */
typedef void tf_zipout_done_fn(void *arg, const char *name, long long size,
			       const unsigned char md[TF_SHA256_LEN]);
void tf_zipout_on_entry(struct tf_zipout *z, tf_zipout_done_fn *fn, void *arg);
/*
 * A buffer of *room bytes to read the entry's next bytes into, then
 * tf_zipout_commit(z, n) with how many were put there. Saves a copy for
 * file contents; tf_zipout_write copies from memory. *room may exceed
 * what the entry has left (committing more fails), and is 0 once a
 * block ends exactly where the entry does.
 */
unsigned char *tf_zipout_buffer(struct tf_zipout *z, size_t *room);
int tf_zipout_commit(struct tf_zipout *z, size_t n);
int tf_zipout_write(struct tf_zipout *z, const void *data, size_t n);
/* End the entry: -1 if fewer or more bytes came than begin promised. */
int tf_zipout_end(struct tf_zipout *z);
/* Write out every entry ended so far (each one's callback has run). */
int tf_zipout_flush(struct tf_zipout *z);
/* Finish the archive (central directory) and free z; 0 or -1. */
int tf_zipout_close(struct tf_zipout *z);
/* Abandon the archive (the caller removes the file) and free z. */
void tf_zipout_free(struct tf_zipout *z);

#endif
