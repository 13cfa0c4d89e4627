#include "unit.h"

#include <stddef.h>

#include "abi3.h"

/* Values from CPython's Misc/stable_abi.toml, as the table must carry them. */
static void test_since(void)
{
	static const struct {
		const char *symbol;
		int since;
	} cases[] = {
		{ "PyArg_ParseTuple", 2 },
		{ "PyModule_Create2", 2 },
		{ "_Py_Dealloc", 2 },      /* abi_only: macros use it */
		{ "_Py_NoneStruct", 2 },   /* abi_only data */
		{ "_PyObject_GC_New", 2 }, /* abi_only */
		{ "PyType_FromSpecWithBases", 3 },
		{ "PyModuleDef_Init", 5 },
		{ "PyUnicode_AsUCS4", 7 },
		{ "PyIndex_Check", 8 },
		{ "PyCMethod_New", 9 },
		{ "PyUnicode_AsUTF8AndSize", 10 },
		{ "Py_NewRef", 10 },
		{ "PyExc_BaseExceptionGroup", 11 },
		{ "PyBuffer_Release", 11 },
		{ "PyErr_DisplayException", 12 },
		{ "PyObject_Vectorcall", 12 },
		{ "PyLong_AsInt", 13 },
		{ "Py_TYPE", 14 },
		{ "Py_SIZE", 15 },
		{ "PyUnicode_AsUTF8", 0 }, /* not in the stable ABI */
		{ "_PyObject_CallNoArg", 0 },
		{ "PyErr_SetFromWindowsErr", 0 }, /* Windows only */
		{ "PyOS_CheckStack", 0 },         /* USE_STACKCHECK only */
		{ "", 0 },
		{ "PyArg_ParseTupleX", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		CHECK_INT(tf_abi3_since(cases[i].symbol), cases[i].since);
}

static void test_minor(void)
{
	CHECK_INT(tf_abi3_minor("cp38", "abi3"), 8);
	CHECK_INT(tf_abi3_minor("cp310", "abi3"), 10);
	CHECK_INT(tf_abi3_minor("cp39.cp38", "abi3"), 8);
	CHECK_INT(tf_abi3_minor("cp38", "none"), 0);
	CHECK_INT(tf_abi3_minor("cp311", "cp311"), 0);
	CHECK_INT(tf_abi3_minor("py3", "abi3"), 0);
	CHECK_INT(tf_abi3_minor("cp38.py3", "abi3"), 0);
	CHECK_INT(tf_abi3_minor("cp2", "abi3"), 0);
	CHECK_INT(tf_abi3_minor("cp3", "abi3"), 0);
	CHECK_INT(tf_abi3_minor("cp3x", "abi3"), 0);
	CHECK(tf_abi3_is_python_symbol("PyLong_FromLong"));
	CHECK(tf_abi3_is_python_symbol("_Py_Dealloc"));
	CHECK(!tf_abi3_is_python_symbol("malloc"));
	CHECK(!tf_abi3_is_python_symbol("_PY_x"));
}

int main(void)
{
	test_since();
	test_minor();
	return unit_done();
}
