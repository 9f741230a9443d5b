"""The t-test of a run a constant apart from the other on every query (session 27, t37: session 26's leftover).

The differences are equal, so their sd is 0 and t = mean / 0 mathematically. What is computed follows the round-off
of numpy's mean, as in scipy (the same numpy operations, ``paired.t_test``'s docstring): where the mean of the n
equal values is exact (0.5, -0.25, 1e-12 on these counts) the deviations are 0, sd = 0 and t = +-inf, p = 0 (scipy:
the same); where it is not (0.1 on 20 topics sums to 0.10000000000000002) sd is that round-off and t is huge, with
the same bits as scipy's, its p the nearest double of the t tail at that t (scipy's own p a few ulps off, or both 0
below the smallest double). d_z is null either way (sd = 0 by definition: effect.py). Oracle: scipy
``ttest_1samp`` on the row alone, live; ``special.t_two_sided_exact`` (45 digits) for the p-value.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pref_eval.stats import compare, paired
from pref_eval.stats.special import t_two_sided_exact

ROWS = {  # name: (value, n, scipy's t is infinite)
    "0.5x20": (0.5, 20, True),
    "-0.25x7": (-0.25, 7, True),
    "1e-12x10": (1e-12, 10, True),
    "0.1x20": (0.1, 20, False),
    "0.1x3": (0.1, 3, False),
    "0.1x55": (0.1, 55, False),
    "0.3-0.2x20": (float(np.round(0.3 - 0.2, 12)), 20, False),
}


def _scipy(d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.ttest_1samp(d, 0.0)


@pytest.mark.parametrize("name", ROWS)
def test_constant_row_t_is_scipys(name):
    value, n, infinite = ROWS[name]
    d = np.full(n, value)
    ref = _scipy(d)
    got = paired.t_test(d)
    t, p = got["statistic"][0], got["p_value"][0]
    assert math.isinf(ref.statistic) == infinite  # which rows are infinite: scipy's round-off, pinned
    assert t == ref.statistic  # to the last bit, inf included (and its sign)
    if infinite:
        assert p == ref.pvalue == 0.0
    else:
        assert 1e15 < abs(t) < 1e17
        assert p == t_two_sided_exact(float(t), n - 1.0)
        assert p == ref.pvalue == 0.0 or abs(p - ref.pvalue) <= 1e-12 * ref.pvalue


@pytest.mark.parametrize("name", ["0.5x20", "0.1x20", "0.1x55"])
def test_constant_pair_among_other_runs_equals_scipy_alone(name):
    """Through ``compare``: run B is run A + value on every query, beside two other runs; the pair's t equals scipy's
    on its row alone, d_z is nan."""
    value, n, infinite = ROWS[name]
    rng = np.random.default_rng(9)
    a = np.round(rng.random(n), 1)
    vals = {"A": a, "B": a + value, "C": rng.random(n), "D": np.round(rng.random(n), 2)}
    frame = pd.DataFrame([(r, f"q{q:02d}", "m", float(v[q])) for r, v in vals.items() for q in range(n)],
                         columns=["run", "qid", "measure", "value"])
    rec = compare(frame, tests="t").records
    row = rec[(rec.run_a == "A") & (rec.run_b == "B")].iloc[0]
    d = paired.differences(vals["A"], vals["B"])
    assert (d == d[0]).all()
    ref = _scipy(d)
    assert math.isinf(ref.statistic) == infinite
    assert row["statistic"] == ref.statistic and math.isnan(row["d_z"])
