#ifndef TF_PACK_COLLECT_H
#define TF_PACK_COLLECT_H

/*
 * pack/ inside: the files a wheel's rules name, gathered from stages
 * and source trees (links and globs kept inside them: contain.h), each
 * probed once for the ELF magic, and no path in a wheel twice.
 */

#include <stddef.h>

#include "base/base.h"

struct tf_plan;
struct tf_plan_file;
struct tf_plan_wheel;
struct tf_wheel_file;

/* The files of one wheel, with storage for their paths. */
struct tf_file_list {
	struct tf_wheel_file *v; /* owned array */
	size_t nr, alloc;
	struct tf_strpool store; /* owned: every src and dst string (a dst
				    that ends its src is not copied again) */
	int has_elf;             /* some file starts with the ELF magic */
	unsigned char *elf;      /* owned: per file, 1 if it starts with the
				    ELF magic (read once, by probe_elf) */
	size_t roots;            /* the rules' matches, each a file or a
				    tree: with one, no path can repeat */
};

/* Which files start with the ELF magic, on up to jobs threads. */
void tf_files_probe_elf(struct tf_file_list *fl, int jobs);
/* Gather the files rule f of wheel pw matches. 0, or -1 after reporting. */
int tf_files_collect(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     const struct tf_plan_file *f, struct tf_file_list *fl);
/*
 * No two files at one path in the wheel; end[i] is where rule i's files
 * end in fl. 0, or -1 after reporting the later with the earlier's rule.
 */
int tf_files_check_twice(const struct tf_plan *p,
			 const struct tf_plan_wheel *pw,
			 const struct tf_file_list *fl, const size_t *end);
void tf_files_release(struct tf_file_list *fl);

#endif
