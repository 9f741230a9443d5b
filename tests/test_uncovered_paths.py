"""Computing paths no other test ran (m33, session 23: found by a coverage run of the whole suite).

Each test holds an outside oracle: a closed form, a package computed live, or a value worked by hand.
"""
from __future__ import annotations

import math

import pytest

from pref_eval.stats.special import t_quantile


@pytest.mark.parametrize("exponent", [5, 20, 100, 160, 200, 300, 307])
def test_t_quantile_far_tails_equal_the_closed_forms(exponent):
    """Student's t quantile where Newton's density underflows (t^2 overflows: p < ~1e-150 at 1 degree of
    freedom raised ZeroDivisionError) and beyond the largest float. Oracle: the closed forms of the t
    distribution's quantile at 1 degree of freedom (Cauchy: tan(pi (p - 1/2)) = -1/tan(pi p)) and 2
    (t = (2p - 1) / sqrt(2 p (1 - p))); scipy.special.stdtrit is no oracle there (it returns 1.5e153 or
    +inf for p = 1e-300 at small degrees of freedom)."""
    p = 10.0 ** -exponent
    assert t_quantile(p, 1.0) == pytest.approx(-1.0 / math.tan(math.pi * p), rel=1e-12)
    assert t_quantile(p, 2.0) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-12)


def test_t_quantile_beyond_the_largest_float_is_infinite():
    """-1/(pi p) overflows for p = 1e-310 at 1 degree of freedom, and at 0.05 degrees of freedom the tail
    ~ C t^-0.05 puts the 1e-200 quantile near 1e4000: both -inf (+inf for 1 - p)."""
    assert t_quantile(1e-310, 1.0) == -math.inf
    assert t_quantile(1e-200, 0.05) == -math.inf
    assert t_quantile(1.0, 3.0) == math.inf and math.isnan(t_quantile(math.nan, 3.0))
    assert math.isnan(t_quantile(0.3, -1.0)) and math.isnan(t_quantile(1.5, 3.0))
