"""Paired tests, corrections, effect sizes, Tukey HSD: oracle = direct scipy /
statsmodels calls computed here, exhaustive enumeration, hand-worked values."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.descriptivestats import sign_test as sm_sign_test
from statsmodels.stats.multitest import multipletests

from pref_eval.errors import UsageError
from pref_eval.stats import paired
from pref_eval.stats.correction import STATSMODELS_NAMES, adjust
from pref_eval.stats.effect import effect_sizes
from pref_eval.stats.tukey import randomised_tukey_hsd


def _xy(k=12, n=25, seed=1, decimals=3):
    rng = np.random.default_rng(seed)
    x = np.round(rng.beta(2, 4, (k, n)), decimals)
    y = np.round(np.clip(x + rng.normal(0.03, 0.1, (k, n)), 0, 1), decimals)
    return x, y


def test_differences_rounds():
    d = paired.differences([0.3], [0.1 + 0.2 - 0.1])  # 0.3 - 0.2 with round-off
    assert d[0] == 0.1


def test_t_test_equals_ttest_rel_and_its_interval():
    x, y = _xy()
    D = paired.differences(x, y)
    r = paired.t_test(D)
    for i in range(x.shape[0]):
        o = stats.ttest_rel(x[i], y[i])
        ci = o.confidence_interval()
        np.testing.assert_allclose(r["statistic"][i], o.statistic, rtol=1e-9)
        np.testing.assert_allclose(r["p_value"][i], o.pvalue, rtol=1e-9)
        np.testing.assert_allclose([r["ci_low"][i], r["ci_high"][i]], [ci.low, ci.high], rtol=1e-9)
        o1 = stats.ttest_1samp(D[i], 0.0)  # on the same rounded differences: same statistic
        assert r["statistic"][i] == o1.statistic
        assert r["p_value"][i] == pytest.approx(o1.pvalue, rel=1e-13)
    r90 = paired.t_test(D, confidence=0.9)
    ci = stats.ttest_1samp(D[0], 0).confidence_interval(0.9)
    assert (r90["ci_low"][0], r90["ci_high"][0]) == pytest.approx((ci.low, ci.high), rel=1e-12)


def test_t_test_degenerate_rows_follow_scipy():
    r = paired.t_test(np.array([[0.0] * 5, [0.1] * 5]))
    assert np.isnan(r["p_value"][0])
    assert r["p_value"][1] == 0.0 and np.isinf(r["statistic"][1])


def _wilcoxon_matrix(n):
    rng = np.random.default_rng(n)
    rows = [rng.normal(0.05, 0.2, n)]                                    # no ties, no zeros
    rows.append(np.round(rng.normal(0.05, 0.2, n), 1))                     # ties (and maybe zeros)
    r = rng.normal(0, 0.2, n)
    r[:2] = 0.0
    rows.append(r)                                                         # zeros
    rows.append(np.round(rng.normal(0.3, 0.1, n), 6))                      # one-sided
    return np.round(np.array(rows), 12)


@pytest.mark.parametrize("n,zero_method", [(n, "wilcox") for n in (8, 20, 50, 53)]
                         + [pytest.param(13, "wilcox", marks=pytest.mark.slow)]
                         + [(n, z) for n in (8, 20, 53) for z in ("pratt", "zsplit")])
def test_wilcoxon_auto_equals_one_row_scipy_calls(n, zero_method):
    """n = 13 (scipy's ~2 s permutation test on most rows) is marked slow; the suite's quick check of n = 13
    under ``auto`` is test_stats_exact.py's test_wilcoxon_equals_one_row_scipy_calls[auto-wilcox]."""
    D = _wilcoxon_matrix(n)
    r = paired.wilcoxon_test(D, zero_method=zero_method)
    for i in range(D.shape[0]):
        o = stats.wilcoxon(D[i], zero_method=zero_method)
        np.testing.assert_allclose(r["statistic"][i], o.statistic, rtol=1e-12)
        np.testing.assert_allclose(r["p_value"][i], o.pvalue, rtol=1e-12)
    # the exact distribution is used only on rows without ties and zeros, n <= 50
    assert (r["method_used"][0] == "exact") == (n <= 50)
    assert r["method_used"][2] == ("permutation" if n <= 13 else "asymptotic")


def test_wilcoxon_vectorised_scipy_would_differ_but_we_do_not():
    # one tied row switches a *joint* scipy call to the normal approximation
    D = _wilcoxon_matrix(20)
    joint = stats.wilcoxon(D, axis=-1)
    single = stats.wilcoxon(D[0])
    assert joint.pvalue[0] != pytest.approx(single.pvalue, rel=1e-9)
    assert paired.wilcoxon_test(D)["p_value"][0] == pytest.approx(single.pvalue, rel=1e-12)


@pytest.mark.parametrize("method", ["exact", "asymptotic"])
def test_wilcoxon_forced_method(method):
    D = _wilcoxon_matrix(20)[[0, 3]]
    r = paired.wilcoxon_test(D, method=method)
    for i in range(D.shape[0]):
        assert r["p_value"][i] == pytest.approx(stats.wilcoxon(D[i], method=method).pvalue, rel=1e-12)


def test_sign_test_equals_binomtest_and_statsmodels():
    x, y = _xy(k=30, n=20, decimals=1)  # many zero differences
    D = paired.differences(x, y)
    r = paired.sign_test(D)
    for i in range(D.shape[0]):
        k, n = int((D[i] > 0).sum()), int((D[i] != 0).sum())
        # scipy sums floating-point binomial probabilities; ours is the exact ratio, rounded once
        assert r["p_value"][i] == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-14)
        tail = min(k, n - k)
        exact = Fraction(2 * sum(math.comb(n, j) for j in range(tail + 1)), 2 ** n) if 2 * k != n else 1
        assert r["p_value"][i] == float(min(exact, 1))
        assert r["statistic"][i] == k
        assert r["p_value"][i] == pytest.approx(sm_sign_test(D[i], 0)[1], rel=1e-12)
    assert np.isnan(paired.sign_test(np.zeros((1, 5)))["p_value"][0])


def test_randomization_exact_equals_scipy_permutation_test_and_enumeration():
    rng = np.random.default_rng(5)
    D = np.round(rng.normal(0.05, 0.15, (6, 10)), 2)
    r = paired.randomization_test(D, resamples=10_000)
    assert r["exact"] and r["resamples"] == 1024
    for i in range(D.shape[0]):
        o = stats.permutation_test((D[i],), lambda v, axis: np.abs(np.mean(v, axis=axis)),
                                   permutation_type="samples", n_resamples=np.inf, vectorized=True,
                                   alternative="greater")
        assert r["p_value"][i] == pytest.approx(o.pvalue, abs=1e-15)
        # plain enumeration of the 2^10 sign vectors
        obs = abs(D[i].sum())
        cnt = sum(abs(np.dot(s, D[i])) >= obs - 1e-12 for s in itertools.product((-1, 1), repeat=10))
        assert r["p_value"][i] == cnt / 1024


def test_randomization_sampled_is_close_to_exact_and_seeded():
    rng = np.random.default_rng(6)
    D = np.round(rng.normal(0.04, 0.15, (4, 14)), 3)
    exact = paired.randomization_test(D, resamples=1 << 14)
    assert exact["exact"]
    sampled = paired.randomization_test(D, resamples=10_000, seed=3)
    assert not sampled["exact"]
    np.testing.assert_allclose(sampled["p_value"], exact["p_value"], atol=0.015)
    again = paired.randomization_test(D, resamples=10_000, seed=3)
    assert sampled["p_value"].tobytes() == again["p_value"].tobytes()
    other = paired.randomization_test(D, resamples=10_000, seed=4)
    assert other["p_value"].tobytes() != sampled["p_value"].tobytes()
    # a row's p-value does not depend on the other rows
    alone = paired.randomization_test(D[2:3], resamples=10_000, seed=3)
    assert alone["p_value"][0] == sampled["p_value"][2]
    # (count + 1) / (B + 1) form
    assert np.all(np.round(sampled["p_value"] * 10_001) == sampled["p_value"] * 10_001)


@pytest.mark.parametrize("ci_method", ["percentile", "basic", "BCa"])
def test_bootstrap_interval_equals_scipy_bootstrap(ci_method):
    rng = np.random.default_rng(8)
    # dyadic values: resampled sums are exact in floating point, so the
    # comparison with scipy can be exact
    D = rng.integers(-8, 9, (6, 25)) / 8
    r = paired.bootstrap_test(D, resamples=3000, seed=11, ci_method=ci_method)
    for i in range(D.shape[0]):
        o = stats.bootstrap((D[i],), np.mean, n_resamples=3000, rng=11, method=ci_method)
        np.testing.assert_allclose([r["ci_low"][i], r["ci_high"][i]],
                                   [o.confidence_interval.low, o.confidence_interval.high], rtol=1e-12)


def test_bootstrap_interval_close_to_scipy_on_decimal_data_and_p_value():
    x, y = _xy(k=5, n=30)
    D = paired.differences(x, y)
    r = paired.bootstrap_test(D, resamples=4000, seed=2)
    for i in range(D.shape[0]):
        o = stats.bootstrap((D[i],), np.mean, n_resamples=4000, rng=2)
        np.testing.assert_allclose([r["ci_low"][i], r["ci_high"][i]],
                                   [o.confidence_interval.low, o.confidence_interval.high], atol=1e-3)
        # shift-method p-value recomputed from scipy's bootstrap distribution
        boot = o.bootstrap_distribution
        m = D[i].mean()
        p = ((np.abs(boot - m) >= abs(m) - 1e-12).sum() + 1) / 4001
        assert r["p_value"][i] == pytest.approx(p, abs=2 / 4001)
    again = paired.bootstrap_test(D, resamples=4000, seed=2)
    assert again["ci_low"].tobytes() == r["ci_low"].tobytes()


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
def test_corrections_equal_statsmodels(method):
    rng = np.random.default_rng(9)
    for p in (rng.random(40) ** 3, np.round(rng.random(30), 2), np.array([0.01, 0.02, 0.03, 0.04, 0.2])):
        expected = multipletests(p, method=STATSMODELS_NAMES[method])[1]
        np.testing.assert_allclose(adjust(p, method), expected, rtol=1e-14)


def test_corrections_spec_values_and_nan():
    p = np.array([0.01, 0.02, 0.03, 0.04, 0.2])
    np.testing.assert_allclose(adjust(p, "holm"), [0.05, 0.08, 0.09, 0.09, 0.2])
    np.testing.assert_allclose(adjust(p, "bonferroni"), [0.05, 0.10, 0.15, 0.20, 1])
    np.testing.assert_allclose(adjust(p, "bh"), [0.05, 0.05, 0.05, 0.05, 0.2])
    np.testing.assert_array_equal(adjust(p, "none"), p)
    q = np.array([0.01, np.nan, 0.04])
    out = adjust(q, "holm")
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.04)
    with pytest.raises(UsageError):
        adjust(p, "hs")


def test_effect_sizes():
    D = np.array([[0.1, 0.2, 0.0, -0.1], [0.0, 0.0, 0.0, 0.0]])
    e = effect_sizes(D)
    assert e["mean_diff"][0] == pytest.approx(0.05)
    assert e["d_z"][0] == pytest.approx(0.05 / np.std(D[0], ddof=1))
    assert (e["wins"][0], e["ties"][0], e["losses"][0]) == (2, 1, 1)
    assert np.isnan(e["d_z"][1])


def _tukey_exact(X):
    """Exhaustive randomised Tukey HSD: all within-query permutations."""
    R, Q = X.shape
    perms = list(itertools.permutations(range(R)))
    m = X.mean(axis=1)
    ranges = []
    for combo in itertools.product(perms, repeat=Q):
        P = np.stack([X[list(p), q] for q, p in enumerate(combo)], axis=1)
        mm = P.mean(axis=1)
        ranges.append(mm.max() - mm.min())
    ranges = np.array(ranges)
    return np.array([[np.mean(ranges >= abs(m[i] - m[j]) - 1e-12) for j in range(R)] for i in range(R)])


def test_randomised_tukey_close_to_exhaustive_and_seeded():
    X = np.array([[0.9, 0.7, 0.8, 0.6], [0.5, 0.6, 0.4, 0.5], [0.2, 0.5, 0.3, 0.1]])
    exact = _tukey_exact(X)
    P = randomised_tukey_hsd(X, resamples=20_000, seed=1)
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(P[off], exact[off], atol=0.01)
    assert np.allclose(P, P.T) and np.all(np.diag(P) == 1)
    assert randomised_tukey_hsd(X, resamples=2000, seed=1).tobytes() == \
        randomised_tukey_hsd(X, resamples=2000, seed=1).tobytes()


def test_tukey_is_more_conservative_than_unadjusted_randomization():
    rng = np.random.default_rng(4)
    X = np.round(rng.beta(2, 3, (6, 30)) + np.linspace(0, 0.15, 6)[:, None], 4)
    P = randomised_tukey_hsd(X, resamples=5000, seed=0)
    iu = np.triu_indices(6, 1)
    D = paired.differences(X[iu[0]], X[iu[1]])
    raw = paired.randomization_test(D, resamples=5000, seed=0)["p_value"]
    assert np.all(P[iu] >= raw - 0.02)


def test_sign_test_minimum_difference_is_binomtest_on_thresholded_counts():
    """Smucker et al. 2007's "sign minimum difference": |d| < delta is a tie.
    Hand-counted: delta = 0.01 keeps 0.03, 0.01 (boundary kept), -0.02 -> k = 2 of n = 3."""
    from pref_eval.stats.paired import sign_test

    d = np.array([0.005, -0.02, 0.03, 0.01, -0.009, 0.0, 0.002])
    r = sign_test(d, min_diff=0.01)
    assert r["statistic"][0] == 2 and r["n_nonzero"][0] == 3
    assert r["p_value"][0] == pytest.approx(stats.binomtest(2, 3, 0.5).pvalue, rel=1e-15)
    r0 = sign_test(d)  # plain sign test: 4 positive of 6 non-zero
    assert r0["statistic"][0] == 4 and r0["n_nonzero"][0] == 6
    assert r0["p_value"][0] == pytest.approx(stats.binomtest(4, 6, 0.5).pvalue, rel=1e-15)
    # rows vectorised, each row its own counts; everything below delta -> p nan
    D = np.vstack([d, np.full(7, 0.001)])
    r2 = sign_test(D, min_diff=0.01)
    assert r2["p_value"][0] == r["p_value"][0] and np.isnan(r2["p_value"][1])
    with pytest.raises(ValueError):
        sign_test(d, min_diff=-1)


def test_row_quantiles_are_numpys_linear_quantile_bit_for_bit():
    """The bootstrap interval's quantiles (one pair of probabilities per row, BCa's) against numpy.quantile
    called row by row, which scipy.stats.bootstrap calls: same bits, ties, p = 0 and p = 1 included."""
    rng = np.random.default_rng(31)
    for B in (1, 2, 7, 1000):
        x = np.round(rng.normal(size=(40, B)), int(rng.integers(1, 4)))  # rounded: ties
        probs = rng.random((40, 2))
        probs[:3] = [[0.0, 1.0], [0.5, 0.5], [1e-300, 1 - 1e-16]]
        got = paired._row_quantiles(x, probs)
        want = np.array([np.quantile(x[i], probs[i]) for i in range(len(x))])
        assert got.tobytes() == want.tobytes()
