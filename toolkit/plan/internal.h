#ifndef TF_PLAN_INTERNAL_H
#define TF_PLAN_INTERNAL_H

/*
 * What the files that make a plan share (make.c, expand.c, wheelspec.c);
 * private to plan/. Every string they make lives in p->store, owned by
 * the plan and freed by tf_plan_release. The tf_plan_make_* functions
 * do not stop at the first problem: each reports every one it finds, at
 * its place in the recipe, and then returns -1 (0 when there was none).
 */

#include "plan.h"
#include "base/base.h"

struct tf_str;

/* Keep s (malloc'ed; the plan takes it) in p's store; returns s. */
const char *tf_plan_keep(struct tf_plan *p, char *s);
/* Format a string into p's store; returns the stored copy. */
const char *tf_plan_keepf(struct tf_plan *p, const char *fmt, ...)
	TF_PRINTF(2, 3);
/*
 * Expand s into p's store: the stored copy, or NULL when s is unset
 * or when expanding fails (reported, and *errors bumped).
 */
const char *tf_plan_expand(struct tf_plan *p, const struct tf_str *s,
			   int *errors);
/*
 * Have provisioning write path with data (mode: 0644, 0755) unless it
 * already holds exactly that: appended to p->writes as three entries,
 * the path, the mode in octal and the content.
 */
void tf_plan_write_later(struct tf_plan *p, const char *path, const char *data,
			 size_t len, unsigned mode);
/* path made absolute against the recipe's directory (maybe in the store). */
const char *tf_plan_recipe_path(struct tf_plan *p, const char *path);

/*
 * roots.c: the target packages asked for and, when resolved before or
 * given in o->packages, their versions, digests and root (else
 * p->would_provision); reads files only.
 */
void tf_plan_packages(struct tf_plan *p, const struct tf_plan_opts *o);
/*
 * roots.c: for a cross target without a target root, set
 * p->emulator_root (and the target's emulator prefix) to a root in the
 * build tree whose loader, libc and ld.so.cache are the cross
 * toolchain's only (provision/emuroot.c makes it).
 */
void tf_plan_emulator_root(struct tf_plan *p);
/*
 * expand.c: set every variable, then the target wheels (their pins set
 * ${target_site}, wheelpins.c), then each recipe variable expanded once:
 * 0, -1 after reporting the variables' errors, -2 the target wheels'.
 */
int tf_plan_set_vars(struct tf_plan *p, const struct tf_plan_opts *o);
/*
 * The pins of the target's `target-wheels` from the lock file, and its
 * ${target_site} (wheelpins.c). TF_PLAN_RECIPE after naming, at its
 * position, a requirement without a pin (unless o->unpinned).
 */
enum tf_plan_result tf_plan_target_wheels(struct tf_plan *p,
					  const struct tf_plan_opts *o);
/* expand.c: source i's URLs, local directory and patches. */
int tf_plan_make_source(struct tf_plan *p, size_t i);
/* expand.c: step i's script, directories, environment and reads. */
int tf_plan_make_step(struct tf_plan *p, size_t i);
/* expand.c: read in place the path sources no step reads (no errors). */
void tf_plan_set_in_place(struct tf_plan *p);
/* wheelspec.c: wheel i's spec, metadata, libraries and files. */
int tf_plan_make_wheel(struct tf_plan *p, size_t i);
/*
 * extlibs.c: pw's `external-libraries` into pw->externals, each
 * distribution a target wheel of p's target; the number of errors
 * reported at their places.
 */
int tf_plan_externals(struct tf_plan *p, struct tf_plan_wheel *pw);

#endif
