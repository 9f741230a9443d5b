"""Mutation round 4 (m33, session 23): tests that kill mutants the suite let live, each with an outside
oracle (a documented message, a hand-worked value, a package computed live). The mutants and the equivalent
ones are listed in NOTES.md (m33's entry)."""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.errors import UsageError
from pref_eval.stats.complete_fill import fill_missing


def test_complete_fill_names_the_lacking_run_and_query():
    """``-P -c -m yaap``: the refusal names the run and the query it lacks (run B, the 2nd of 2, lacks t3,
    the 3rd of 3: the existing case had both at index 1, so the query found along the runs' axis passed)."""
    X = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, np.nan]])
    present = ~np.isnan(X)
    with pytest.raises(UsageError, match=r"run 'B' lacks query 't3'"):
        fill_missing(X, present, "yaap", ["t1", "t2", "t3"], ["A", "B"])
    X = np.array([[np.nan, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    with pytest.raises(UsageError, match=r"run 'A' lacks query 't1'"):
        fill_missing(X, ~np.isnan(X), "yaap", ["t1", "t2", "t3"], ["A", "B", "C"])


def test_power_of_a_negative_base_is_numpy_s():
    """libm.power's documented split: the C library's pow for a finite base > 0, numpy's for another base (for
    -0.8 ** k the two differ in the last bit of 6 of these 3,000 on an AVX-512 CPU, so `isfinite(b) and b > 0`
    mutated to `or` is seen there; elsewhere numpy calls the C library and they agree)."""
    from pref_eval import libm

    x = np.arange(3000, dtype=np.float64)
    assert libm.power(-0.8, x).tolist() == np.power(-0.8, x).tolist()
    assert libm.power(0.0, np.array([-1.0, 0.0, 2.0])).tolist() == [np.inf, 1.0, 0.0]
