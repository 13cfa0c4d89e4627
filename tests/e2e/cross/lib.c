/* A tiny library for the cross-check refusal recipes. */
#include <stdlib.h>

int lib_answer(void)
{
	return 42;
}

#ifdef NEEDS_NEW_GLIBC
/* arc4random is GLIBC_2.36: newer than manylinux_2_17 allows. */
unsigned lib_random(void)
{
	return arc4random();
}
#endif

#ifdef USES_PYTHON
/* Calling into libpython makes the link keep it as DT_NEEDED. */
const char *Py_GetVersion(void);

const char *lib_python_version(void)
{
	return Py_GetVersion();
}
#endif
