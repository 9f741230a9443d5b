"""Yan et al. (SIGIR 2022), Figure 3, row "Clarke et al.": the pruning tournament
(k=1, p=7, f=9) on their 100-item Case A and Case B matrices, 1,000 repetitions.

Oracle: the paper's figures (Case A: best item found in 502 of 1,000, 599-759
comparisons) and prefj itself driven on the same matrices with five seeds
(shared/specs/preference_judgments.md §5: Case A found 474-507, comparisons
588-772; Case B a winner found 760, 585-752). "Within sampling noise": a binomial
proportion near 0.5 over 1,000 runs has sd ≈ 16, so the bounds below are about
±3 sd around the span of the oracle values.
"""

import numpy as np
import pytest

from pref_eval.zelo.simulate import simulate_tournament

from conftest import need_shared  # noqa: E402


def _matrix(name):
    path = need_shared("data", "duelingBandits", name)
    return np.loadtxt(path)


@pytest.mark.slow  # 1,000 tournaments: ~15-25 s each (CI runs it)
def test_case_a_1000_repetitions():
    r = simulate_tournament(_matrix("caseA.txt"), 1000, seed=0)
    assert 430 <= int(r["found"].sum()) <= 555
    lo, hi = int(r["comparisons"].min()), int(r["comparisons"].max())
    assert 560 <= lo <= 630 and 730 <= hi <= 800


@pytest.mark.slow
def test_case_b_1000_repetitions():
    r = simulate_tournament(_matrix("caseB.txt"), 1000, seed=0)
    assert 710 <= int(r["found"].sum()) <= 810
    lo, hi = int(r["comparisons"].min()), int(r["comparisons"].max())
    assert 550 <= lo <= 620 and 720 <= hi <= 790
