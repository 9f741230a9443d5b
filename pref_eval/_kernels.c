/* Compiled kernels of the Bradley-Terry fit (pref_eval.zelo.kernels), optional.

   Each function computes, element for element and addition for addition, what
   the scipy function named in its doc string computes -- the same C library
   calls (exp, log1p) and the same order of floating-point operations -- so the
   results are the same bits, without importing scipy (about a third of
   zelo_fit's time on 400,000 judgments). Arrays are passed through the buffer
   protocol (C-contiguous; float64 as 'd', indices as int64 'q'/'l'); outputs
   are written into buffers the caller allocates. Built with
   -ffp-contract=off so that no multiply-add is fused (scipy's builds do not
   fuse either; tests/test_zelo_kernels.py compares the bits with scipy live).
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Py_buffer view;
    int held;
} buf_t;

static int get_buf(PyObject *obj, buf_t *b, int writable, char kind, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) return -1;
    b->held = 1;
    const char *f = b->view.format ? b->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok;
    if (kind == 'd')
        ok = (f[0] == 'd' && f[1] == 0 && b->view.itemsize == 8);
    else /* 64-bit signed integers */
        ok = ((f[0] == 'q' || f[0] == 'l') && f[1] == 0 && b->view.itemsize == 8);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous %s array", what,
                     kind == 'd' ? "float64" : "int64");
        return -1;
    }
    return 0;
}

static void release(buf_t *b, int n) {
    for (int i = 0; i < n; i++)
        if (b[i].held) PyBuffer_Release(&b[i].view);
}

#define NITEMS(b) ((b).view.len / 8)

/* 0 when every idx[k] (k < n) lies in [0, hi); else -1 with ValueError(message) set. */
static int indices_in_range(const int64_t *idx, Py_ssize_t n, Py_ssize_t hi, const char *message) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= hi) {
            PyErr_SetString(PyExc_ValueError, message);
            return -1;
        }
    return 0;
}

static double expit1(double v) { return 1.0 / (1.0 + exp(-v)); }
static double log_expit1(double v) { return v < 0 ? v - log1p(exp(v)) : -log1p(exp(-v)); }

/* x and out: float64 buffers of one length, held in b[0] and b[1] (the arguments of the elementwise kernels);
   -1 with the error set and nothing held when they are not. */
static int x_and_out(PyObject *xo, PyObject *oo, buf_t b[2]) {
    memset(b, 0, 2 * sizeof *b);
    if (get_buf(xo, &b[0], 0, 'd', "x") < 0 || get_buf(oo, &b[1], 1, 'd', "out") < 0) goto fail;
    if (NITEMS(b[0]) != NITEMS(b[1])) {
        PyErr_SetString(PyExc_ValueError, "x and out differ in length");
        goto fail;
    }
    return 0;
fail:
    release(b, 2);
    return -1;
}

/* f applied elementwise: (x, out) float64 buffers of one length; out[i] = f(x[i]) */
static PyObject *elementwise(PyObject *args, double (*f)(double)) {
    PyObject *xo, *oo;
    buf_t b[2];
    if (!PyArg_ParseTuple(args, "OO", &xo, &oo) || x_and_out(xo, oo, b) < 0) return NULL;
    {
        const double *x = b[0].view.buf;
        double *out = b[1].view.buf;
        Py_ssize_t n = NITEMS(b[0]);
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) out[i] = f(x[i]);
        Py_END_ALLOW_THREADS
    }
    release(b, 2);
    Py_RETURN_NONE;
}

/* expit(x, out): out[i] = 1 / (1 + exp(-x[i]))  (scipy.special.expit) */
static PyObject *k_expit(PyObject *self, PyObject *args) { return elementwise(args, expit1); }

/* log_expit(x, out): x - log1p(exp(x)) for x < 0, else -log1p(exp(-x))  (scipy.special.log_expit) */
static PyObject *k_log_expit(PyObject *self, PyObject *args) { return elementwise(args, log_expit1); }

/* The C library's exp, log, log2, exp2, log1p, tanh elementwise (pref_eval.libm: the bits Python's math module gives,
   on every x86-64 CPU; numpy's own SIMD code differs in last bits on a CPU with AVX-512). */
static double c_exp(double v) { return exp(v); }
static double c_log(double v) { return log(v); }
static double c_log2(double v) { return log2(v); }
static double c_exp2(double v) { return exp2(v); }
static double c_log1p(double v) { return log1p(v); }
static double c_tanh(double v) { return tanh(v); }
static PyObject *k_exp(PyObject *self, PyObject *args) { return elementwise(args, c_exp); }
static PyObject *k_log(PyObject *self, PyObject *args) { return elementwise(args, c_log); }
static PyObject *k_log2(PyObject *self, PyObject *args) { return elementwise(args, c_log2); }
static PyObject *k_exp2(PyObject *self, PyObject *args) { return elementwise(args, c_exp2); }
static PyObject *k_log1p(PyObject *self, PyObject *args) { return elementwise(args, c_log1p); }
static PyObject *k_tanh(PyObject *self, PyObject *args) { return elementwise(args, c_tanh); }

/* pow_scalar(x, y, base, out): out[i] = pow(y, x[i]) when base is true (a scalar base), else pow(x[i], y). */
static PyObject *k_pow_scalar(PyObject *self, PyObject *args) {
    PyObject *xo, *oo;
    double y;
    int base;
    buf_t b[2];
    if (!PyArg_ParseTuple(args, "OdpO", &xo, &y, &base, &oo) || x_and_out(xo, oo, b) < 0) return NULL;
    {
        const double *x = b[0].view.buf;
        double *out = b[1].view.buf;
        Py_ssize_t n = NITEMS(b[0]);
        Py_BEGIN_ALLOW_THREADS
        if (base)
            for (Py_ssize_t i = 0; i < n; i++) out[i] = pow(y, x[i]);
        else
            for (Py_ssize_t i = 0; i < n; i++) out[i] = pow(x[i], y);
        Py_END_ALLOW_THREADS
    }
    release(b, 2);
    Py_RETURN_NONE;
}

/* csr_matvec(indptr, indices, data, p, out): out[i] = 0 + sum over the row's entries, in order, of
   data[k] * p[indices[k]]  (scipy.sparse.csr_matrix @ p: sparsetools' csr_matvec). indptr int64,
   indices int32 (as scipy's own for fewer than 2**31 entries) or int64. */
static PyObject *k_csr_matvec(PyObject *self, PyObject *args) {
    PyObject *o[5];
    buf_t b[5];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4])) return NULL;
    if (get_buf(o[0], &b[0], 0, 'q', "indptr") < 0 || get_buf(o[2], &b[2], 0, 'd', "data") < 0 ||
        get_buf(o[3], &b[3], 0, 'd', "p") < 0 || get_buf(o[4], &b[4], 1, 'd', "out") < 0)
        goto fail;
    if (PyObject_GetBuffer(o[1], &b[1].view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto fail;
    b[1].held = 1;
    {
        const char *f = b[1].view.format ? b[1].view.format : "B";
        if (*f == '<' || *f == '=' || *f == '@') f++;
        int i32 = (f[0] == 'i' && f[1] == 0 && b[1].view.itemsize == 4);
        int i64 = ((f[0] == 'q' || f[0] == 'l') && f[1] == 0 && b[1].view.itemsize == 8);
        if (!i32 && !i64) {
            PyErr_SetString(PyExc_TypeError, "indices: expected a contiguous int32 or int64 array");
            goto fail;
        }
        const int64_t *ptr = b[0].view.buf;
        const double *data = b[2].view.buf, *p = b[3].view.buf;
        double *out = b[4].view.buf;
        Py_ssize_t nrow = NITEMS(b[0]) - 1, nnz = b[1].view.len / b[1].view.itemsize, np_ = NITEMS(b[3]);
        if (nrow < 0 || NITEMS(b[4]) != nrow || NITEMS(b[2]) != nnz || ptr[0] != 0 || ptr[nrow] > nnz) {
            PyErr_SetString(PyExc_ValueError, "csr_matvec: inconsistent lengths");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < nrow; i++)
            if (ptr[i + 1] < ptr[i]) {
                PyErr_SetString(PyExc_ValueError, "csr_matvec: indptr decreases");
                goto fail;
            }
        int bad = 0;
        Py_BEGIN_ALLOW_THREADS
        if (i32) {
            const int32_t *idx = b[1].view.buf;
            for (Py_ssize_t i = 0; i < nrow; i++) {
                double sum = 0.0;
                for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
                    uint64_t j = (uint64_t)(int64_t)idx[k];
                    if (j >= (uint64_t)np_) { bad = 1; break; }
                    sum += data[k] * p[j];
                }
                out[i] = sum;
            }
        } else {
            const int64_t *idx = b[1].view.buf;
            for (Py_ssize_t i = 0; i < nrow; i++) {
                double sum = 0.0;
                for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
                    uint64_t j = (uint64_t)idx[k];
                    if (j >= (uint64_t)np_) { bad = 1; break; }
                    sum += data[k] * p[j];
                }
                out[i] = sum;
            }
        }
        Py_END_ALLOW_THREADS
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "csr_matvec: column index out of range");
            goto fail;
        }
    }
    release(b, 5);
    Py_RETURN_NONE;
fail:
    release(b, 5);
    return NULL;
}

/* scc(indptr, indices, labels): strongly connected components of the digraph with the out-edges of
   node i in indices[indptr[i]:indptr[i+1]] (Tarjan 1972, iterative); labels[i] = component number,
   in the order the components are completed. Returns the number of components. */
static PyObject *k_scc(PyObject *self, PyObject *args) {
    PyObject *o[3];
    buf_t b[3];
    memset(b, 0, sizeof b);
    int64_t *index = NULL, *low = NULL, *stack = NULL, *work_node = NULL, *work_next = NULL;
    char *on_stack = NULL;
    int64_t comps = 0;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2])) return NULL;
    if (get_buf(o[0], &b[0], 0, 'q', "indptr") < 0 || get_buf(o[1], &b[1], 0, 'q', "indices") < 0 ||
        get_buf(o[2], &b[2], 1, 'q', "labels") < 0)
        goto fail;
    {
        const int64_t *ptr = b[0].view.buf, *adj = b[1].view.buf;
        int64_t *label = b[2].view.buf;
        Py_ssize_t n = NITEMS(b[0]) - 1, nnz = NITEMS(b[1]);
        if (n < 0 || NITEMS(b[2]) != n || ptr[0] != 0 || ptr[n] > nnz) {
            PyErr_SetString(PyExc_ValueError, "scc: inconsistent lengths");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < n; i++) /* else a node's edges would be read outside indices */
            if (ptr[i + 1] < ptr[i]) {
                PyErr_SetString(PyExc_ValueError, "scc: indptr decreases");
                goto fail;
            }
        if (indices_in_range(adj, nnz, n, "scc: node index out of range") < 0) goto fail;
        size_t sz = (size_t)(n > 0 ? n : 1) * sizeof(int64_t);
        index = malloc(sz);
        low = malloc(sz);
        stack = malloc(sz);
        work_node = malloc(sz);
        work_next = malloc(sz);
        on_stack = calloc((size_t)(n > 0 ? n : 1), 1);
        if (!index || !low || !stack || !work_node || !work_next || !on_stack) {
            PyErr_NoMemory();
            goto fail;
        }
        Py_BEGIN_ALLOW_THREADS
        int64_t counter = 0, top = 0;
        for (Py_ssize_t i = 0; i < n; i++) index[i] = -1;
        for (int64_t root = 0; root < n; root++) {
            if (index[root] >= 0) continue;
            int64_t depth = 0;
            work_node[0] = root;
            work_next[0] = ptr[root];
            index[root] = low[root] = counter++;
            stack[top++] = root;
            on_stack[root] = 1;
            while (depth >= 0) {
                int64_t node = work_node[depth];
                if (work_next[depth] < ptr[node + 1]) {
                    int64_t w = adj[work_next[depth]++];
                    if (index[w] < 0) {
                        index[w] = low[w] = counter++;
                        stack[top++] = w;
                        on_stack[w] = 1;
                        depth++;
                        work_node[depth] = w;
                        work_next[depth] = ptr[w];
                    } else if (on_stack[w] && index[w] < low[node]) {
                        low[node] = index[w];
                    }
                    continue;
                }
                depth--;
                if (depth >= 0 && low[node] < low[work_node[depth]]) low[work_node[depth]] = low[node];
                if (low[node] == index[node]) {
                    int64_t w;
                    do {
                        w = stack[--top];
                        on_stack[w] = 0;
                        label[w] = comps;
                    } while (w != node);
                    comps++;
                }
            }
        }
        Py_END_ALLOW_THREADS
    }
    free(index); free(low); free(stack); free(work_node); free(work_next); free(on_stack);
    release(b, 3);
    return PyLong_FromLongLong(comps);
fail:
    free(index); free(low); free(stack); free(work_node); free(work_next); free(on_stack);
    release(b, 3);
    return NULL;
}


/* bt_objective(x, u, v, eblock, nw, wvu, f): f[eblock[k]] += nw[k] * log_expit(d) - wvu[k] * d with
   d = x[u[k]] - x[v[k]], k in order, f zeroed first -- numpy's
   bincount(eblock, nw * log_expit(x[u] - x[v]) - wvu * (x[u] - x[v])), the same operations in the same order. */
static PyObject *k_bt_objective(PyObject *self, PyObject *args) {
    PyObject *o[7];
    buf_t b[7];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6])) return NULL;
    if (get_buf(o[0], &b[0], 0, 'd', "x") < 0 || get_buf(o[1], &b[1], 0, 'q', "u") < 0 ||
        get_buf(o[2], &b[2], 0, 'q', "v") < 0 || get_buf(o[3], &b[3], 0, 'q', "eblock") < 0 ||
        get_buf(o[4], &b[4], 0, 'd', "nw") < 0 || get_buf(o[5], &b[5], 0, 'd', "wvu") < 0 ||
        get_buf(o[6], &b[6], 1, 'd', "f") < 0)
        goto fail;
    {
        const double *x = b[0].view.buf, *nw = b[4].view.buf, *wvu = b[5].view.buf;
        const int64_t *u = b[1].view.buf, *v = b[2].view.buf, *eb = b[3].view.buf;
        double *f = b[6].view.buf;
        Py_ssize_t n = NITEMS(b[0]), m = NITEMS(b[1]), nb = NITEMS(b[6]);
        if (NITEMS(b[2]) != m || NITEMS(b[3]) != m || NITEMS(b[4]) != m || NITEMS(b[5]) != m) {
            PyErr_SetString(PyExc_ValueError, "bt_objective: edge arrays differ in length");
            goto fail;
        }
        if (indices_in_range(u, m, n, "bt_objective: index out of range") < 0 ||
            indices_in_range(v, m, n, "bt_objective: index out of range") < 0 ||
            indices_in_range(eb, m, nb, "bt_objective: index out of range") < 0)
            goto fail;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t j = 0; j < nb; j++) f[j] = 0.0;
        for (Py_ssize_t k = 0; k < m; k++) {
            double d = x[u[k]] - x[v[k]];
            double a = nw[k] * log_expit1(d);
            double c = wvu[k] * d;
            f[eb[k]] += a - c;
        }
        Py_END_ALLOW_THREADS
    }
    release(b, 7);
    Py_RETURN_NONE;
fail:
    release(b, 7);
    return NULL;
}

/* bt_gradient(x, u, v, wuv, wvu, nw, gu, gv, h[, hu, hv]): with d = x[u[k]] - x[v[k]], p = expit(d),
   q = expit(-d), r = wuv[k] * q - wvu[k] * p: gu[u[k]] += r, gv[v[k]] += r (k in order, both zeroed first)
   and h[k] = nw[k] * p * q -- numpy's bincount(u, r), bincount(v, r) and nw * p * q; with hu, hv also
   hu[u[k]] += h[k], hv[v[k]] += h[k] (bincount(u, h), bincount(v, h): the Hessian's diagonal parts). Each
   term is computed to full relative precision (1 - p would lose it when p is near 1: a near-perfect pair). */
static PyObject *k_bt_gradient(PyObject *self, PyObject *args) {
    PyObject *o[11] = {NULL};
    buf_t b[11];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OOOOOOOOO|OO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10]))
        return NULL;
    if ((o[9] == NULL) != (o[10] == NULL)) {
        PyErr_SetString(PyExc_TypeError, "bt_gradient: hu and hv go together");
        return NULL;
    }
    int diag = o[9] != NULL;
    if (get_buf(o[0], &b[0], 0, 'd', "x") < 0 || get_buf(o[1], &b[1], 0, 'q', "u") < 0 ||
        get_buf(o[2], &b[2], 0, 'q', "v") < 0 || get_buf(o[3], &b[3], 0, 'd', "wuv") < 0 ||
        get_buf(o[4], &b[4], 0, 'd', "wvu") < 0 || get_buf(o[5], &b[5], 0, 'd', "nw") < 0 ||
        get_buf(o[6], &b[6], 1, 'd', "gu") < 0 || get_buf(o[7], &b[7], 1, 'd', "gv") < 0 ||
        get_buf(o[8], &b[8], 1, 'd', "h") < 0 ||
        (diag && (get_buf(o[9], &b[9], 1, 'd', "hu") < 0 || get_buf(o[10], &b[10], 1, 'd', "hv") < 0)))
        goto fail;
    {
        const double *x = b[0].view.buf, *wuv = b[3].view.buf, *wvu = b[4].view.buf, *nw = b[5].view.buf;
        const int64_t *u = b[1].view.buf, *v = b[2].view.buf;
        double *gu = b[6].view.buf, *gv = b[7].view.buf, *h = b[8].view.buf;
        double *hu = diag ? b[9].view.buf : NULL, *hv = diag ? b[10].view.buf : NULL;
        Py_ssize_t n = NITEMS(b[0]), m = NITEMS(b[1]);
        if (NITEMS(b[2]) != m || NITEMS(b[3]) != m || NITEMS(b[4]) != m || NITEMS(b[5]) != m ||
            NITEMS(b[8]) != m || NITEMS(b[6]) != n || NITEMS(b[7]) != n ||
            (diag && (NITEMS(b[9]) != n || NITEMS(b[10]) != n))) {
            PyErr_SetString(PyExc_ValueError, "bt_gradient: arrays differ in length");
            goto fail;
        }
        if (indices_in_range(u, m, n, "bt_gradient: index out of range") < 0 ||
            indices_in_range(v, m, n, "bt_gradient: index out of range") < 0)
            goto fail;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) gu[i] = gv[i] = 0.0;
        if (diag)
            for (Py_ssize_t i = 0; i < n; i++) hu[i] = hv[i] = 0.0;
        for (Py_ssize_t k = 0; k < m; k++) {
            double d = x[u[k]] - x[v[k]];
            double p = 1.0 / (1.0 + exp(-d));
            double q = 1.0 / (1.0 + exp(d));
            double r = wuv[k] * q - wvu[k] * p;
            gu[u[k]] += r;
            gv[v[k]] += r;
            double t = nw[k] * p;
            h[k] = t * q;
            if (diag) { /* bincount(u, h) and bincount(v, h): the same additions in the same order */
                hu[u[k]] += h[k];
                hv[v[k]] += h[k];
            }
        }
        Py_END_ALLOW_THREADS
    }
    release(b, 11);
    Py_RETURN_NONE;
fail:
    release(b, 11);
    return NULL;
}

/* stable_order(hi, nhi, lo, nlo, out): the stable order of the rows by (hi, lo) -- np.lexsort((lo, hi)),
   the permutation being unique -- by two counting sorts (least significant key first; Knuth, TAOCP
   vol. 3, 5.2.5). hi[k] in [0, nhi), lo[k] in [0, nlo) (lo None: by hi alone); out int64. O(rows +
   nhi + nlo) time: for keys of small range (document or query indices) instead of a comparison sort. */
static PyObject *k_stable_order(PyObject *self, PyObject *args) {
    PyObject *o[3];
    Py_ssize_t nhi, nlo;
    buf_t b[3];
    memset(b, 0, sizeof b);
    int64_t *count = NULL, *tmp = NULL;
    if (!PyArg_ParseTuple(args, "OnOnO", &o[0], &nhi, &o[1], &nlo, &o[2])) return NULL;
    int has_lo = o[1] != Py_None;
    if (get_buf(o[0], &b[0], 0, 'q', "hi") < 0 || (has_lo && get_buf(o[1], &b[1], 0, 'q', "lo") < 0) ||
        get_buf(o[2], &b[2], 1, 'q', "out") < 0)
        goto fail;
    {
        const int64_t *hi = b[0].view.buf, *lo = has_lo ? b[1].view.buf : NULL;
        int64_t *out = b[2].view.buf;
        Py_ssize_t m = NITEMS(b[0]);
        if (nhi < 0 || nlo < 0 || NITEMS(b[2]) != m || (has_lo && NITEMS(b[1]) != m)) {
            PyErr_SetString(PyExc_ValueError, "stable_order: inconsistent lengths");
            goto fail;
        }
        for (Py_ssize_t k = 0; k < m; k++)
            if (hi[k] < 0 || hi[k] >= nhi || (lo && (lo[k] < 0 || lo[k] >= nlo))) {
                PyErr_SetString(PyExc_ValueError, "stable_order: key out of range");
                goto fail;
            }
        if ((nhi > nlo ? nhi : nlo) >= PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t)) {
            PyErr_NoMemory(); /* the counts would not fit in memory (and nc * 8 would wrap) */
            goto fail;
        }
        Py_ssize_t nc = (nhi > nlo ? nhi : nlo) + 1;
        count = malloc((size_t)nc * sizeof(int64_t));
        tmp = malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
        if (!count || !tmp) {
            PyErr_NoMemory();
            goto fail;
        }
        Py_BEGIN_ALLOW_THREADS
        if (lo) {
            memset(count, 0, (size_t)(nlo + 1) * sizeof(int64_t));
            for (Py_ssize_t k = 0; k < m; k++) count[lo[k] + 1]++;
            for (Py_ssize_t j = 0; j < nlo; j++) count[j + 1] += count[j];
            for (Py_ssize_t k = 0; k < m; k++) tmp[count[lo[k]]++] = k;
        } else {
            for (Py_ssize_t k = 0; k < m; k++) tmp[k] = k;
        }
        memset(count, 0, (size_t)(nhi + 1) * sizeof(int64_t));
        for (Py_ssize_t k = 0; k < m; k++) count[hi[k] + 1]++;
        for (Py_ssize_t j = 0; j < nhi; j++) count[j + 1] += count[j];
        for (Py_ssize_t k = 0; k < m; k++) {
            int64_t i = tmp[k];
            out[count[hi[i]]++] = i;
        }
        Py_END_ALLOW_THREADS
    }
    free(count); free(tmp);
    release(b, 3);
    Py_RETURN_NONE;
fail:
    free(count); free(tmp);
    release(b, 3);
    return NULL;
}

/* A growable UTF-8 buffer for format_scores. */
typedef struct {
    char *p;
    size_t len, cap;
} sbuf_t;

static int sb_put(sbuf_t *sb, const char *s, size_t n) {
    if (sb->len + n > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 1 << 16;
        while (cap < sb->len + n) cap *= 2;
        char *q = realloc(sb->p, cap);
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        sb->p = q;
        sb->cap = cap;
    }
    memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    return 0;
}

static int sb_str(sbuf_t *sb, PyObject *o) {
    if (!PyUnicode_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "format_scores: expected str");
        return -1;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(o, &n);
    return u ? sb_put(sb, u, (size_t)n) : -1;
}

static const uint64_t POW10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
                                   100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
                                   1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
                                   1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
                                   1000000000000000000ULL, 10000000000000000000ULL};

/* repr(x) for 1e-3 <= |x| < 1e16 by exact integer arithmetic, into buf (at least 32 bytes); returns the
   length, or 0 when the case is left to PyOS_double_to_string (any other x; a candidate on an end of
   the rounding interval; a tie between two nearest candidates).

   repr gives the shortest decimal that reads back as x and, of several, the one nearest x (David Gay's
   dtoa, mode 0), in fixed notation for exponents -4 < decpt <= 16. With x = m 2^e (m < 2^53) the
   reals reading back as x are within half an ulp: (4m - 2 or, just above a power of two, 4m - 1) 2^(e-2)
   ... (4m + 2) 2^(e-2), ends included when m is even. Scaled by 10^k so that X = x 10^k lies in
   [10^17, 2.1 10^18), the ends L, H and X have exact integer parts and fractions (4m 10^k < 2^125).
   A decimal with digits t at place 10^j (j >= 1) is a candidate when L <= t 10^j <= H; the 17-digit
   rounding is always strictly inside (half of 10^(j-1) of X < half an ulp), shorter ones are tried
   until none is left (with and without the ends: when they differ the end rule would decide, and
   the case is left to dtoa); the last one found holds the shortest decimals, the nearest of which is
   taken (a tie is left to dtoa). tests/test_zelo_scores_writer.py compares with repr. */
static int fast_repr(double x, char *buf) {
#ifndef __SIZEOF_INT128__
    (void)x; (void)buf; (void)POW10;
    return 0; /* no 128-bit integers: dtoa for every value */
#else
    double ax = fabs(x);
    if (!(ax >= 1e-3 && ax < 1e16)) return 0;
    uint64_t bits;
    memcpy(&bits, &x, 8);
    int bexp = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & ((1ULL << 52) - 1), m = mant | (1ULL << 52);
    int e = bexp - 1075;                                   /* x = m 2^e, e in [-62, 1] */
    int p = (((bexp - 1023) * 78913 + (100 << 18)) >> 18) - 100; /* floor(log10(2^(bexp-1023))) (shifts >= 0) */
    int k = 17 - p;                                        /* in [2, 21] */
    unsigned __int128 tenk = k > 19 ? (unsigned __int128)POW10[19] * POW10[k - 19] : POW10[k];
    int S = 2 - e;                                         /* X = Xn / 2^S */
    unsigned __int128 mask = (((unsigned __int128)1) << S) - 1;
    unsigned __int128 Xn = (unsigned __int128)(4 * m) * tenk;
    unsigned __int128 Ln = (unsigned __int128)(4 * m - ((mant == 0 && bexp > 1) ? 1 : 2)) * tenk;
    unsigned __int128 Hn = (unsigned __int128)(4 * m + 2) * tenk;
    uint64_t Xi = (uint64_t)(Xn >> S), Li = (uint64_t)(Ln >> S), Hi = (uint64_t)(Hn >> S);
    int Xf = (Xn & mask) != 0, Lf = (Ln & mask) != 0, Hf = (Hn & mask) != 0;
    unsigned __int128 Xfrac = Xn & mask;
    int nx = Xi >= POW10[18] ? 19 : 18;                    /* digits of X's integer part */
    int j = nx - 17;                                       /* 17 significant digits: always a candidate */
    for (;;) {
        if (j + 1 > 19) return 0;
        uint64_t pw = POW10[j + 1];
        uint64_t lo_ex = Li / pw + 1, lo_in = Lf ? lo_ex : (Li + pw - 1) / pw;
        uint64_t hi_in = Hi / pw, hi_ex = Hf ? hi_in : (Hi - 1) / pw;
        int in = lo_in <= hi_in, ex = lo_ex <= hi_ex;
        if (in != ex) return 0;
        if (!ex) break;
        j++;
    }
    uint64_t pw = POW10[j], t = Xi / pw, r = Xi % pw;
    if (2 * r == pw && !Xf) return 0;                      /* j >= 1: pw even */
    if (2 * r >= pw) t++;
    (void)Xfrac;
    {
        uint64_t lo_ex = Li / pw + 1, hi_ex = Hf ? Hi / pw : (Hi - 1) / pw;
        if (t < lo_ex || t > hi_ex) return 0;
    }
    char dig[24];
    int n = 0;
    for (uint64_t v = t; v; v /= 10) dig[n++] = (char)('0' + v % 10);   /* reversed */
    if (n == 0 || dig[0] == '0') return 0;                 /* t ends in 0: not the shortest */
    int decpt = n + j - k;
    if (decpt <= -4 || decpt > 16) return 0;
    int len = 0;
    if (x < 0) buf[len++] = '-';
    if (decpt <= 0) {
        buf[len++] = '0';
        buf[len++] = '.';
        for (int i = 0; i < -decpt; i++) buf[len++] = '0';
        for (int i = n - 1; i >= 0; i--) buf[len++] = dig[i];
    } else if (decpt >= n) {
        for (int i = n - 1; i >= 0; i--) buf[len++] = dig[i];
        for (int i = 0; i < decpt - n; i++) buf[len++] = '0';
        buf[len++] = '.';
        buf[len++] = '0';
    } else {
        for (int i = n - 1; i >= n - decpt; i--) buf[len++] = dig[i];
        buf[len++] = '.';
        for (int i = n - decpt - 1; i >= 0; i--) buf[len++] = dig[i];
    }
    return len;
#endif
}

/* repr(x) of a Python float: PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0) is what float.__repr__
   calls (shortest round-trip digits; "nan", "inf", "-inf"); fast_repr first. */
static int sb_repr(sbuf_t *sb, double x) {
    char fb[40];
    int fl = fast_repr(x, fb);
    if (fl > 0) return sb_put(sb, fb, (size_t)fl);
    char *r = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (!r) return -1;
    int rc = sb_put(sb, r, strlen(r));
    PyMem_Free(r);
    return rc;
}

/* format_scores(qids, docs, score, se, extra) -> str: the rows of zelo_fit's score TSV,
   "qid\tdocno\trepr(score)\trepr(se)[\textra...]\n" for query k's documents docs[k] (a list of str) in
   order, row i taking score[i], se[i] and extra[j][i] (lists of str); the bytes of
   pref_eval.output.zelo_scores.write_scores_columns's Python path. */
static PyObject *k_format_scores(PyObject *self, PyObject *args) {
    PyObject *qids, *docs, *so, *eo, *extra;
    buf_t b[2];
    memset(b, 0, sizeof b);
    sbuf_t sb = {NULL, 0, 0};
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "O!O!OOO!", &PyList_Type, &qids, &PyList_Type, &docs, &so, &eo, &PyList_Type,
                          &extra))
        return NULL;
    if (get_buf(so, &b[0], 0, 'd', "score") < 0 || get_buf(eo, &b[1], 0, 'd', "se") < 0) goto done;
    {
        const double *score = b[0].view.buf, *se = b[1].view.buf;
        Py_ssize_t n = NITEMS(b[0]), nq = PyList_GET_SIZE(qids), ne = PyList_GET_SIZE(extra), i = 0;
        if (NITEMS(b[1]) != n || PyList_GET_SIZE(docs) != nq) {
            PyErr_SetString(PyExc_ValueError, "format_scores: inconsistent lengths");
            goto done;
        }
        for (Py_ssize_t j = 0; j < ne; j++) {
            PyObject *c = PyList_GET_ITEM(extra, j);
            if (!PyList_Check(c) || PyList_GET_SIZE(c) != n) {
                PyErr_SetString(PyExc_ValueError, "format_scores: an extra column is not a list of one str per row");
                goto done;
            }
        }
        for (Py_ssize_t k = 0; k < nq; k++) {
            PyObject *q = PyList_GET_ITEM(qids, k), *dl = PyList_GET_ITEM(docs, k);
            if (!PyList_Check(dl)) {
                PyErr_SetString(PyExc_TypeError, "format_scores: docs[k] must be a list");
                goto done;
            }
            Py_ssize_t m = PyList_GET_SIZE(dl);
            if (i + m > n) {
                PyErr_SetString(PyExc_ValueError, "format_scores: more documents than scores");
                goto done;
            }
            for (Py_ssize_t t = 0; t < m; t++, i++) {
                if (sb_str(&sb, q) < 0 || sb_put(&sb, "\t", 1) < 0 || sb_str(&sb, PyList_GET_ITEM(dl, t)) < 0 ||
                    sb_put(&sb, "\t", 1) < 0 || sb_repr(&sb, score[i]) < 0 || sb_put(&sb, "\t", 1) < 0 ||
                    sb_repr(&sb, se[i]) < 0)
                    goto done;
                for (Py_ssize_t j = 0; j < ne; j++)
                    if (sb_put(&sb, "\t", 1) < 0 || sb_str(&sb, PyList_GET_ITEM(PyList_GET_ITEM(extra, j), i)) < 0)
                        goto done;
                if (sb_put(&sb, "\n", 1) < 0) goto done;
            }
        }
        if (i != n) {
            PyErr_SetString(PyExc_ValueError, "format_scores: fewer documents than scores");
            goto done;
        }
        res = PyUnicode_DecodeUTF8(sb.p ? sb.p : "", (Py_ssize_t)sb.len, "strict");
    }
done:
    free(sb.p);
    release(b, 2);
    return res;
}

/* factorize(keys, codes, first) -> count: keys int64 (any 64-bit pattern); codes[i] = number of keys[i]
   among the distinct keys in order of first occurrence, first[c] = the row where distinct key c first
   occurs (both int64, len(keys)). A hash table (Fibonacci hashing, Knuth TAOCP vol. 3, 6.4; linear
   probing), grown to keep it at most half full: one pass, instead of a sort and a search. */
static PyObject *k_factorize(PyObject *self, PyObject *args) {
    PyObject *o[3];
    buf_t b[3];
    memset(b, 0, sizeof b);
    int64_t *table = NULL;
    uint64_t *tkey = NULL;
    Py_ssize_t nu = 0;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2])) return NULL;
    if (get_buf(o[0], &b[0], 0, 'q', "keys") < 0 || get_buf(o[1], &b[1], 1, 'q', "codes") < 0 ||
        get_buf(o[2], &b[2], 1, 'q', "first") < 0)
        goto fail;
    {
        const uint64_t *key = b[0].view.buf;
        int64_t *codes = b[1].view.buf, *first = b[2].view.buf;
        Py_ssize_t n = NITEMS(b[0]);
        if (NITEMS(b[1]) != n || NITEMS(b[2]) != n) {
            PyErr_SetString(PyExc_ValueError, "factorize: arrays differ in length");
            goto fail;
        }
        int bits = 10, nomem = 0;
        size_t size = (size_t)1 << bits;
        table = malloc(size * sizeof(int64_t)); /* slot -> code (-1: free); tkey: the slot's key */
        tkey = malloc(size * sizeof(uint64_t));
        if (!table || !tkey) {
            PyErr_NoMemory();
            goto fail;
        }
        for (size_t t = 0; t < size; t++) table[t] = -1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t k = key[i];
            size_t mask = size - 1, h = (size_t)((k * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
            int64_t c;
            while ((c = table[h]) >= 0 && tkey[h] != k) h = (h + 1) & mask;
            if (c < 0) {
                c = nu++;
                first[c] = i;
                table[h] = c;
                tkey[h] = k;
                if ((size_t)nu * 2 > size) { /* grow: rehash every distinct key */
                    int nbits = bits + 1;
                    size_t nsize = (size_t)1 << nbits;
                    int64_t *nt = malloc(nsize * sizeof(int64_t));
                    uint64_t *nk = malloc(nsize * sizeof(uint64_t));
                    if (!nt || !nk) {
                        free(nt);
                        free(nk);
                        nomem = 1;
                        break;
                    }
                    for (size_t t = 0; t < nsize; t++) nt[t] = -1;
                    for (Py_ssize_t d = 0; d < nu; d++) {
                        uint64_t kd = key[first[d]];
                        size_t g = (size_t)((kd * 0x9E3779B97F4A7C15ULL) >> (64 - nbits));
                        while (nt[g] >= 0) g = (g + 1) & (nsize - 1);
                        nt[g] = d;
                        nk[g] = kd;
                    }
                    free(table);
                    free(tkey);
                    table = nt;
                    tkey = nk;
                    bits = nbits;
                    size = nsize;
                }
            }
            codes[i] = c;
        }
        Py_END_ALLOW_THREADS
        if (nomem) {
            PyErr_NoMemory();
            goto fail;
        }
    }
    free(table);
    free(tkey);
    release(b, 3);
    return PyLong_FromSsize_t(nu);
fail:
    free(table);
    free(tkey);
    release(b, 3);
    return NULL;
}

/* cg_step(alpha, block, p, ap, diag, z, r, y, rr, ry): one conjugate-gradient update, elementwise, with
   a = alpha[block[i]]: z[i] += a * p[i]; r[i] -= a * ap[i]; y[i] = r[i] / diag[i]; rr[i] = r[i] * r[i];
   ry[i] = r[i] * y[i] -- numpy's z += ab * p, r -= ab * ap, y = r / diag, r * r and r * y (pref_eval.zelo.fit
   ._block_cg), the same operations on each element. */
static PyObject *k_cg_step(PyObject *self, PyObject *args) {
    PyObject *o[10];
    buf_t b[10];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9]))
        return NULL;
    if (get_buf(o[0], &b[0], 0, 'd', "alpha") < 0 || get_buf(o[1], &b[1], 0, 'q', "block") < 0 ||
        get_buf(o[2], &b[2], 0, 'd', "p") < 0 || get_buf(o[3], &b[3], 0, 'd', "ap") < 0 ||
        get_buf(o[4], &b[4], 0, 'd', "diag") < 0 || get_buf(o[5], &b[5], 1, 'd', "z") < 0 ||
        get_buf(o[6], &b[6], 1, 'd', "r") < 0 || get_buf(o[7], &b[7], 1, 'd', "y") < 0 ||
        get_buf(o[8], &b[8], 1, 'd', "rr") < 0 || get_buf(o[9], &b[9], 1, 'd', "ry") < 0)
        goto fail;
    {
        const double *alpha = b[0].view.buf, *p = b[2].view.buf, *ap = b[3].view.buf, *diag = b[4].view.buf;
        const int64_t *block = b[1].view.buf;
        double *z = b[5].view.buf, *r = b[6].view.buf, *y = b[7].view.buf, *rr = b[8].view.buf, *ry = b[9].view.buf;
        Py_ssize_t n = NITEMS(b[1]), nb = NITEMS(b[0]);
        for (int k = 2; k < 10; k++)
            if (NITEMS(b[k]) != n) {
                PyErr_SetString(PyExc_ValueError, "cg_step: arrays differ in length");
                goto fail;
            }
        if (indices_in_range(block, n, nb, "cg_step: block index out of range") < 0) goto fail;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            double a = alpha[block[i]];
            double t = a * p[i];
            z[i] = z[i] + t;
            double u = a * ap[i];
            double ri = r[i] - u;
            r[i] = ri;
            double yi = ri / diag[i];
            y[i] = yi;
            rr[i] = ri * ri;
            ry[i] = ri * yi;
        }
        Py_END_ALLOW_THREADS
    }
    release(b, 10);
    Py_RETURN_NONE;
fail:
    release(b, 10);
    return NULL;
}

/* cg_direction(live, beta, block, y, p): p[i] = y[i] + beta[block[i]] * p[i] where live[block[i]] != 0, else
   0.0 (live int64 per block) -- numpy's np.where(live[block], y + beta[block] * p, 0.0), in place. */
static PyObject *k_cg_direction(PyObject *self, PyObject *args) {
    PyObject *o[5];
    buf_t b[5];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4])) return NULL;
    if (get_buf(o[0], &b[0], 0, 'q', "live") < 0 || get_buf(o[1], &b[1], 0, 'd', "beta") < 0 ||
        get_buf(o[2], &b[2], 0, 'q', "block") < 0 || get_buf(o[3], &b[3], 0, 'd', "y") < 0 ||
        get_buf(o[4], &b[4], 1, 'd', "p") < 0)
        goto fail;
    {
        const int64_t *live = b[0].view.buf, *block = b[2].view.buf;
        const double *beta = b[1].view.buf, *y = b[3].view.buf;
        double *p = b[4].view.buf;
        Py_ssize_t n = NITEMS(b[2]), nb = NITEMS(b[0]);
        if (NITEMS(b[1]) != nb || NITEMS(b[3]) != n || NITEMS(b[4]) != n) {
            PyErr_SetString(PyExc_ValueError, "cg_direction: arrays differ in length");
            goto fail;
        }
        if (indices_in_range(block, n, nb, "cg_direction: block index out of range") < 0) goto fail;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t k = block[i];
            if (live[k]) {
                double t = beta[k] * p[i];
                p[i] = y[i] + t;
            } else {
                p[i] = 0.0;
            }
        }
        Py_END_ALLOW_THREADS
    }
    release(b, 5);
    Py_RETURN_NONE;
fail:
    release(b, 5);
    return NULL;
}

/* run_columns(data, budget) -> (qid, wq, docno, wd, score, lines, tag, tags) or None: the columns
   pref_eval.io.runs.run_from_bytes takes from the tokenizer (pref_eval.io.tokenize.split_lines with 6
   kept fields, then io.numbers.decimal_floats), for a run file with nothing unusual. qid/docno: bytearrays
   of fixed-width fields (width = the column's longest field, NUL padded: numpy "S" arrays), score: float64
   bytes, lines: int64 bytes (1-based line of each data line), tag: the 6th field of the last data line,
   tags: the distinct 6th fields as ((tag, line it first appears on), ...) in line order (found in the same
   pass: a line's tag is compared with the line before's, the list searched only when it changes;
   pref_eval.io.groups.run_value reads them instead of the file again), or past RUN_TAGS_MAX of them the 6th
   column itself as a bytearray of fixed-width fields (numpy.unique finds them in pref_eval.io.runs).
   Fields are separated by ASCII white space (9-13, 32), lines end at '\n', blank lines are skipped, as the
   tokenizer does. None (the caller then runs the tokenizer, which finds any error with its line) for:
   a NUL byte, a line whose first field starts with '#' (a comment, also after white space), a line of 1 to 5 fields, no data line, one of the first 6 fields
   longer than 255 bytes or a column over ``budget`` bytes, a score outside
   [+-]?([0-9]+(.[0-9]*)?|.[0-9]+)([eE][+-]?[0-9]+)? or reading as inf. A score is read by
   PyOS_string_to_double (float()'s correctly rounded reader; numpy's bytes-to-float cast gives the same
   value, tests/test_run_columns.py). */
static int ws_byte(unsigned char c) { return c == 32 || (c >= 9 && c <= 13); }

/* 10^k, k <= 22: exact doubles */
static const double EXACT10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                                   1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A score [+-]?digits[.digits] with at most 15 digits in all: m / 10^k with m < 10^15 < 2^53 and k <= 15
   both exact, so the one IEEE division is the correctly rounded value of the decimal (Clinger's fast
   path), the value float() reads. Returns 0 (not taken) for anything else. */
static int simple_score(const unsigned char *t, Py_ssize_t n, double *out) {
    Py_ssize_t i = 0;
    int neg = 0, nd = 0, frac = 0, dot = 0;
    uint64_t m = 0;
    if (n > 0 && (t[0] == '+' || t[0] == '-')) { neg = t[0] == '-'; i = 1; }
    for (; i < n; i++) {
        unsigned char c = t[i];
        if (c >= '0' && c <= '9') {
            if (++nd > 15) return 0;
            m = m * 10 + (uint64_t)(c - '0');
            frac += dot;
        } else if (c == '.' && !dot) {
            dot = 1;
        } else {
            return 0;
        }
    }
    if (nd == 0) return 0;
    double v = (double)m / EXACT10[frac];
    *out = neg ? -v : v;
    return 1;
}

static int score_grammar(const unsigned char *t, Py_ssize_t n) {
    Py_ssize_t i = 0, d = 0;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    while (i < n && t[i] >= '0' && t[i] <= '9') i++, d++;
    if (i < n && t[i] == '.') {
        i++;
        while (i < n && t[i] >= '0' && t[i] <= '9') i++, d++;
    }
    if (d == 0) return 0;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-')) i++;
        Py_ssize_t e = 0;
        while (i < n && t[i] >= '0' && t[i] <= '9') i++, e++;
        if (e == 0) return 0;
    }
    return i == n;
}

#define RUN_TAGS_MAX 64

static PyObject *k_run_columns(PyObject *self, PyObject *args) {
    Py_buffer view;
    long long budget;
    if (!PyArg_ParseTuple(args, "y*L", &view, &budget)) return NULL;
    const unsigned char *a = view.buf;
    Py_ssize_t n = view.len, cap = 0, rows = 0;
    /* per data line: start and length of fields 0, 2, 4 and 5; its line number */
    int64_t *st = NULL, *ln = NULL;
    int32_t *len = NULL;
    PyObject *res = NULL, *q = NULL, *d = NULL, *sc = NULL, *li = NULL, *tag = NULL, *tags = NULL;
    int w[6] = {0, 0, 0, 0, 0, 0}, ok = 1;
    /* the distinct tags: start, length, first line; cur: the previous line's, -1 before the first */
    Py_ssize_t tg_st[RUN_TAGS_MAX], tg_len[RUN_TAGS_MAX];
    int64_t tg_line[RUN_TAGS_MAX];
    int ntags = 0, cur = -1, tags_over = 0;
    if (memchr(a, 0, (size_t)n)) goto none;
    {
        Py_ssize_t i = 0;
        int64_t line = 1;
        while (i < n && ok) {
            if (a[i] == '#' && (i == 0 || a[i - 1] == '\n')) { ok = 0; break; }
            Py_ssize_t fs[6], fl[6];
            int nf = 0;
            /* the fields of this line */
            while (i < n && a[i] != '\n') {
                if (ws_byte(a[i])) { i++; continue; }
                Py_ssize_t s0 = i;
                while (i < n && !ws_byte(a[i])) i++;
                if (nf < 6) { fs[nf] = s0; fl[nf] = i - s0; }
                nf++;
            }
            if (nf > 0) {
                if (a[fs[0]] == '#') { ok = 0; break; } /* a comment, also indented (trec_eval 10's runs) */
                if (nf < 6) { ok = 0; break; }
                if (rows == cap) {
                    Py_ssize_t nc = cap ? 2 * cap : 1024;
                    int64_t *s2 = realloc(st, sizeof(int64_t) * 4 * nc), *l2;
                    if (!s2) { PyErr_NoMemory(); goto fail; }
                    st = s2;
                    int32_t *n2 = realloc(len, sizeof(int32_t) * 4 * nc);
                    if (!n2) { PyErr_NoMemory(); goto fail; }
                    len = n2;
                    l2 = realloc(ln, sizeof(int64_t) * nc);
                    if (!l2) { PyErr_NoMemory(); goto fail; }
                    ln = l2;
                    cap = nc;
                }
                for (int k = 0; k < 6; k++) {
                    if (fl[k] > 255) { ok = 0; break; }
                    if (fl[k] > w[k]) w[k] = (int)fl[k];
                }
                static const int keep[4] = {0, 2, 4, 5};
                for (int k = 0; k < 4; k++) {
                    st[4 * rows + k] = fs[keep[k]];
                    len[4 * rows + k] = (int32_t)fl[keep[k]];
                }
                ln[rows++] = line;
                if (!tags_over && (cur < 0 || tg_len[cur] != fl[5] ||
                                   memcmp(a + tg_st[cur], a + fs[5], (size_t)fl[5]) != 0)) {
                    int k = 0;
                    while (k < ntags && (tg_len[k] != fl[5] || memcmp(a + tg_st[k], a + fs[5], (size_t)fl[5]) != 0))
                        k++;
                    if (k == ntags) {
                        if (ntags == RUN_TAGS_MAX) {
                            tags_over = 1;
                        } else {
                            tg_st[k] = fs[5];
                            tg_len[k] = fl[5];
                            tg_line[k] = line;
                            ntags++;
                        }
                    }
                    cur = k;
                }
            }
            if (i < n) { i++; line++; }  /* the '\n' */
        }
    }
    if (!ok || rows == 0) goto none;
    for (int k = 0; k < 6; k++)
        if ((long long)w[k] * rows > budget) goto none;
    q = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)w[0] * rows);
    d = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)w[2] * rows);
    sc = PyByteArray_FromStringAndSize(NULL, 8 * rows);
    li = PyByteArray_FromStringAndSize(NULL, 8 * rows);
    if (!q || !d || !sc || !li) goto fail;
    {
        char *qp = PyByteArray_AS_STRING(q), *dp = PyByteArray_AS_STRING(d);
        double *sp = (double *)PyByteArray_AS_STRING(sc);
        memset(qp, 0, (size_t)w[0] * rows);
        memset(dp, 0, (size_t)w[2] * rows);
        memcpy(PyByteArray_AS_STRING(li), ln, 8 * (size_t)rows);
        char tok[256];
        for (Py_ssize_t r = 0; r < rows; r++) {
            memcpy(qp + (size_t)w[0] * r, a + st[4 * r], (size_t)len[4 * r]);
            memcpy(dp + (size_t)w[2] * r, a + st[4 * r + 1], (size_t)len[4 * r + 1]);
            const unsigned char *t = a + st[4 * r + 2];
            Py_ssize_t tl = len[4 * r + 2];
            if (simple_score(t, tl, &sp[r])) continue;
            if (!score_grammar(t, tl)) goto none;
            memcpy(tok, t, (size_t)tl);
            tok[tl] = 0;
            char *end = NULL;
            double v = PyOS_string_to_double(tok, &end, NULL);
            if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); goto none; }
            if (end != tok + tl || isinf(v) || isnan(v)) goto none;
            sp[r] = v;
        }
        tag = PyBytes_FromStringAndSize((const char *)a + st[4 * (rows - 1) + 3], len[4 * (rows - 1) + 3]);
        if (!tag) goto fail;
        if (tags_over) {  /* the column itself (w[5] wide, NUL padded): the caller finds the distinct ones */
            tags = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)w[5] * rows);
            if (!tags) goto fail;
            char *tp = PyByteArray_AS_STRING(tags);
            memset(tp, 0, (size_t)w[5] * rows);
            for (Py_ssize_t r = 0; r < rows; r++)
                memcpy(tp + (size_t)w[5] * r, a + st[4 * r + 3], (size_t)len[4 * r + 3]);
        } else {
            tags = PyTuple_New(ntags);
            if (!tags) goto fail;
            for (int k = 0; k < ntags; k++) {
                PyObject *one = Py_BuildValue("(y#L)", (const char *)a + tg_st[k], tg_len[k], (long long)tg_line[k]);
                if (!one) goto fail;
                PyTuple_SET_ITEM(tags, k, one);
            }
        }
    }
    res = Py_BuildValue("(OiOiOOOO)", q, w[0], d, w[2], sc, li, tag, tags);
    goto fail;  /* the common clean-up */
none:
    res = Py_None;
    Py_INCREF(res);
fail:
    Py_XDECREF(q); Py_XDECREF(d); Py_XDECREF(sc); Py_XDECREF(li); Py_XDECREF(tag); Py_XDECREF(tags);
    free(st); free(len); free(ln);
    PyBuffer_Release(&view);
    return res;
}

/* rpp_levels(grid, weights, ib, jb, active, acc): the sums of pref_eval.run_preferences.pairwise._levels_in_turn,
   acc[s][g, p] += weights[s][i, g] * sgn(grid[i, g, jb[p]] - grid[i, g, ib[p]]) for each level i with
   g < active[i] (active non-increasing), level after level from acc's values (zeros): for each cell the
   same additions in the same order as the numpy loop, so the same bits (-ffp-contract=off: no fused
   multiply-add). grid (depth, NG, R) int32 or int64, weights a list of float64 (depth, NG), ib/jb int64
   (Pc) in [0, R), active int64 (depth), acc a list (as long as weights) of float64 (NG, Pc). */
static PyObject *k_rpp_levels(PyObject *self, PyObject *args) {
    PyObject *go, *wl, *io, *jo, *ao, *al;
    Py_buffer gv;
    buf_t b[3];
    memset(b, 0, sizeof b);
    buf_t *wb = NULL, *ab = NULL;
    Py_ssize_t ns = 0;
    int held = 0;
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "OO!OOOO!", &go, &PyList_Type, &wl, &io, &jo, &ao, &PyList_Type, &al)) return NULL;
    if (PyObject_GetBuffer(go, &gv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    held = 1;
    ns = PyList_GET_SIZE(wl);
    if (PyList_GET_SIZE(al) != ns || gv.ndim != 3 || (gv.itemsize != 4 && gv.itemsize != 8)) {
        PyErr_SetString(PyExc_ValueError, "rpp_levels: grid (depth, NG, R) int32/int64, as many acc as weights");
        goto done;
    }
    {
        const char *f = gv.format ? gv.format : "B";
        if (*f == '<' || *f == '=' || *f == '@') f++;
        if (!((gv.itemsize == 4 && f[0] == 'i') || (gv.itemsize == 8 && (f[0] == 'q' || f[0] == 'l'))) || f[1]) {
            PyErr_SetString(PyExc_TypeError, "rpp_levels: grid must be int32 or int64");
            goto done;
        }
    }
    wb = calloc((size_t)(ns ? ns : 1), sizeof(buf_t));
    ab = calloc((size_t)(ns ? ns : 1), sizeof(buf_t));
    if (!wb || !ab) { PyErr_NoMemory(); goto done; }
    if (get_buf(io, &b[0], 0, 'q', "ib") < 0 || get_buf(jo, &b[1], 0, 'q', "jb") < 0 ||
        get_buf(ao, &b[2], 0, 'q', "active") < 0)
        goto done;
    {
        Py_ssize_t depth = gv.shape[0], NG = gv.shape[1], R = gv.shape[2], Pc = NITEMS(b[0]);
        const int64_t *ib = b[0].view.buf, *jb = b[1].view.buf, *active = b[2].view.buf;
        if (NITEMS(b[1]) != Pc || NITEMS(b[2]) != depth) {
            PyErr_SetString(PyExc_ValueError, "rpp_levels: inconsistent lengths");
            goto done;
        }
        if (indices_in_range(ib, Pc, R, "rpp_levels: ib out of range") < 0 ||
            indices_in_range(jb, Pc, R, "rpp_levels: jb out of range") < 0 ||
            indices_in_range(active, depth, NG + 1, "rpp_levels: active out of range") < 0)
            goto done;
        for (Py_ssize_t s = 0; s < ns; s++) {
            if (get_buf(PyList_GET_ITEM(wl, s), &wb[s], 0, 'd', "weights") < 0 ||
                get_buf(PyList_GET_ITEM(al, s), &ab[s], 1, 'd', "acc") < 0)
                goto done;
            if (NITEMS(wb[s]) != depth * NG || NITEMS(ab[s]) != NG * Pc) {
                PyErr_SetString(PyExc_ValueError, "rpp_levels: weights (depth, NG), acc (NG, Pc)");
                goto done;
            }
        }
        if (ns > 8) {
            PyErr_SetString(PyExc_ValueError, "rpp_levels: at most 8 weight arrays");
            goto done;
        }
        double *wloc = malloc(sizeof(double) * (size_t)(depth ? depth : 1) * 8);
        int64_t *loc = malloc(sizeof(int64_t) * (size_t)(depth ? depth : 1) * (size_t)(R ? R : 1));
        if (!wloc || !loc) { free(wloc); free(loc); PyErr_NoMemory(); goto done; }
        const int wide = gv.itemsize == 8;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t g = 0; g < NG; g++) {
            Py_ssize_t m = 0;  /* levels of group g: active[i] > g for i < m */
            while (m < depth && active[m] > g) m++;
            if (m == 0) continue;
            for (Py_ssize_t i = 0; i < m; i++)
                for (Py_ssize_t s = 0; s < ns; s++) wloc[i * ns + s] = ((const double *)wb[s].view.buf)[i * NG + g];
            /* group g's rows of every level, contiguous (m x R int64): they stay in L1 over the pairs */
            for (Py_ssize_t i = 0; i < m; i++)
                for (Py_ssize_t r = 0; r < R; r++)
                    loc[i * R + r] = wide ? ((const int64_t *)gv.buf)[(i * NG + g) * R + r]
                                          : (int64_t)((const int32_t *)gv.buf)[(i * NG + g) * R + r];
            double *a0 = ns > 0 ? (double *)ab[0].view.buf + g * Pc : NULL;
            double *a1 = ns > 1 ? (double *)ab[1].view.buf + g * Pc : NULL;
            double *a2 = ns > 2 ? (double *)ab[2].view.buf + g * Pc : NULL;
            Py_ssize_t p = 0;
            if (ns == 3)  /* the usual case (rpp, invrpp, dcgrpp): two pairs at a time, sums in registers */
                for (; p + 1 < Pc; p += 2) {
                    double u0 = a0[p], u1 = a1[p], u2 = a2[p], v0 = a0[p + 1], v1 = a1[p + 1], v2 = a2[p + 1];
                    const int64_t xu = ib[p], yu = jb[p], xv = ib[p + 1], yv = jb[p + 1];
                    for (Py_ssize_t i = 0; i < m; i++) {
                        const int64_t *row = loc + i * R;
                        const double su = (double)((row[yu] > row[xu]) - (row[yu] < row[xu]));
                        const double sv = (double)((row[yv] > row[xv]) - (row[yv] < row[xv]));
                        const double *w = wloc + i * 3;
                        u0 += w[0] * su; u1 += w[1] * su; u2 += w[2] * su;
                        v0 += w[0] * sv; v1 += w[1] * sv; v2 += w[2] * sv;
                    }
                    a0[p] = u0; a1[p] = u1; a2[p] = u2; a0[p + 1] = v0; a1[p + 1] = v1; a2[p + 1] = v2;
                }
            for (; p < Pc; p++) {
                double a[8];
                for (Py_ssize_t s = 0; s < ns; s++) a[s] = ((double *)ab[s].view.buf)[g * Pc + p];
                const int64_t xi = ib[p], yj = jb[p];
                for (Py_ssize_t i = 0; i < m; i++) {  /* level after level, as the numpy loop */
                    const int64_t *row = loc + i * R;
                    const double ds = (double)((row[yj] > row[xi]) - (row[yj] < row[xi])), *w = wloc + i * ns;
                    for (Py_ssize_t s = 0; s < ns; s++) a[s] += w[s] * ds;
                }
                for (Py_ssize_t s = 0; s < ns; s++) ((double *)ab[s].view.buf)[g * Pc + p] = a[s];
            }
        }
        Py_END_ALLOW_THREADS
        free(wloc);
        free(loc);
    }
    res = Py_None;
    Py_INCREF(res);
done:
    if (wb) release(wb, (int)ns);
    if (ab) release(ab, (int)ns);
    free(wb); free(ab);
    release(b, 3);
    if (held) PyBuffer_Release(&gv);
    return res;
}

/* pref_lines(kinds, kind, col, qi, nbytes) -> str: JSON lines of pref_eval.output.preferences.pref_json_lines'
   per-query block, line t being built from the column specs kinds[kind[t]] with c = col[t], q = qi[t]:
   (0, texts, by) writes texts[q] (by 0) or texts[c] (by 1), str; (1, values, ties, pre, post, raw, bounds)
   writes pre + repr(values[q, c]) + post, or pre + "0" + post where ties[q, c] (ties a uint8 array or None),
   values float64 (nq, ncol): query-major, so that the lines of one query read memory in order; (2, values,
   pre, post) the same with int64 values as decimal integers.
   repr is float.__repr__'s text (sb_repr); raw (bytes or None) is orjson's text of the values, value k
   being raw[bounds[k] + 1:bounds[k + 1]] (bounds int64, n + 1): taken for 1e-4 <= |x| < 1e16 and +-0,
   where orjson's shortest digits are repr's (pref_eval.output.preferences._float_texts; ~30x faster
   than dtoa below 1e-3, 3x faster than fast_repr). ``nbytes``: a first guess of the size. The result is what
   joining the Python pieces gives (tests/test_pref_output.py compares both). */
typedef struct {
    int tag, by;
    PyObject *texts;
    buf_t v, t, raw, bnd;
    const char *pre, *post;
    Py_ssize_t npre, npost, ncol, nq;
} colspec_t;

static int sb_zero_or_repr(sbuf_t *sb, double x) {
    if (x == 0.0) return signbit(x) ? sb_put(sb, "-0.0", 4) : sb_put(sb, "0.0", 3);
    return sb_repr(sb, x);
}

static PyObject *k_pref_lines(PyObject *self, PyObject *args) {
    PyObject *kinds, *ko, *co, *qo;
    long long nbytes;
    buf_t b[3];
    memset(b, 0, sizeof b);
    sbuf_t sb = {NULL, 0, 0};
    colspec_t *cs = NULL;
    Py_ssize_t *kstart = NULL, ncs = 0;
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "O!OOOL", &PyList_Type, &kinds, &ko, &co, &qo, &nbytes)) return NULL;
    if (get_buf(ko, &b[0], 0, 'q', "kind") < 0 || get_buf(co, &b[1], 0, 'q', "col") < 0 ||
        get_buf(qo, &b[2], 0, 'q', "qi") < 0)
        goto done;
    Py_ssize_t nk = PyList_GET_SIZE(kinds), nl = NITEMS(b[0]);
    if (NITEMS(b[1]) != nl || NITEMS(b[2]) != nl) {
        PyErr_SetString(PyExc_ValueError, "pref_lines: kind, col and qi differ in length");
        goto done;
    }
    kstart = calloc((size_t)nk + 1, sizeof(Py_ssize_t));
    if (!kstart) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *l = PyList_GET_ITEM(kinds, k);
        if (!PyList_Check(l)) { PyErr_SetString(PyExc_TypeError, "pref_lines: kinds[k] must be a list"); goto done; }
        kstart[k] = ncs;
        ncs += PyList_GET_SIZE(l);
    }
    kstart[nk] = ncs;
    cs = calloc((size_t)(ncs ? ncs : 1), sizeof(colspec_t));
    if (!cs) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *l = PyList_GET_ITEM(kinds, k);
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(l); j++) {
            colspec_t *c = &cs[kstart[k] + j];
            PyObject *t = PyList_GET_ITEM(l, j), *vo, *to, *po, *qo2;
            if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 3) {
                PyErr_SetString(PyExc_TypeError, "pref_lines: a column spec must be a tuple");
                goto done;
            }
            c->tag = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
            if (c->tag == -1 && PyErr_Occurred()) goto done;
            if (c->tag == 0) {
                c->texts = PyTuple_GET_ITEM(t, 1);
                c->by = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 2));
                if (!PyList_Check(c->texts) || (c->by != 0 && c->by != 1)) {
                    PyErr_SetString(PyExc_TypeError, "pref_lines: (0, list of str, 0|1)");
                    goto done;
                }
                continue;
            }
            if ((c->tag == 1 && PyTuple_GET_SIZE(t) != 7) || (c->tag == 2 && PyTuple_GET_SIZE(t) != 4) ||
                (c->tag != 1 && c->tag != 2)) {
                PyErr_SetString(PyExc_ValueError,
                                "pref_lines: (1, values, ties, pre, post, raw, bounds) or (2, values, pre, post)");
                goto done;
            }
            vo = PyTuple_GET_ITEM(t, 1);
            to = c->tag == 1 ? PyTuple_GET_ITEM(t, 2) : Py_None;
            po = PyTuple_GET_ITEM(t, c->tag == 1 ? 3 : 2);
            qo2 = PyTuple_GET_ITEM(t, c->tag == 1 ? 4 : 3);
            if (get_buf(vo, &c->v, 0, c->tag == 1 ? 'd' : 'q', "values") < 0) goto done;
            if (c->v.view.ndim != 2) {
                PyErr_SetString(PyExc_ValueError, "pref_lines: values must be 2-D (nq, ncol)");
                goto done;
            }
            c->nq = c->v.view.shape[0];
            c->ncol = c->v.view.shape[1];
            if (to != Py_None) {
                if (PyObject_GetBuffer(to, &c->t.view, PyBUF_C_CONTIGUOUS) < 0) goto done;
                c->t.held = 1;
                if (c->t.view.len != c->ncol * c->nq) {
                    PyErr_SetString(PyExc_ValueError, "pref_lines: ties must be uint8 of the values' shape");
                    goto done;
                }
            }
            if (c->tag == 1 && PyTuple_GET_ITEM(t, 5) != Py_None) {
                if (PyObject_GetBuffer(PyTuple_GET_ITEM(t, 5), &c->raw.view, PyBUF_C_CONTIGUOUS) < 0) goto done;
                c->raw.held = 1;
                if (get_buf(PyTuple_GET_ITEM(t, 6), &c->bnd, 0, 'q', "bounds") < 0) goto done;
                const int64_t *bd = c->bnd.view.buf;
                Py_ssize_t nb = NITEMS(c->bnd);
                if (nb != c->ncol * c->nq + 1) {
                    PyErr_SetString(PyExc_ValueError, "pref_lines: bounds must have one entry per value + 1");
                    goto done;
                }
                for (Py_ssize_t k = 0; k < nb; k++)
                    if (bd[k] < 0 || bd[k] >= c->raw.view.len || (k && bd[k] <= bd[k - 1])) {
                        PyErr_SetString(PyExc_ValueError, "pref_lines: bounds out of order or range");
                        goto done;
                    }
            }
            if (!PyUnicode_Check(po) || !PyUnicode_Check(qo2)) {
                PyErr_SetString(PyExc_TypeError, "pref_lines: pre and post must be str");
                goto done;
            }
            c->pre = PyUnicode_AsUTF8AndSize(po, &c->npre);
            c->post = PyUnicode_AsUTF8AndSize(qo2, &c->npost);
            if (!c->pre || !c->post) goto done;
        }
    }
    {
        const int64_t *kind = b[0].view.buf, *col = b[1].view.buf, *qi = b[2].view.buf;
        if (nbytes > 0) {
            sb.p = malloc((size_t)nbytes);
            if (!sb.p) { PyErr_NoMemory(); goto done; }
            sb.cap = (size_t)nbytes;
        }
        for (Py_ssize_t t = 0; t < nl; t++) {
            int64_t k = kind[t], c = col[t], q = qi[t];
            if (k < 0 || k >= nk) { PyErr_SetString(PyExc_IndexError, "pref_lines: kind out of range"); goto done; }
            for (Py_ssize_t j = kstart[k]; j < kstart[k + 1]; j++) {
                colspec_t *x = &cs[j];
                if (x->tag == 0) {
                    int64_t i = x->by ? c : q;
                    if (i < 0 || i >= PyList_GET_SIZE(x->texts)) {
                        PyErr_SetString(PyExc_IndexError, "pref_lines: text index out of range");
                        goto done;
                    }
                    if (sb_str(&sb, PyList_GET_ITEM(x->texts, i)) < 0) goto done;
                    continue;
                }
                if (c < 0 || c >= x->ncol || q < 0 || q >= x->nq) {
                    PyErr_SetString(PyExc_IndexError, "pref_lines: value index out of range");
                    goto done;
                }
                Py_ssize_t at = (Py_ssize_t)(q * x->ncol + c);
                if (sb_put(&sb, x->pre, (size_t)x->npre) < 0) goto done;
                if (x->t.held && ((const unsigned char *)x->t.view.buf)[at]) {
                    if (sb_put(&sb, "0", 1) < 0) goto done;
                } else if (x->tag == 1) {
                    double v = ((const double *)x->v.view.buf)[at], av = fabs(v);
                    if (x->raw.held && ((av >= 1e-4 && av < 1e16) || v == 0.0)) {
                        const int64_t *bd = x->bnd.view.buf;
                        if (sb_put(&sb, (const char *)x->raw.view.buf + bd[at] + 1, (size_t)(bd[at + 1] - bd[at] - 1)) < 0)
                            goto done;
                    } else if (sb_zero_or_repr(&sb, v) < 0) {
                        goto done;
                    }
                } else {
                    char ib[24];
                    int64_t v = ((const int64_t *)x->v.view.buf)[at];
                    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
                    int n = 24;
                    do { ib[--n] = (char)('0' + u % 10); u /= 10; } while (u);
                    if (v < 0) ib[--n] = '-';
                    if (sb_put(&sb, ib + n, (size_t)(24 - n)) < 0) goto done;
                }
                if (sb_put(&sb, x->post, (size_t)x->npost) < 0) goto done;
            }
        }
        res = PyUnicode_DecodeUTF8(sb.p ? sb.p : "", (Py_ssize_t)sb.len, "strict");
    }
done:
    if (cs) {
        for (Py_ssize_t j = 0; j < ncs; j++)
            release(&cs[j].v, 1), release(&cs[j].t, 1), release(&cs[j].raw, 1), release(&cs[j].bnd, 1);
        free(cs);
    }
    free(kstart);
    free(sb.p);
    release(b, 3);
    return res;
}

/* ---- diag(A^-1) by our own Cholesky: the same bits on every CPU -------------------------------------------

   diag(A^-1) of a symmetric positive definite m x m matrix a (row-major; its upper triangle is read), without
   BLAS, in an order of operations fixed by m alone (pref_eval.zelo.inverse_diag._numpy_inverse_diag does the
   same operations in numpy, vectorised over a stack: the same bits). Element by element:
     Cholesky A = U'U (upper): a_ik -= u_ji * u_jk for j = 0, 1, ..., i - 1 in turn (k >= i), then
       u_ii = sqrt(a_ii), u_ik = a_ik / u_ii;
     W = U^-1: t = 0, t -= u_ij * w_jk for j = k, k - 1, ..., i + 1 in turn, w_ik = t / u_ii (k > i),
       w_ii = 1 / u_ii;
     (A^-1)_ii = 0 + w_ii^2 + w_i,i+1^2 + ... + w_i,m-1^2, in that order;
   each product, difference, quotient and square root rounded once (-ffp-contract=off: no fused multiply-add).
   The blocked code below (panels of ID_NB rows, micro-tiles of ID_KR x ID_KC elements from packed panels, for
   the caches) keeps that order for every element: a block only changes which elements are worked on together,
   never the sequence of operations on one element. The vector code works element by element too (no sums
   across lanes), so SSE2, AVX2 and AVX-512 (chosen at run time, or by `level`) give the same bits. */
#define ID_NB 64  /* panel: rows of U factored, or of W inverted, together */
#define ID_KR 4   /* micro-tile rows */
#define ID_KC 16  /* micro-tile columns */
#define ID_CW 512 /* column chunk of a panel's own updates */
#define ID_KG 64  /* strips of ID_KC columns updated together (Cholesky) */
#define ID_KP 128 /* steps p of a tile taken together (W = U^-1) */
/* U and then W are kept by rows of their upper triangle, packed: row i (columns i .. m - 1) starts
   i m - i (i - 1) / 2 doubles in; ID_ROW(w, m, i)[k] is its element k (k >= i) */
#define ID_ROW(w, m, i) ((w) + (i) * (m) - (i) * ((i) + 1) / 2)

typedef struct {
    void (*axpy)(Py_ssize_t n, double s, const double *restrict x, double *restrict y);
    void (*tile)(Py_ssize_t n, const double *restrict pa, const double *restrict pb, double *restrict c);
} id_ops;

/* y[k] -= s * x[k] (k < n); and c[r][q] -= pa[p][r] * pb[p][q] for p = 0, 1, ..., n - 1 in turn (c: ID_KR x
   ID_KC, pa: n x ID_KR, pb: n x ID_KC, all contiguous), VW doubles a vector, two vectors a row per pass. */
#define ID_DEFINE(SUF, ATTR, VW)                                                                                 \
    typedef double id_vec_##SUF __attribute__((vector_size(8 * VW)));                                            \
    ATTR static void id_axpy_##SUF(Py_ssize_t n, double s, const double *restrict x, double *restrict y) {       \
        for (Py_ssize_t k = 0; k < n; k++) y[k] -= s * x[k];                                                     \
    }                                                                                                            \
    ATTR static void id_tile_##SUF(Py_ssize_t n, const double *restrict pa, const double *restrict pb,           \
                                   double *restrict c) {                                                         \
        for (int q0 = 0; q0 < ID_KC; q0 += 2 * VW) {                                                             \
            id_vec_##SUF c00, c01, c10, c11, c20, c21, c30, c31;                                                 \
            memcpy(&c00, c + q0, sizeof c00), memcpy(&c01, c + q0 + VW, sizeof c01);                             \
            memcpy(&c10, c + ID_KC + q0, sizeof c10), memcpy(&c11, c + ID_KC + q0 + VW, sizeof c11);             \
            memcpy(&c20, c + 2 * ID_KC + q0, sizeof c20), memcpy(&c21, c + 2 * ID_KC + q0 + VW, sizeof c21);     \
            memcpy(&c30, c + 3 * ID_KC + q0, sizeof c30), memcpy(&c31, c + 3 * ID_KC + q0 + VW, sizeof c31);     \
            for (Py_ssize_t p = 0; p < n; p++) {                                                                 \
                const double *a = pa + p * ID_KR;                                                                \
                id_vec_##SUF b0, b1;                                                                             \
                memcpy(&b0, pb + p * ID_KC + q0, sizeof b0), memcpy(&b1, pb + p * ID_KC + q0 + VW, sizeof b1);   \
                c00 -= a[0] * b0, c01 -= a[0] * b1, c10 -= a[1] * b0, c11 -= a[1] * b1;                          \
                c20 -= a[2] * b0, c21 -= a[2] * b1, c30 -= a[3] * b0, c31 -= a[3] * b1;                          \
            }                                                                                                    \
            memcpy(c + q0, &c00, sizeof c00), memcpy(c + q0 + VW, &c01, sizeof c01);                             \
            memcpy(c + ID_KC + q0, &c10, sizeof c10), memcpy(c + ID_KC + q0 + VW, &c11, sizeof c11);             \
            memcpy(c + 2 * ID_KC + q0, &c20, sizeof c20), memcpy(c + 2 * ID_KC + q0 + VW, &c21, sizeof c21);     \
            memcpy(c + 3 * ID_KC + q0, &c30, sizeof c30), memcpy(c + 3 * ID_KC + q0 + VW, &c31, sizeof c31);     \
        }                                                                                                        \
    }

ID_DEFINE(base, __attribute__((optimize("O3"))), 2)
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define ID_X86 1
ID_DEFINE(avx2, __attribute__((target("avx2"), optimize("O3"))), 4)
ID_DEFINE(avx512, __attribute__((target("avx512f"), optimize("O3"))), 8)
#endif

/* the code for `level` (0 baseline, 1 AVX2, 2 AVX-512, -1 the fastest this CPU runs); -1 when the CPU lacks it */
static int id_pick(int level, id_ops *ops) {
    int best = 0;
#ifdef ID_X86
    __builtin_cpu_init();
    best = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
    /* AMD's Zen 4 and 5 split an AVX-512 operation in two: AVX2 is a little faster there (measured on Zen 4) */
    if (level < 0 && best == 2 && __builtin_cpu_is("amd")) level = 1;
#endif
    if (level < 0) level = best;
    if (level > best) return -1;
    ops->axpy = id_axpy_base, ops->tile = id_tile_base;
#ifdef ID_X86
    if (level == 1) ops->axpy = id_axpy_avx2, ops->tile = id_tile_avx2;
    if (level == 2) ops->axpy = id_axpy_avx512, ops->tile = id_tile_avx512;
#endif
    return level;
}

/* Cholesky, panel j0..j1-1 done: a_ik -= u_ji u_jk for j = j0..j1-1 in turn, on every i >= j1, k >= i (the tiles
   that reach the upper triangle; their elements below it are computed too, and never read). pa holds the
   panel's u_ji by tiles of ID_KR rows i, pb its u_jk by tiles of ID_KC columns k, both zero past m. */
static void id_trail(double *restrict w, Py_ssize_t m, Py_ssize_t j0, Py_ssize_t j1, double *restrict pa,
                     double *restrict pb, double *restrict c, const id_ops *ops) {
    Py_ssize_t n = j1 - j0, N = m - j1, nkt = (N + ID_KC - 1) / ID_KC, nit = (N + ID_KR - 1) / ID_KR;
    for (Py_ssize_t kt = 0; kt < nkt; kt++)
        for (Py_ssize_t p = 0; p < n; p++)
            for (int q = 0; q < ID_KC; q++) {
                Py_ssize_t k = j1 + kt * ID_KC + q;
                pb[(kt * n + p) * ID_KC + q] = k < m ? ID_ROW(w, m, j0 + p)[k] : 0.0;
            }
    for (Py_ssize_t it = 0; it < nit; it++)
        for (Py_ssize_t p = 0; p < n; p++)
            for (int r = 0; r < ID_KR; r++) {
                Py_ssize_t i = j1 + it * ID_KR + r;
                pa[(it * n + p) * ID_KR + r] = i < m ? ID_ROW(w, m, j0 + p)[i] : 0.0;
            }
    for (Py_ssize_t kg = 0; kg < nkt; kg += ID_KG) /* ID_KG strips of pb (in L2) at a time, rows of w in turn */
        for (Py_ssize_t it = 0; it < nit; it++) {
            Py_ssize_t i0 = j1 + it * ID_KR, rn = m - i0 < ID_KR ? m - i0 : ID_KR;
            for (Py_ssize_t kt = kg; kt < nkt && kt < kg + ID_KG; kt++) {
                Py_ssize_t k0 = j1 + kt * ID_KC, kn = m - k0 < ID_KC ? m - k0 : ID_KC;
                if (i0 >= k0 + kn) continue; /* wholly below the diagonal */
                if (rn == ID_KR && kn == ID_KC && i0 + ID_KR <= k0 + 1) { /* a whole tile of the upper triangle */
                    for (int r = 0; r < ID_KR; r++) memcpy(c + r * ID_KC, ID_ROW(w, m, i0 + r) + k0, sizeof(double) * ID_KC);
                    ops->tile(n, pa + it * n * ID_KR, pb + kt * n * ID_KC, c);
                    for (int r = 0; r < ID_KR; r++) memcpy(ID_ROW(w, m, i0 + r) + k0, c + r * ID_KC, sizeof(double) * ID_KC);
                    continue;
                }
                for (Py_ssize_t r = 0; r < ID_KR; r++)
                    for (int q = 0; q < ID_KC; q++)
                        c[r * ID_KC + q] = r < rn && q < kn && k0 + q >= i0 + r ? ID_ROW(w, m, i0 + r)[k0 + q] : 0.0;
                ops->tile(n, pa + it * n * ID_KR, pb + kt * n * ID_KC, c);
                for (Py_ssize_t r = 0; r < rn; r++) /* the upper triangle's part */
                    for (Py_ssize_t q = i0 + r > k0 ? i0 + r - k0 : 0; q < kn; q++)
                        ID_ROW(w, m, i0 + r)[k0 + q] = c[r * ID_KC + q];
            }
        }
}

/* W's rows, packed by strips of ID_KC columns for id_upper as they are made: strip g (columns g ID_KC ..) holds
   rows j = top_g, top_g - 1, ..., 0 (top_g = min(m, (g + 1) ID_KC) - 1), ID_KC doubles each, zero left of
   the diagonal and past column m - 1; it starts ID_KC^2 g (g + 1) / 2 doubles in. */
static double *id_strip(double *restrict s, Py_ssize_t g) { return s + ID_KC * ID_KC * (g * (g + 1) / 2); }

static Py_ssize_t id_top(Py_ssize_t m, Py_ssize_t g) { return m < (g + 1) * ID_KC ? m - 1 : (g + 1) * ID_KC - 1; }

/* W = U^-1, rows i0..i1-1 (i1 < m a multiple of ID_KC), the part from the rows below: t_ik = 0 - u_ik w_kk -
   u_i,k-1 w_k-1,k - ... - u_i,i1 w_i1,k in turn, for k >= i1, into t (row i - i0, column k). W's rows >= i1
   are final and packed in s (the terms j > k of a strip's tile add 0 - u_ij * 0: t's bits unchanged, t never
   being -0, u_ij finite). */
static void id_upper(const double *restrict w, Py_ssize_t m, Py_ssize_t i0, Py_ssize_t i1, double *restrict t,
                     double *restrict pa, const double *restrict s, double *restrict c, const id_ops *ops) {
    Py_ssize_t n = i1 - i0, N = m - i1, nit = (n + ID_KR - 1) / ID_KR, ng = (m + ID_KC - 1) / ID_KC;
    for (Py_ssize_t it = 0; it < nit; it++) /* pa[it][p][r] = u_ij, j = m - 1 - p (descending) */
        for (Py_ssize_t p = 0; p < N; p++)
            for (int r = 0; r < ID_KR; r++) {
                Py_ssize_t i = i0 + it * ID_KR + r;
                pa[(it * N + p) * ID_KR + r] = i < i1 ? ID_ROW(w, m, i)[m - 1 - p] : 0.0;
            }
    for (Py_ssize_t g = i1 / ID_KC; g < ng; g++) {
        Py_ssize_t k0 = g * ID_KC, kn = m - k0 < ID_KC ? m - k0 : ID_KC, top = id_top(m, g), np = top - i1 + 1;
        const double *pb = id_strip((double *)s, g);
        memset(c, 0, (size_t)nit * ID_KR * ID_KC * sizeof(double)); /* the strip's tiles, one per it */
        for (Py_ssize_t p0 = 0; p0 < np; p0 += ID_KP) /* ID_KP rows of pb (in L1) at a time, in order */
            for (Py_ssize_t it = 0; it < nit; it++)
                ops->tile(np - p0 < ID_KP ? np - p0 : ID_KP, pa + (it * N + m - 1 - top + p0) * ID_KR,
                          pb + p0 * ID_KC, c + it * ID_KR * ID_KC);
        for (Py_ssize_t it = 0; it < nit; it++) {
            Py_ssize_t rn = i1 - (i0 + it * ID_KR) < ID_KR ? i1 - (i0 + it * ID_KR) : ID_KR;
            for (Py_ssize_t r = 0; r < rn; r++)
                memcpy(t + (it * ID_KR + r) * m + k0, c + (it * ID_KR + r) * ID_KC, (size_t)kn * sizeof(double));
        }
    }
}

/* the doubles of work space id_inv_diag1 or id_small needs for an m x m matrix */
static Py_ssize_t id_work(Py_ssize_t m) {
    Py_ssize_t ng = (m + ID_KC - 1) / ID_KC, tiles = ng * ID_KC;
    Py_ssize_t blocked = m * (m + 1) / 2 + ID_NB * m + 2 * ID_NB * tiles + ID_KC * ID_KC * (ng * (ng + 1) / 2) + ID_NB * ID_KC;
    return blocked > m * m + m ? blocked : m * m + m; /* id_small: m * m + m */
}

/* the same for m <= ID_NB (one panel), without the blocks' calls: faster on stacks of small matrices */
__attribute__((optimize("O3"), noinline)) static int id_small(const double *restrict a, Py_ssize_t m, double *restrict w,
                                                 double *restrict t, double *restrict dg) {
    memcpy(w, a, (size_t)(m * m) * sizeof(double));
    for (Py_ssize_t j = 0; j < m; j++) {
        double *wj = w + j * m, d = wj[j];
        if (!(d > 0)) return -1;
        double r = sqrt(d);
        wj[j] = r;
        for (Py_ssize_t k = j + 1; k < m; k++) wj[k] /= r;
        for (Py_ssize_t i = j + 1; i < m; i++) {
            double s = wj[i], *wi = w + i * m;
            for (Py_ssize_t k = i; k < m; k++) wi[k] -= s * wj[k];
        }
    }
    for (Py_ssize_t i = m - 1; i >= 0; i--) {
        double *wi = w + i * m;
        for (Py_ssize_t k = i + 1; k < m; k++) t[k] = 0.0;
        for (Py_ssize_t j = m - 1; j > i; j--) {
            double s = wi[j];
            const double *wj = w + j * m;
            for (Py_ssize_t k = j; k < m; k++) t[k] -= s * wj[k];
        }
        double r = wi[i];
        wi[i] = 1.0 / r;
        for (Py_ssize_t k = i + 1; k < m; k++) wi[k] = t[k] / r;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        const double *wi = w + i * m;
        double s = 0.0;
        for (Py_ssize_t k = i; k < m; k++) s += wi[k] * wi[k];
        dg[i] = s;
    }
    return 0;
}

__attribute__((optimize("O3"))) static int id_inv_diag1(const double *restrict a, Py_ssize_t m, double *restrict w,
                                                     double *restrict dg, const id_ops *ops) {
    Py_ssize_t ng = (m + ID_KC - 1) / ID_KC, tiles = ng * ID_KC;
    double *t = w + m * (m + 1) / 2, *pa = t + ID_NB * m, *pb = pa + ID_NB * tiles, *s = pb + ID_NB * tiles;
    double *c = s + ID_KC * ID_KC * (ng * (ng + 1) / 2);
    for (Py_ssize_t i = 0; i < m; i++) memcpy(ID_ROW(w, m, i) + i, a + i * m + i, (size_t)(m - i) * sizeof(double));
    for (Py_ssize_t j0 = 0; j0 < m; j0 += ID_NB) { /* Cholesky, a panel of rows at a time */
        Py_ssize_t j1 = m - j0 < ID_NB ? m : j0 + ID_NB;
        for (Py_ssize_t j = j0; j < j1; j++) { /* the panel's diagonal block */
            double *wj = ID_ROW(w, m, j), d = wj[j];
            if (!(d > 0)) return -1;
            double r = sqrt(d);
            wj[j] = r;
            for (Py_ssize_t k = j + 1; k < j1; k++) wj[k] /= r;
            for (Py_ssize_t i = j + 1; i < j1; i++) ops->axpy(j1 - i, wj[i], wj + i, ID_ROW(w, m, i) + i);
        }
        for (Py_ssize_t c0 = j1; c0 < m; c0 += ID_CW) { /* the panel's rows right of it, by column chunks */
            Py_ssize_t cn = m - c0 < ID_CW ? m - c0 : ID_CW;
            for (Py_ssize_t j = j0; j < j1; j++) {
                double *wj = ID_ROW(w, m, j), r = wj[j];
                for (Py_ssize_t k = c0; k < c0 + cn; k++) wj[k] /= r;
                for (Py_ssize_t i = j + 1; i < j1; i++) ops->axpy(cn, wj[i], wj + c0, ID_ROW(w, m, i) + c0);
            }
        }
        if (j1 < m) id_trail(w, m, j0, j1, pa, pb, c, ops);
    }
    for (Py_ssize_t i1 = m; i1 > 0;) { /* W = U^-1, a panel of rows at a time from the bottom (ID_NB-aligned) */
        Py_ssize_t i0 = (i1 - 1) / ID_NB * ID_NB;
        if (i1 < m) id_upper(w, m, i0, i1, t, pa, s, c, ops);
        for (Py_ssize_t i = i1 - 1; i >= i0; i--) {
            double *ti = t + (i - i0) * m, *wi = ID_ROW(w, m, i);
            for (Py_ssize_t k = i + 1; k < i1; k++) ti[k] = 0.0;
            for (Py_ssize_t j = i1 - 1; j > i; j--) ops->axpy(m - j, wi[j], ID_ROW(w, m, j) + j, ti + j);
            double r = wi[i], sq = 0.0;
            wi[i] = 1.0 / r;
            for (Py_ssize_t k = i + 1; k < m; k++) wi[k] = ti[k] / r;
            for (Py_ssize_t k = i; k < m; k++) sq += wi[k] * wi[k];
            dg[i] = sq;
            for (Py_ssize_t g = i / ID_KC; g < ng; g++) { /* row i into the strips that reach it */
                double *row = id_strip(s, g) + (id_top(m, g) - i) * ID_KC;
                for (Py_ssize_t q = 0; q < ID_KC; q++) {
                    Py_ssize_t k = g * ID_KC + q;
                    row[q] = k >= i && k < m ? wi[k] : 0.0;
                }
            }
        }
        i1 = i0;
    }
    return 0;
}

/* inv_diag(H, m, dg, ok, level): for each m x m matrix k of the stack H (float64), dg[k] = diag(H_k^-1) through
   id_inv_diag1 and ok[k] = 1, or ok[k] = 0 (dg[k] untouched) when H_k is not positive definite. level: the
   vector code (0 SSE2 / baseline, 1 AVX2, 2 AVX-512, -1 the best this CPU runs: the same bits); returns the
   level used. ValueError when the CPU lacks the level asked for. */
static PyObject *k_inv_diag(PyObject *self, PyObject *args) {
    PyObject *ho, *dgo, *oko;
    Py_ssize_t m;
    int level = -1;
    buf_t b[3];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OnOO|i", &ho, &m, &dgo, &oko, &level)) return NULL;
    id_ops ops;
    level = id_pick(level, &ops);
    if (level < 0) {
        PyErr_SetString(PyExc_ValueError, "inv_diag: this CPU does not run that level of vector code");
        return NULL;
    }
    if (get_buf(ho, &b[0], 0, 'd', "H") < 0 || get_buf(dgo, &b[1], 1, 'd', "dg") < 0 ||
        get_buf(oko, &b[2], 1, 'q', "ok") < 0)
        goto fail;
    if (m < 1 || NITEMS(b[0]) % (m * m) || NITEMS(b[1]) != NITEMS(b[0]) / m ||
        NITEMS(b[2]) != NITEMS(b[0]) / (m * m)) {
        PyErr_SetString(PyExc_ValueError, "H, dg and ok do not fit m");
        goto fail;
    }
    {
        const double *H = b[0].view.buf;
        double *dg = b[1].view.buf;
        int64_t *ok = b[2].view.buf;
        Py_ssize_t B = NITEMS(b[2]);
        double *w = malloc((size_t)id_work(m) * sizeof(double));
        if (!w) {
            PyErr_NoMemory();
            goto fail;
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < B; k++)
            ok[k] = (m <= ID_NB ? id_small(H + k * m * m, m, w, w + m * m, dg + k * m)
                                : id_inv_diag1(H + k * m * m, m, w, dg + k * m, &ops)) == 0;
        Py_END_ALLOW_THREADS
        free(w);
    }
    release(b, 3);
    return PyLong_FromLong(level);
fail:
    release(b, 3);
    return NULL;
}

/* cov_stack(sel, starts, eblock, u, v, h, pd, deg, sd, m, mode, H, c, hd): the stack of _dense_cov_diag
   (pref_eval/zelo/fit.py), numpy's passes fused into one per matrix. For the B = len(sel) blocks sel[k]
   (nodes starts[sel[k]] + 0..m-1; every block of the stack has m nodes) H[k] (B x m x m, C order) is
     mode 2 (centre_out): H_ij = (-pd_i) * (pd_j / sd[k]) (sd: the caller's sums of the block's pd), then
       H_uv -= h_e, then H_vu -= h_e over the block's edges e, then H_ii += deg_i;
     modes 0, 1: zeros, H_uv = H_vu = -h_e, H_ii = deg_i;
   and for modes 1, 2 scaled by c_k, the power of 2 that brings max_i H_ii into [1, 2) (1 when the max is not
   > 0 or is NaN: numpy's max propagates NaN), then + 1/m elementwise (two roundings: no fused multiply-add).
   c[k] (1 in mode 0) and hd[k] = diag(H[k]) after all that are written. The edges of the stack are those
   e with sel-position pos(eblock[e]) >= 0; their local indices u - start, v - start must lie in [0, m). The
   edge passes run in numpy's order (all (u, v) first, then all (v, u)). */
static PyObject *k_cov_stack(PyObject *self, PyObject *args) {
    PyObject *o[12];
    Py_ssize_t m;
    int mode;
    buf_t b[12];
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "OOOOOOOOOniOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[11],
                          &m, &mode, &o[8], &o[9], &o[10]))
        return NULL;
    if (get_buf(o[0], &b[0], 0, 'q', "sel") < 0 || get_buf(o[1], &b[1], 0, 'q', "starts") < 0 ||
        get_buf(o[2], &b[2], 0, 'q', "eblock") < 0 || get_buf(o[3], &b[3], 0, 'q', "u") < 0 ||
        get_buf(o[4], &b[4], 0, 'q', "v") < 0 || get_buf(o[5], &b[5], 0, 'd', "h") < 0 ||
        get_buf(o[6], &b[6], 0, 'd', "pd") < 0 || get_buf(o[7], &b[7], 0, 'd', "deg") < 0 ||
        get_buf(o[8], &b[8], 1, 'd', "H") < 0 || get_buf(o[9], &b[9], 1, 'd', "c") < 0 ||
        get_buf(o[10], &b[10], 1, 'd', "hd") < 0 || get_buf(o[11], &b[11], 0, 'd', "sd") < 0)
        goto fail;
    {
        const int64_t *sel = b[0].view.buf, *starts = b[1].view.buf, *eblock = b[2].view.buf, *u = b[3].view.buf,
                      *v = b[4].view.buf;
        const double *h = b[5].view.buf, *pd = b[6].view.buf, *deg = b[7].view.buf;
        const double *sds = b[11].view.buf;
        double *H = b[8].view.buf, *c = b[9].view.buf, *hd = b[10].view.buf;
        Py_ssize_t B = NITEMS(b[0]), nb = NITEMS(b[1]), ne = NITEMS(b[2]), n = NITEMS(b[6]);
        Py_ssize_t nhd = NITEMS(b[10]), nH = NITEMS(b[8]);
        if (m < 1 || mode < 0 || mode > 2) {
            PyErr_SetString(PyExc_ValueError, "cov_stack: m must be >= 1 and mode 0, 1 or 2");
            goto fail;
        }
        /* the stack's sizes checked by divisions (B * m * m could wrap for a huge m) */
        if (NITEMS(b[3]) != ne || NITEMS(b[4]) != ne || NITEMS(b[5]) != ne || NITEMS(b[7]) != n ||
            NITEMS(b[9]) != B || NITEMS(b[11]) != B || (B == 0 ? nhd != 0 || nH != 0 :
            nhd % B != 0 || nhd / B != m || nH % nhd != 0 || nH / nhd != m)) {
            PyErr_SetString(PyExc_ValueError, "cov_stack: arrays differ in length");
            goto fail;
        }
        if (B == 0) {
            release(b, 12);
            Py_RETURN_NONE;
        }
        if (indices_in_range(sel, B, nb, "cov_stack: block index out of range") < 0 ||
            indices_in_range(eblock, ne, nb, "cov_stack: edge block out of range") < 0)
            goto fail;
        for (Py_ssize_t k = 0; k < B; k++)
            if (starts[sel[k]] < 0 || starts[sel[k]] > n - m) {
                PyErr_SetString(PyExc_ValueError, "cov_stack: block outside the nodes");
                goto fail;
            }
        /* pos: each block's place in the stack (-1: not in it); the stack's edges grouped by matrix, in edge
           order within one (first[k] .. first[k + 1] of idx), so that each matrix is built, scattered into,
           scaled and read while it is in the cache */
        int64_t *pos = malloc((size_t)(nb ? nb : 1) * sizeof(int64_t));
        int64_t *first = calloc((size_t)B + 1, sizeof(int64_t));
        int64_t *idx = malloc((size_t)(ne ? ne : 1) * sizeof(int64_t));
        double *t = malloc((size_t)m * sizeof(double));
        if (!pos || !first || !idx || !t) {
            free(pos), free(first), free(idx), free(t);
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t k = 0; k < nb; k++) pos[k] = -1;
        for (Py_ssize_t k = 0; k < B; k++) pos[sel[k]] = k;
        int bad = 0;
        for (Py_ssize_t e = 0; e < ne; e++) {
            int64_t k = pos[eblock[e]];
            if (k < 0) continue;
            int64_t s0 = starts[eblock[e]];
            if (u[e] < s0 || u[e] >= s0 + m || v[e] < s0 || v[e] >= s0 + m) bad = 1;  /* s0 + m <= n: checked */
            first[k + 1]++;
        }
        if (bad) {
            free(pos), free(first), free(idx), free(t);
            PyErr_SetString(PyExc_ValueError, "cov_stack: an edge outside its block");
            goto fail;
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < B; k++) first[k + 1] += first[k];
        for (Py_ssize_t e = 0; e < ne; e++) {
            int64_t k = pos[eblock[e]];
            if (k >= 0) idx[first[k]++] = e;
        }
        for (Py_ssize_t k = B; k > 0; k--) first[k] = first[k - 1];  /* the fill moved each start to the next */
        first[0] = 0;
        const double inv_m = 1.0 / (double)m;
        for (Py_ssize_t k = 0; k < B; k++) {
            double *A = H + k * m * m;
            const int64_t s0 = starts[sel[k]];
            const double *dv = pd + s0, *dg = deg + s0;
            if (mode == 2) {
                const double sd = sds[k];
                for (Py_ssize_t j = 0; j < m; j++) t[j] = dv[j] / sd;
                for (Py_ssize_t i = 0; i < m; i++) {
                    const double a = -dv[i];
                    double *row = A + i * m;
                    for (Py_ssize_t j = 0; j < m; j++) row[j] = a * t[j];
                }
            } else {
                memset(A, 0, (size_t)(m * m) * sizeof(double));
            }
            for (int pass = 0; pass < 2; pass++)
                for (int64_t q = first[k]; q < first[k + 1]; q++) {
                    const int64_t e = idx[q];
                    const int64_t i = (pass ? v[e] : u[e]) - s0, j = (pass ? u[e] : v[e]) - s0;
                    double *x = A + i * m + j;
                    *x = mode == 2 ? *x - h[e] : -h[e];
                }
            for (Py_ssize_t i = 0; i < m; i++) A[i * m + i] = mode == 2 ? A[i * m + i] + dg[i] : dg[i];
            double ck = 1.0;
            if (mode > 0) {
                double big = A[0];
                for (Py_ssize_t i = 1; i < m && !isnan(big); i++) {
                    const double d = A[i * m + i];
                    if (isnan(d) || d > big) big = d;
                }
                if (big > 0) {
                    int ex;
                    frexp(big, &ex);
                    ck = ldexp(1.0, 1 - ex);
                }
                for (Py_ssize_t q = 0; q < m * m; q++) {
                    const double x = A[q] * ck;
                    A[q] = x + inv_m;
                }
            }
            c[k] = ck;
            for (Py_ssize_t i = 0; i < m; i++) hd[k * m + i] = A[i * m + i];
        }
        Py_END_ALLOW_THREADS
        free(pos), free(first), free(idx), free(t);
    }
    release(b, 12);
    Py_RETURN_NONE;
fail:
    release(b, 12);
    return NULL;
}

static PyMethodDef methods[] = {
    {"expit", k_expit, METH_VARARGS, "expit(x, out): out = 1 / (1 + exp(-x)) (scipy.special.expit's bits)."},
    {"log_expit", k_log_expit, METH_VARARGS, "log_expit(x, out): log(expit(x)) (scipy.special.log_expit's bits)."},
    {"csr_matvec", k_csr_matvec, METH_VARARGS,
     "csr_matvec(indptr, indices, data, p, out): out = A @ p for CSR A (scipy.sparse's bits)."},
    {"bt_objective", k_bt_objective, METH_VARARGS,
     "bt_objective(x, u, v, eblock, nw, wvu, f): per-block Bradley-Terry log-likelihood (see _kernels.c)."},
    {"bt_gradient", k_bt_gradient, METH_VARARGS,
     "bt_gradient(x, u, v, wuv, wvu, nw, gu, gv, h[, hu, hv]): gradient parts, Hessian weights and their sums "
     "per node (see _kernels.c)."},
    {"stable_order", k_stable_order, METH_VARARGS,
     "stable_order(hi, nhi, lo, nlo, out): out = np.lexsort((lo, hi)) by counting sorts (lo may be None)."},
    {"format_scores", k_format_scores, METH_VARARGS,
     "format_scores(qids, docs, score, se, extra) -> str: zelo_fit's score TSV rows (floats as repr)."},
    {"factorize", k_factorize, METH_VARARGS,
     "factorize(keys, codes, first) -> count: codes of 64-bit keys in order of first occurrence (hash table)."},
    {"cg_step", k_cg_step, METH_VARARGS,
     "cg_step(alpha, block, p, ap, diag, z, r, y, rr, ry): one conjugate-gradient update (see _kernels.c)."},
    {"cg_direction", k_cg_direction, METH_VARARGS,
     "cg_direction(live, beta, block, y, p): p = where(live[block], y + beta[block] * p, 0) in place."},
    {"run_columns", k_run_columns, METH_VARARGS,
     "run_columns(data, budget) -> (qid, wq, docno, wd, score, lines, tag, tags) or None: a run file's columns."},
    {"rpp_levels", k_rpp_levels, METH_VARARGS,
     "rpp_levels(grid, weights, ib, jb, active, acc): the RPP level sums in place (see _kernels.c)."},
    {"pref_lines", k_pref_lines, METH_VARARGS,
     "pref_lines(kinds, kind, col, qi, nbytes) -> str: pref_eval.py's per-query JSON lines (see _kernels.c)."},
    {"inv_diag", k_inv_diag, METH_VARARGS,
     "inv_diag(H, m, dg, ok): diag of each m x m matrix's inverse by our own Cholesky (see _kernels.c)."},
    {"cov_stack", k_cov_stack, METH_VARARGS,
     "cov_stack(sel, starts, eblock, u, v, h, pd, deg, sd, m, mode, H, c, hd): _dense_cov_diag's stack (see _kernels.c)."},
    {"exp", k_exp, METH_VARARGS, "exp(x, out): the C library's exp elementwise."},
    {"log", k_log, METH_VARARGS, "log(x, out): the C library's log elementwise."},
    {"log2", k_log2, METH_VARARGS, "log2(x, out): the C library's log2 elementwise."},
    {"exp2", k_exp2, METH_VARARGS, "exp2(x, out): the C library's exp2 elementwise."},
    {"log1p", k_log1p, METH_VARARGS, "log1p(x, out): the C library's log1p elementwise."},
    {"tanh", k_tanh, METH_VARARGS, "tanh(x, out): the C library's tanh elementwise."},
    {"pow_scalar", k_pow_scalar, METH_VARARGS,
     "pow_scalar(x, y, base, out): out = pow(y, x) elementwise when base, else pow(x, y)."},
    {"scc", k_scc, METH_VARARGS, "scc(indptr, indices, labels) -> count: strongly connected components (Tarjan)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels",
                                    "Compiled kernels of the Bradley-Terry fit (see _kernels.c).", -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
