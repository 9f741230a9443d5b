"""Tail probabilities of the Student t and normal distributions, in pure Python.

Written from the mathematics so that the default tests of ``zelo_compare``
(t, Wilcoxon, sign) need no scipy import; ``scipy.special`` is the oracle of
``tests/test_stats_special.py`` (agreement to about 1e-13 relative).

* Regularized incomplete beta I_x(a, b) (DLMF 8.17.1) by its continued
  fraction (DLMF 8.17.22; Abramowitz & Stegun 26.5.8) evaluated with the
  modified Lentz algorithm (Lentz 1976; Thompson & Barnett 1986), with
  prefactor x^a (1-x)^b / (a B(a, b)); the symmetry
  I_x(a, b) = 1 - I_{1-x}(b, a) (DLMF 8.17.4) is used when
  x > (a + 1)/(a + b + 2), where the fraction converges slowly.
* Student t with nu degrees of freedom: the two-sided tail
  P(|T| >= |t|) = I_{nu/(nu + t^2)}(nu/2, 1/2) (DLMF 8.17.2 with A&S 26.7.1);
  its quantile by safeguarded Newton steps on that tail.
* Standard normal: P(|Z| >= |z|) = erfc(|z|/sqrt 2) (DLMF 7.2.2, 7.18).
"""
from __future__ import annotations

import math

_EPS = 2.220446049250313e-16
_TINY = 1e-300
_MAX_ITER = 100_000
_FLOAT_MAX = 1.7976931348623157e308
_TOP = 2.0 ** 1023  # the last power of two whose double is finite


def _log_beta_a_half(a: float) -> float:
    """log B(a, 1/2) = log Gamma(a) + log Gamma(1/2) - log Gamma(a + 1/2).

    For a <= 100 from ``math.gamma`` (relative error ~1e-15); above, the
    ratio Gamma(a + 1/2)/Gamma(a) by its asymptotic series
    sqrt(a) (1 - 1/(8a) + 1/(128a^2) + 5/(1024a^3) - 21/(32768a^4) - ...)
    (from Stirling's series; DLMF 5.11.13), whose truncation error is below
    1e-17 there, instead of a difference of two large log-gammas.
    """
    if a <= 100.0:
        return math.log(math.gamma(a) * math.sqrt(math.pi) / math.gamma(a + 0.5))
    x = 1.0 / a
    series = 1.0 + x * (-1.0 / 8 + x * (1.0 / 128 + x * (5.0 / 1024 + x * (-21.0 / 32768
                                                                          + x * (-399.0 / 262144
                                                                                 + x * 869.0 / 4194304)))))
    return 0.5 * math.log(math.pi) - 0.5 * math.log(a) - math.log(series)


def _log_beta(a: float, b: float) -> float:
    if b == 0.5:
        return _log_beta_a_half(a)
    if a == 0.5:
        return _log_beta_a_half(b)
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction 1/(1+ d1/(1+ d2/(1+ ...))) of DLMF 8.17.22 (modified Lentz)."""
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = _TINY if abs(d) < _TINY else d
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        # even step d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m))
        num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
        d = 1.0 + num * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + num / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        h *= d * c
        # odd step d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))
        d = 1.0 + num * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + num / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta fraction did not converge (a={a}, b={b}, x={x})")


def betainc(a: float, b: float, x: float, y: float | None = None) -> float:
    """Regularized incomplete beta I_x(a, b) for a, b > 0, 0 <= x <= 1.

    ``y`` = 1 - x when the caller knows it more accurately than ``1 - x``.
    """
    if y is None:
        y = 1.0 - x
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - betainc(b, a, y, x)
    log_front = a * math.log(x) + b * math.log1p(-x) if y >= 0.5 else a * math.log(x) + b * math.log(y)
    front = math.exp(log_front - _log_beta(a, b)) / a
    return front * _beta_fraction(a, b, x)


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2).

    nan for nan input or df <= 0; 0 for infinite t; 1 for t = 0.
    """
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    if t == 0.0:
        return 1.0
    # x = df/(df + t^2), y = t^2/(df + t^2); log x = -log1p(t^2/df) keeps x^(df/2) accurate for large df
    a = 0.5 * df
    r = (t / math.sqrt(df)) ** 2 if abs(t) < 1e150 else math.inf
    if math.isinf(r):
        log_x = 2.0 * (0.5 * math.log(df) - math.log(abs(t)))
        x, y, log_y = math.exp(log_x), 1.0, 0.0
    else:
        log_x = -math.log1p(r)
        x, y = 1.0 / (1.0 + r), r / (1.0 + r)
        log_y = math.log(y) if y > 0 else -math.inf
    if y == 0.0:
        return 1.0
    if x <= (a + 1.0) / (a + 2.5):
        return math.exp(a * log_x + 0.5 * log_y - _log_beta(a, 0.5)) / a * _beta_fraction(a, 0.5, x)
    # I_x(a, 1/2) = 1 - I_y(1/2, a)
    return 1.0 - math.exp(0.5 * log_y + a * log_x - _log_beta(0.5, a)) / 0.5 * _beta_fraction(0.5, a, y)


def t_density(t: float, df: float) -> float:
    """Student's t density with ``df`` degrees of freedom (DLMF 8.17.2's derivative)."""
    return math.exp(-0.5 * (df + 1.0) * math.log1p(t * t / df) - 0.5 * math.log(df) - _log_beta(0.5 * df, 0.5))


def t_quantile(p: float, df: float) -> float:
    """The t value with P(T <= t) = p (``scipy.special.stdtrit(df, p)``'s meaning).

    Newton steps on the tail of :func:`t_two_sided` from a normal-based start,
    kept inside a bracket that bisection narrows whenever a step leaves it.
    """
    if math.isnan(p) or math.isnan(df) or df <= 0 or p < 0 or p > 1:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if p == 0.5:
        return 0.0
    upper = p > 0.5
    tail = 1.0 - p if upper else p  # P(T <= -|t|) = tail
    # solve g(s) = t_two_sided(s)/2 - tail = 0 for s >= 0 (decreasing in s)
    lo, hi = 0.0, 1.0
    while t_two_sided(hi, df) / 2 > tail:
        if hi >= _TOP:  # doubling would overflow: bracket up to the largest float, or the root lies beyond it
            if t_two_sided(_FLOAT_MAX, df) / 2 > tail:
                return math.inf if upper else -math.inf
            lo, hi = hi, _FLOAT_MAX
            break
        lo, hi = hi, hi * 2.0
    s = _normal_upper_quantile(tail)
    if not lo < s < hi:
        s = lo + 0.5 * (hi - lo)
    # Newton on log P(T <= -s) = log tail: on the probability itself a step from far inside a heavy tail
    # (the tail ~ s^-df) moves s by about s/df only, and 200 steps ended short of the root (df = 1000,
    # p = 1e-300 gave -49.3 for -54.3). Bisection when a step leaves the bracket or is not less than half
    # the step before last (rtsafe's rule: the bracket then at least halves every other step).
    log_tail = math.log(tail)
    before = last = hi - lo
    for _ in range(200):
        at = t_two_sided(s, df) / 2
        if at > tail:
            lo = s
        elif at < tail:
            hi = s
        else:
            break
        dens = t_density(s, df)  # 0 far in a heavy tail (t^2 overflows), as the tail itself can be: bisect
        new = s + (math.log(at) - log_tail) * (at / dens) if at > 0 and dens > 0 else math.nan
        if lo <= new <= hi and abs(new - s) <= 2 * _EPS * abs(new):
            s = new  # Newton's step is below the resolution (0 at the root, where s is an end of the bracket)
            break
        if not lo < new < hi or abs(new - s) > 0.5 * abs(before):
            new = lo + 0.5 * (hi - lo)
        before, last = last, new - s
        if hi - lo <= 2 * _EPS * hi:
            s = new
            break
        s = new
    return s if upper else -s


def _normal_upper_quantile(q: float) -> float:
    """A rough z with P(Z >= z) = q < 1/2 (a start for Newton steps): Newton on erfc from z = 1."""
    z = math.sqrt(-2.0 * math.log(q)) if q < 0.1 else 1.0
    for _ in range(50):
        f = 0.5 * math.erfc(z / math.sqrt(2.0)) - q
        dens = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        if dens == 0:
            break
        new = z + f / dens
        if abs(new - z) < 1e-12 * max(1.0, abs(z)):
            return new
        z = new
    return z


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) = erfc(|z|/sqrt 2) for the standard normal; nan for nan."""
    if math.isnan(z):
        return math.nan
    return math.erfc(abs(z) * math.sqrt(0.5))
