#ifndef TF_WORDS_H
#define TF_WORDS_H

/*
 * Words from a closed list: the nearest to a misspelled one, for
 * "did you mean" suggestions in options and recipes, and the list itself
 * as "a, b, c" for a refusal.
 */

#include <stddef.h>

struct tf_buf;

/*
 * The candidate nearest to word if it is near enough to be a likely
 * typo (distance at most a third of its length, at least 1), else NULL.
 * cands is NULL-terminated.
 */
const char *tf_words_nearest(const char *word, const char *const *cands);

/* Append "a, b, c" to out. */
void tf_words_join(const char *const *v, struct tf_buf *out);

#endif
