/*
 * _tfmini: the CPython extension module over the core. Built against the
 * limited API (stable ABI) of Python 3.8, so one _tfmini.abi3.so serves
 * every CPython from 3.8 on.
 */
#define Py_LIMITED_API 0x03080000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "core.h"

#define MAX_NESTING 32

typedef struct {
	PyObject_HEAD
	struct tfm_tensor *t; /* owned */
} TensorObject;

static PyObject *tensor_type;  /* the Tensor heap type */
static PyObject *plugin_error; /* tfmini.PluginError */

static PyObject *raise(const struct tfm_err *e, PyObject *fallback)
{
	PyErr_SetString(e->bad_value ? PyExc_ValueError : fallback, e->msg);
	return NULL;
}

/* Wrap t (taking it) in a new Tensor object. */
static PyObject *wrap(struct tfm_tensor *t)
{
	allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)tensor_type,
						    Py_tp_alloc);
	TensorObject *o = (TensorObject *)alloc((PyTypeObject *)tensor_type, 0);

	if (!o) {
		tfm_tensor_free(t);
		return NULL;
	}
	o->t = t;
	return (PyObject *)o;
}

static void tensor_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	tfm_tensor_free(((TensorObject *)self)->t);
	tp_free(self);
	Py_DECREF(tp);
}

static PyObject *tensor_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	(void)tp;
	(void)args;
	(void)kw;
	PyErr_SetString(PyExc_TypeError,
			"tfmini: create tensors with tfmini.tensor()");
	return NULL;
}

/* ------------------------------------------------ Python values in and out */

struct flat {
	float *data;         /* owned by the caller; cap floats */
	size_t n, cap;
	size_t rank;         /* the shape values must have, if strict */
	const int64_t *dims;
	int strict;          /* 1: nesting must match rank and dims */
};

static int ragged(void)
{
	PyErr_SetString(PyExc_ValueError,
			"tfmini: tensor: nested lists are ragged");
	return -1;
}

static int flatten(PyObject *v, size_t depth, struct flat *f)
{
	Py_ssize_t i, len;

	if (PyList_Check(v) || PyTuple_Check(v)) {
		len = PySequence_Size(v);
		if (len < 0)
			return -1;
		if (depth >= MAX_NESTING ||
		    (f->strict && (depth >= f->rank || len != f->dims[depth])))
			return ragged();
		for (i = 0; i < len; i++) {
			PyObject *item = PySequence_GetItem(v, i);
			int rc = item ? flatten(item, depth + 1, f) : -1;

			Py_XDECREF(item);
			if (rc)
				return -1;
		}
		return 0;
	}
	if (f->strict && depth != f->rank)
		return ragged();
	if (f->n == f->cap) {
		PyErr_SetString(PyExc_ValueError,
				"tfmini: tensor: more values than the shape holds");
		return -1;
	}
	f->data[f->n] = (float)PyFloat_AsDouble(v);
	if (f->data[f->n] == -1.0f && PyErr_Occurred()) {
		PyErr_SetString(PyExc_TypeError,
				"tfmini: tensor: values must be numbers");
		return -1;
	}
	f->n++;
	return 0;
}

/* The shape of nested lists, following the first element at each level. */
static int infer_shape(PyObject *v, size_t *rank, int64_t *dims)
{
	*rank = 0;
	while (PyList_Check(v) || PyTuple_Check(v)) {
		Py_ssize_t len = PySequence_Size(v);

		if (len < 0)
			return -1;
		if (*rank == TFM_MAX_RANK) {
			PyErr_Format(PyExc_ValueError, "tfmini: tensor: more "
				     "than %d dimensions", TFM_MAX_RANK);
			return -1;
		}
		dims[(*rank)++] = len;
		if (!len)
			break;
		v = PyList_Check(v) ? PyList_GetItem(v, 0) : PyTuple_GetItem(v, 0);
	}
	return 0;
}

static int parse_shape(PyObject *shape, size_t *rank, int64_t *dims)
{
	Py_ssize_t i, len;

	if (!PyList_Check(shape) && !PyTuple_Check(shape)) {
		PyErr_SetString(PyExc_TypeError,
				"tfmini: tensor: shape must be a tuple or list");
		return -1;
	}
	len = PySequence_Size(shape);
	if (len < 0 || len > TFM_MAX_RANK) {
		PyErr_Format(PyExc_ValueError, "tfmini: tensor: more than %d "
			     "dimensions", TFM_MAX_RANK);
		return -1;
	}
	*rank = (size_t)len;
	for (i = 0; i < len; i++) {
		PyObject *d = PySequence_GetItem(shape, i);

		dims[i] = d ? PyLong_AsLongLong(d) : -1;
		Py_XDECREF(d);
		if (dims[i] == -1 && PyErr_Occurred())
			return -1;
	}
	return 0;
}

static PyObject *build_list(const float *data, const int64_t *dims,
			    size_t rank, size_t *pos)
{
	PyObject *list, *item;
	int64_t i;

	if (!rank)
		return PyFloat_FromDouble(data[(*pos)++]);
	list = PyList_New((Py_ssize_t)dims[0]);
	for (i = 0; list && i < dims[0]; i++) {
		item = build_list(data, dims + 1, rank - 1, pos);
		if (!item || PyList_SetItem(list, (Py_ssize_t)i, item)) {
			Py_CLEAR(list);
		}
	}
	return list;
}

static PyObject *tensor_tolist(PyObject *self, PyObject *unused)
{
	const struct tfm_tensor *t = ((TensorObject *)self)->t;
	float *host = malloc(t->count ? t->count * sizeof(float) : 1);
	struct tfm_err e;
	PyObject *ret = NULL;
	size_t pos = 0;

	(void)unused;
	if (!host)
		return PyErr_NoMemory();
	if (tfm_tensor_read(t, host, &e))
		raise(&e, PyExc_RuntimeError);
	else
		ret = build_list(host, t->dims, t->rank, &pos);
	free(host);
	return ret;
}

static int fill(PyObject *values, PyObject *shape, struct flat *f,
		int64_t *dims)
{
	struct tfm_err e;

	if (shape == Py_None ? infer_shape(values, &f->rank, dims) :
			       parse_shape(shape, &f->rank, dims))
		return -1;
	f->dims = dims;
	f->strict = shape == Py_None;
	if (tfm_shape_count(f->rank, dims, &f->cap, &e)) {
		raise(&e, PyExc_ValueError);
		return -1;
	}
	f->data = malloc(f->cap ? f->cap * sizeof(float) : 1);
	if (!f->data) {
		PyErr_NoMemory();
		return -1;
	}
	if (flatten(values, 0, f))
		return -1;
	if (f->n != f->cap) {
		PyErr_Format(PyExc_ValueError, "tfmini: tensor: %zu values "
			     "do not fill a shape of %zu", f->n, f->cap);
		return -1;
	}
	return 0;
}

static PyObject *mod_tensor(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "values", "shape", "device", NULL };
	PyObject *values, *shape = Py_None, *ret = NULL;
	const char *spec = "cpu";
	struct flat f = { NULL, 0, 0, 0, NULL, 0 };
	int64_t dims[TFM_MAX_RANK];
	struct tfm_device *dev;
	struct tfm_tensor *t;
	struct tfm_err e;
	int index;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Os:tensor", kwlist,
					 &values, &shape, &spec))
		return NULL;
	if (fill(values, shape, &f, dims))
		goto out;
	if (tfm_device_parse(spec, &dev, &index, &e) ||
	    tfm_tensor_new(dev, index, f.rank, dims, &t, &e)) {
		raise(&e, PyExc_RuntimeError);
		goto out;
	}
	if (tfm_tensor_write(t, f.data, &e)) {
		tfm_tensor_free(t);
		raise(&e, PyExc_RuntimeError);
		goto out;
	}
	ret = wrap(t);
out:
	free(f.data);
	return ret;
}

static PyObject *tensor_to(PyObject *self, PyObject *arg)
{
	const struct tfm_tensor *t = ((TensorObject *)self)->t;
	struct tfm_device *dev;
	struct tfm_tensor *n;
	struct tfm_err e;
	const char *spec;
	int index;

	if (!PyArg_Parse(arg, "s:to", &spec))
		return NULL;
	if (tfm_device_parse(spec, &dev, &index, &e) ||
	    tfm_tensor_to(t, dev, index, &n, &e))
		return raise(&e, PyExc_RuntimeError);
	return wrap(n);
}

static PyObject *tensor_shape(PyObject *self, void *closure)
{
	const struct tfm_tensor *t = ((TensorObject *)self)->t;
	PyObject *tuple = PyTuple_New((Py_ssize_t)t->rank), *d;
	size_t i;

	(void)closure;
	for (i = 0; tuple && i < t->rank; i++) {
		d = PyLong_FromLongLong(t->dims[i]);
		if (!d || PyTuple_SetItem(tuple, (Py_ssize_t)i, d))
			Py_CLEAR(tuple);
	}
	return tuple;
}

static PyObject *tensor_device(PyObject *self, void *closure)
{
	const struct tfm_tensor *t = ((TensorObject *)self)->t;

	(void)closure;
	return PyUnicode_FromFormat("%s:%d", t->dev->name, t->index);
}

static PyObject *tensor_repr(PyObject *self)
{
	PyObject *shape = tensor_shape(self, NULL), *dev, *ret = NULL;

	dev = shape ? tensor_device(self, NULL) : NULL;
	if (dev)
		ret = PyUnicode_FromFormat("tfmini.Tensor(shape=%R, device=%R)",
					   shape, dev);
	Py_XDECREF(shape);
	Py_XDECREF(dev);
	return ret;
}

static PyMethodDef tensor_methods[] = {
	{ "to", tensor_to, METH_O,
	  "to(device) -> Tensor: a copy on another device, e.g. 'm1:0'." },
	{ "tolist", tensor_tolist, METH_NOARGS,
	  "tolist() -> nested lists of floats (a float for rank 0)." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef tensor_getset[] = {
	{ "shape", tensor_shape, NULL, "the shape, a tuple of ints", NULL },
	{ "device", tensor_device, NULL, "the device, e.g. 'cpu:0'", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot tensor_slots[] = {
	{ Py_tp_dealloc, (void *)tensor_dealloc },
	{ Py_tp_new, (void *)tensor_new },
	{ Py_tp_repr, (void *)tensor_repr },
	{ Py_tp_methods, tensor_methods },
	{ Py_tp_getset, tensor_getset },
	{ Py_tp_doc, (void *)"A float32 tensor on a device." },
	{ 0, NULL },
};

static PyType_Spec tensor_spec = {
	"tfmini.Tensor", sizeof(TensorObject), 0, Py_TPFLAGS_DEFAULT,
	tensor_slots,
};

/* ------------------------------------------------------------------- ops */

static PyObject *run_op(enum tfm_op op, PyObject *a, PyObject *b, float s)
{
	struct tfm_tensor *out;
	struct tfm_err e;

	if (tfm_tensor_op(op, ((TensorObject *)a)->t,
			  b ? ((TensorObject *)b)->t : NULL, s, &out, &e))
		return raise(&e, PyExc_RuntimeError);
	return wrap(out);
}

static PyObject *binary(enum tfm_op op, PyObject *args)
{
	PyObject *a, *b;
	char fmt[32];

	snprintf(fmt, sizeof(fmt), "O!O!:%s", tfm_op_names[op]);
	if (!PyArg_ParseTuple(args, fmt, tensor_type, &a, tensor_type, &b))
		return NULL;
	return run_op(op, a, b, 0.0f);
}

static PyObject *unary(enum tfm_op op, PyObject *arg)
{
	if (!PyObject_TypeCheck(arg, (PyTypeObject *)tensor_type)) {
		PyErr_Format(PyExc_TypeError, "tfmini: %s: expected a Tensor",
			     tfm_op_names[op]);
		return NULL;
	}
	return run_op(op, arg, NULL, 0.0f);
}

static PyObject *mod_add(PyObject *m, PyObject *args)
{
	(void)m;
	return binary(TFM_OP_ADD, args);
}

static PyObject *mod_mul(PyObject *m, PyObject *args)
{
	(void)m;
	return binary(TFM_OP_MUL, args);
}

static PyObject *mod_matmul(PyObject *m, PyObject *args)
{
	(void)m;
	return binary(TFM_OP_MATMUL, args);
}

static PyObject *mod_relu(PyObject *m, PyObject *arg)
{
	(void)m;
	return unary(TFM_OP_RELU, arg);
}

static PyObject *mod_sum(PyObject *m, PyObject *arg)
{
	(void)m;
	return unary(TFM_OP_SUM, arg);
}

static PyObject *mod_scale(PyObject *m, PyObject *args)
{
	PyObject *a;
	float s;

	(void)m;
	if (!PyArg_ParseTuple(args, "O!f:scale", tensor_type, &a, &s))
		return NULL;
	return run_op(TFM_OP_SCALE, a, NULL, s);
}

/* ---------------------------------------------------------------- devices */

static PyObject *mod_devices(PyObject *m, PyObject *unused)
{
	PyObject *list = PyList_New(0), *s;
	size_t i;
	int j;

	(void)m;
	(void)unused;
	for (i = 0; list && i < tfm_device_types(); i++) {
		struct tfm_device *d = tfm_device_at(i);

		for (j = 0; list && j < d->num_devices; j++) {
			s = PyUnicode_FromFormat("%s:%d", d->name, j);
			if (!s || PyList_Append(list, s))
				Py_CLEAR(list);
			Py_XDECREF(s);
		}
	}
	return list;
}

static PyObject *mod_load_plugin(PyObject *m, PyObject *args)
{
	const char *name, *path, *registered;
	struct tfm_err e;

	(void)m;
	if (!PyArg_ParseTuple(args, "zs:load_plugin", &name, &path))
		return NULL;
	if (tfm_load_plugin(name, path, &registered, &e))
		return raise(&e, plugin_error);
	return PyUnicode_FromString(registered);
}

static int set_item(PyObject *dict, const char *key, PyObject *value)
{
	int rc = value ? PyDict_SetItemString(dict, key, value) : -1;

	Py_XDECREF(value);
	return rc;
}

static PyObject *str_or_none(const char *s)
{
	if (s)
		return PyUnicode_FromString(s);
	Py_INCREF(Py_None);
	return Py_None;
}

static PyObject *mod_plugin_info(PyObject *m, PyObject *args)
{
	struct tfm_device *d;
	const char *name;
	PyObject *dict;

	(void)m;
	if (!PyArg_ParseTuple(args, "s:plugin_info", &name))
		return NULL;
	if (!(d = tfm_device_find(name))) {
		PyErr_Format(PyExc_KeyError, "tfmini: no plugin '%s'", name);
		return NULL;
	}
	dict = PyDict_New();
	if (!dict ||
	    set_item(dict, "name", PyUnicode_FromString(d->name)) ||
	    set_item(dict, "api_version", PyUnicode_FromFormat(
			     "%d.%d", d->api_major, d->api_minor)) ||
	    set_item(dict, "isa", PyUnicode_FromString(d->isa)) ||
	    set_item(dict, "library_path", str_or_none(d->library_path)) ||
	    set_item(dict, "builtin", PyBool_FromLong(d->builtin)) ||
	    set_item(dict, "plugin_name", PyUnicode_FromString(d->plugin_name)) ||
	    set_item(dict, "version", PyUnicode_FromString(d->plugin_version)) ||
	    set_item(dict, "num_devices", PyLong_FromLong(d->num_devices)) ||
	    set_item(dict, "note", str_or_none(d->note)))
		Py_CLEAR(dict);
	return dict;
}

static PyMethodDef module_methods[] = {
	{ "tensor", (PyCFunction)(void (*)(void))mod_tensor,
	  METH_VARARGS | METH_KEYWORDS,
	  "tensor(values, shape=None, device='cpu') -> Tensor" },
	{ "add", mod_add, METH_VARARGS, "add(a, b): a + b, elementwise" },
	{ "mul", mod_mul, METH_VARARGS, "mul(a, b): a * b, elementwise" },
	{ "scale", mod_scale, METH_VARARGS, "scale(a, s): a * s" },
	{ "relu", mod_relu, METH_O, "relu(a): max(a, 0), elementwise" },
	{ "sum", mod_sum, METH_O, "sum(a): the sum of all elements (rank 0)" },
	{ "matmul", mod_matmul, METH_VARARGS, "matmul(a, b): (m,k) @ (k,n)" },
	{ "devices", mod_devices, METH_NOARGS, "devices() -> ['cpu:0', ...]" },
	{ "load_plugin", mod_load_plugin, METH_VARARGS,
	  "load_plugin(name or None, path) -> the registered device name" },
	{ "plugin_info", mod_plugin_info, METH_VARARGS,
	  "plugin_info(name) -> dict" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "_tfmini",
	"tfmini's C core; use the tfmini package.", -1, module_methods,
	NULL, NULL, NULL, NULL,
};

/* Collect the reasons built-in backends were left out, for __init__.py. */
static void init_warning(const char *msg, void *ctx)
{
	PyObject *s = PyUnicode_FromString(msg);

	if (!s || PyList_Append((PyObject *)ctx, s))
		PyErr_Clear();
	Py_XDECREF(s);
}

static int add_object(PyObject *m, const char *name, PyObject *o)
{
	if (!o || PyModule_AddObject(m, name, o)) {
		Py_XDECREF(o);
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__tfmini(void);

PyMODINIT_FUNC PyInit__tfmini(void)
{
	PyObject *m = PyModule_Create(&module_def), *warnings = NULL;
	struct tfm_err e;

	if (!m)
		return NULL;
	tensor_type = PyType_FromSpec(&tensor_spec);
	plugin_error = PyErr_NewException("tfmini.PluginError",
					  PyExc_RuntimeError, NULL);
	warnings = PyList_New(0);
	if (!tensor_type || !plugin_error || !warnings)
		goto fail;
	/* The module's references are stolen; ours stay for the globals. */
	Py_INCREF(tensor_type);
	Py_INCREF(plugin_error);
	Py_INCREF(warnings);
	if (add_object(m, "Tensor", tensor_type) ||
	    add_object(m, "PluginError", plugin_error) ||
	    add_object(m, "_init_warnings", warnings) ||
	    PyModule_AddIntConstant(m, "API_VERSION_MAJOR",
				    TFM_API_VERSION_MAJOR) ||
	    PyModule_AddIntConstant(m, "API_VERSION_MINOR",
				    TFM_API_VERSION_MINOR) ||
	    PyModule_AddIntConstant(m, "API_MINOR_MAX", TFM_API_MINOR_MAX))
		goto fail;
	if (tfm_registry_init(init_warning, warnings, &e)) {
		raise(&e, PyExc_ImportError);
		goto fail;
	}
	Py_DECREF(warnings);
	return m;
fail:
	Py_XDECREF(warnings);
	Py_DECREF(m);
	return NULL;
}
