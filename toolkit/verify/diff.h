#ifndef TF_DIFF_H
#define TF_DIFF_H

/*
 * Comparing two wheels that should be identical, to diagnose a
 * reproducibility failure: which entries differ, and how.
 */

#include <stddef.h>

struct tf_buf;
struct tf_wheel_listing;

/*
 * Compare listings a and b; append one line per difference to out (at
 * most `max` lines, then a count of the rest) and return how many were
 * found: entries only in one wheel, entries in a different order, and
 * for entries in both, content, size, permissions and timestamp.
 */
size_t tf_wheel_diff(const struct tf_wheel_listing *a, const char *a_name,
		     const struct tf_wheel_listing *b, const char *b_name,
		     size_t max, struct tf_buf *out);

#endif
