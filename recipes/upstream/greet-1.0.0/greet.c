#include "greet.h"

#include <stdio.h>

int greet_add(int a, int b)
{
	return a + b;
}

int greet_format(char *buf, int size, const char *name)
{
	return snprintf(buf, (size_t)size, "hello, %s", name);
}
