/*
 * {{module}}._core: the C half of {{module}}, on CPython's limited API
 * (Py_LIMITED_API, set by the recipe), so one abi3 module serves every
 * CPython from 3.8 on.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* add(a, b): a + b, or OverflowError past a C long long. */
static PyObject *add(PyObject *self, PyObject *args)
{
	long long a, b, sum;

	(void)self;
	if (!PyArg_ParseTuple(args, "LL", &a, &b))
		return NULL;
	if (__builtin_add_overflow(a, b, &sum)) {
		PyErr_SetString(PyExc_OverflowError, "add: the sum overflows");
		return NULL;
	}
	return PyLong_FromLongLong(sum);
}

static PyMethodDef methods[] = {
	{ "add", add, METH_VARARGS, "add(a, b) -> a + b, computed in C." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "{{module}}._core",
	"The C half of {{module}}.", -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
	return PyModule_Create(&module);
}
