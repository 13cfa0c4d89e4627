/* The recipe's arena: every pointer in a struct tf_recipe lives in it. */
#include "recipe_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "recipe.h"

struct tf_arena_block {
	struct tf_arena_block *next; /* owned */
	size_t used, size;           /* bytes used and available in data */
	char data[];
};

void *tf_arena_alloc(struct tf_recipe *r, size_t n)
{
	struct tf_arena_block *b = r->arena;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->size - b->used < n) {
		size_t size = n > 16384 ? n : 16384;

		b = tf_malloc(sizeof(*b) + size);
		b->next = r->arena;
		b->used = 0;
		b->size = size;
		r->arena = b;
	}
	b->used += n;
	return memset(b->data + b->used - n, 0, n);
}

const char *tf_arena_strdup(struct tf_recipe *r, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(tf_arena_alloc(r, n), s, n);
}

void tf_recipe_release(struct tf_recipe *r)
{
	struct tf_arena_block *b, *next;

	if (!r)
		return;
	for (b = r->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(r, 0, sizeof(*r));
}
