/* acme.speedups 0.2: the same module compiled, with no .pyi stub: the tool cannot see what
   it defines. Written for this catalogue. legacy_mean is gone; fast_sum stays. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *fast_sum(PyObject *self, PyObject *values) {
    PyObject *builtins = PyEval_GetBuiltins();
    PyObject *sum = PyDict_GetItemString(builtins, "sum");
    return PyObject_CallOneArg(sum, values);
}

static PyMethodDef methods[] = {
    {"fast_sum", fast_sum, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit_speedups(void) { return PyModule_Create(&module); }
