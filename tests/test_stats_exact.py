"""The scipy-free t, Wilcoxon and sign tests against scipy computed live (the oracle).

pref_eval.stats.special / signed_rank / paired.sign_p_value compute the default tests of
``zelo_compare`` without importing scipy (issue #13). Here every function is compared with
``scipy.stats`` / ``scipy.special`` on seeded random and edge-case inputs: n = 0, 1, 2, all zeros,
all ties, ties with zeros, n = 13/14 and 50/51 around scipy's method switches, huge and tiny t.

* t statistic: equal to the last bit (the same numpy operations); p-value and interval within
  1e-12 relative (scipy's own error reaches 1e-12 for df = 1 and tiny t, where the closed form
  (2/pi) atan(1/|t|) is the oracle instead).
* Wilcoxon exact and permutation p-values for n <= 50: equal to the last bit (both are integer
  ratios to 2^n below 2^53; above, scipy's floating-point distribution rounds, within 1e-12);
  except ``exact`` with Pratt's zeros, where scipy's "exact" is wrong (identical runs get p = 2/2^n)
  and ours is its exhaustive PermutationMethod;
  asymptotic: within 1e-12 relative (math.erfc against scipy's ndtr).
* sign test: the exact ratio, rounded once; within 1e-12 of ``scipy.stats.binomtest``.
"""
from __future__ import annotations

import math
import warnings
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import special, stats

from pref_eval.stats import paired
from pref_eval.stats.special import betainc, t_quantile, t_two_sided

RTOL = 1e-12


def _close(a: float, b: float, rtol: float = RTOL) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))


def _rows(n: int, seed: int) -> np.ndarray:
    """Rows of length n: continuous, ties, zeros, ties with zeros, all zeros, all tied, one-sided."""
    rng = np.random.default_rng(seed)
    rows = [rng.normal(0.02, 0.2, n), np.round(rng.normal(0.02, 0.2, n), 1),
            np.where(rng.random(n) < 0.3, 0.0, rng.normal(0, 0.2, n)),
            np.round(np.where(rng.random(n) < 0.3, 0.0, rng.normal(0, 0.2, n)), 1),
            np.zeros(n), np.full(n, 0.25), np.where(rng.random(n) < 0.5, 0.25, -0.25),
            np.abs(rng.normal(0.3, 0.1, n)), np.round(rng.normal(0.0, 1e-3, n), 4)]
    return np.round(np.array(rows), 12)


SIZES = (0, 1, 2, 3, 5, 8, 13, 14, 20, 49, 50, 51, 52, 80)


@pytest.mark.parametrize("n", SIZES)
def test_t_test_equals_scipy(n):
    D = _rows(n, n)
    r = paired.t_test(D, confidence=0.9)
    for i in range(D.shape[0]):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            o = stats.ttest_1samp(D[i], 0.0)
            ci = o.confidence_interval(0.9)
        if n < 2:
            assert math.isnan(r["p_value"][i]) and math.isnan(r["statistic"][i])
            continue
        assert r["statistic"][i] == o.statistic or (np.isnan(r["statistic"][i]) and np.isnan(o.statistic))
        assert _close(r["p_value"][i], float(o.pvalue)), (i, r["p_value"][i], o.pvalue)
        assert _close(r["ci_low"][i], float(ci.low)) and _close(r["ci_high"][i], float(ci.high))
        assert r["df"][i] == o.df


@pytest.mark.parametrize("draws", [1000, pytest.param(3000, marks=pytest.mark.slow)])
def test_t_tail_and_quantile_equal_scipy_special(draws):
    """3,000 draws cost ~4 s of CPU since t_quantile polishes its root at 45 digits (~0.7 ms a quantile): the
    suite takes the first 1,000 of them, the slow part all."""
    rng = np.random.default_rng(13)
    for _ in range(draws):
        df = float(rng.integers(1, 40) if rng.random() < 0.5 else rng.integers(1, 5000))
        t = float(rng.standard_normal() * 10 ** rng.uniform(-4, 2.2))
        ref = float(2 * special.stdtr(df, -abs(t)))
        if df == 1:  # scipy's error reaches 1e-12 for tiny t: the closed form decides
            assert _close(t_two_sided(t, df), 2 / math.pi * math.atan2(1, abs(t)), 1e-14)
        elif ref < 1e-290:  # near and below the smallest normal double: both underflow
            assert t_two_sided(t, df) < 1e-280
        else:
            assert _close(t_two_sided(t, df), ref, 5e-12 if ref < 1e-200 else RTOL), (df, t)
        p = float(10 ** rng.uniform(-15, math.log10(0.5)))
        for q in (p, 1 - p):
            assert _close(t_quantile(q, df), float(special.stdtrit(df, q)), RTOL), (df, q)
    for t in (0.0, math.inf, -math.inf, 1e200, -1e-300, 5e-324):
        assert _close(t_two_sided(t, 7.0), float(2 * special.stdtr(7.0, -abs(t))))
    assert math.isnan(t_two_sided(math.nan, 3.0)) and math.isnan(t_two_sided(1.0, 0.0))
    assert t_quantile(0.5, 4.0) == 0.0 and t_quantile(0.0, 4.0) == -math.inf


def test_incomplete_beta_equals_scipy():
    rng = np.random.default_rng(8)
    for _ in range(2000):
        a, b = (float(v) for v in 10 ** rng.uniform(-1, 3, 2))
        x = float(rng.random())
        ref = float(special.betainc(a, b, x))
        if ref > 1e-280:
            assert _close(betainc(a, b, x), ref, 1e-11), (a, b, x)
    assert betainc(2.0, 3.0, 0.0) == 0.0 and betainc(2.0, 3.0, 1.0) == 1.0


# scipy's answers shared by the three zero methods for a row without a zero difference: the zero method only
# says what to do with zeros, so such a row is the same test under each (scipy's permutation test at n = 13 is
# ~3 s a row; the slow tests below call it for 7 rows and each zero method). Keyed by the row's bytes.
_SCIPY_WILCOXON: dict = {}


def _scipy_wilcoxon(d, zero_method, method, correction):
    key = (np.asarray(d, dtype=np.float64).tobytes(), zero_method if np.any(d == 0) else "no zeros", method,
           correction)
    if key not in _SCIPY_WILCOXON:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                _SCIPY_WILCOXON[key] = stats.wilcoxon(d, zero_method=zero_method, method=method,
                                                      correction=correction)
            except ValueError:  # e.g. exact with every difference zero
                _SCIPY_WILCOXON[key] = None
    return _SCIPY_WILCOXON[key]


def _exact_is_approximate(d: np.ndarray, zero_method: str) -> bool:
    """Rows where counting subsets of the ranks 1..m is not R+'s null distribution: tied |d| among the ranked
    values, or zeros that are ranked (pratt, zsplit)."""
    a = np.abs(d[d != 0]) if zero_method == "wilcox" else np.abs(d)
    return len(np.unique(a)) < len(a) or (zero_method != "wilcox" and bool(np.any(d == 0)))


def _subset_sum_counter(weights) -> Counter:
    """{s: #{subsets of ``weights`` with sum s}}, one weight at a time (a Counter of the sums so far)."""
    counts = Counter({0: 1})
    for w in weights:
        nxt = Counter(counts)
        for v, c in counts.items():
            nxt[v + w] += c
        counts = nxt
    return counts


def _sign_flip_oracle(d: np.ndarray, zero_method: str) -> tuple[float, float]:
    """(min(R+, R-), two-sided p) from the exact distribution of R+ over the 2^n sign flips of d, written out
    with scipy's rankdata and a Counter of the doubled sums (integers): the definition, not our code."""
    n = len(d)
    if zero_method == "wilcox":
        d = d[d != 0]
    ranks2 = [int(round(2 * x)) for x in stats.rankdata(np.abs(d))]  # doubled mid-ranks: integers
    zero = [x == 0 for x in d]
    movable = [w for w, z in zip(ranks2, zero, strict=True) if not z]
    const = sum(w for w, z in zip(ranks2, zero, strict=True) if z) // 2 if zero_method == "zsplit" else 0
    obs = sum(w for w, x in zip(ranks2, d, strict=True) if x > 0) + const  # 2 R+
    total2 = sum(w for w, z in zip(ranks2, zero, strict=True) if not z or zero_method == "zsplit")
    counts = _subset_sum_counter(movable)
    below = sum(c for v, c in counts.items() if v + const <= obs)
    above = sum(c for v, c in counts.items() if v + const >= obs)
    p = min(1.0, 2 * min(below, above) / (1 << len(movable)))
    del n
    return min(obs, total2 - obs) / 2, p


# rows of _rows(13, ...) compared with scipy's n = 13 permutation test in the suite: the two exact rows (0, 7)
# and one of the seven permutation rows (1, ties; ~0.9 s CPU a row: row 3, ties with zeros, left the suite in
# session 22, s31); the slow test below compares all nine
N13_SUITE_ROWS = (0, 1, 7)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("method", ["auto", "exact", "asymptotic"])
def test_wilcoxon_equals_one_row_scipy_calls(zero_method, method, sizes=SIZES,
                                            n13_rows: tuple[int, ...] | None = N13_SUITE_ROWS):
    """Every row of every size and zero method equal to scipy's one-row call, but ``auto`` at n = 13 (scipy's
    2^13-resample permutation test, ~1-3 s a row): only ``N13_SUITE_ROWS`` with the wilcox zero method here;
    every row under all three zero methods in ``test_wilcoxon_auto_permutation_n13_equals_scipy`` (slow)."""
    for n in sizes:
        if n == 13 and method == "auto" and zero_method != "wilcox" and sizes is SIZES:
            continue  # scipy's 2^13-resample permutation test is slow: in the slow test below
        D = _rows(n, 100 + n)
        rows = n13_rows if n == 13 and method == "auto" and n13_rows is not None else range(D.shape[0])
        # the continuity correction changes only the normal approximation
        for correction in (False, True) if method == "asymptotic" or (method == "auto" and n > 13) else (False,):
            r = paired.wilcoxon_test(D, zero_method=zero_method, method=method, correction=correction)
            for i in rows:
                if method == "exact" and _exact_is_approximate(D[i], zero_method):
                    # not scipy's "exact" (identical runs get p = 2/2^n there with Pratt's zeros; tied ranks make
                    # it approximate): the exact sign-flip distribution, against the one written out below
                    assert r["method_used"][i] == "permutation", (n, i)
                    want_stat, want_p = _sign_flip_oracle(D[i], zero_method)
                    assert r["statistic"][i] == want_stat and r["p_value"][i] == want_p, (n, i, zero_method)
                    continue
                o = _scipy_wilcoxon(D[i], zero_method, method, correction)
                if o is None:
                    continue
                where = (n, i, zero_method, method, correction, r["method_used"][i])
                assert _close(r["statistic"][i], float(o.statistic), 0.0), where
                if r["method_used"][i] in ("exact", "permutation") and n <= 50:
                    p, q = r["p_value"][i], float(o.pvalue)
                    assert p == q or (math.isnan(p) and math.isnan(q)), (*where, p, q)
                elif r["method_used"][i] == "exact":  # n > 50: scipy's 1 - cdf loses what is below 2^-53
                    assert abs(r["p_value"][i] - o.pvalue) <= 1e-15 + RTOL * o.pvalue, (*where, r["p_value"][i])
                else:
                    assert _close(r["p_value"][i], float(o.pvalue)), (*where, r["p_value"][i], o.pvalue)
                assert r["n_zero"][i] == int((D[i] == 0).sum())


@pytest.mark.slow
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_auto_permutation_n13_equals_scipy(zero_method):
    """n = 13, ``auto``: all nine rows (seven of them scipy's permutation test) under each zero method."""
    test_wilcoxon_equals_one_row_scipy_calls(zero_method, "auto", sizes=(13,), n13_rows=None)


def test_wilcoxon_exact_pratt_with_zeros_is_the_sign_flip_distribution():
    """--wilcoxon-method exact with Pratt's zeros: scipy's "exact" counts subsets of all n ranks although R+
    leaves the zeros' ranks out, so identical runs get p = 2/2^n (0.0625 at n = 5, 1.2e-4 at n = 14;
    scipy/scipy#6805). Ours: the exact distribution given the zeros, equal to scipy's exhaustive
    PermutationMethod (the oracle, live, n <= 8) and to hand-worked values."""
    perm = stats.PermutationMethod(n_resamples=np.inf)
    checked = 0
    for n in (2, 3, 5, 8):
        D = _rows(n, 300 + n)
        r = paired.wilcoxon_test(D, zero_method="pratt", method="exact")
        for i in np.flatnonzero((D == 0).any(axis=1)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                o = stats.wilcoxon(D[i], zero_method="pratt", method=perm)
            assert r["method_used"][i] == "permutation"
            assert r["p_value"][i] == float(o.pvalue) and r["statistic"][i] == float(o.statistic), (n, i)
            checked += 1
    assert checked >= 10
    # hand-worked: d = 0 0 1 2 3 -> Pratt ranks 1.5 1.5 3 4 5, R+ = 12 is the largest of the 8 sign flips of
    # {3, 4, 5}: p = 2/8 (scipy's "exact": #{subsets of 1..5 with sum >= 12} = 5, p = 10/32)
    r = paired.wilcoxon_test(np.array([[0, 0, 1, 2, 3.0]]), zero_method="pratt", method="exact")
    assert r["p_value"][0] == 0.25
    # identical runs are not significant, at any n
    for n in (5, 14, 50, 80):
        r = paired.wilcoxon_test(np.zeros((1, n)), zero_method="pratt", method="exact")
        assert r["p_value"][0] == 1.0 and r["method_used"][0] == "permutation"
    # without ranked zeros and without tied |d|, "exact" is scipy's exact test as before
    r = paired.wilcoxon_test(np.array([[0, 0, 1, 2, 3.0], [1, -2, 3, 4, 5.0]]), zero_method="wilcox",
                             method="exact")
    assert list(r["method_used"]) == ["exact", "exact"]


# n = 9 (scipy's exhaustive permutations, ~2.6 of the test's 4.3 s CPU) with the slow tests (session 21, s30)
@pytest.mark.parametrize("sizes", [(3, 5, 8), pytest.param((9,), marks=pytest.mark.slow)], ids=["n3-8", "n9"])
def test_wilcoxon_exact_with_ties_is_the_sign_flip_distribution(sizes):
    """--wilcoxon-method exact with tied |d| (or zsplit zeros): scipy's "exact" counts subsets of untied ranks
    1..m and rounds R+, which is not R+'s distribution for mid-ranks (a22, session 13: up to 1.6 times too small
    on random rows). Ours is the exact sign-flip distribution: equal to scipy's exhaustive PermutationMethod,
    live (n <= 9), and to a hand-worked case."""
    perm = stats.PermutationMethod(n_resamples=np.inf)
    checked = 0
    for zero_method in ("wilcox", "pratt", "zsplit"):
        for n in sizes:
            D = np.round(_rows(n, 500 + n), 12)
            r = paired.wilcoxon_test(D, zero_method=zero_method, method="exact")
            for i in range(D.shape[0]):
                if not _exact_is_approximate(D[i], zero_method) or not np.any(D[i] != 0):
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    o = stats.wilcoxon(D[i], zero_method=zero_method, method=perm)
                assert r["method_used"][i] == "permutation"
                assert r["p_value"][i] == float(o.pvalue) and r["statistic"][i] == float(o.statistic), \
                    (zero_method, n, i)
                checked += 1
    assert checked >= 15  # 44 rows at n = 3, 5, 8; 17 at n = 9
    # hand-worked: d = 1 1 2 (mid-ranks 1.5 1.5 3), R+ = 6 is the largest of the 8 sign flips: p = 2/8;
    # scipy's "exact" counts subsets of {1, 2, 3} with sum >= 6: one, p = 2/8 too; d = 1 1 -2: R+ = 3,
    # sign-flip sums {0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6}: #{<= 3} = 5, #{>= 3} = 5: p = 1
    r = paired.wilcoxon_test(np.array([[1, 1, 2.0], [1, 1, -2.0]]), method="exact")
    assert list(r["p_value"]) == [0.25, 1.0] and list(r["method_used"]) == ["permutation", "permutation"]


def _tie_pattern_rows(n: int, seed: int) -> np.ndarray:
    """Rows of length n with many tie patterns: rounded to 0.1 / 0.05 / 1, zeros at several rates, one tied
    value, two values; plus a row repeated, sign-flipped and permuted (the same ranks, other R+)."""
    rng = np.random.default_rng(seed)
    rows = [np.round(rng.normal(rng.uniform(-0.1, 0.1), 0.2, n), 1), np.round(rng.normal(0.05, 0.3, n) * 20) / 20,
            np.round(rng.normal(0.3, 1.5, n)), np.where(rng.random(n) < rng.uniform(0.05, 0.6), 0.0,
                                                         np.round(rng.normal(0, 0.2, n), 1)),
            np.where(rng.random(n) < 0.9, 0.1, -0.1), rng.choice([-0.2, 0.0, 0.1, 0.3], n)]
    base = rows[0]
    rows += [base, -base, rng.permutation(base) * np.where(rng.random(n) < 0.5, -1, 1)]
    return np.round(np.array(rows), 12)


@pytest.mark.parametrize("n", [4, 11, 16, 23, 38, 60])
def test_wilcoxon_exact_ties_equal_the_sign_flip_oracle_on_random_tie_patterns(n):
    """The packed-integer tail count of ``exact`` with tied |d| / ranked zeros is the exact sign-flip p of
    ``_sign_flip_oracle`` (the distribution written out with a Counter), to the last bit, on random tie patterns,
    each zero method; rows with the same ranks (repeated, sign-flipped, permuted) share one product."""
    checked = 0
    for seed in range(3):
        D = _tie_pattern_rows(n, 700 + 10 * n + seed)
        for zero_method in ("wilcox", "pratt", "zsplit"):
            r = paired.wilcoxon_test(D, zero_method=zero_method, method="exact")
            for i in range(D.shape[0]):
                if not _exact_is_approximate(D[i], zero_method):
                    assert r["method_used"][i] == "exact"
                    continue
                assert r["method_used"][i] == "permutation"
                want_stat, want_p = _sign_flip_oracle(D[i], zero_method)
                assert r["statistic"][i] == want_stat and r["p_value"][i] == want_p, (n, seed, zero_method, i)
                checked += 1
    assert checked >= 60


def test_sign_flip_lower_tails_equal_subset_counts():
    """``_sign_flip_lower_tails`` against the definition: every subset enumerated (m <= 12) or a Counter of the
    subset sums (m <= 60), at every threshold from below 0 to above the total (the packing's edge cases: a
    coefficient as large as it gets, thresholds at and beyond the ends, weights above the threshold)."""
    from itertools import combinations

    from pref_eval.stats.signed_rank import _sign_flip_lower_tails

    rng = np.random.default_rng(41)
    cases = [[], [1], [2, 2], [3] * 12, [1] * 60, list(range(2, 26, 2)), [5, 5, 9, 9, 9, 40]]
    for m in (3, 7, 12, 25, 44, 60):
        cases.append(sorted(int(v) for v in rng.integers(1, 2 * m + 1, m)))
    for weights in cases:
        total = sum(weights)
        if len(weights) <= 12:
            sums = Counter(sum(c) for k in range(len(weights) + 1) for c in combinations(weights, k))
        else:
            sums = _subset_sum_counter(weights)
        tops = list(range(-2, total + 3)) if total <= 400 else [-1, 0, 1, total // 3, total // 2, total - 1,
                                                                total, total + 1]
        got = _sign_flip_lower_tails(weights, tops)
        assert got == [sum(c for v, c in sums.items() if v <= t) for t in tops], weights


def test_exact_null_counts_equal_the_subset_sum_recursion():
    """The untied table (``exact``): #{subsets of {1..m} with sum r}, against the recursion
    c_k(r) = c_{k-1}(r) + c_{k-1}(r - k) written out, m = 0..70, and its known totals and centre."""
    from pref_eval.stats.signed_rank import _exact_null_counts

    c = [1]
    for m in range(71):
        if m:
            c = [a + (c[r - m] if r >= m else 0) for r, a in enumerate(c + [0] * m)]
        got = _exact_null_counts(m)
        assert got == c, m
        assert sum(got) == 2 ** m and len(got) == m * (m + 1) // 2 + 1
    assert _exact_null_counts(4) == [1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1]  # subsets of {1, 2, 3, 4} by sum


@pytest.mark.slow
def test_wilcoxon_exact_ties_equal_the_sign_flip_oracle_large_n():
    """n = 200, 280, 400 (a few rows: the oracle takes ~1-9 s a row there): still the exact p to the last bit."""
    for n, rows, zero_method in ((200, (0, 5), "zsplit"), (280, (3,), "pratt"), (400, (1,), "wilcox")):
        D = _tie_pattern_rows(n, 900 + n)[list(rows)]
        r = paired.wilcoxon_test(D, zero_method=zero_method, method="exact")
        for i in range(D.shape[0]):
            assert r["method_used"][i] == "permutation"
            want_stat, want_p = _sign_flip_oracle(D[i], zero_method)
            assert r["statistic"][i] == want_stat and r["p_value"][i] == want_p, (n, i, zero_method)


def test_wilcoxon_auto_switches_like_scipy():
    # n <= 13 with ties: exhaustive permutation; 14..50 with ties: normal; no ties n <= 50: exact; > 50: normal
    used = {n: paired.wilcoxon_test(_rows(n, 7))["method_used"] for n in (13, 14, 50, 51)}
    assert list(used[13][:4]) == ["exact", "permutation", "permutation", "permutation"]
    assert list(used[14][:4]) == ["exact", "asymptotic", "asymptotic", "asymptotic"]
    assert used[50][0] == "exact" and set(used[51]) == {"asymptotic"}


# n = 31..60 (every k: 1,400 binomtest calls) with the slow tests (session 21, s30)
@pytest.mark.parametrize("sizes", [list(range(1, 31)) + [99, 100, 333, 1000],
                                   pytest.param(list(range(31, 61)), marks=pytest.mark.slow)], ids=["quick", "n31-60"])
def test_sign_test_is_the_exact_binomial_and_equals_binomtest(sizes):
    for n in sizes:
        for k in range(n + 1) if n <= 100 else (0, 1, n // 3, n // 2 - 1, n // 2, n - 2, n):
            p = paired.sign_p_value(k, n)
            assert _close(p, stats.binomtest(k, n, 0.5).pvalue), (k, n)
            tail = min(k, n - k)
            exact = 1 if 2 * k == n else min(1, Fraction(2 * sum(math.comb(n, j) for j in range(tail + 1)), 2 ** n))
            assert p == float(exact)
    assert math.isnan(paired.sign_p_value(0, 0))
    D = _rows(20, 3)
    r = paired.sign_test(D, min_diff=0.1)
    for i in range(D.shape[0]):
        big = np.abs(D[i]) >= 0.1 - 1e-12
        k, m = int((big & (D[i] > 0)).sum()), int(big.sum())
        assert r["statistic"][i] == k and r["n_nonzero"][i] == m
        assert (m == 0 and math.isnan(r["p_value"][i])) or _close(r["p_value"][i], stats.binomtest(k, m).pvalue)
