/*
 * pref_eval._jsonl: a strict scanner for JSON lines of flat objects.
 *
 * scan(data) reads lines of the form  {"key": value, ...}  where every value
 * is a JSON string without escapes or a JSON number, and returns them as
 * columns, grouped by "shape" (the sequence of keys and value kinds of a
 * line):
 *
 *     (strtab, shapes)
 *     strtab: list[str]  every distinct string value, in order of first use
 *     shapes: list of (keys: tuple[str], kinds: bytes (b"s"/b"n" per key),
 *                      lines: bytes (int64 0-based line numbers),
 *                      nums: bytes (float64, nlines x number-columns, row-major),
 *                      strs: bytes (int32 codes into strtab, nlines x string-columns),
 *                      intcols: bytes (uint8 per number column: 1 if every value
 *                               was an integer literal))
 *
 * It returns None for anything else (escapes, true/false/null, nested values,
 * NaN, duplicate keys, invalid UTF-8, more than MAX_SHAPES shapes, ...): the
 * caller then uses the general line-by-line parser, which also reports errors.
 * Lines holding only JSON whitespace are skipped.
 *
 * Numbers are converted exactly as Python's float(): correctly rounded.
 *  - m * 10^e with m < 2^53 and |e| <= 22: one IEEE operation on two exact
 *    doubles, correctly rounded (Clinger 1990, the "fast path");
 *  - m < 2^64 and |e| <= 27 where long double has a 64-bit significand (x87):
 *    one correctly rounded extended operation on exact operands, then rounded
 *    to double; double rounding can only go wrong when the extended result is
 *    exactly halfway between two doubles, and that case goes to the slow path;
 *  - everything else: PyOS_string_to_double (Python's own correctly rounded
 *    conversion, David Gay's algorithm).
 * Integer literals that are zero give +0.0 (Python: float(-0) == 0.0).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_KEYS 1024
#define MAX_SHAPES 256
#define MAX_NUMBER_TEXT 256

/* ------------------------------------------------------------------ numbers */

static const double P10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if LDBL_MANT_DIG == 64
#define HAVE_EXT 1
static long double P10L[28];
#else
#define HAVE_EXT 0
#endif
static int use_ext = 0; /* set at import after a run-time check of the x87 precision */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Parse a JSON number at *pp (< end). Returns 0 and sets *out, *isint, or -1 if
   the text is not a JSON number, -2 if Python raised an exception. */
static int parse_number(const char **pp, const char *end, double *out, int *isint) {
    const char *p = *pp, *start = p;
    int neg = 0, nd = 0, dropped = 0, integer = 1;
    uint64_t m = 0;
    long e10 = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (p >= end) return -1;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && is_digit(*p)) {
            if (nd < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                nd++;
            } else {
                dropped = 1;
            }
            p++;
        }
    } else {
        return -1;
    }
    if (p < end && *p == '.') {
        integer = 0;
        p++;
        if (p >= end || !is_digit(*p)) return -1;
        while (p < end && is_digit(*p)) {
            if (m == 0 && *p == '0') {
                e10--; /* leading zeros of the fraction are not significant */
            } else if (nd < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                nd++;
                e10--;
            } else {
                dropped = 1;
            }
            p++;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        long ex = 0;
        integer = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (p >= end || !is_digit(*p)) return -1;
        while (p < end && is_digit(*p)) {
            if (ex < 100000) ex = ex * 10 + (*p - '0');
            p++;
        }
        e10 += eneg ? -ex : ex;
    }
    *pp = p;
    *isint = integer;
    if (!dropped) {
        if (m == 0) {
            *out = (neg && !integer) ? -0.0 : 0.0;
            return 0;
        }
        if (m <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
            double v = (double)m;
            v = e10 < 0 ? v / P10[-e10] : v * P10[e10];
            *out = neg ? -v : v;
            return 0;
        }
#if HAVE_EXT
        if (use_ext && e10 >= -27 && e10 <= 27) {
            long double q = (long double)m;
            int ex2;
            q = e10 < 0 ? q / P10L[-e10] : q * P10L[e10];
            uint64_t bits = (uint64_t)ldexpl(frexpl(q, &ex2), 64);
            if ((bits & 0x7FF) != 0x400) { /* not halfway between two doubles */
                double v = (double)q;
                *out = neg ? -v : v;
                return 0;
            }
        }
#endif
    }
    {
        char buf[MAX_NUMBER_TEXT + 1];
        size_t n = (size_t)(p - start);
        double v;
        if (n > MAX_NUMBER_TEXT) return -1;
        memcpy(buf, start, n);
        buf[n] = '\0';
        v = PyOS_string_to_double(buf, NULL, NULL);
        if (v == -1.0 && PyErr_Occurred()) return -2;
        if (integer && v == 0.0) v = 0.0;
        *out = v;
    }
    return 0;
}

/* ------------------------------------------------------------ string table */

typedef struct {
    const char *p;
    Py_ssize_t n;
} Span;

typedef struct {
    int32_t *slots; /* code + 1, 0 = empty */
    size_t cap;     /* power of two */
    Span *items;
    size_t count, icap;
} StrTab;

static uint64_t hash_bytes(const char *p, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static int strtab_grow(StrTab *t) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    int32_t *ns = PyMem_Calloc(ncap, sizeof(int32_t));
    if (!ns) return -1;
    for (size_t i = 0; i < t->count; i++) {
        size_t j = hash_bytes(t->items[i].p, t->items[i].n) & (ncap - 1);
        while (ns[j]) j = (j + 1) & (ncap - 1);
        ns[j] = (int32_t)(i + 1);
    }
    PyMem_Free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

/* Code of the span, added if new; -1 on memory error. */
static int32_t strtab_code(StrTab *t, const char *p, Py_ssize_t n) {
    if ((t->count + 1) * 2 > t->cap && strtab_grow(t) < 0) return -1;
    size_t j = hash_bytes(p, n) & (t->cap - 1);
    while (t->slots[j]) {
        Span *s = &t->items[t->slots[j] - 1];
        if (s->n == n && memcmp(s->p, p, (size_t)n) == 0) return t->slots[j] - 1;
        j = (j + 1) & (t->cap - 1);
    }
    if (t->count == t->icap) {
        size_t nc = t->icap ? t->icap * 2 : 256;
        Span *ni = PyMem_Realloc(t->items, nc * sizeof(Span));
        if (!ni) return -1;
        t->items = ni;
        t->icap = nc;
    }
    t->items[t->count].p = p;
    t->items[t->count].n = n;
    t->slots[j] = (int32_t)(t->count + 1);
    return (int32_t)t->count++;
}

/* ------------------------------------------------------------------ shapes */

typedef struct {
    void *data;
    size_t len, cap; /* bytes */
} Buf;

static int buf_reserve(Buf *b, size_t extra) {
    if (b->len + extra <= b->cap) return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->len + extra) nc *= 2;
    void *nd = PyMem_Realloc(b->data, nc);
    if (!nd) return -1;
    b->data = nd;
    b->cap = nc;
    return 0;
}

typedef struct {
    int nkeys, nnum, nstr;
    Span *keys;
    char *kinds; /* 's' or 'n' per key */
    unsigned char *intcol;
    Buf lines, nums, strs;
} Shape;

static void shape_free(Shape *s) {
    PyMem_Free(s->keys);
    PyMem_Free(s->kinds);
    PyMem_Free(s->intcol);
    PyMem_Free(s->lines.data);
    PyMem_Free(s->nums.data);
    PyMem_Free(s->strs.data);
}

/* --------------------------------------------------------------------- scan */

typedef struct {
    Span keys[MAX_KEYS];
    char kinds[MAX_KEYS];
    double nums[MAX_KEYS];
    int32_t strs[MAX_KEYS];
    unsigned char isint[MAX_KEYS];
} LineVals;

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Parse one line [p, e). Returns number of keys (>= 0), -1 unusual, -2 error set, -3 blank. */
static int parse_line(const char *p, const char *e, LineVals *lv, StrTab *tab) {
    int nk = 0;
    while (p < e && is_ws(*p)) p++;
    if (p == e) return -3;
    if (*p != '{') return -1;
    p++;
    while (p < e && is_ws(*p)) p++;
    if (p < e && *p == '}') {
        p++;
    } else {
        for (;;) {
            const char *k;
            if (p >= e || *p != '"') return -1;
            k = ++p;
            while (p < e && *p != '"') {
                if (*p == '\\' || (unsigned char)*p < 0x20) return -1;
                p++;
            }
            if (p >= e || nk >= MAX_KEYS) return -1;
            lv->keys[nk].p = k;
            lv->keys[nk].n = p - k;
            p++;
            while (p < e && is_ws(*p)) p++;
            if (p >= e || *p != ':') return -1;
            p++;
            while (p < e && is_ws(*p)) p++;
            if (p >= e) return -1;
            if (*p == '"') {
                const char *s = ++p;
                int32_t code;
                while (p < e && *p != '"') {
                    if (*p == '\\' || (unsigned char)*p < 0x20) return -1;
                    p++;
                }
                if (p >= e) return -1;
                code = strtab_code(tab, s, p - s);
                if (code < 0) {
                    PyErr_NoMemory();
                    return -2;
                }
                lv->kinds[nk] = 's';
                lv->strs[nk] = code;
                p++;
            } else if (*p == '-' || is_digit(*p)) {
                int isint = 0, r = parse_number(&p, e, &lv->nums[nk], &isint);
                if (r < 0) return r;
                lv->kinds[nk] = 'n';
                lv->isint[nk] = (unsigned char)isint;
            } else {
                return -1;
            }
            nk++;
            while (p < e && is_ws(*p)) p++;
            if (p < e && *p == ',') {
                p++;
                while (p < e && is_ws(*p)) p++;
                continue;
            }
            if (p < e && *p == '}') {
                p++;
                break;
            }
            return -1;
        }
    }
    while (p < e && is_ws(*p)) p++;
    return p == e ? nk : -1;
}

static int shape_matches(const Shape *s, const LineVals *lv, int nk) {
    if (s->nkeys != nk || memcmp(s->kinds, lv->kinds, (size_t)nk) != 0) return 0;
    for (int i = 0; i < nk; i++)
        if (s->keys[i].n != lv->keys[i].n || memcmp(s->keys[i].p, lv->keys[i].p, (size_t)lv->keys[i].n) != 0)
            return 0;
    return 1;
}

/* New shape from a line; 0 ok, -1 unusual (duplicate key), -2 memory. */
static int shape_init(Shape *s, const LineVals *lv, int nk) {
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < i; j++)
            if (lv->keys[i].n == lv->keys[j].n && memcmp(lv->keys[i].p, lv->keys[j].p, (size_t)lv->keys[i].n) == 0)
                return -1;
    s->nkeys = nk;
    s->keys = PyMem_Malloc((size_t)(nk ? nk : 1) * sizeof(Span));
    s->kinds = PyMem_Malloc((size_t)(nk ? nk : 1));
    s->intcol = PyMem_Malloc((size_t)(nk ? nk : 1));
    if (!s->keys || !s->kinds || !s->intcol) return -2;
    memcpy(s->keys, lv->keys, (size_t)nk * sizeof(Span));
    memcpy(s->kinds, lv->kinds, (size_t)nk);
    for (int i = 0; i < nk; i++) {
        if (lv->kinds[i] == 'n')
            s->intcol[s->nnum++] = 1;
        else
            s->nstr++;
    }
    return 0;
}

static int shape_add(Shape *s, const LineVals *lv, int64_t line) {
    if (buf_reserve(&s->lines, sizeof(int64_t)) < 0 || buf_reserve(&s->nums, (size_t)s->nnum * sizeof(double)) < 0 ||
        buf_reserve(&s->strs, (size_t)s->nstr * sizeof(int32_t)) < 0)
        return -2;
    memcpy((char *)s->lines.data + s->lines.len, &line, sizeof(int64_t));
    s->lines.len += sizeof(int64_t);
    double *dn = (double *)((char *)s->nums.data + s->nums.len);
    int32_t *ds = (int32_t *)((char *)s->strs.data + s->strs.len);
    int jn = 0, js = 0;
    for (int i = 0; i < s->nkeys; i++) {
        if (s->kinds[i] == 'n') {
            dn[jn] = lv->nums[i];
            s->intcol[jn] &= lv->isint[i];
            jn++;
        } else {
            ds[js++] = lv->strs[i];
        }
    }
    s->nums.len += (size_t)s->nnum * sizeof(double);
    s->strs.len += (size_t)s->nstr * sizeof(int32_t);
    return 0;
}

#define NONNULL(p) ((p) ? (const char *)(p) : "")

static PyObject *build_result(StrTab *tab, Shape *shapes, int nshapes) {
    PyObject *strtab = PyList_New((Py_ssize_t)tab->count), *shl = NULL, *res = NULL;
    if (!strtab) return NULL;
    for (size_t i = 0; i < tab->count; i++) {
        PyObject *u = PyUnicode_DecodeUTF8(tab->items[i].p, tab->items[i].n, "strict");
        if (!u) goto fail;
        PyList_SET_ITEM(strtab, (Py_ssize_t)i, u);
    }
    shl = PyList_New(nshapes);
    if (!shl) goto fail;
    for (int k = 0; k < nshapes; k++) {
        Shape *s = &shapes[k];
        PyObject *keys = PyTuple_New(s->nkeys), *t;
        if (!keys) goto fail;
        for (int i = 0; i < s->nkeys; i++) {
            PyObject *u = PyUnicode_DecodeUTF8(s->keys[i].p, s->keys[i].n, "strict");
            if (!u) {
                Py_DECREF(keys);
                goto fail;
            }
            PyTuple_SET_ITEM(keys, i, u);
        }
        /* "y#" gives None for a NULL pointer: empty buffers are passed as "" */
        t = Py_BuildValue("(Ny#y#y#y#y#)", keys, s->kinds, (Py_ssize_t)s->nkeys, NONNULL(s->lines.data),
                          (Py_ssize_t)s->lines.len, NONNULL(s->nums.data), (Py_ssize_t)s->nums.len,
                          NONNULL(s->strs.data), (Py_ssize_t)s->strs.len, (const char *)s->intcol,
                          (Py_ssize_t)s->nnum);
        if (!t) goto fail;
        PyList_SET_ITEM(shl, k, t);
    }
    res = PyTuple_Pack(2, strtab, shl);
fail:
    Py_XDECREF(strtab);
    Py_XDECREF(shl);
    return res;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer view;
    StrTab tab = {0};
    Shape *shapes = NULL;
    LineVals *lv = NULL;
    int nshapes = 0, last = -1, status = 0; /* 0 ok, -1 unusual, -2 error */
    PyObject *res = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    shapes = PyMem_Calloc(MAX_SHAPES, sizeof(Shape));
    lv = PyMem_Malloc(sizeof(LineVals));
    if (!shapes || !lv) {
        PyErr_NoMemory();
        status = -2;
        goto done;
    }
    {
        const char *p = view.buf, *end = p + view.len;
        int64_t line = 0;
        while (p < end) {
            const char *e = memchr(p, '\n', (size_t)(end - p));
            int nk, k;
            if (!e) e = end;
            nk = parse_line(p, e, lv, &tab);
            if (nk == -3) goto next;
            if (nk < 0) {
                status = nk;
                goto done;
            }
            k = -1;
            if (last >= 0 && shape_matches(&shapes[last], lv, nk)) {
                k = last;
            } else {
                for (int i = 0; i < nshapes; i++)
                    if (shape_matches(&shapes[i], lv, nk)) {
                        k = i;
                        break;
                    }
            }
            if (k < 0) {
                int r;
                if (nshapes == MAX_SHAPES) {
                    status = -1;
                    goto done;
                }
                r = shape_init(&shapes[nshapes], lv, nk);
                nshapes++;
                if (r < 0) {
                    status = r;
                    if (r == -2) PyErr_NoMemory();
                    goto done;
                }
                k = nshapes - 1;
            }
            last = k;
            if (shape_add(&shapes[k], lv, line) < 0) {
                PyErr_NoMemory();
                status = -2;
                goto done;
            }
        next:
            line++;
            p = e + 1;
        }
    }
    res = build_result(&tab, shapes, nshapes);
    if (!res) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            status = -1;
        } else {
            status = -2;
        }
    }
done:
    if (shapes)
        for (int i = 0; i < nshapes; i++) shape_free(&shapes[i]);
    PyMem_Free(shapes);
    PyMem_Free(lv);
    PyMem_Free(tab.slots);
    PyMem_Free(tab.items);
    PyBuffer_Release(&view);
    if (status == -2) return NULL;
    if (status == -1) Py_RETURN_NONE;
    return res;
}

static PyObject *parse_float(PyObject *self, PyObject *args) {
    /* One JSON number text -> float (tests: the same conversion as scan). */
    const char *s, *p;
    Py_ssize_t n;
    double v;
    int isint, r;
    (void)self;
    if (!PyArg_ParseTuple(args, "y#", &s, &n)) return NULL;
    if (n == 0) Py_RETURN_NONE;
    p = s;
    r = parse_number(&p, s + n, &v, &isint);
    if (r == -2) return NULL;
    if (r < 0 || p != s + n) Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "scan(data) -> (strtab, shapes) or None; see the module source."},
    {"parse_float", parse_float, METH_VARARGS, "parse_float(text: bytes) -> float or None (not a JSON number)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_jsonl", "Strict JSON-lines scanner (see _jsonl.c).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__jsonl(void) {
    PyObject *mod = PyModule_Create(&module);
    if (!mod) return NULL;
#if HAVE_EXT
    {
        volatile long double one = 1.0L, tiny;
        P10L[0] = 1.0L;
        for (int i = 1; i < 28; i++) P10L[i] = P10L[i - 1] * 10.0L;
        tiny = ldexpl(1.0L, -63);
        /* the x87 unit must round to 64 bits (not to double) for the extended path */
        use_ext = (one + tiny) != one;
    }
#endif
    if (PyModule_AddIntConstant(mod, "extended", use_ext) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
