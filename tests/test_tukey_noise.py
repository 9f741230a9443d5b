"""The randomised Tukey HSD and float noise (session 27, t37): one rule for every test of zelo_compare -- a difference
below the 12th decimal is float noise (docs/differences-stats.md 3.). The paired tests round each query's difference
(``round(x - y, 12)``); the Tukey HSD, which permutes the values themselves, allows 1e-12 (besides round-off) in "a
permuted range at least as large as |m_i - m_j|", so a pair that every paired test calls a tie gets p = 1.

Oracles: the permutation distribution by brute force from the definition (every within-query permutation, run means
and ranges in exact rational arithmetic on the floats' values) and the tie case worked by hand. Before session 27 the
noise cases below gave p = 0.5 (two runs 3e-15 apart on two of three queries; fuzz_compare 201:1178 printed 0.79).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from pref_eval.stats import compare, paired
from pref_eval.stats.tukey import randomised_tukey_hsd

NOISE = Fraction(1, 10**12)


def brute_force_p(X: np.ndarray) -> np.ndarray:
    """Exact p_ij = #{within-query permutations: max m* - min m* >= |m_i - m_j| - 1e-12} / (R!)^Q, every
    permutation of the runs' values on every query enumerated, means in Fractions (the definition, no sampling)."""
    R, Q = X.shape
    F = [[Fraction(float(v)) for v in row] for row in X]
    means = [sum(row) / Q for row in F]
    ranges = []
    for perms in itertools.product(itertools.permutations(range(R)), repeat=Q):
        m = [sum(F[perms[q][r]][q] for q in range(Q)) / Q for r in range(R)]
        ranges.append(max(m) - min(m))
    P = np.ones((R, R))
    for i, j in itertools.combinations(range(R), 2):
        thr = abs(means[i] - means[j]) - NOISE
        P[i, j] = P[j, i] = sum(r >= thr for r in ranges) / len(ranges)
    return P


NOISE_CASES = {
    # two runs 3e-15 apart on two queries of three (fuzz_compare 201:1178's first measure): by hand, every
    # difference rounds to 0 at 12 decimals; the permuted ranges are 0 or 2e-15 = |m_a - m_b|: p was 1/2
    "3e-15_apart": [[-3e-15, -3e-15, 0.0], [0.0, 0.0, 0.0]],
    # apart by less than half a unit of the 12th decimal, more than 100 eps of the values (the old allowance)
    "4e-13_apart": [[0.5, 0.25, 0.75, 0.125], [0.5 + 2e-13, 0.25 + 4e-13, 0.75 - 1e-13, 0.125 + 3e-13]],
    # one ulp apart on every query, both signs (within the old allowance too: a guard)
    "one_ulp": [[0.1, 0.30000000000000004, 0.7], [0.1 + 2**-56, 0.3, 0.7 - 2**-53]],
    # straddling a rounding boundary of the 12th decimal on every query: each value rounds to another 12-decimal
    # number than its neighbour (0.123456789012 vs ...013), their difference (4e-13) rounds to 0 -- why the values
    # are not rounded before the draws: that would make these runs 1e-12 apart on every query (p = 1/4 here)
    "straddle": [[0.1234567890123, 0.2234567890123, 0.5234567890123],
                 [0.1234567890127, 0.2234567890127, 0.5234567890127]],
    # three runs noise apart, one of four queries tied exactly
    "three_runs": [[0.5, 0.25 + 1e-13, 0.125, 0.0], [0.5 + 3e-13, 0.25, 0.125, 0.0],
                   [0.5 - 1e-13, 0.25, 0.125 + 2e-13, 0.0]],
}


@pytest.mark.parametrize("name", NOISE_CASES)
def test_runs_apart_by_float_noise_get_p_one(name):
    """Every pair of these runs is a tie to the paired tests (all its rounded differences 0); the brute force
    with the 1e-12 allowance gives exactly 1, and so must ours (fails on the code before session 27)."""
    X = np.array(NOISE_CASES[name])
    for i, j in itertools.combinations(range(len(X)), 2):
        assert not paired.differences(X[i], X[j]).any()
    np.testing.assert_array_equal(brute_force_p(X), 1.0)
    np.testing.assert_array_equal(randomised_tukey_hsd(X, resamples=999, seed=3), 1.0)


def test_noise_pair_beside_a_real_difference():
    """A third run really apart: the noise pair still gets p = 1 (every range >= 0 > |m_a - m_b| - 1e-12), the
    other pairs the brute force's p within Monte Carlo error."""
    X = np.array([[0.2, 0.4, 0.6], [0.2 + 3e-17, 0.4 - 1e-16, 0.6], [0.9, 0.8, 0.7]])
    exact = brute_force_p(X)
    assert exact[0, 1] == 1.0
    B = 20_000
    P = randomised_tukey_hsd(X, resamples=B, seed=11)
    assert P[0, 1] == 1.0
    for i, j in ((0, 2), (1, 2)):
        e = exact[i, j]
        assert abs(P[i, j] - e) <= 5 * math.sqrt(e * (1 - e) / B) + 1 / B, (i, j, P[i, j], e)


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_brute_force_on_small_random_tables(seed):
    """Small tables (R! ** Q <= 1,296) of tenths, thousandths and continuous values, some runs noise copies of
    others: ours (B = 20,000 draws, seeded) within 5 standard errors of the exact p; noise pairs exactly 1."""
    rng = np.random.default_rng([27, seed])
    R = int(rng.integers(2, 4))
    Q = int(rng.integers(2, 5 if R == 3 else 9))
    kind = seed % 3
    X = rng.integers(0, 11, (R, Q)) / 10 if kind == 0 else np.round(rng.random((R, Q)), 3 if kind == 1 else 15)
    if R == 3:
        X[2] = X[0] + rng.choice([0.0, 1e-16, -2e-13, 4e-13], Q)  # float noise apart from run 0
    exact = brute_force_p(X)
    B = 20_000
    P = randomised_tukey_hsd(X, resamples=B, seed=seed)
    for i, j in itertools.combinations(range(R), 2):
        e = exact[i, j]
        if not paired.differences(X[i], X[j]).any():
            assert P[i, j] == e == 1.0
        else:
            assert abs(P[i, j] - e) <= 5 * math.sqrt(e * (1 - e) / B) + 1 / B, (i, j, P[i, j], e)


def test_tie_is_a_tie_in_every_column():
    """The same pair through ``compare`` with every test: the paired tests see no non-zero difference (t and sign
    undefined -> null/nan, Wilcoxon, randomization and bootstrap p = 1), and the Tukey HSD p = 1, not 0.5."""
    rows = [(run, f"q{q}", "m", v) for run, vals in (("A", [-3e-15, -3e-15, 0.0]), ("B", [0.0, 0.0, 0.0]))
            for q, v in enumerate(vals)]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    res = compare(frame, tests="t,wilcoxon,sign,randomization,bootstrap,tukey", resamples=511, seed=1)
    got = {r["test"]: r for r in res.records.to_dict("records")}
    assert math.isnan(got["t"]["p_value"]) and math.isnan(got["sign"]["p_value"])
    for t in ("wilcoxon", "randomization", "bootstrap", "tukey"):
        assert got[t]["p_value"] == 1.0, (t, got[t]["p_value"])
    assert got["sign"]["statistic"] == 0 and got["tukey"]["p_adjusted"] == 1.0
