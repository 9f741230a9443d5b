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
  its quantile by safeguarded Newton steps on that tail. Both as printed are
  the doubles nearest to the true values: the tail's formulas (the continued
  fraction in the tail, the hypergeometric series DLMF 8.17.8 in the centre,
  Stirling's series DLMF 5.11.1 for B(nu/2, 1/2)) evaluated at 45 significant
  digits with the decimal module, the quantile's double-precision root
  polished by Newton steps on that tail (tests/test_t_exact_oracle.py: 312
  points against mpmath, df 1..1e7, p 1e-300..1 - 1e-16).
* Standard normal: P(|Z| >= |z|) = erfc(|z|/sqrt 2) (DLMF 7.2.2, 7.18).
"""
from __future__ import annotations

import math
from decimal import Decimal, localcontext

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
    """Regularized incomplete beta I_x(a, b) = B_x(a, b) / B(a, b) for a, b > 0, 0 <= x <= 1 (DLMF 8.17.1), by its
    continued fraction (DLMF 8.17.22) with the modified Lentz algorithm (Lentz 1976; Thompson & Barnett 1986).

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


def _two_sided_edge(t: float, df: float) -> float | None:
    """P(|T| >= |t|) where no formula is needed, else None: nan for nan input or df <= 0; 0 for infinite t; 1 for
    t = 0; the normal tail for infinite df (t^2/df = 0 in the formulas would give 1)."""
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    if t == 0.0:
        return 1.0
    if math.isinf(df):
        return normal_two_sided(t)
    return None


def t_two_sided_exact(t: float, df: float) -> float:
    """P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2) for Student's t (Student 1908; DLMF 8.17.2) with ``df`` degrees
    of freedom, the double nearest to the true value (but
    within ~1e-30 of a boundary between two doubles): :func:`t_two_sided`'s formulas at 45 significant digits
    (:func:`_two_sided_exact`), ~0.2 ms a value. nan for nan input or df <= 0; 0 for infinite t; 1 for t = 0;
    the normal tail for infinite df.
    """
    edge = _two_sided_edge(t, df)
    if edge is not None:
        return edge
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return float(_two_sided_exact(abs(Decimal(t)), Decimal(df), _beta_exact(Decimal(df) / 2)))


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2) (Student 1908;
    DLMF 8.17.2 with Abramowitz & Stegun 1964, 26.7.1).

    In double precision, ~8 us a value: within a few units in the last place for moderate df and p, but up
    to ~300 ulps for p < 1e-12 and ~1e6 at df >= 1e5 (tools/t_ulp_histogram.py); :func:`t_two_sided_exact`
    (one value at 45 digits) and :func:`pref_eval.stats.t_tail.t_two_sided_array` (arrays in double-double:
    the t-test's p-values) give the nearest double. Kept as the quantile's double-precision start. nan for
    nan input or df <= 0; 0 for infinite t; 1 for t = 0; the normal tail for infinite df.
    """
    edge = _two_sided_edge(t, df)
    if edge is not None:
        return edge
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
    """Student's t density with ``df`` degrees of freedom (Student 1908; DLMF 8.17.2's derivative):
    f(t) = (1 + t^2/df)^(-(df+1)/2) / (sqrt(df) B(df/2, 1/2))."""
    return math.exp(-0.5 * (df + 1.0) * math.log1p(t * t / df) - 0.5 * math.log(df) - _log_beta(0.5 * df, 0.5))


def t_quantile(p: float, df: float) -> float:
    """The t value with P(T <= t) = p (``scipy.special.stdtrit(df, p)``'s meaning), P(T <= t) = 1 -
    I_{df/(df+t^2)}(df/2, 1/2) / 2 for t >= 0 (Student 1908; DLMF 8.17.2).

    Newton steps on the tail of :func:`t_two_sided` from a normal-based start,
    kept inside a bracket that bisection narrows whenever a step leaves it
    (:func:`_start`), then Newton steps at 45 digits (:func:`_polish`): the
    double nearest to the true quantile (tests/test_t_exact_oracle.py).
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
    if math.isinf(df):
        s = _normal_upper_quantile(tail)
        return s if upper else -s
    s = _start(tail, df)
    if math.isinf(s) or s == 0.0:
        return s if upper else -s
    s = _polish(s, p, df)
    return s if upper else -s


def _start(tail: float, df: float) -> float:
    """The s >= 0 with P(T <= -s) = tail to ~1e-13 relative (~1e-10 near tail = 1/2) in double precision:
    Newton steps on log P(T <= -s) inside a bracket (:func:`t_two_sided`); inf beyond the largest
    float."""
    # solve g(s) = t_two_sided(s)/2 - tail = 0 for s >= 0 (decreasing in s)
    lo, hi = 0.0, 1.0
    while t_two_sided(hi, df) / 2 > tail:
        if hi >= _TOP:  # doubling would overflow: bracket up to the largest float, or the root lies beyond it
            if t_two_sided(_FLOAT_MAX, df) / 2 > tail:
                return math.inf
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
    return s


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
    """P(|Z| >= |z|) = erfc(|z|/sqrt 2) for the standard normal (DLMF 7.2.2 and 7.18; Olver et al., NIST Handbook
    of Mathematical Functions, 2010); nan for nan."""
    if math.isnan(z):
        return math.nan
    return math.erfc(abs(z) * math.sqrt(0.5))


# --- the tail and the quantile to the last bit: the same formulas in decimal arithmetic ------------------------
# At 45 significant digits (Python's decimal module: exactly rounded +, -, *, /, ln and exp) the rounding errors
# that cost double precision up to ~1e6 ulps -- exp of a log near -690 (1e-300) carrying its argument's
# rounding, 1 - I_y with I_y near 1 near t = 0, the continued fraction's thousands of steps at large df -- stay
# below 1e-30 relative, so the value rounded to a double is the nearest double to the true one (but within
# ~1e-30 of a boundary between two doubles). Pure Python, no scipy.
_DIGITS = 45
_PI = "3.14159265358979323846264338327950288419716939937510582097494459"
# B_2k / (2k (2k - 1)), k = 1..15: Stirling's series of log Gamma (DLMF 5.11.1; Bernoulli numbers DLMF 24.2)
_STIRLING = [(1, 12), (-1, 360), (1, 1260), (-1, 1680), (1, 1188), (-691, 360360), (1, 156), (-3617, 122400),
             (43867, 244188), (-174611, 125400), (77683, 5796), (-236364091, 1506960), (657931, 300),
             (-3392780147, 93960), (1723168255201, 2492028)]


def _log1p_exact(v: Decimal) -> Decimal:
    """log(1 + v) in the current context, without 1 + v's rounding for small v (the series v - v^2/2 + ...)."""
    if abs(v) >= Decimal("0.02"):
        return (1 + v).ln()
    total, term, k = v, v, 1
    bound = abs(v) * Decimal(10) ** -(_DIGITS + 2)
    while abs(term) > bound:
        k += 1
        term *= -v
        total += term / k
    return total


def _beta_exact(a: Decimal) -> Decimal:
    """B(a, 1/2) = Gamma(a) Gamma(1/2) / Gamma(a + 1/2) in the current context (a > 0).

    log Gamma(w) - log Gamma(w + 1/2) by Stirling's series at w = a + n >= 40 (15 terms: the next is below
    1e-43 there) written as a difference, -log(w)/2 - w log(1 + 1/(2w)) + 1/2 + sum c_k (w^(1-2k) -
    (w + 1/2)^(1-2k)), so that nothing of size w log w cancels (a up to 1e300); then back to a by
    Gamma(z + 1) = z Gamma(z). One exp and one square root (decimal's ln costs ~2.5 exps).
    """
    half = Decimal("0.5")
    shift = max(0, math.ceil(40 - float(a)))
    w = a + shift
    v = w + half
    total = half - w * _log1p_exact(half / w)
    for k, (num, den) in enumerate(_STIRLING, start=1):
        total += Decimal(num) / den * (w ** (1 - 2 * k) - v ** (1 - 2 * k))
    ratio = Decimal(1)
    for j in range(shift):
        ratio = ratio * (a + half + j) / (a + j)
    return total.exp() * ratio * (Decimal(_PI) / w).sqrt()


def _fraction_exact(a: Decimal, b: Decimal, x: Decimal) -> Decimal:
    """The continued fraction of DLMF 8.17.22 (modified Lentz), as :func:`_beta_fraction`, in the current
    context."""
    tiny = Decimal("1e-400")
    tol = Decimal(10) ** -(_DIGITS - 3)
    c = Decimal(1)
    d = 1 - (a + b) * x / (a + 1)
    d = 1 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, _MAX_ITER):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (tiny if abs(d) < tiny else d)
            c = 1 + num / c
            c = tiny if abs(c) < tiny else c
            delta = d * c
            h *= delta
        if abs(delta - 1) < tol:
            return h
    raise ArithmeticError(f"incomplete beta fraction did not converge (a={a}, b={b}, x={x})")


def _two_sided_exact(s: Decimal, df: Decimal, beta: Decimal) -> Decimal:
    """P(|T| >= s), s > 0, in the current context; ``beta`` = B(df/2, 1/2).

    x = df/(df + s^2), y = 1 - x. In the tail (x below (a + 1)/(a + 5/2), a = df/2: there the two-sided tail is
    below ~0.5 at df = 1 and ~0.09 at large df) I_x(a, 1/2) by the continued fraction; in the centre
    1 - I_y(1/2, a), I_y(1/2, a) = y^(1/2) x^a / (B(a, 1/2)/2) F(a + 1/2, 1; 3/2; y) (DLMF 8.17.8), whose
    terms shrink by a factor (a + 1/2 + n) y/(n + 3/2) < 1 there; the subtraction costs at most one digit.
    """
    half = Decimal("0.5")
    a = df / 2
    u = s * s / df
    log_x = -_log1p_exact(u)
    x, y = 1 / (1 + u), u / (1 + u)
    front = (a * log_x).exp() * y.sqrt() / beta  # x^a y^(1/2) / B(a, 1/2)
    if x < (a + 1) / (a + Decimal("2.5")):
        return front / a * _fraction_exact(a, half, x)
    total, term, n = Decimal(1), Decimal(1), 0
    bound = Decimal(10) ** -(_DIGITS + 2)
    while term > bound:
        term = term * (a + half + n) * y / (n + Decimal("1.5"))
        total += term
        n += 1
    return 1 - 2 * front * total


def _polish(s: float, p: float, df: float) -> float:
    """Newton steps at 45 digits from ``s`` (the double-precision root of P(T <= -s) = min(p, 1 - p)) on the
    exact tail: the nearest double to the true root but within ~1e-30 of a boundary between two doubles.

    g(x) = P(|T| >= x) - 2 min(p, 1 - p), g' = -2 f, g'' = -2 f' with f'/f = -(df + 1) x/(df + x^2): after a
    step d the error is about |g''/(2 g')| d^2 = (df + 1) x/(2 (df + x^2)) d^2; the steps end when that is
    below 1e-30 x (from the start's ~1e-13, one step; ~1e-10 near p = 1/2, two).
    """
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        dfd = Decimal(df)
        beta = _beta_exact(dfd / 2)
        target = 2 * (1 - Decimal(p)) if p > 0.5 else 2 * Decimal(p)  # the two-sided tail at the root
        scale = dfd.sqrt() * beta  # the density f(x) = (1 + x^2/df)^(-(df + 1)/2) / (sqrt(df) B(df/2, 1/2))
        x = Decimal(s)
        for _ in range(8):
            dens = (-(dfd + 1) / 2 * _log1p_exact(x * x / dfd)).exp() / scale
            if dens == 0:
                break
            step = (_two_sided_exact(x, dfd, beta) - target) / (2 * dens)
            x += step
            if (dfd + 1) / (2 * (dfd + x * x)) * step * step <= Decimal("1e-30"):
                break
        return float(x)
