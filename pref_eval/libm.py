"""The C library's ``log``, ``log2``, ``log1p``, ``exp``, ``exp2``, ``tanh`` and ``pow`` on numpy arrays: the same
bits on every x86-64 CPU.

numpy computes float64 ``exp``, ``log``, ``log2``, ``exp2``, ``power`` (and more) with its own SIMD code on a
CPU with AVX-512 (its AVX-512F ``exp``/``log`` and Intel's SVML) and calls the C library's functions on every
other x86-64 CPU; the two differ in the last bit of some results (``0.8 ** 2``, ``log2(1621)``: measured in
session 22, ``python tools/cpu_kinds.py`` setting ``numpy-no-avx512``); its ``tanh`` is its own SIMD code on
every CPU with AVX2 and the C library's without (setting ``numpy-no-avx2``: ~26 % of values differ; session
24). A measure printed at full precision
would then depend on the kind of CPU. These functions call the C library (through Python's :mod:`math`, whose
functions are the C library's) once per distinct value of the array -- rank discounts and rank weights have as
many distinct values as ranks -- so they give the C library's bits everywhere, the bits numpy gives on a CPU
without AVX-512 and those trec_eval's C code gets. Values outside a function's finite domain (NaN, infinities,
log of 0 or of a negative number, overflow) are numpy's. (glibc's own results still differ in rare last bits on
an x86-64 CPU without FMA, older than Haswell: docs/zelo_fit.md "Another machine".) An array of many
distinct values (simulations' win probabilities, judgment weights) goes through the compiled kernels
(``pref_eval._kernels``: the same C library functions in a loop) when they are built, value by value
otherwise: the same bits either way (tests/test_libm.py).
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

_EXP2 = getattr(math, "exp2", None)  # Python >= 3.11
#: from this many values on, the compiled loop (when built) instead of one Python call per distinct value
_COMPILED_FROM = 64


def _compiled(name: str) -> Callable[..., None] | None:
    """The compiled kernel ``name`` (the C library's function in a loop), or None when not built."""
    from .native import kernels

    return getattr(kernels(), name, None)


def _per_value(fn: Callable[[float], float], x: np.ndarray, ok: np.ndarray, out: np.ndarray,
               kernel: Callable[[np.ndarray, np.ndarray], None] | None = None) -> np.ndarray:
    """``out`` with ``fn`` of every ``x[ok]``: through ``kernel(values, result)`` (the same C function in a
    compiled loop) for many values, else computed once per distinct value."""
    out = np.array(out, dtype=np.float64)  # numpy answers a 0-d input with a scalar
    v = x[ok]
    if not v.size:
        return out
    if kernel is not None and v.size >= _COMPILED_FROM:
        res = np.empty(v.size)
        kernel(np.ascontiguousarray(v.reshape(-1)), res)
        out[ok] = res
        return out
    u, inv = np.unique(v, return_inverse=True)
    out[ok] = np.fromiter(map(fn, u.tolist()), dtype=np.float64, count=len(u))[inv.reshape(-1)]
    return out


def _ints(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray | None:
    """``f`` of an integer array (ranks) through a table over its range, or None when ``x`` is not an integer
    array with a range of at most 4 values per element (then ``f`` goes value by value)."""
    if x.dtype.kind not in "iu" or not x.size:
        return None
    lo, hi = int(x.min()), int(x.max())
    if hi - lo > 4 * x.size + 4096:
        return None
    return f(np.arange(lo, hi + 1, dtype=np.float64))[x - lo]


def _elementwise(self: Callable[[np.ndarray], np.ndarray], np_fn: Callable[[np.ndarray], np.ndarray],
                 c_fn: Callable[[float], float] | None, x: np.ndarray | float,
                 domain: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``c_fn`` (the C library's) of every element of ``x`` inside ``domain``, numpy's ``np_fn`` outside it (or
    everywhere when ``c_fn`` is None); an integer array through a table over its range (``self`` of it)."""
    t = _ints(self, np.asarray(x))
    if t is not None:
        return t
    a = np.asarray(x, dtype=np.float64)
    kernel = _compiled(np_fn.__name__) if c_fn is not None else None
    ok = domain(a) if c_fn is not None else None
    if kernel is not None and a.size >= _COMPILED_FROM and ok is not None and ok.all():  # the common case
        out = np.empty(a.shape)
        kernel(np.ascontiguousarray(a).reshape(-1), out.reshape(-1))
        return out
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np_fn(a)
    return out if c_fn is None or ok is None else _per_value(c_fn, a, ok, out, kernel)


def _positive(a: np.ndarray) -> np.ndarray:
    return np.isfinite(a) & (a > 0)


def log(x: np.ndarray | float) -> np.ndarray:
    """The C library's natural ``log`` of every element (numpy's result where ``x <= 0`` or not finite)."""
    return _elementwise(log, np.log, math.log, x, _positive)


def log2(x: np.ndarray | float) -> np.ndarray:
    """The C library's ``log2`` of every element (numpy's result where ``x <= 0`` or not finite)."""
    return _elementwise(log2, np.log2, math.log2, x, _positive)


def _or_inf(fn: Callable[[float], float]) -> Callable[[float], float]:
    """``fn`` with infinity for a result that overflows (Python's :mod:`math` raises OverflowError there)."""
    def f(v: float) -> float:
        try:
            return fn(v)
        except OverflowError:
            return math.inf

    return f


def log1p(x: np.ndarray | float) -> np.ndarray:
    """The C library's ``log1p`` of every element (numpy's result where ``x <= -1`` or not finite)."""
    return _elementwise(log1p, np.log1p, math.log1p, x, lambda a: np.isfinite(a) & (a > -1.0))


def tanh(x: np.ndarray | float) -> np.ndarray:
    """The C library's ``tanh`` of every finite element (numpy's result, +-1 or NaN, where ``x`` is not finite)."""
    return _elementwise(tanh, np.tanh, math.tanh, x, np.isfinite)


def exp(x: np.ndarray | float) -> np.ndarray:
    """The C library's ``exp`` of every finite element, up to the largest finite result (exp(709.78...)) and
    infinity above (numpy's result where ``x`` is not finite)."""
    return _elementwise(exp, np.exp, _or_inf(math.exp), x, lambda a: np.isfinite(a) & (a < 710.0))


def exp2(x: np.ndarray | float) -> np.ndarray:
    """The C library's ``exp2`` of every finite element, infinity from 2^1024 (Python >= 3.11; on 3.10 numpy's
    own: integers exact either way)."""
    return _elementwise(exp2, np.exp2, None if _EXP2 is None else _or_inf(_EXP2), x,
                        lambda a: np.isfinite(a) & (a < 1025.0))


def power(base: float, x: np.ndarray) -> np.ndarray:
    """The C library's ``pow(base, x)`` of a finite ``base`` > 0 for every element of ``x`` (numpy's result for
    another ``base``, or where ``x`` is not finite or the power overflows)."""
    b = float(base)
    t = _ints(lambda r: power(b, r), np.asarray(x))
    if t is not None:
        return t
    a = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np.power(b, a)
    if not (math.isfinite(b) and b > 0):
        return out
    k = _compiled("pow_scalar")
    return _per_value(_or_inf(lambda v: math.pow(b, v)), a, np.isfinite(a) & np.isfinite(out), out,
                      None if k is None else lambda v, res: k(v, b, True, res))


#: exponents numpy's ``power`` computes exactly (sqrt, square, reciprocal, copy, ones), the same bits on every CPU
_EXACT_EXPONENTS = (0.0, 0.5, 1.0, 2.0, -1.0)


def pow(x: np.ndarray | float, y: float) -> np.ndarray:  # noqa: A001 (the C function's name)
    """The C library's ``pow(x, y)`` of every element ``x`` > 0 (``x`` != 0 when ``y`` is an integer) and a finite
    exponent ``y`` (numpy's result for other ``x`` or ``x`` not finite, where the power overflows, and for ``y`` =
    0, 0.5, 1, 2, -1, which numpy computes exactly -- ones, sqrt, a copy, the square, the reciprocal -- on every
    CPU)."""
    e = float(y)
    a = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np.power(a, e)
    if e in _EXACT_EXPONENTS or not math.isfinite(e):
        return out
    k = _compiled("pow_scalar")
    ok = np.isfinite(a) & ((a != 0) if e.is_integer() else (a > 0)) & np.isfinite(out)
    return _per_value(_or_inf(lambda v: math.pow(v, e)), a, ok, out,
                      None if k is None else lambda v, res: k(v, e, False, res))
