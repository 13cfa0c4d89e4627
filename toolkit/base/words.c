/* Suggestions for misspelled names, and lists of names (words.h). */
#include "words.h"
#include "buf.h"

#include <stdlib.h>
#include <string.h>

/* Edit distance (with transpositions) between a and b. */
static size_t tf_words_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b), i, j, d;
	size_t *prev2 = tf_calloc(m + 1, sizeof(size_t));
	size_t *prev = tf_calloc(m + 1, sizeof(size_t));
	size_t *cur = tf_calloc(m + 1, sizeof(size_t));

	for (j = 0; j <= m; j++)
		prev[j] = j;
	for (i = 1; i <= n; i++) {
		size_t *t;

		cur[0] = i;
		for (j = 1; j <= m; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			d = prev[j] + 1 < cur[j - 1] + 1 ? prev[j] + 1
							 : cur[j - 1] + 1;
			d = sub < d ? sub : d;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[m];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

const char *tf_words_nearest(const char *word, const char *const *cands)
{
	size_t best = (size_t)-1, limit = strlen(word) / 3, d;
	const char *found = NULL;

	if (limit < 1)
		limit = 1;
	for (; *cands; cands++) {
		d = tf_words_distance(word, *cands);
		/* A prefix of a name ("--off" for "--offline") counts as near. */
		if (strlen(word) >= 2 && !strncmp(*cands, word, strlen(word)))
			d = 1;
		if (d < best) {
			best = d;
			found = *cands;
		}
	}
	return best <= limit ? found : NULL;
}

void tf_words_join(const char *const *v, struct tf_buf *out)
{
	for (; *v; v++)
		tf_buf_addf(out, "%s%s", *v, v[1] ? ", " : "");
}
