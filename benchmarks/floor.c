/* The floor of a short AEAD call from Python: what any C function pays to take
 * (nonce, data, aad) as buffers and return len(data) + 16 new bytes, with no
 * cryptography at all (the data is copied, the "tag" is zeros).  A benchmark
 * helper only: it lives outside the package, so no wheel or sdist build of
 * poly1305x compiles it; poly1305x._tools._floor builds it on demand. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static int borrow(PyObject* o, Py_buffer* v, const char** p, Py_ssize_t* n) {
    if (PyBytes_CheckExact(o)) {          /* the bytes fast path, as poly1305x's */
        *p = PyBytes_AS_STRING(o);
        *n = PyBytes_GET_SIZE(o);
        v->obj = NULL;
        return 0;
    }
    if (PyObject_GetBuffer(o, v, PyBUF_SIMPLE) < 0)
        return -1;
    *p = (const char*)v->buf;
    *n = v->len;
    return 0;
}

static PyObject* seal(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    Py_buffer vn, vd, va;
    const char *nonce, *data, *aad = NULL;
    Py_ssize_t nlen, dlen, alen = 0;
    PyObject* out = NULL;
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "seal(nonce, data, aad)");
        return NULL;
    }
    vd.obj = va.obj = NULL;
    if (borrow(args[0], &vn, &nonce, &nlen) < 0)
        return NULL;
    if (borrow(args[1], &vd, &data, &dlen) < 0)
        goto done;
    if (args[2] != Py_None && borrow(args[2], &va, &aad, &alen) < 0)
        goto done;
    out = PyBytes_FromStringAndSize(NULL, dlen + 16);
    if (out != NULL) {
        memcpy(PyBytes_AS_STRING(out), data, (size_t)dlen);
        memset(PyBytes_AS_STRING(out) + dlen, 0, 16);
    }
done:
    if (va.obj) PyBuffer_Release(&va);
    if (vd.obj) PyBuffer_Release(&vd);
    if (vn.obj) PyBuffer_Release(&vn);
    return out;
}

static PyMethodDef methods[] = {
    {"seal", (PyCFunction)(void (*)(void))seal, METH_FASTCALL,
     "seal(nonce, data, aad) -> data + 16 zero bytes (no cryptography)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_p1305x_floor", NULL, -1, methods};

PyMODINIT_FUNC PyInit__p1305x_floor(void) { return PyModule_Create(&module); }
