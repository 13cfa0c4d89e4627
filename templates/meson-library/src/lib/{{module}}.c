/* lib{{module}}: the C library of {{name}}. */
#include "{{module}}.h"

int {{module}}_add(long a, long b, long *sum)
{
	long s;

	if (__builtin_add_overflow(a, b, &s))
		return -1;
	*sum = s;
	return 0;
}

const char *{{module}}_version(void)
{
	return "0.1.0";
}
