/* A C extension module: hello.machine() says where it runs. */
#include <Python.h>
#include <sys/utsname.h>

static PyObject *machine(PyObject *self, PyObject *args)
{
	struct utsname u;

	(void)self;
	(void)args;
	if (uname(&u) < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	return PyUnicode_FromString(u.machine);
}

static PyMethodDef methods[] = {
	{ "machine", machine, METH_NOARGS, "The machine this runs on." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "hello", NULL, -1, methods,
				     NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit_hello(void)
{
	return PyModule_Create(&module);
}
