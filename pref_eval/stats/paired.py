"""Paired significance tests, vectorised over many comparisons at once.

Every function takes ``D``, a float array of shape ``(k, n)``: row ``r`` holds
the per-query differences of comparison ``r`` over the same ``n`` queries
(run a minus run b, or a preference measure's per-query value), and tests
H0: "the differences are centred on 0" two-sided. A 1-D vector is treated as
one row. Results are dicts of arrays of length ``k``.

Build ``D`` with :func:`differences` (``round(x - y, 12)``, as scipy's own
documentation advises, so that float round-off does not invent distinct
ranks or non-zero differences).

Tests (Smucker, Allan & Carterette, CIKM 2007 compare them on TREC data):

* ``t`` -- paired t-test (Student 1908), the definition of
  ``scipy.stats.ttest_1samp(D, 0, axis=-1)`` (= ``ttest_rel(x, y)``), with the
  t confidence interval of the mean difference; p from the regularized
  incomplete beta (:mod:`pref_eval.stats.special`).
* ``wilcoxon`` -- Wilcoxon signed-rank (:mod:`pref_eval.stats.signed_rank`),
  ``scipy.stats.wilcoxon``'s definition with its defaults
  (``zero_method="wilcox"``, ``correction=False``, ``method="auto"``).
  ``method="auto"`` is decided **per row** exactly as a one-row scipy call
  decides it (see :func:`wilcoxon_test`).
* ``sign`` -- exact binomial test on the non-zero differences,
  ``scipy.stats.binomtest(k, n, 0.5)``'s definition with k = #(d > 0),
  n = #(d != 0), computed with integers; optionally differences with
  |d| < delta count as ties (Smucker et al.'s "sign minimum difference" test).
* These three import no scipy (``zelo_compare``'s start-up, issue #13);
  scipy is their live oracle in ``tests/test_stats_exact.py``.
* ``randomization`` -- paired randomization (sign-flip permutation) test of
  the mean difference; p = (#{|sum(s*d)| >= |sum(d)|} + 1)/(B + 1) over B
  random sign vectors s, or the exact enumeration of all 2^n sign vectors
  when 2^n <= B.
* ``bootstrap`` -- bootstrap distribution of the mean difference (B
  resamples of the queries with replacement): confidence interval
  (BCa by default, as ``scipy.stats.bootstrap``; or percentile / basic) and
  the shift-method p-value (#{|mean* - mean| >= |mean|} + 1)/(B + 1).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import libm
from ..errors import shown

TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")

#: rows x resamples handled at once in the resampling tests (memory bound)
_CELLS_PER_CHUNK = 4_000_000


def differences(x: np.ndarray, y: np.ndarray, decimals: int = 12) -> np.ndarray:
    """``round(x - y, decimals)`` as float64: the per-query differences."""
    return np.ascontiguousarray(np.round(np.asarray(x, dtype=float) - np.asarray(y, dtype=float), decimals))


def _as_rows(D: np.ndarray) -> np.ndarray:
    """``D`` as a C-ordered float matrix: numpy sums a row of a Fortran-ordered matrix (pandas' ``to_numpy`` of a
    pivot table) in another order than the same row alone, so a row's mean would depend on the other rows."""
    D = np.ascontiguousarray(D, dtype=float)
    if D.ndim == 1:
        D = D[None, :]
    if D.ndim != 2:
        raise ValueError(f"expected a (comparisons, queries) matrix, got shape {D.shape}")
    return D


def t_test(D: np.ndarray, confidence: float = 0.95) -> dict[str, np.ndarray]:
    """Paired t-test of each row's mean against 0 (Student 1908).

    t = mean(d) / (sd(d, ddof=1) / sqrt(n)) computed with the same numpy
    operations as ``scipy.stats.ttest_1samp(D, 0, axis=-1)`` (so the
    statistic is the same to the last bit), df = n - 1, two-sided
    p = I_{df/(df+t^2)}(df/2, 1/2), the double nearest to it
    (:func:`pref_eval.stats.t_tail.t_two_sided_array`: double-double arithmetic on the whole
    row of statistics, 45 digits where that cannot decide the last bit).
    The interval is mean +- q * sd/sqrt(n) with q the t quantile of
    (1 -+ confidence)/2 (:func:`pref_eval.stats.special.t_quantile`), as
    ``result.confidence_interval(confidence)``. All-zero rows give t = nan
    (0/0) and p = nan; constant non-zero rows give an infinite (or, after
    round-off in the mean, a huge) t and p = 0 (or tiny). scipy is the oracle
    of ``tests/test_stats_exact.py``.
    """
    from .special import t_quantile
    from .t_tail import t_two_sided_array

    D = _as_rows(D)
    k, n = D.shape
    if n < 2:
        nan = np.full(k, np.nan)
        return {"statistic": nan, "p_value": nan.copy(), "ci_low": nan.copy(),
                "ci_high": nan.copy(), "df": np.full(k, max(n - 1, 0))}
    df = n - 1
    with np.errstate(all="ignore"):
        mean = np.mean(D, axis=-1)
        var = np.mean((D - np.mean(D, axis=-1, keepdims=True)) ** 2, axis=-1) * (n / (n - 1))
        se = np.sqrt(var / n)
        t = np.divide(mean - 0.0, se)
        p = t_two_sided_array(t, float(df))
        tail = (1 - confidence) / 2
        q_low, q_high = t_quantile(tail, float(df)), t_quantile(1 - tail, float(df))
        ci_low = q_low * se + mean
        ci_high = q_high * se + mean
    return {"statistic": t, "p_value": p, "ci_low": ci_low, "ci_high": ci_high, "df": np.full(k, df)}


def wilcoxon_test(D: np.ndarray, zero_method: str = "wilcox", method: str = "auto",
                  correction: bool = False) -> dict[str, np.ndarray]:
    """Wilcoxon signed-rank test of each row against 0 (:func:`pref_eval.stats.signed_rank.wilcoxon`; Wilcoxon,
    Biometrics Bulletin 1945).

    R+ = Σ_{d_i > 0} rank(|d_i|), R- = Σ_{d_i < 0} rank(|d_i|) (ties: average ranks);
    ``statistic`` is min(R+, R-) (scipy's for the two-sided test).
    ``zero_method``: ``wilcox`` (drop zero differences; scipy's default),
    ``pratt`` (rank zeros, then drop their ranks), ``zsplit`` (split zero ranks
    between the signs). ``method``: ``auto``, ``exact`` or ``asymptotic``
    (normal approximation; ``correction`` = continuity correction, default
    False as scipy's).

    ``method="auto"`` follows scipy 1.17's rule for one sample of length n,
    decided **per row**: exact null distribution when n <= 50 and the row has
    no zeros and no ties among |d|; otherwise the exhaustive sign-flip
    permutation test when n <= 13; otherwise the normal approximation. Every
    row gets the p-value of a one-row ``scipy.stats.wilcoxon(d)`` call (scipy,
    given several rows at once, decides for the whole array). ``method_used``
    reports ``exact`` / ``permutation`` / ``asymptotic`` per row; ``n_zero``
    the number of zero differences.
    """
    from .signed_rank import wilcoxon

    if method not in ("auto", "exact", "asymptotic"):
        raise ValueError(f"unknown Wilcoxon method {shown(method)}")
    return wilcoxon(_as_rows(D), zero_method=zero_method, method=method, correction=correction)


def sign_p_value(k: int, n: int) -> float:
    """Exact two-sided binomial test of k successes in n trials with p = 1/2: the sign test (Dixon & Mood,
    JASA 1946), p = Σ_{x: C(n, x) <= C(n, k)} C(n, x) / 2^n.

    As ``scipy.stats.binomtest(k, n, 0.5).pvalue`` defines it: the sum of the
    probabilities C(n, x)/2^n of the outcomes x no more likely than k (up to
    a relative 1e-7: C(n, x) <= C(n, k)(1 + 1e-7)), at most 1; computed with
    integers (exactly, then rounded once). nan for n = 0.
    """
    if n <= 0:
        return math.nan
    ck = math.comb(n, k)
    # C(n, x) <= C(n, k) (1 + 1e-7)  <=>  C(n, x) * 10^7 <= C(n, k) * (10^7 + 1)
    limit = ck * 10_000_001
    total = 0
    for x in range(n + 1):
        c = math.comb(n, x)
        if c * 10_000_000 <= limit:
            total += c
    if 2 * k == n:
        return 1.0
    return min(1.0, total / (1 << n))


def sign_test(D: np.ndarray, min_diff: float = 0.0) -> dict[str, np.ndarray]:
    """Sign test: exact two-sided binomial test with p = 1/2 (:func:`sign_p_value`).

    k = #(d > 0), n = #(d != 0) (zero differences are dropped). With
    ``min_diff`` = delta > 0, Smucker, Allan & Carterette's (CIKM 2007) "sign
    minimum difference" test: a difference with |d| < delta counts as a tie
    and is dropped too (k = #(d >= delta), n = #(|d| >= delta)).
    ``statistic`` is k. n = 0 gives p = nan. The p-value is computed once per
    distinct (k, n), not once per row. ``scipy.stats.binomtest`` is the oracle
    of ``tests/test_stats_exact.py``.
    """
    D = _as_rows(D)
    if not min_diff >= 0:
        raise ValueError(f"min_diff must be >= 0, got {min_diff}")
    if min_diff > 0:
        # same tolerance as the differences' rounding: |d| = delta is not a tie
        tol = 1e-12
        big = np.abs(D) >= min_diff - tol
        pos = ((D > 0) & big).sum(axis=1)
        nz = big.sum(axis=1)
    else:
        pos = (D > 0).sum(axis=1)
        nz = (D != 0).sum(axis=1)
    p = np.full(D.shape[0], np.nan)
    keys = np.stack([pos, nz], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    pu = np.array([sign_p_value(int(kk), int(nn)) for kk, nn in uniq], dtype=float)
    if uniq.shape[0]:
        p = pu[inverse]
    return {"statistic": pos.astype(float), "p_value": p, "n_nonzero": nz}


def _chunks(k: int, B: int):
    step = max(1, _CELLS_PER_CHUNK // max(B, 1))
    for start in range(0, k, step):
        yield slice(start, min(k, start + step))


def _tolerance(obs: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Round-off allowed in "as extreme": 100 eps relative to the statistic (scipy's ``permutation_test``)
    and, with ``scale`` = the sum of the |terms| of the compared sums, 100 eps of that: a resampled sum that
    is mathematically equal to an observed sum near 0 (0.3 + 0.3 - 0.5 + 0.1 - 0.2 = 0) differs from it by
    round-off of the size of its terms, not of the observed value (which scipy misses too)."""
    tol = np.abs(obs) * np.finfo(float).eps * 100
    if scale is not None:
        tol = np.maximum(tol, np.abs(scale) * np.finfo(float).eps * 100)
    return tol


def randomization_test(D: np.ndarray, resamples: int = 10_000, seed: int | None = 0) -> dict[str, Any]:
    """Paired randomization (sign-flip permutation) test of the mean difference.

    Under H0 each query's difference is equally likely to have either sign.
    Statistic: mean(d). Two-sided p-value ("as extreme" = |mean| at least as
    large, the IR convention of Smucker et al. 2007):

    * exact, when 2^n <= ``resamples``: p = #{s in {-1,1}^n : |s.d| >= |sum d|} / 2^n;
    * otherwise B = ``resamples`` sign vectors drawn once from
      ``numpy.random.default_rng(seed)`` (shared by every row, so a row's p
      does not depend on the other rows), p = (count + 1) / (B + 1).

    Vectorised as one matrix product per chunk of rows: ``D @ S.T``.
    """
    D = _as_rows(D)
    k, n = D.shape
    obs_sum = D.sum(axis=1)
    abs_sum = np.abs(D).sum(axis=1)
    mean = obs_sum / n if n else np.full(k, np.nan)
    if n == 0:
        return {"statistic": mean, "p_value": np.full(k, np.nan), "exact": True, "resamples": 0}
    exact = n <= 62 and (1 << n) <= resamples
    if exact:
        codes = np.arange(1 << n, dtype=np.int64)[:, None]
        S = 1.0 - 2.0 * ((codes >> np.arange(n, dtype=np.int64)) & 1)
    else:
        rng = np.random.default_rng(seed)
        S = 1.0 - 2.0 * rng.integers(0, 2, size=(resamples, n), dtype=np.int8)
    B = S.shape[0]
    ST = np.ascontiguousarray(S.T)
    count = np.zeros(k, dtype=np.int64)
    for sl in _chunks(k, B):
        sums = D[sl] @ ST
        thr = np.abs(obs_sum[sl]) - _tolerance(obs_sum[sl], abs_sum[sl])
        count[sl] = (np.abs(sums) >= thr[:, None]).sum(axis=1)
    p = count / B if exact else (count + 1) / (B + 1)
    return {"statistic": mean, "p_value": p, "exact": exact, "resamples": B}


def _row_quantiles(x: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Quantiles ``probs[i]`` (in [0, 1]) of each row ``x[i]``: numpy's default ``linear`` method (Hyndman & Fan
    1996, definition 7) -- virtual index h = p (B - 1), value x_(j) + g (x_(j+1) - x_(j)), j = floor(h), g = h - j,
    written from the top (x_(j+1) - (1 - g)(x_(j+1) - x_(j))) when g >= 1/2 as ``numpy.quantile`` does --
    row by row probabilities in one vectorised pass (``scipy.stats.bootstrap`` takes ``numpy.percentile`` of
    each row; importing ``scipy.stats.quantile`` for this cost ~1 s of start-up)."""
    s = np.sort(x, axis=-1)
    B = s.shape[-1]
    h = probs * (B - 1)
    j = np.clip(np.floor(h), 0, B - 1).astype(np.intp)
    g = h - j
    a = np.take_along_axis(s, j, axis=-1)
    b = np.take_along_axis(s, np.minimum(j + 1, B - 1), axis=-1)
    d = b - a
    return np.where(g >= 0.5, b - d * (1 - g), a + d * g)


def bootstrap_test(D: np.ndarray, resamples: int = 10_000, seed: int | None = 0,
                   confidence: float = 0.95, ci_method: str = "BCa") -> dict[str, Any]:
    """Bootstrap of the mean difference: confidence interval and shift p-value.

    Resamples: ``idx = default_rng(seed).integers(0, n, (B, n))`` -- the same
    draw ``scipy.stats.bootstrap(..., n_resamples=B, rng=seed)`` makes -- shared
    by every row; the B bootstrap means are ``D @ C.T / n`` with C the (B, n)
    resample counts. Interval (Efron & Tibshirani 1993, as scipy computes it):

    * ``percentile``: quantiles alpha/2, 1 - alpha/2 of the bootstrap means;
    * ``basic``: 2 mean - (upper, lower percentile bounds);
    * ``BCa``: quantiles Phi(z0 + (z0 + z)/(1 - a (z0 + z))) with
      z0 = Phi^-1(share of bootstrap means below the mean, ties half; means
      within 1e-12 of it count as ties, so float round-off in the resampled
      sums does not move z0) and the
      jackknife acceleration a = sum U^3 / (6 (sum U^2)^1.5),
      U_i = (n - 1)(mean of jackknife means - jackknife mean_i).

    A row of constant differences (all zero included) gets the interval (mean, mean) from every method
    (scipy's BCa: nan, its acceleration being 0/0).

    p-value (shift method, H0 moved to the observed mean):
    (#{|mean* - mean| >= |mean|} + 1) / (B + 1). With fewer than two topics the
    p-value and the interval are nan (undefined, as the t-test's; scipy's
    ``bootstrap`` refuses one observation).
    """
    from scipy.special import ndtr, ndtri

    D = _as_rows(D)
    k, n = D.shape
    method = ci_method.lower()
    if method not in ("bca", "percentile", "basic"):
        raise ValueError(f"unknown bootstrap interval {shown(ci_method)}")
    nan = np.full(k, np.nan)
    if n < 2:  # one topic: every resample is that topic, the bootstrap distribution is a point (scipy refuses)
        return {"statistic": D.mean(axis=1) if n else nan, "p_value": nan.copy(), "ci_low": nan.copy(),
                "ci_high": nan.copy(), "resamples": resamples}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (resamples, n))
    B = resamples
    C = np.bincount((idx + n * np.arange(B)[:, None]).ravel(), minlength=B * n).reshape(B, n)
    CT = np.ascontiguousarray(C.T.astype(float))
    theta = D.mean(axis=1)
    alpha = (1 - confidence) / 2
    ci_low = np.full(k, np.nan)
    ci_high = np.full(k, np.nan)
    count = np.zeros(k, dtype=np.int64)
    for sl in _chunks(k, B):
        boot = (D[sl] @ CT) / n
        th = theta[sl][:, None]
        scale = np.abs(D[sl]).max(axis=1)[:, None]  # a resampled mean's sum of |terms| / n: at most max |d|
        count[sl] = (np.abs(boot - th) >= np.abs(th) - _tolerance(th, scale)).sum(axis=1)
        if method == "bca":
            # bootstrap means equal to the mean up to round-off count as ties
            tol = 1e-12 * np.maximum(1.0, np.abs(th))
            below = (boot < th - tol).sum(axis=1) + (boot <= th + tol).sum(axis=1)
            with np.errstate(all="ignore"):
                z0 = ndtri(below / (2 * B))
                Dc = D[sl]
                jack = (Dc.sum(axis=1, keepdims=True) - Dc) / (n - 1)
                U = (n - 1) * (jack.mean(axis=1, keepdims=True) - jack)
                # the C library's pow (numpy's own differs in last bits on an AVX-512 CPU: pref_eval/libm.py)
                a = libm.pow(U, 3.0).sum(axis=1) / n ** 3 / libm.pow((U ** 2).sum(axis=1) / n ** 2, 1.5) / 6
                za = ndtri(alpha)
                a1 = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
                a2 = ndtr(z0 + (z0 - za) / (1 - a * (z0 - za)))
            probs = np.stack([a1, a2], axis=1)
        else:
            probs = np.broadcast_to(np.array([alpha, 1 - alpha]), (boot.shape[0], 2))
        ok = np.isfinite(probs).all(axis=1)
        if ok.any():
            q = _row_quantiles(boot[ok], probs[ok])
            lo, hi = q[:, 0], q[:, 1]
            if method == "basic":
                lo, hi = 2 * theta[sl][ok] - hi, 2 * theta[sl][ok] - lo
            ci_low[np.arange(sl.start, sl.stop)[ok]] = lo
            ci_high[np.arange(sl.start, sl.stop)[ok]] = hi
    if method == "bca":
        # constant differences: every bootstrap mean is the mean, the interval is that point (as percentile and
        # basic give); BCa's acceleration is 0/0 there -- scipy returns nan, ours gave nan or, when round-off in
        # the jackknife means made it finite, the point, depending on the decimals
        const = (D.max(axis=1) - D.min(axis=1)) <= 1e-12 * np.maximum(1.0, np.abs(theta))
        ci_low[const] = theta[const]
        ci_high[const] = theta[const]
    p = (count + 1) / (B + 1)
    return {"statistic": theta, "p_value": p, "ci_low": ci_low, "ci_high": ci_high, "resamples": B}
