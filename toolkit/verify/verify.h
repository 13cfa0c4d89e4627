#ifndef TF_VERIFY_H
#define TF_VERIFY_H

/*
 * verify/: a finished wheel checked independently of how it was made
 * (below: the zip and RECORD pass, the .dist-info files, every binary
 * through audit/ and isa/), its filename (wheelname.h), and two wheels
 * compared (diff.h, `tfbuild diff`), its size against a budget
 * (wheelsize.c) and the SBOM a tfbuild wheel carries (sbomcheck.c).
 */

#include "diff.h"

#include <stddef.h>

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

/*
 * The same checks on a wheel this process has just packed, except that
 * entries are not inflated again: each entry's size comes from its
 * headers (central directory and local header, which must agree) and
 * must match RECORD; RECORD's digests are the packer's own, computed
 * from the bytes it compressed, each compressed block having been
 * inflated and compared as it was written. Never for a wheel from
 * elsewhere: `tfbuild verify` uses tf_verify_wheel.
 */
int tf_verify_wheel_packed(const char *path);

/* PyPI's default limit on the size of a file: 100 MiB. */
#define TF_WHEEL_MAX_SIZE (100ull << 20)

/*
 * The wheel at path is at most max bytes; over it, report it (as shown,
 * or path when NULL) with its size, the budget and where that came from
 * (what: "max-size"), and its 3 largest entries with their uncompressed
 * sizes, and return -1.
 */
int tf_verify_max_size(const char *path, const char *shown,
		       unsigned long long max, const char *what);

/*
 * The GPU architectures a wheel's CUDA code must carry, one a line
 * ("sm_80", "compute_90"), from the recipe's cuda-archs (docs/frameworks.md).
 */
#define TF_CUDA_RECORD "tfbuild/cuda-archs"

/* The SBOM every wheel tfbuild packs carries (PEP 770, docs/sbom.md). */
#define TF_SBOM_RECORD "sboms/tfbuild.cdx.json"

/*
 * Reading RECORD, a CSV file as Python's csv module writes it: fields
 * separated by ',', optionally in double quotes with '"' doubled, rows
 * ended by LF, CRLF or CR (also inside quotes, as data). Blank lines are
 * skipped. Parsing is in place: the buffer is rewritten so each field
 * is unquoted and NUL-terminated.
 */
struct tf_record_reader {
	char *pos;   /* borrowed; next byte, in the caller's NUL-ended buffer */
	size_t line; /* the line the next row starts on, from 1 */
	size_t row_line; /* the line the row last returned started on */
	char *path;      /* the last row's fields, pointing into the buffer */
	char *hash;
	char *size;
};

#define TF_RECORD_READER_INIT(buf)            \
	{                                     \
		(buf), 1, 0, NULL, NULL, NULL \
	}

/*
 * Read the next row. Returns 1 with path, hash and size set, 0 at the
 * end, or -1 if the row is not exactly three well-quoted fields (row_line
 * then names its line).
 */
int tf_record_next(struct tf_record_reader *r);

#endif
