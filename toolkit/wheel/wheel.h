#ifndef TF_WHEEL_H
#define TF_WHEEL_H

/*
 * wheel/: the wheel as a file: writing a PyPA binary distribution
 * (below; entries deflated in parallel by zipout.h, RECORD's lines kept
 * aside by spool.h), the one reader every other folder reads a wheel
 * through (wheelread.h), the zip structure's own checks (zipcheck.h),
 * and PEP 825 variant metadata (variantjson.h). libarchive reads wheels
 * only in wheelread.c.
 */

#include "variantjson.h"
#include "wheelread.h"
#include "zipcheck.h"

#include <stddef.h>

#include <sys/stat.h>

#include "base/base.h"

struct tf_wheel_file {
	const char *src; /* borrowed; file on disk (links are followed) */
	const char *dst; /* borrowed; path inside the wheel, '/'-separated */
};

struct tf_wheel_entry_point {
	const char *group; /* borrowed; e.g. "console_scripts" */
	const char *name;  /* borrowed */
	const char *value; /* borrowed; "module:attr" */
};

struct tf_wheel_spec {
	const char *name;       /* distribution name as written */
	const char *version;    /* PEP 440, normalized by the writer */
	const char *python_tag; /* "py3", "cp38", "py2.py3" */
	const char *abi_tag;    /* "none", "abi3" */
	const char *
		platform_tag; /* "any", "linux_x86_64", "manylinux_2_17_x86_64" */
	const char *summary;              /* may be NULL */
	const char *license;              /* SPDX expression, may be NULL */
	const char *requires_python;      /* may be NULL */
	const char *home_page;            /* may be NULL */
	const char *const *requires_dist; /* NULL-terminated, may be NULL */
	const struct tf_wheel_entry_point *entry_points;
	size_t nr_entry_points;
	const struct tf_wheel_file *files;
	size_t nr_files;
	const char *description; /* the readme's text (METADATA's body),
					may be NULL */
	const char *description_content_type;      /* may be NULL */
	const char *keywords;                      /* "a,b,c", may be NULL */
	const char *author, *author_email;         /* may be NULL */
	const char *maintainer, *maintainer_email; /* may be NULL */
	const char *const *classifiers;   /* NULL-terminated, may be NULL */
	const char *const *project_urls;  /* "Label, URL"; NULL-terminated,
					    may be NULL */
	const char *const *license_files; /* License-File values, relative to
					     .dist-info/licenses (the files are
					     among meta_files); NULL-terminated,
					     may be NULL */
	const struct tf_wheel_file *meta_files; /* more files for .dist-info:
					 dst relative to it ("licenses/LICENSE",
					 "tfbuild/libraries.json") */
	size_t nr_meta_files;
	long long source_date_epoch; /* entry times; clamped to 1980-01-01 */
	int compression_level;       /* deflate level 0-9, -1 for default (6) */
	const char *isa_record;      /* contents of .dist-info/tfbuild-isa (the
					ISA declarations, isa.h); NULL: none */
	const char *variant_label;   /* PEP 825 label, the filename's last
					part ("x86_64_v3"); NULL: none */
	const char *variant_json;    /* contents of .dist-info/variant.json;
					NULL: none */
	int jobs;                    /* threads deflating entries (zipout.h);
					<= 0: one per online CPU. The bytes
					do not depend on it. */
	/*
	 * Called for each of files[], in order, once its bytes are in the
	 * wheel: its stat when the writer opened it (before reading) and
	 * the SHA-256 of what it read (RECORD's). May be NULL.
	 */
	void (*on_file)(void *arg, const struct tf_wheel_file *f,
			const struct stat *st,
			const unsigned char md[TF_SHA256_LEN]);
	void *on_file_arg;
};

/*
 * Write the wheel into out_dir as <name>-<version>-<tags>.whl: files in
 * sorted order, .dist-info last with RECORD last, fixed timestamps,
 * modes 0644 or 0755. METADATA is core metadata 2.4 (License-Expression)
 * when a license is given. Written to a temporary file in out_dir and
 * renamed; on failure nothing is left. RECORD's lines wait in an
 * unlinked temporary file in out_dir (spool.h), not in memory. Refuses
 * duplicate, absolute or ".." destinations and files that would collide
 * with .dist-info, naming the file. Appends the wheel's path to path_out.
 */
int tf_wheel_pack(const struct tf_wheel_spec *w, const char *out_dir,
		  struct tf_buf *path_out);

/*
 * Append the wheel's filename (no directory) to out; -1 (out unchanged,
 * nothing printed) if the name, version or a tag is invalid.
 */
int tf_wheel_filename(const struct tf_wheel_spec *w, struct tf_buf *out);

/*
 * Checks of single wheel fields, without printing (log.h): 0 if the
 * value is acceptable, else -1 with why filled ("contains a line
 * break"). The plan runs them on the recipe's values, at their
 * positions, before anything runs; tf_wheel_pack runs them again as a
 * last line of defence for callers without a recipe.
 */
/* A one-line metadata field (summary, license, requires-python). */
int tf_wheel_line_check(const char *value, struct tf_buf *why);
/* A path inside the wheel: plain, relative, ASCII, not in .dist-info. */
int tf_wheel_dst_check(const char *dst, struct tf_buf *why);
/* An entry point: dotted group, a name, an object reference. */
int tf_wheel_entry_point_check(const struct tf_wheel_entry_point *e,
			       struct tf_buf *why);

/*
 * Append field to out as one RECORD (CSV) field: as is, or in double
 * quotes with '"' doubled when it holds ',', '"', CR or LF (what
 * Python's csv module writes by default).
 */
void tf_wheel_record_field(const char *field, struct tf_buf *out);

#endif
