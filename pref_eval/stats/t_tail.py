"""Student's t two-sided tail for arrays of (t, df), correctly rounded, vectorised: the t-test's p-values.

:func:`t_two_sided_array` evaluates the formulas of :func:`pref_eval.stats.special.t_two_sided` -- P(|T| >= |t|)
= I_x(a, 1/2), a = df/2, x = df/(df + t^2), by the continued fraction (DLMF 8.17.22, modified Lentz) in the
tail and as 1 - I_y(1/2, a) by the hypergeometric series (DLMF 8.17.8) in the centre -- on whole numpy arrays
in **double-double arithmetic** (a value is an unevaluated sum hi + lo of two doubles, ~106 bits): the
error-free transformations TwoSum (Knuth, TAOCP vol. 2, 4.2.2) and TwoProduct by Dekker's splitting (Dekker
1971, "A floating-point technique for extending the available precision"), so no fused multiply-add is needed
and only IEEE +, -, *, / and sqrt decide the bits, which are the same on every CPU. log1p by a Newton step
on exp from a double start; exp by reduction modulo log 2, a Taylor polynomial at r/1024 and ten squarings;
B(a, 1/2) once per distinct df by Stirling's series in double-double (``special._beta_exact``'s formulas).

The double-double value carries a relative error below ``REL_BOUND + REL_BOUND_PER_DF df`` (the analysis and
the measured margin: at the constants below; tests/test_t_tail_oracle.py); when the interval value +- that
bound does not round to one double (a Ziv test: Ziv 1991, "Fast evaluation of elementary mathematical
functions with correctly rounded last bit"), or the value lies outside the region where double-double keeps
its ~106 bits (tails below ~1e-280, |t| outside 1e-120..1e140, t^2/df above 1e200, df above 2^36 or below
1/2), that element is computed by :func:`pref_eval.stats.special.t_two_sided_exact` (45 significant digits).
Every element is therefore the double nearest to the true tail (but within ~1e-30 of a boundary between two
doubles, as the 45-digit path).
"""
from __future__ import annotations

import numpy as np

# error analysis (unit u = 2^-104 per double-double operation, ~5e-32): the front factor x^a = exp(-a log1p(u'))
# carries log1p's absolute error (~4u) times a = df/2 (measured: ~1e-31 a, 1.5e-25 at df = 1e7); the
# fraction and the series ~4u a step over at most _MAX_STEPS steps; exp, sqrt, the divisions ~50u. The bound
# below, 2^-84 + df 2^-90 relative, is >= 1e4 times every error measured: on the 464 points of
# tests/test_t_tail_oracle.py (40-digit truth) the largest error/bound is 7.7e-5 (4.1e-30 at df 52, 1.1e-25 at
# df 1e7); against the 45-digit path up to df 1e12, ~2e-31 a at most. The Ziv test fails on a
# share ~2 bound/2^-52 of the values (~1e-9 at df 52, ~7e-5 at df 1e7); above df = 2^36 the bound passes
# 0.1 ulp, and the 45-digit path takes over.
REL_BOUND = 2.0 ** -84
REL_BOUND_PER_DF = 2.0 ** -90
_MAX_DF = 2.0 ** 36
_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter
_MAX_STEPS = 4000
# log 2 in three parts, the first two with 40 significant bits so that k * part is exact for |k| < 2^12
_LN2 = (0.6931471805601177, -1.7239444525610826e-13, -4.00865610552017e-26)
_STOP = 2.0 ** -108
_TINY = 1e-280


# --- error-free transformations and double-double arithmetic on (hi, lo) pairs of arrays -------------------------
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fast_two_sum(a, b):  # |a| >= |b|
    s = a + b
    return s, b - (s - a)


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _add(a, b):
    s, e = _two_sum(a[0], b[0])
    t, f = _two_sum(a[1], b[1])
    s, e = _fast_two_sum(s, e + t)
    return _fast_two_sum(s, e + f)


def _add_d(a, b):
    s, e = _two_sum(a[0], b)
    return _fast_two_sum(s, e + a[1])


def _mul(a, b):
    p, e = _two_prod(a[0], b[0])
    return _fast_two_sum(p, e + (a[0] * b[1] + a[1] * b[0]))


def _mul_d(a, b):
    p, e = _two_prod(a[0], b)
    return _fast_two_sum(p, e + a[1] * b)


def _div(a, b):
    q1 = a[0] / b[0]
    p, e = _two_prod(q1, b[0])
    r = (((a[0] - p) - e) + a[1]) - q1 * b[1]
    return _fast_two_sum(q1, r / b[0])


def _div_d(a, b):
    q1 = a[0] / b
    p, e = _two_prod(q1, b)
    return _fast_two_sum(q1, (((a[0] - p) - e) + a[1]) / b)


def _recip(b):
    q1 = 1.0 / b[0]
    p, e = _two_prod(q1, b[0])
    return _fast_two_sum(q1, (((1.0 - p) - e) - q1 * b[1]) / b[0])


def _sqrt(a):
    s = np.sqrt(a[0])
    p, e = _two_prod(s, s)
    return _fast_two_sum(s, (((a[0] - p) - e) + a[1]) / (2.0 * s))


def _expm1_small(r):
    """exp(r) - 1 for |r| <= 3.4e-4 (r = (z - k log 2)/1024): Taylor to r^9/9!, below 1e-37 after it."""
    total = _div_d(r, 9.0)
    for n in (8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0):
        total = _div_d(_mul(_add_d(total, 1.0), r), n)
    return _mul(_add_d(total, 1.0), r)


def _exp(z):
    """exp(z) for a double-double z in [-700, 1]: z = k log 2 + r, exp(r) = (1 + expm1(r/1024))^1024."""
    k = np.rint(z[0] / _LN2[0])
    r = _two_sum(z[0] - k * _LN2[0], z[1])  # Sterbenz: z[0] and k log2_0 within a factor 2 (or k = 0)
    r = _add_d(r, -k * _LN2[1])
    r = _add_d(r, -k * _LN2[2])
    e = _expm1_small((r[0] * (1.0 / 1024.0), r[1] * (1.0 / 1024.0)))
    for _ in range(10):  # (1 + e)^2 - 1 = e (2 + e)
        e = _mul(e, _add_d(e, 2.0))
    hi, lo = _add_d(e, 1.0)
    return np.ldexp(hi, k.astype(np.int64)), np.ldexp(lo, k.astype(np.int64))


def _log1p(u):
    """log(1 + u) for a double-double u >= 0: l0 = log1p(u_hi) in double, then l0 + w - w^2/2 with
    w = (1 + u) exp(-l0) - 1 (the double start's bits do not matter: only its ~1e-16 error, which the step
    removes to ~1e-48)."""
    l0 = np.log1p(u[0])
    w = _add_d(_mul(_add_d(u, 1.0), _exp((-l0, np.zeros_like(l0)))), -1.0)
    w = _add(w, _mul_d(_mul(w, w), -0.5))
    return _add_d(w, l0)


# --- the tail ------------------------------------------------------------------------------------------------------
def _fraction(a, x):
    """DLMF 8.17.22's fraction for I_x(a, 1/2) by modified Lentz, element by element until each step's factor
    is within 2^-108 of 1; the elements still running are compacted as they finish. None where it did not end
    within _MAX_STEPS steps (nan)."""
    n = a.shape[0]
    out_hi, out_lo = np.full(n, np.nan), np.full(n, np.nan)
    idx = np.arange(n)
    ab = _two_sum(a, 0.5)
    d = _recip(_add_d(_div(_mul(x, ab), _two_sum(a, 1.0)), -1.0))
    d = (-d[0], -d[1])  # 1/(1 - (a + 1/2) x/(a + 1))
    c = (np.ones(n), np.zeros(n))
    h = d
    for m in range(1, _MAX_STEPS):
        m2 = 2.0 * m
        even = _div(_mul_d(x, m * (0.5 - m)), _mul(_two_sum(a, m2 - 1.0), _two_sum(a, m2)))
        odd = _div(_mul(_mul(x, _two_sum(a, float(m))), _add_d(ab, float(m))),
                   _mul(_two_sum(a, m2), _two_sum(a, m2 + 1.0)))
        odd = (-odd[0], -odd[1])
        for num in (even, odd):
            d = _recip(_add_d(_mul(num, d), 1.0))
            c = _add_d(_div(num, c), 1.0)
            delta = _mul(d, c)
            h = _mul(h, delta)
        done = np.abs((delta[0] - 1.0) + delta[1]) < _STOP
        if done.any():
            out_hi[idx[done]], out_lo[idx[done]] = h[0][done], h[1][done]
            keep = ~done
            if not keep.any():
                break
            idx, a, ab, x, d, c, h = idx[keep], a[keep], _pick(ab, keep), _pick(x, keep), _pick(d, keep), \
                _pick(c, keep), _pick(h, keep)
    return out_hi, out_lo


def _pick(v, keep):
    return v[0][keep], v[1][keep]


def _series(a, y):
    """F(a + 1/2, 1; 3/2; y) = sum of terms t_{n+1} = t_n (a + 1/2 + n) y/(n + 3/2), t_0 = 1 (DLMF 8.17.8), until
    a term is below 2^-110 (the sum is >= 1)."""
    n = a.shape[0]
    out_hi, out_lo = np.full(n, np.nan), np.full(n, np.nan)
    idx = np.arange(n)
    total = (np.ones(n), np.zeros(n))
    term = total
    for k in range(_MAX_STEPS):
        term = _div_d(_mul(term, _mul(_two_sum(a, 0.5 + k), y)), k + 1.5)
        total = _add(total, term)
        done = term[0] < 2.0 ** -110
        if done.any():
            out_hi[idx[done]], out_lo[idx[done]] = total[0][done], total[1][done]
            keep = ~done
            if not keep.any():
                break
            idx, a, y, total, term = idx[keep], a[keep], _pick(y, keep), _pick(total, keep), _pick(term, keep)
    return out_hi, out_lo


def _inverse_beta(df: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1/B(df/2, 1/2) = Gamma(a + 1/2)/(Gamma(a) Gamma(1/2)) as double-double, once per distinct df; the
    formulas of ``special._beta_exact``: Stirling's series (DLMF 5.11.1) for log Gamma(w) - log Gamma(w + 1/2)
    at w = a + n >= 40, written as 1/2 - w log1p(1/(2w)) + sum c_k (w^(1-2k) - (w + 1/2)^(1-2k)) with
    1/2 - w log1p(h) = sum_{n>=2} (-1)^n h^(n-1)/(2n), h = 1/(2w) (no cancellation), then back to a by
    Gamma(z + 1) = z Gamma(z): 1/B = exp(-total) sqrt(w/pi) prod (a + j)/(a + 1/2 + j), j < n."""
    from .special import _STIRLING

    values, where = np.unique(df, return_inverse=True)
    a = 0.5 * values
    shift = np.maximum(0.0, np.ceil(40.0 - a))
    w = _two_sum(a, shift)
    num = den = (np.ones(a.size), np.zeros(a.size))
    for j in range(int(shift.max(initial=0.0))):
        on = j < shift
        step_den, step_num = _two_sum(a, float(j)), _two_sum(a, j + 0.5)
        den = _pick_where(on, _mul(den, step_den), den)
        num = _pick_where(on, _mul(num, step_num), num)
    h = _recip(_mul_d(w, 2.0))
    total = (np.zeros(a.size), np.zeros(a.size))
    power = h
    for n in range(2, 24):  # h <= 1/80: the term at n = 23 is below 1e-40
        total = _add(total, _div_d(power, (2.0 * n) if n % 2 == 0 else (-2.0 * n)))
        power = _mul(power, h)
    inv_w, inv_v = _recip(w), _recip(_add_d(w, 0.5))
    sq_w, sq_v = _mul(inv_w, inv_w), _mul(inv_v, inv_v)
    for numer, denom in _STIRLING:
        c = _div_d((float(numer), 0.0), float(denom))  # numer, denom < 2^53: exact doubles
        total = _add(total, _mul(_add(inv_w, (-inv_v[0], -inv_v[1])), c))
        inv_w, inv_v = _mul(inv_w, sq_w), _mul(inv_v, sq_v)
    root = _sqrt(_mul(w, (0.3183098861837907, -1.9678676675182486e-17)))  # sqrt(w/pi): 1/pi as double-double
    hi, lo = _mul(_mul(_exp((-total[0], -total[1])), root), _div(den, num))
    return hi[where], lo[where]


def _pick_where(on, a, b):
    return np.where(on, a[0], b[0]), np.where(on, a[1], b[1])


def _tail_dd(s: np.ndarray, df: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(|T| >= s) as double-double for s in [1e-120, 1e140], df in [1/2, 2^36], s^2/df <= 1e200 (nan where the
    fraction or the series did not end)."""
    a = 0.5 * df
    u = _div_d(_two_prod(s, s), df)  # t^2/df
    one_u = _add_d(u, 1.0)
    x, y = _recip(one_u), _div(u, one_u)
    z = _log1p(u)
    front = _mul(_mul(_exp(_mul_d(z, -a)), _sqrt(y)), _inverse_beta(df))  # x^a y^(1/2) / B(a, 1/2)
    tail = x[0] < (a + 1.0) / (a + 2.5)
    hi, lo = np.empty(s.size), np.empty(s.size)
    if tail.any():
        at = a[tail]
        f = _fraction(at, _pick(x, tail))
        v = _div_d(_mul(_pick(front, tail), f), at)
        hi[tail], lo[tail] = v
    centre = ~tail
    if centre.any():
        f = _series(a[centre], _pick(y, centre))
        v = _add_d(_mul_d(_mul(_pick(front, centre), f), -2.0), 1.0)
        hi[centre], lo[centre] = v
    return hi, lo


def t_two_sided_array(t: np.ndarray, df: np.ndarray | float) -> np.ndarray:
    """P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2) (Student 1908; DLMF 8.17.2) element by element for Student's t
    with ``df`` degrees of freedom (arrays broadcast together): the double nearest to the true value, as
    :func:`pref_eval.stats.special.t_two_sided_exact` gives it, in double-double arithmetic (this module's
    docstring). nan for nan input or df <= 0; 0 for infinite t; 1 for t = 0; the normal tail for infinite df.
    """
    from .special import t_two_sided_exact

    t_b, df_b = np.broadcast_arrays(np.asarray(t, dtype=float), np.asarray(df, dtype=float))
    shape = t_b.shape
    s, dfs = np.abs(t_b).ravel(), df_b.ravel()
    out = np.empty(s.size)
    with np.errstate(all="ignore"):
        ok = (s >= 1e-120) & (s <= 1e140) & (dfs >= 0.5) & (dfs <= _MAX_DF) & (s * s / dfs <= 1e200)
        other = np.flatnonzero(~ok)
        run = np.flatnonzero(ok)
        if run.size:
            hi, lo = _tail_dd(s[run], dfs[run])
            err = np.abs(hi) * (REL_BOUND + REL_BOUND_PER_DF * dfs[run])
            low, high = hi + (lo - err), hi + (lo + err)
            good = (low == high) & (np.abs(hi) >= _TINY) & np.isfinite(hi)
            out[run[good]] = low[good]
            other = np.concatenate([other, run[~good]])
    for i in other.tolist():
        out[i] = t_two_sided_exact(float(s[i]), float(dfs[i]))
    return out.reshape(shape)
