/*
 * CUDA architecture names (cudaarch.h): what the recipe may declare and
 * what verify reads from cuobjdump, checked and ordered one way.
 */
#include "cudaarch.h"

#include <stdlib.h>
#include <string.h>

/* The digits after "sm_" or "compute_", or NULL for another prefix. */
static const char *arch_number(const char *s)
{
	if (!strncmp(s, "sm_", 3))
		return s + 3;
	if (!strncmp(s, "compute_", 8))
		return s + 8;
	return NULL;
}

int tf_cuda_arch_is_valid(const char *name)
{
	const char *p = arch_number(name);
	size_t digits;

	if (!p)
		return 0;
	digits = strspn(p, "0123456789");
	if (digits < 2 || digits > 3)
		return 0;
	p += digits;
	return !*p || ((*p == 'a' || *p == 'f') && !p[1]);
}

int tf_cuda_arch_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	int xa = *a == 'c', xb = *b == 'c';
	long na = strtol(arch_number(a), NULL, 10),
	     nb = strtol(arch_number(b), NULL, 10);

	if (xa != xb)
		return xa - xb;
	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(a, b);
}
