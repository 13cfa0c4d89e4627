/* The C test of lib{{module}}: exits 1 after naming what failed. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "{{module}}.h"

static int failures;

static void expect(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAILED", what);
	failures += !ok;
}

int main(void)
{
	long sum = 0;

	expect({{module}}_add(2, 3, &sum) == 0 && sum == 5, "2 + 3 is 5");
	expect({{module}}_add(LONG_MAX, 1, &sum) == -1, "LONG_MAX + 1 overflows");
	expect(strcmp({{module}}_version(), "0.1.0") == 0, "the version");
	return failures ? 1 : 0;
}
