#include "strpool.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* 64 KiB: small against the lists it holds, large against a path. */
#define BLOCK_SIZE (64 * 1024 - 64)

struct tf_strpool_block {
	struct tf_strpool_block *next; /* owned: the blocks filled before */
	size_t size;                   /* bytes in data */
	char data[];
};

static struct tf_strpool_block *new_block(struct tf_strpool_block *next,
					  size_t size)
{
	struct tf_strpool_block *b = tf_malloc(sizeof(*b) + size);

	b->next = next;
	b->size = size;
	return b;
}

const char *tf_strpool_addn(struct tf_strpool *p, const char *s, size_t n)
{
	char *dst;

	if (!p->head || p->head->size - p->used < n + 1) {
		if (n + 1 > BLOCK_SIZE / 4 && p->head) {
			/* A long string gets a block of its own, behind the
			   one being filled, so that one's room is not lost. */
			struct tf_strpool_block *b =
				new_block(p->head->next, n + 1);

			p->head->next = b;
			dst = b->data;
			goto copy;
		}
		p->head = new_block(p->head,
				    n + 1 > BLOCK_SIZE ? n + 1 : BLOCK_SIZE);
		p->used = 0;
	}
	dst = p->head->data + p->used;
	p->used += n + 1;
copy:
	memcpy(dst, s, n);
	dst[n] = '\0';
	return dst;
}

const char *tf_strpool_add(struct tf_strpool *p, const char *s)
{
	return tf_strpool_addn(p, s, strlen(s));
}

void tf_strpool_release(struct tf_strpool *p)
{
	while (p->head) {
		struct tf_strpool_block *next = p->head->next;

		free(p->head);
		p->head = next;
	}
	p->used = 0;
}
