/* acme._core 0.1: a compiled module for the oracle, described by _core.pyi beside it.
   Written for this catalogue. The stub is a sketch of this code, as real stubs of compiled
   modules are: `secret` is not in it, and argmax takes `axis` for `dim` (as torch's argument
   parser takes numpy's names), which the stub does not say. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
} TensorObject;

static PyObject *tensor_size(PyObject *self, PyObject *args) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > 1) {
        PyErr_SetString(PyExc_TypeError, "size() takes at most 1 argument");
        return NULL;
    }
    return n ? PyLong_FromLong(2) : Py_BuildValue("(ii)", 2, 3);
}

static PyObject *tensor_view(PyObject *self, PyObject *args) {
    return PyObject_CallNoArgs((PyObject *)Py_TYPE(self));
}

static PyObject *tensor_secret(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(7);
}

static PyObject *tensor_gone_later(PyObject *self, PyObject *args) {
    return PyLong_FromLong(1);
}

static PyMethodDef tensor_methods[] = {
    {"size", tensor_size, METH_VARARGS, NULL},
    {"view", tensor_view, METH_VARARGS, NULL},
    {"secret", tensor_secret, METH_NOARGS, NULL},
    {"gone_later", tensor_gone_later, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TensorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "acme._core.Tensor",
    .tp_basicsize = sizeof(TensorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_methods = tensor_methods,
};

typedef struct {
    PyObject_HEAD
} DeviceObject;

static int device_init(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"type", "index", NULL};
    PyObject *type = NULL, *index = NULL;
    return PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", names, &type, &index) ? 0 : -1;
}

static PyTypeObject DeviceType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "acme._core.Device",
    .tp_basicsize = sizeof(DeviceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = device_init,
};

static PyObject *argmax(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"input", "dim", "axis", NULL};
    PyObject *input = NULL, *dim = NULL, *axis = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", names, &input, &dim, &axis))
        return NULL;
    return PyLong_FromLong(0);
}

static PyObject *scale(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"x", "factor", NULL};
    PyObject *x = NULL, *by = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", names, &x, &by))
        return NULL;
    Py_INCREF(x);
    return x;
}

static PyMethodDef module_functions[] = {
    {"argmax", (PyCFunction)(void (*)(void))argmax, METH_VARARGS | METH_KEYWORDS, NULL},
    {"scale", (PyCFunction)(void (*)(void))scale, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "acme._core", NULL, -1, module_functions,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&TensorType) < 0 || PyType_Ready(&DeviceType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&core_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&TensorType);
    Py_INCREF(&DeviceType);
    if (PyModule_AddObject(module, "Tensor", (PyObject *)&TensorType) < 0
        || PyModule_AddObject(module, "Device", (PyObject *)&DeviceType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
