/* The inner loops of CFR's iterations, in C: the two treeplex passes and two reductions over segments.
 *
 * Treeplex passes. The sequences are numbered so that a sequence's parent (the
 * sequence its decision point hangs below) comes before it, and position 0 is
 * the empty sequence (gamelp.regret.cfr.TreeplexLevels numbers them level by
 * level). parent[s] is the position of s's parent; parent[0] is not read.
 *
 *   sequence_form:          x[0] = 1,  x[s] = b[s] x[parent[s]]          (top-down)
 *   counterfactual_values:  q = u,     q[parent[s]] += b[s] q[s]         (bottom-up)
 *
 * so q[s] = u[s] + sum over the points j below s of V[j] = sum_a b[ja] q[ja]
 * (Zinkevich, Johanson, Bowling & Piccione 2007, Section 3).
 *
 * Segments. A vector is cut into consecutive simplices [bounds[k], bounds[k+1])
 * (gamelp.regret.simplex.Segments); per segment:
 *
 *   positive_part:  out = [v]^+ / sum [v]^+, uniform where no entry is positive (regret matching)
 *   regret:         out = u - <x, u>, the regret of each action for the utility u against the strategy x
 *
 * In numpy each of these costs a few calls per depth or per reduction; here it
 * is one call and one loop, which is most of an iteration's time on a small
 * game such as Leduc. Every index is checked (0 <= parent[s] < s; bounds
 * strictly increasing from 0 to the length), so no input can read or write
 * outside the arrays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_ARRAYS 4

/* The buffers of one call: the index array (int64) first, then float64 arrays, the last of them written. */
typedef struct {
    Py_buffer view[MAX_ARRAYS];
    Py_ssize_t count;
} Arrays;

static void release(Arrays *a) {
    for (Py_ssize_t i = 0; i < a->count; i++) PyBuffer_Release(&a->view[i]);
}

/* A one-dimensional contiguous buffer of 8-byte items whose struct format is one of the characters of formats
 * ("d": float64; "lq": int64, which is "l" or "q" depending on the platform's long). */
static int get(PyObject *obj, Py_buffer *view, const char *formats, int writable, const char *fn) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    const char *f = view->format;
    if (view->itemsize != 8 || view->ndim != 1 || f[0] == '\0' || f[1] != '\0' || strchr(formats, f[0]) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s: arguments must be one-dimensional contiguous %sarrays of %s", fn,
                     writable ? "writable " : "", formats[0] == 'd' ? "float64" : "int64");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Read ``want`` arrays: an int64 index array, then float64 arrays of one common length n, the last one written. */
static int open_arrays(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *fn, Arrays *a) {
    a->count = 0;
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arrays, got %zd", fn, want, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < want; i++) {
        if (get(args[i], &a->view[i], i == 0 ? "lq" : "d", i == want - 1, fn) < 0) {
            release(a);
            return -1;
        }
        a->count++;
    }
    Py_ssize_t n = a->view[1].shape[0];
    for (Py_ssize_t i = 2; i < want; i++) {
        if (a->view[i].shape[0] != n) {
            PyErr_Format(PyExc_ValueError, "%s: the float64 arrays must have one common length", fn);
            release(a);
            return -1;
        }
    }
    return 0;
}

/* The treeplex passes' arguments: parent has the arrays' length, at least 1, and each parent comes before. */
static int open_treeplex(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *fn, Arrays *a) {
    if (open_arrays(args, nargs, want, fn, a) < 0) return -1;
    Py_ssize_t n = a->view[0].shape[0];
    const int64_t *parent = a->view[0].buf;
    if (n < 1 || a->view[1].shape[0] != n) {
        PyErr_Format(PyExc_ValueError, "%s: parent and the float64 arrays must have one common, non-zero length", fn);
        release(a);
        return -1;
    }
    for (Py_ssize_t s = 1; s < n; s++) {
        if (parent[s] < 0 || parent[s] >= s) {
            PyErr_Format(PyExc_ValueError, "%s: sequence %zd's parent %lld does not come before it", fn, s,
                         (long long)parent[s]);
            release(a);
            return -1;
        }
    }
    return 0;
}

/* The segment reductions' arguments: bounds rise strictly from 0 to the arrays' length. */
static int open_segments(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *fn, Arrays *a) {
    if (open_arrays(args, nargs, want, fn, a) < 0) return -1;
    Py_ssize_t m = a->view[0].shape[0] - 1, n = a->view[1].shape[0];
    const int64_t *bounds = a->view[0].buf;
    int ok = m >= 1 && bounds[0] == 0 && bounds[m] == n;
    for (Py_ssize_t k = 0; ok && k < m; k++) ok = bounds[k] < bounds[k + 1];
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: the segment bounds must rise strictly from 0 to the length %zd", fn, n);
        release(a);
        return -1;
    }
    return 0;
}

/* The loops, on arrays already checked: view[0] is parent or bounds, the last view is written. */
typedef void (*Loop)(const Arrays *a);

static void sequence_form_loop(const Arrays *a) {
    const int64_t *parent = a->view[0].buf;
    const double *b = a->view[1].buf;
    double *x = a->view[2].buf;
    x[0] = 1.0;
    for (Py_ssize_t s = 1; s < a->view[0].shape[0]; s++) x[s] = b[s] * x[parent[s]];
}

static void counterfactual_values_loop(const Arrays *a) {
    const int64_t *parent = a->view[0].buf;
    const double *b = a->view[1].buf, *u = a->view[2].buf;
    double *q = a->view[3].buf;
    Py_ssize_t n = a->view[0].shape[0];
    memmove(q, u, (size_t)n * sizeof(double));
    for (Py_ssize_t s = n - 1; s >= 1; s--) q[parent[s]] += b[s] * q[s];
}

static void positive_part_loop(const Arrays *a) {
    const int64_t *bounds = a->view[0].buf;
    const double *v = a->view[1].buf;
    double *out = a->view[2].buf;
    for (Py_ssize_t k = 0; k + 1 < a->view[0].shape[0]; k++) {
        double total = 0.0;
        for (int64_t i = bounds[k]; i < bounds[k + 1]; i++) total += v[i] < 0.0 ? 0.0 : v[i];
        if (total > 0.0) { /* false for a NaN total too: a NaN entry makes its segment uniform, as in numpy */
            for (int64_t i = bounds[k]; i < bounds[k + 1]; i++) out[i] = v[i] < 0.0 ? 0.0 : v[i] / total;
        } else {
            double uniform = 1.0 / (double)(bounds[k + 1] - bounds[k]);
            for (int64_t i = bounds[k]; i < bounds[k + 1]; i++) out[i] = uniform;
        }
    }
}

static void regret_loop(const Arrays *a) {
    const int64_t *bounds = a->view[0].buf;
    const double *x = a->view[1].buf, *u = a->view[2].buf;
    double *out = a->view[3].buf;
    for (Py_ssize_t k = 0; k + 1 < a->view[0].shape[0]; k++) {
        double expected = 0.0;
        for (int64_t i = bounds[k]; i < bounds[k + 1]; i++) expected += x[i] * u[i];
        for (int64_t i = bounds[k]; i < bounds[k + 1]; i++) out[i] = u[i] - expected;
    }
}

typedef int (*Opener)(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *fn, Arrays *a);

/* Check the arguments with open, run the loop, release the buffers. */
static PyObject *run(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *fn, Opener open, Loop loop) {
    Arrays a;
    if (open(args, nargs, want, fn, &a) < 0) return NULL;
    loop(&a);
    release(&a);
    Py_RETURN_NONE;
}

static PyObject *sequence_form(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    return run(args, nargs, 3, "sequence_form", open_treeplex, sequence_form_loop);
}

static PyObject *counterfactual_values(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    return run(args, nargs, 4, "counterfactual_values", open_treeplex, counterfactual_values_loop);
}

static PyObject *positive_part(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    return run(args, nargs, 3, "positive_part", open_segments, positive_part_loop);
}

static PyObject *regret(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    return run(args, nargs, 4, "regret", open_segments, regret_loop);
}

static PyMethodDef methods[] = {
    {"sequence_form", (PyCFunction)(void (*)(void))sequence_form, METH_FASTCALL,
     "sequence_form(parent, behaviour, out): out[0] = 1, out[s] = behaviour[s] * out[parent[s]]"},
    {"counterfactual_values", (PyCFunction)(void (*)(void))counterfactual_values, METH_FASTCALL,
     "counterfactual_values(parent, behaviour, utility, out): out = utility, then from the last sequence up "
     "out[parent[s]] += behaviour[s] * out[s]"},
    {"positive_part", (PyCFunction)(void (*)(void))positive_part, METH_FASTCALL,
     "positive_part(bounds, v, out): per segment, [v]^+ normalised to sum 1, uniform where no entry is positive"},
    {"regret", (PyCFunction)(void (*)(void))regret, METH_FASTCALL,
     "regret(bounds, x, u, out): per segment, out = u - <x, u>"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "The inner loops of CFR's iterations (C).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
