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
 *
 * The byte loop runs without the GIL (other threads run meanwhile; zelo_fit scans
 * the parts of a large file on threads): its memory is PyMem_Raw*, its columns
 * are raw buffers handed to Python as RawBuf objects (the buffer protocol,
 * writable, no copy), and the rare numbers of the slow path take the GIL back
 * for PyOS_string_to_double (after GIL_ROUND_TRIPS of them the scan keeps it).
 * Errors are reported once the GIL is held again.
 *
 * newlines(data) -> int: the number of b"\n" bytes (memchr; bytes.count is ~5x
 * slower), also without the GIL.
 *
 * scan_delimited(data, skip, delim, width, string_positions, value_position,
 * sample_position) reads the rows of a TSV/CSV per-query table after its first
 * ``skip`` lines (pref_eval/io/perquery.py): every line ``width`` fields split
 * on ``delim``, the fields at ``string_positions`` coded into one string table,
 * the field at ``value_position`` a decimal number converted as Python's float()
 * (the fast path of exact operands above, else PyOS_string_to_double; the GIL is
 * held), the field at ``sample_position`` (-1: none) one text for every row.
 * Blank lines (and lines of tabs alone when the delimiter is a tab) are
 * skipped; a CR is taken only before a LF or at the end. It returns
 * (strtab, codes: int32 rows x columns, values: float64, lines: int64 1-based)
 * or None for anything else -- a quote, white space or a control byte, a byte
 * that is not ASCII, another field count, a value that is not such a number or
 * not finite, two sample texts --: the Python readers then decide and name the
 * line.
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
static int swar = 0;    /* eight digits at a time (little-endian loads) */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Eight ASCII digits at once (SWAR): true if all eight bytes of v are '0'..'9'. */
static int eight_digits(uint64_t v) {
    return ((v & 0xF0F0F0F0F0F0F0F0ULL) | (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
           0x3333333333333333ULL;
}

/* Value of eight ASCII digits (first byte most significant; little-endian load). */
static uint32_t eight_value(uint64_t v) {
    v -= 0x3030303030303030ULL;
    v = (v * 10) + (v >> 8); /* pairs */
    v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
         (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
    return (uint32_t)v;
}

static int little_endian(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* How numbers are converted in one call of scan (or parse_float). */
typedef struct {
    int ext;            /* the x87 extended path may be used (checked in the converting thread) */
    PyThreadState **ts; /* *ts non-NULL: the GIL is released (*ts saved); the slow path takes it back */
    int round_trips;    /* slow numbers left before the GIL is kept for the rest of the scan */
} NumCtx;

/* Slow numbers converted with a release of the GIL after each; then the scan keeps it (a file of
   numbers beyond the fast paths, or a machine without x87 extended precision, would otherwise pay
   a GIL round trip per number). */
#define GIL_ROUND_TRIPS 64

/* Whether the x87 unit of the calling thread rounds to 64 bits (its precision control is per thread). */
static int ext_ok(void) {
#if HAVE_EXT
    volatile long double one = 1.0L, tiny = ldexpl(1.0L, -63);
    return (one + tiny) != one;
#else
    return 0;
#endif
}

/* Python's correctly rounded conversion of the number text [start, start + n); -1 not a
   number for us (too long), -2 Python raised an exception (set in the thread state). */
static int slow_number(const char *start, size_t n, int integer, double *out, NumCtx *ctx) {
    char buf[MAX_NUMBER_TEXT + 1];
    double v;
    int err;
    if (n > MAX_NUMBER_TEXT) return -1;
    memcpy(buf, start, n);
    buf[n] = '\0';
    if (ctx->ts && *ctx->ts) {
        PyEval_RestoreThread(*ctx->ts);
        *ctx->ts = NULL;
    }
    v = PyOS_string_to_double(buf, NULL, NULL);
    err = v == -1.0 && PyErr_Occurred();
    if (ctx->ts && !err && ctx->round_trips > 0) {
        ctx->round_trips--;
        *ctx->ts = PyEval_SaveThread();
    }
    if (err) return -2;
    if (integer && v == 0.0) v = 0.0;
    *out = v;
    return 0;
}

/* Digits after a decimal point, into the 19-digit significand m (nd digits so far) with the exponent e10: leading
   zeros of the significand are not significant, digits past 19 set *dropped (the slow path reads the text then).
   Returns the first byte that is not a digit. Shared by the JSON and the TSV/CSV number readers. */
static inline const char *fraction_digits(const char *p, const char *end, uint64_t *m, int *nd, long *e10,
                                          int *dropped) {
    while (p < end && is_digit(*p)) {
        if (*m == 0 && *p == '0') {
            (*e10)--;
        } else if (*nd < 19) {
            *m = *m * 10 + (uint64_t)(*p - '0');
            (*nd)++;
            (*e10)--;
        } else {
            *dropped = 1;
        }
        p++;
    }
    return p;
}

/* An exponent at p (just past 'e' or 'E'): an optional sign and at least one digit, added to *e10 (capped at
   100000 in magnitude: past it every double is 0 or inf). Returns the byte after it, or NULL without a digit. */
static inline const char *exponent_part(const char *p, const char *end, long *e10) {
    int eneg = 0;
    long ex = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        eneg = *p == '-';
        p++;
    }
    if (p >= end || !is_digit(*p)) return NULL;
    while (p < end && is_digit(*p)) {
        if (ex < 100000) ex = ex * 10 + (*p - '0');
        p++;
    }
    *e10 += eneg ? -ex : ex;
    return p;
}

/* Parse a JSON number at *pp (< end). Returns 0 and sets *out, *isint, or -1 if
   the text is not a JSON number, -2 if Python raised an exception. */
static int parse_number(const char **pp, const char *end, double *out, int *isint, NumCtx *ctx) {
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
        if (m == 0)
            while (p < end && *p == '0') { /* leading zeros of the fraction are not significant */
                e10--;
                p++;
            }
        if (swar)
            while (nd <= 11 && end - p >= 8) {
                uint64_t v;
                memcpy(&v, p, 8);
                if (!eight_digits(v)) break;
                m = m * 100000000ULL + eight_value(v);
                nd += 8;
                e10 -= 8;
                p += 8;
            }
        p = fraction_digits(p, end, &m, &nd, &e10, &dropped);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        integer = 0;
        p = exponent_part(p + 1, end, &e10);
        if (p == NULL) return -1;
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
        if (ctx->ext && e10 >= -27 && e10 <= 27) {
            long double q = (long double)m;
            uint64_t bits;
            q = e10 < 0 ? q / P10L[-e10] : q * P10L[e10];
#if defined(__x86_64__) || defined(__i386__)
            memcpy(&bits, &q, 8); /* x87 extended: the 64-bit significand comes first */
#else
            {
                int ex2;
                bits = (uint64_t)ldexpl(frexpl(q, &ex2), 64);
            }
#endif
            if ((bits & 0x7FF) != 0x400) { /* not halfway between two doubles */
                double v = (double)q;
                *out = neg ? -v : v;
                return 0;
            }
        }
#endif
    }
    return slow_number(start, (size_t)(p - start), integer, out, ctx);
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
    int32_t *ns = PyMem_RawCalloc(ncap, sizeof(int32_t));
    if (!ns) return -1;
    for (size_t i = 0; i < t->count; i++) {
        size_t j = hash_bytes(t->items[i].p, t->items[i].n) & (ncap - 1);
        while (ns[j]) j = (j + 1) & (ncap - 1);
        ns[j] = (int32_t)(i + 1);
    }
    PyMem_RawFree(t->slots);
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
        Span *ni = PyMem_RawRealloc(t->items, nc * sizeof(Span));
        if (!ni) return -1;
        t->items = ni;
        t->icap = nc;
    }
    t->items[t->count].p = p;
    t->items[t->count].n = n;
    t->slots[j] = (int32_t)(t->count + 1);
    return (int32_t)t->count++;
}

/* One parsed line. */
typedef struct {
    Span keys[MAX_KEYS];
    char kinds[MAX_KEYS];
    double nums[MAX_KEYS];
    int32_t strs[MAX_KEYS];
    unsigned char isint[MAX_KEYS];
    const char *sval[MAX_KEYS]; /* string values (for the per-shape cache) */
    Py_ssize_t slen[MAX_KEYS];
} LineVals;

/* ------------------------------------------------------------------ shapes */

/* RawBuf: bytes of PyMem_RawMalloc memory it owns, exported by the buffer protocol (writable, as a
   bytearray's; numpy.frombuffer takes them without a copy and keeps the object alive). */
typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t len;
} RawBufObject;

static int rawbuf_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    RawBufObject *b = (RawBufObject *)self;
    static char empty[1];
    return PyBuffer_FillInfo(view, self, b->data ? b->data : empty, b->len, 0, flags);
}

static void rawbuf_dealloc(PyObject *self) {
    PyMem_RawFree(((RawBufObject *)self)->data);
    Py_TYPE(self)->tp_free(self);
}

static Py_ssize_t rawbuf_length(PyObject *self) { return ((RawBufObject *)self)->len; }

static PyBufferProcs rawbuf_as_buffer = {.bf_getbuffer = rawbuf_getbuffer};
static PySequenceMethods rawbuf_as_sequence = {.sq_length = rawbuf_length};

static PyTypeObject RawBufType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pref_eval._jsonl.RawBuf",
    .tp_basicsize = sizeof(RawBufObject),
    .tp_dealloc = rawbuf_dealloc,
    .tp_as_sequence = &rawbuf_as_sequence,
    .tp_as_buffer = &rawbuf_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes of one column of scan() (buffer protocol; bytes(x) copies them).",
};

/* A growing byte buffer of raw memory (no GIL needed), handed to Python as a RawBuf without a copy. */
typedef struct {
    char *data; /* NULL until the first reserve */
    size_t len, cap;
} Buf;

/* 0, or -4: out of memory (no exception set: the GIL may be released). */
static int buf_reserve(Buf *b, size_t extra) {
    if (b->data && b->len + extra <= b->cap) return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->len + extra) nc *= 2;
    char *nd = PyMem_RawRealloc(b->data, nc);
    if (!nd) return -4;
    b->data = nd;
    b->cap = nc;
    return 0;
}

/* The buffer as a RawBuf of its length (a new reference; the Buf gives up its memory). */
static PyObject *buf_take(Buf *b) {
    RawBufObject *o = PyObject_New(RawBufObject, &RawBufType);
    if (!o) return NULL;
    o->data = b->data;
    o->len = (Py_ssize_t)b->len;
    if (o->data && b->len < b->cap) { /* give back the unused end (realloc in place or mremap: no copy) */
        char *nd = PyMem_RawRealloc(o->data, b->len ? b->len : 1);
        if (nd) o->data = nd;
    }
    b->data = NULL;
    b->len = b->cap = 0;
    return (PyObject *)o;
}

typedef struct {
    int nkeys, nnum, nstr;
    Span *keys;
    char *kinds; /* 's' or 'n' per key */
    unsigned char *intcol;
    Span *lastval;     /* per key: the last string value seen there (n = -1: none) ... */
    int32_t *lastcode; /* ... and its code: repeated values skip the hash table */
    Buf lines, nums, strs;
} Shape;

static void shape_free(Shape *s) {
    PyMem_RawFree(s->lastval);
    PyMem_RawFree(s->lastcode);
    PyMem_RawFree(s->keys);
    PyMem_RawFree(s->kinds);
    PyMem_RawFree(s->intcol);
    PyMem_RawFree(s->lines.data);
    PyMem_RawFree(s->nums.data);
    PyMem_RawFree(s->strs.data);
}

static int shape_matches(const Shape *s, const LineVals *lv, int nk) {
    if (s->nkeys != nk || memcmp(s->kinds, lv->kinds, (size_t)nk) != 0) return 0;
    for (int i = 0; i < nk; i++)
        if (s->keys[i].n != lv->keys[i].n || memcmp(s->keys[i].p, lv->keys[i].p, (size_t)lv->keys[i].n) != 0)
            return 0;
    return 1;
}

/* New shape from a line; 0 ok, -1 unusual (duplicate key), -4 memory. */
static int shape_init(Shape *s, const LineVals *lv, int nk) {
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < i; j++)
            if (lv->keys[i].n == lv->keys[j].n && memcmp(lv->keys[i].p, lv->keys[j].p, (size_t)lv->keys[i].n) == 0)
                return -1;
    s->nkeys = nk;
    s->keys = PyMem_RawMalloc((size_t)(nk ? nk : 1) * sizeof(Span));
    s->kinds = PyMem_RawMalloc((size_t)(nk ? nk : 1));
    s->intcol = PyMem_RawMalloc((size_t)(nk ? nk : 1));
    s->lastval = PyMem_RawMalloc((size_t)(nk ? nk : 1) * sizeof(Span));
    s->lastcode = PyMem_RawMalloc((size_t)(nk ? nk : 1) * sizeof(int32_t));
    if (!s->keys || !s->kinds || !s->intcol || !s->lastval || !s->lastcode) return -4;
    for (int i = 0; i < nk; i++) s->lastval[i].n = -1;
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

/* 0, or -4: out of memory. */
static int shape_add(Shape *s, const LineVals *lv, int64_t line) {
    if (buf_reserve(&s->lines, sizeof(int64_t)) < 0 || buf_reserve(&s->nums, (size_t)s->nnum * sizeof(double)) < 0 ||
        buf_reserve(&s->strs, (size_t)s->nstr * sizeof(int32_t)) < 0)
        return -4;
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

/* --------------------------------------------------------------------- scan */

/* Whether the n bytes at a and b are equal: memcmp for the short keys and values of these files without
   a library call (eight bytes at a time, then bytes; reads only [0, n) of each). */
static inline int same_bytes(const char *a, const char *b, Py_ssize_t n) {
    while (n >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
        a += 8, b += 8, n -= 8;
    }
    while (n > 0) {
        if (*a != *b) return 0;
        a++, b++, n--;
    }
    return 1;
}


static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* End of a JSON string body starting at p (the closing quote), or NULL if it
   has an escape or a control character or is not closed before e. */
static const char *string_end(const char *p, const char *e) {
    while (p < e && *p != '"') {
        if (*p == '\\' || (unsigned char)*p < 0x20) return NULL;
        p++;
    }
    return p < e ? p : NULL;
}

/* Parse the line starting at p (e: the end of the data, not of the line: the line's end is found by
   the parse itself, one pass over the bytes instead of a memchr for the newline first). Returns the
   number of keys (>= 0), -1 unusual, -2 error set, -3 blank; for >= 0 and -3 *stop is the line's end
   (its b"\n", or e). No part of a line that parses can hold a b"\n" (not JSON whitespace here, a
   control character in a string, not a digit), so a line parses as it would bounded by its newline;
   the eight-digit loads of parse_number may look past it, and stop there. ``hint``: the shape of the
   previous line; a key equal to the hint's key at the same position is taken without scanning it, and
   *same is set when the whole line has the hint's keys and kinds. String values are coded later
   (code_strings) against the matched shape's cache. */
static int parse_line(const char *p, const char *e, LineVals *lv, const Shape *hint, int *same, NumCtx *ctx,
                      const char **stop) {
    int nk = 0, match = hint != NULL;
    while (p < e && is_ws(*p)) p++;
    if (p == e || *p == '\n') {
        *stop = p;
        return -3;
    }
    if (*p != '{') return -1;
    p++;
    while (p < e && is_ws(*p)) p++;
    if (p < e && *p == '}') {
        p++;
    } else {
        for (;;) {
            const char *k;
            if (p >= e || *p != '"' || nk >= MAX_KEYS) return -1;
            k = ++p;
            if (match && nk < hint->nkeys && hint->keys[nk].n < e - p && p[hint->keys[nk].n] == '"' &&
                same_bytes(p, hint->keys[nk].p, hint->keys[nk].n)) {
                p += hint->keys[nk].n; /* the hint's key: already checked when its shape was made */
            } else {
                match = 0;
                p = string_end(p, e);
                if (!p) return -1;
            }
            lv->keys[nk].p = k;
            lv->keys[nk].n = p - k;
            p++;
            while (p < e && is_ws(*p)) p++;
            if (p >= e || *p != ':') return -1;
            p++;
            while (p < e && is_ws(*p)) p++;
            if (p >= e) return -1;
            if (*p == '"') {
                const char *v = ++p;
                p = string_end(p, e);
                if (!p) return -1;
                lv->kinds[nk] = 's';
                lv->sval[nk] = v;
                lv->slen[nk] = p - v;
                p++;
            } else if (*p == '-' || is_digit(*p)) {
                int isint = 0, r = parse_number(&p, e, &lv->nums[nk], &isint, ctx);
                if (r < 0) return r;
                lv->kinds[nk] = 'n';
                lv->isint[nk] = (unsigned char)isint;
            } else {
                return -1;
            }
            if (match && lv->kinds[nk] != hint->kinds[nk]) match = 0;
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
    if (p != e && *p != '\n') return -1;
    *stop = p;
    *same = match && nk == hint->nkeys;
    return nk;
}

/* Codes of the line's string values; 0 ok, -4 out of memory. */
static int code_strings(Shape *s, LineVals *lv, StrTab *tab) {
    for (int i = 0; i < s->nkeys; i++) {
        if (s->kinds[i] != 's') continue;
        if (s->lastval[i].n == lv->slen[i] && same_bytes(s->lastval[i].p, lv->sval[i], lv->slen[i])) {
            lv->strs[i] = s->lastcode[i];
        } else {
            int32_t code = strtab_code(tab, lv->sval[i], lv->slen[i]);
            if (code < 0) return -4;
            lv->strs[i] = code;
            s->lastval[i].p = lv->sval[i];
            s->lastval[i].n = lv->slen[i];
            s->lastcode[i] = code;
        }
    }
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
        {
            PyObject *ln = buf_take(&s->lines), *nm = buf_take(&s->nums), *st = buf_take(&s->strs);
            if (!ln || !nm || !st) {
                Py_DECREF(keys);
                Py_XDECREF(ln);
                Py_XDECREF(nm);
                Py_XDECREF(st);
                goto fail;
            }
            t = Py_BuildValue("(Ny#NNNy#)", keys, s->kinds, (Py_ssize_t)s->nkeys, ln, nm, st,
                              NONNULL(s->intcol), (Py_ssize_t)s->nnum);
        }
        if (!t) goto fail;
        PyList_SET_ITEM(shl, k, t);
    }
    res = PyTuple_Pack(2, strtab, shl);
fail:
    Py_XDECREF(strtab);
    Py_XDECREF(shl);
    return res;
}

/* The byte loop of scan: 0 ok, -1 unusual, -2 Python error set, -4 out of memory (not set). */
static int scan_bytes(const char *p, const char *end, StrTab *tab, Shape *shapes, int *nshapes, LineVals *lv,
                      NumCtx *ctx) {
    int64_t line = 0;
    int last = -1;
    while (p < end) {
        const char *e = end;
        int nk, k, same = 0, r;
        nk = parse_line(p, end, lv, last >= 0 ? &shapes[last] : NULL, &same, ctx, &e);
        if (nk == -3) goto next;
        if (nk < 0) return nk;
        k = -1;
        if (same) {
            k = last;
        } else {
            for (int i = 0; i < *nshapes; i++)
                if (shape_matches(&shapes[i], lv, nk)) {
                    k = i;
                    break;
                }
        }
        if (k < 0) {
            if (*nshapes == MAX_SHAPES) return -1;
            r = shape_init(&shapes[*nshapes], lv, nk);
            (*nshapes)++;
            if (r < 0) return r;
            k = *nshapes - 1;
        }
        last = k;
        if ((r = code_strings(&shapes[k], lv, tab)) < 0) return r;
        if ((r = shape_add(&shapes[k], lv, line)) < 0) return r;
    next:
        line++;
        if (e == end) break; /* no final newline: e + 1 would point past the buffer's end */
        p = e + 1;
    }
    return 0;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer view;
    StrTab tab = {0};
    Shape *shapes = NULL;
    LineVals *lv = NULL;
    int nshapes = 0, status = 0; /* 0 ok, -1 unusual, -2 error set, -4 out of memory */
    PyObject *res = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    shapes = PyMem_RawCalloc(MAX_SHAPES, sizeof(Shape));
    lv = PyMem_RawMalloc(sizeof(LineVals));
    if (!shapes || !lv) {
        status = -4;
    } else {
        PyThreadState *ts = PyEval_SaveThread(); /* the view keeps the bytes alive and in place */
        NumCtx ctx = {0, &ts, GIL_ROUND_TRIPS};
        ctx.ext = ext_ok();
        status = scan_bytes(view.buf, (const char *)view.buf + view.len, &tab, shapes, &nshapes, lv, &ctx);
        if (ts) PyEval_RestoreThread(ts); /* (NULL: a slow number took the GIL back for good) */
    }
    if (status == 0) {
        res = build_result(&tab, shapes, nshapes);
        if (!res) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                PyErr_Clear();
                status = -1;
            } else {
                status = -2;
            }
        }
    }
    if (status == -4) {
        PyErr_NoMemory();
        status = -2;
    }
    if (shapes)
        for (int i = 0; i < nshapes; i++) shape_free(&shapes[i]);
    PyMem_RawFree(shapes);
    PyMem_RawFree(lv);
    PyMem_RawFree(tab.slots);
    PyMem_RawFree(tab.items);
    PyBuffer_Release(&view);
    if (status == -2) return NULL;
    if (status == -1) Py_RETURN_NONE;
    return res;
}

static PyObject *newlines(PyObject *self, PyObject *args) {
    /* The number of b"\n" in a buffer (a line count of whole lines). */
    Py_buffer view;
    size_t count = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    {
        const char *p = view.buf, *end = p + view.len;
        PyThreadState *ts = view.len > (1 << 20) ? PyEval_SaveThread() : NULL;
        while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            count++;
            p++;
        }
        if (ts) PyEval_RestoreThread(ts);
    }
    PyBuffer_Release(&view);
    return PyLong_FromSize_t(count);
}

/* ------------------------------------------------------------- delimited */

/* A decimal number as Python's float() takes it (a sign, digits with an optional point, at least one digit, an
   optional exponent; no white space, no '_', no inf/nan: those go to the caller's Python reader), converted as
   float() does (the fast path of exact operands, else PyOS_string_to_double; the GIL is held). 0 ok, -1 not
   such a number, -2 Python raised. */
static int parse_decimal(const char *p, const char *end, double *out) {
    const char *start = p;
    int neg = 0, nd = 0, dropped = 0, digits = 0;
    uint64_t m = 0;
    long e10 = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    while (p < end && is_digit(*p)) {
        if (m == 0 && *p == '0') {
        } else if (nd < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            nd++;
        } else {
            dropped = 1;
        }
        digits++;
        p++;
    }
    if (p < end && *p == '.') {
        const char *first = ++p;
        p = fraction_digits(p, end, &m, &nd, &e10, &dropped);
        digits += (int)(p - first);
    }
    if (!digits) return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p = exponent_part(p + 1, end, &e10);
        if (p == NULL) return -1;
    }
    if (p != end) return -1;
    if (!dropped) {
        if (m == 0) {
            *out = neg ? -0.0 : 0.0;
            return 0;
        }
        if (m <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
            double v = (double)m;
            v = e10 < 0 ? v / P10[-e10] : v * P10[e10];
            *out = neg ? -v : v;
            return 0;
        }
    }
    {
        char buf[MAX_NUMBER_TEXT + 1];
        size_t n = (size_t)(end - start);
        double v;
        if (n > MAX_NUMBER_TEXT) return -1;
        memcpy(buf, start, n);
        buf[n] = '\0';
        v = PyOS_string_to_double(buf, NULL, NULL);
        if (v == -1.0 && PyErr_Occurred()) return -2;
        *out = v;
    }
    return 0;
}

#define MAX_FIELDS 1024

/* The rows of a TSV/CSV per-query file: 0 ok, -1 a file for the Python reader, -2 Python raised, -4 memory. */
static int scan_rows(const char *p, const char *end, char delim, int width, const int *pos, int nstr, int pos_v,
                     int pos_s, int64_t line, StrTab *tab, Buf *codes, Buf *values, Buf *lines) {
    const char *fs[MAX_FIELDS + 1];
    Span last[8];
    int32_t lastcode[8];
    const char *sample = NULL;
    Py_ssize_t sample_n = 0;
    for (int i = 0; i < nstr; i++) last[i].n = -1;
    while (p < end) {
        const char *q = p, *stop;
        int nf = 0, solid = 0;
        fs[0] = p;
        for (;;) {
            unsigned char c;
            if (q == end || *q == '\n') {
                stop = q;
                break;
            }
            c = (unsigned char)*q;
            if (c == (unsigned char)delim) {
                if (++nf >= width) return -1;
                fs[nf] = q + 1;
            } else if (c == '\r') {
                if (q + 1 != end && q[1] != '\n') return -1;
                stop = q;
                q++;
                break;
            } else if (c <= ' ' || c == '"' || c >= 0x7f) { /* white space, control bytes, quoting, not ASCII */
                return -1;
            } else {
                solid = 1;
            }
            q++;
        }
        if (!solid && (stop == p || delim == '\t')) goto next; /* blank (white space only) */
        if (nf != width - 1) return -1;
        fs[width] = stop + 1; /* (field k is [fs[k], fs[k + 1] - 1)) */
        if (buf_reserve(codes, (size_t)nstr * sizeof(int32_t)) < 0 || buf_reserve(values, sizeof(double)) < 0 ||
            buf_reserve(lines, sizeof(int64_t)) < 0)
            return -4;
        for (int i = 0; i < nstr; i++) {
            const char *a = fs[pos[i]];
            Py_ssize_t n = fs[pos[i] + 1] - 1 - a;
            int32_t code;
            if (last[i].n == n && same_bytes(last[i].p, a, n)) {
                code = lastcode[i];
            } else {
                code = strtab_code(tab, a, n);
                if (code < 0) return -4;
                last[i].p = a;
                last[i].n = n;
                lastcode[i] = code;
            }
            memcpy(codes->data + codes->len, &code, sizeof(int32_t));
            codes->len += sizeof(int32_t);
        }
        if (pos_s >= 0) {
            const char *a = fs[pos_s];
            Py_ssize_t n = fs[pos_s + 1] - 1 - a;
            if (!sample) {
                sample = a;
                sample_n = n;
            } else if (n != sample_n || !same_bytes(a, sample, n)) {
                return -1;
            }
        }
        {
            double v;
            int r = parse_decimal(fs[pos_v], fs[pos_v + 1] - 1, &v);
            if (r < 0) return r;
            if (!isfinite(v)) return -1;
            memcpy(values->data + values->len, &v, sizeof(double));
            values->len += sizeof(double);
        }
        {
            int64_t no = line + 1;
            memcpy(lines->data + lines->len, &no, sizeof(int64_t));
            lines->len += sizeof(int64_t);
        }
    next:
        line++;
        if (q >= end) break;
        p = q + 1;
    }
    return 0;
}

static PyObject *scan_delimited(PyObject *self, PyObject *args) {
    /* scan_delimited(data, skip, delim, width, string_positions, value_position, sample_position)
       -> (strtab, codes, values, lines) or None; see read_per_query_table in pref_eval/io/perquery.py. */
    Py_buffer view;
    Py_ssize_t skip;
    int width, pos_v, pos_s, pos[8], nstr, status;
    char delim;
    PyObject *positions, *res = NULL;
    StrTab tab = {0};
    Buf codes = {0}, values = {0}, lines = {0};
    const char *p, *end;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nciO!ii", &view, &skip, &delim, &width, &PyTuple_Type, &positions, &pos_v,
                          &pos_s))
        return NULL;
    nstr = (int)PyTuple_GET_SIZE(positions);
    status = width < 1 || width > MAX_FIELDS || nstr > 8 || pos_v < 0 || pos_v >= width || pos_s >= width ||
             skip < 0 ? -1 : 0;
    for (int i = 0; status == 0 && i < nstr; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(positions, i));
        if (v == -1 && PyErr_Occurred()) status = -2;
        else if (v < 0 || v >= width) status = -1;
        else pos[i] = (int)v;
    }
    p = view.buf;
    end = p + view.len;
    for (Py_ssize_t k = 0; status == 0 && k < skip; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) status = -1;
        else p = nl + 1;
    }
    if (status == 0)
        status = scan_rows(p, end, delim, width, pos, nstr, pos_v, pos_s, (int64_t)skip, &tab, &codes, &values,
                           &lines);
    if (status == 0) {
        PyObject *strtab = PyList_New((Py_ssize_t)tab.count);
        if (!strtab) status = -2;
        for (size_t i = 0; status == 0 && i < tab.count; i++) {
            PyObject *u = PyUnicode_DecodeASCII(tab.items[i].p, tab.items[i].n, "strict");
            if (!u) status = -2;
            else PyList_SET_ITEM(strtab, (Py_ssize_t)i, u);
        }
        if (status == 0) {
            PyObject *c = buf_take(&codes), *v = buf_take(&values), *l = buf_take(&lines);
            if (c && v && l) res = PyTuple_Pack(4, strtab, c, v, l);
            Py_XDECREF(c);
            Py_XDECREF(v);
            Py_XDECREF(l);
            if (!res) status = -2;
        }
        Py_XDECREF(strtab);
    }
    if (status == -4) {
        PyErr_NoMemory();
        status = -2;
    }
    PyMem_RawFree(tab.slots);
    PyMem_RawFree(tab.items);
    PyMem_RawFree(codes.data);
    PyMem_RawFree(values.data);
    PyMem_RawFree(lines.data);
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
    {
        NumCtx ctx = {use_ext, NULL, 0};
        r = parse_number(&p, s + n, &v, &isint, &ctx);
    }
    if (r == -2) return NULL;
    if (r < 0 || p != s + n) Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "scan(data) -> (strtab, shapes) or None; see the module source."},
    {"parse_float", parse_float, METH_VARARGS, "parse_float(text: bytes) -> float or None (not a JSON number)."},
    {"newlines", newlines, METH_VARARGS, "newlines(data) -> int: the number of b'\\n' bytes."},
    {"scan_delimited", scan_delimited, METH_VARARGS,
     "scan_delimited(data, skip, delim, width, string_positions, value_position, sample_position) -> "
     "(strtab, codes, values, lines) or None; see the module source."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_jsonl", "Strict JSON-lines scanner (see _jsonl.c).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__jsonl(void) {
    PyObject *mod;
    if (PyType_Ready(&RawBufType) < 0) return NULL;
    mod = PyModule_Create(&module);
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
    swar = little_endian();
    if (PyModule_AddIntConstant(mod, "extended", use_ext) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
