"""Randomised Tukey HSD over all runs (Carterette, TOIS 2012; Sakai 2018).

For one measure with per-query matrix X (runs x queries) and run means m_i:
for b = 1..B, permute the runs' values **within each query** independently
(the null hypothesis: the run labels are exchangeable on every query),
record the range max_i m*_i - min_i m*_i of the permuted run means. For each
pair, p_ij = (#{range* >= |m_i - m_j|} + 1) / (B + 1). Comparing every pair
with the distribution of the *maximum* difference controls the family-wise
error rate over all pairs of runs, so these p-values need no further
correction.

"At least as large" allows :data:`NOISE` = 1e-12 (besides 100 eps of round-off): the paired tests' rule that a
difference below the 12th decimal is float noise (``round(x - y, 12)``, docs/differences-stats.md 3.). Two runs
whose per-query differences all round to 0 -- a tie to every paired test -- have |m_i - m_j| <= 5e-13 and get
p = 1 here too (the raw values are permuted: rounding each value to 12 decimals would not do it, since a value
rounds up and its neighbour 1e-16 away down).

Permutations come from ``numpy.random.default_rng(seed).permuted`` (one
stream per call; chunked, no Python loop per resample), over the rows in the
order given: :func:`pref_eval.stats.compare` gives them in the order of the
runs' names, so that a pair's p-value does not depend on the runs' order.
"""
from __future__ import annotations

import numpy as np

from .paired import _tolerance

NOISE = 1e-12  # a difference of means below the 12th decimal is float noise (the paired tests' round(x - y, 12))


def randomised_tukey_hsd(X: np.ndarray, resamples: int = 10_000, seed: int | None = 0,
                         chunk: int = 500) -> np.ndarray:
    """Matrix P (runs x runs) of randomised-Tukey-HSD p-values (diagonal 1; Carterette, TOIS 2012; Sakai 2018):
    p_ij = (#{b <= B: max_k m*_k - min_k m*_k >= |m_i - m_j|} + 1) / (B + 1), m* the run means of the b-th
    permutation of the runs' values within each query (module docstring)."""
    X = np.asarray(X, dtype=float)
    R, Q = X.shape
    if R < 2 or Q == 0:  # before the means: no query gave numpy's "Mean of empty slice" warnings on stderr
        return np.ones((R, R))
    means = X.mean(axis=1)
    diff = np.abs(means[:, None] - means[None, :])
    rng = np.random.default_rng(seed)
    ranges = np.empty(resamples)
    for start in range(0, resamples, chunk):
        b = min(chunk, resamples - start)
        stack = np.broadcast_to(X, (b, R, Q)).copy()
        perm = rng.permuted(stack, axis=1)
        m = perm.mean(axis=2)
        ranges[start:start + b] = m.max(axis=1) - m.min(axis=1)
    ranges.sort()
    # round-off: 100 eps of the difference (scipy's relative tolerance) or of the values' scale, whichever is
    # larger (a permuted range mathematically equal to a small difference of large means differs by round-off
    # of the means, not of the difference): the randomization test's allowance; plus NOISE, so that runs the
    # paired tests call a tie (every |x_q - y_q| rounds to 0 at 12 decimals) get p = 1 (thr < 0 <= every range)
    thr = diff - (_tolerance(diff, np.abs(X).max()) + NOISE)
    # count of ranges >= thr, via the sorted ranges
    count = resamples - np.searchsorted(ranges, thr, side="left")
    P = (count + 1) / (resamples + 1)
    np.fill_diagonal(P, 1.0)
    return P
