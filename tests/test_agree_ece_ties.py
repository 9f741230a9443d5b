"""zelo_agree's ECE with ties and uneven buckets, through ``pref_eval.agree`` itself (session 30, c40; j39's
leftover: its scikit-learn check of ties went through ``agree.calibration.buckets`` only, since the symmetrised
entries put a run nearer its end beside its mirror nearer its start).

* Live: scikit-learn's ``calibration_curve(..., strategy="quantile")`` (an entry equal to a percentile edge goes to
  the lower bin, so a run across a cut lies wholly below it). Ties in the lower half of the symmetrised entries,
  each nearer its end: scikit-learn's lower half of bins is zelo_agree's, and zelo_agree's upper half their mirror.
  A run of mu = 1/2 on the middle cut (any judge scoring a pair 1/2, B even): its own gap is 0 (its y are mirrored),
  so scikit-learn's ECE, which puts it below the cut, is zelo_agree's, which makes it a bucket of its own --
  this found the defect: the run made no cut, the two buckets around 1/2 merged and their gaps cancelled (ECE 0
  at B = 2 for any such judge). B not dividing N where scikit-learn's percentile edges fall on the same entries.
* By hand: a run exactly mid-way across a cut (equal distance: the end nearer the middle), B not dividing N.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from test_agree_ece_oracle import _calibration


def _buckets(got: dict) -> list[tuple[float, float, int]]:
    """(predicted, observed, n) per bucket of zelo_agree's records, in order."""
    out = []
    while f"bucket{len(out) + 1:02d}.predicted" in got:
        tag = f"bucket{len(out) + 1:02d}"
        out.append((got[f"{tag}.predicted"][0], got[f"{tag}.observed"][0], got[f"{tag}.predicted"][1]))
    return out


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_ties_through_agree_against_scikit_learn(tmp_path, seed):
    """Pairs scored below 1/2 (their mirrors above), runs of 3-12 equal scores across some cuts of the lower half,
    each nearer its end; B = 8, N = 2 x 160 entries."""
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(seed)
    B, m = 8, 40
    P = B * m // 2
    mu = np.sort(np.round(0.02 + 0.46 * rng.random(P), 9))
    for b in range(1, B // 2):
        near, far = sorted(rng.integers(1, 7, size=2).tolist())
        far += near == far
        mu[b * m - far:b * m + near] = mu[b * m - far]  # across the cut b*m, nearer its end
    y = (rng.random(P) < 0.1 + 0.5 * mu).astype(float)
    got = _calibration(tmp_path, mu, y, B)
    ours = _buckets(got)
    assert len(ours) == B and [n for _, _, n in ours] != [m] * B  # the runs moved cuts
    t, p = calibration.calibration_curve(np.concatenate([y, 1 - y]), np.concatenate([mu, 1 - mu]), n_bins=B,
                                         strategy="quantile")
    low = ours[:B // 2]
    assert [v for v, _, _ in low] == pytest.approx(list(p[:B // 2]), abs=1e-12)
    assert [v for _, v, _ in low] == pytest.approx(list(t[:B // 2]), abs=1e-12)
    high = ours[B // 2:][::-1]  # the mirror of the lower half
    assert [(1 - a, 1 - b, n) for a, b, n in high] == [pytest.approx((a, b, n), abs=1e-12) for a, b, n in low]
    want = 2 * sum(n / (2 * P) * abs(ti - pi) for (_, _, n), ti, pi in zip(low, t, p, strict=False))
    assert got["ece"][0] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("B, seed", [(2, 31), (2, 32), (4, 33), (8, 34), (20, 35)])
def test_a_run_of_one_half_on_the_middle_cut_against_scikit_learn(tmp_path, B, seed):
    """A judge scoring some pairs 1/2 (else distinct scores), B even dividing N: scikit-learn's ECE (its bins
    weighted by their sizes) is zelo_agree's, and its bin below the middle is zelo_agree's bucket below the run of
    1/2 pooled with the run. Fails on session 29's rule (no cut: ECE 0 at B = 2)."""
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(seed)
    P = 10 * B
    halves = int(rng.integers(1, 4))
    mu = np.concatenate([np.round(0.05 + 0.4 * rng.random(P - halves), 9), [0.5] * halves])
    y = (rng.random(P) < 0.9 - 0.8 * mu).astype(float)  # badly calibrated: far from the diagonal
    got = _calibration(tmp_path, mu, y, B)
    ours = _buckets(got)
    N = 2 * P
    mid = B // 2
    assert len(ours) == B + 1 and ours[mid][2] == 2 * halves and ours[mid][0] == pytest.approx(0.5, abs=1e-12)
    t, p = calibration.calibration_curve(np.concatenate([y, 1 - y]), np.concatenate([mu, 1 - mu]), n_bins=B,
                                         strategy="quantile")
    (pa, oa, na), (pr, orr, nr) = ours[mid - 1], ours[mid]
    pooled = [*ours[:mid - 1], ((pa * na + pr * nr) / (na + nr), (oa * na + orr * nr) / (na + nr), na + nr),
              *ours[mid + 1:]]
    assert [v for v, _, _ in pooled] == pytest.approx(list(p), abs=1e-12)
    assert [v for _, v, _ in pooled] == pytest.approx(list(t), abs=1e-12)
    want = sum(n / N * abs(ti - pi) for (_, _, n), ti, pi in zip(pooled, t, p, strict=True))
    assert want > 0.1 and got["ece"][0] == pytest.approx(want, abs=1e-12)


def test_hand_worked_run_exactly_mid_way_across_a_cut(tmp_path):
    """Six pairs (mu, y): (0.1, 0), (0.2, 0), (0.25, 1), (0.25, 0), (0.3, 1), (0.4, 1); with their mirrors, 12
    entries sorted: 0.1 0.2 [0.25 0.25] 0.3 0.4 | 0.6 0.7 [0.75 0.75] 0.8 0.9. B = 4: the targets 3, 6, 9. The
    run at positions 2-3 is as far from 3 on either side (boundaries 2 and 4): the end nearer the middle 6, 4;
    its mirror at 8-9, target 9: 8; 6 is a boundary. Buckets of 4, 2, 2, 4:
      1: mu 0.1 0.2 0.25 0.25 -> 0.2, y 0 0 1 0 -> 1/4: gap 1/20;   2: 0.3 0.4 -> 0.35, y 1 1: gap 13/20;
      3: 0.6 0.7 -> 0.65, y 0 0: gap 13/20;   4: 0.75 0.75 0.8 0.9 -> 0.8, y 0 1 1 1 -> 3/4: gap 1/20.
    ECE = 2 (4/12 x 1/20 + 2/12 x 13/20) = 1/4 (cutting at the run's other end, 2 and 10: 7/20)."""
    got = _calibration(tmp_path, [0.1, 0.2, 0.25, 0.25, 0.3, 0.4], [0, 0, 1, 0, 1, 1], 4)
    ours = _buckets(got)
    assert [n for _, _, n in ours] == [4, 2, 2, 4]
    assert [v for v, _, _ in ours] == pytest.approx([0.2, 0.35, 0.65, 0.8], abs=1e-12)
    assert [v for _, v, _ in ours] == pytest.approx([0.25, 1, 0, 0.75], abs=1e-12)
    assert got["ece"][0] == pytest.approx(float(Fraction(1, 4)), abs=1e-12)


def test_hand_worked_buckets_not_dividing_the_entries(tmp_path):
    """Five pairs (mu, y): (0.1, 0), (0.2, 1), (0.3, 0), (0.4, 1), (0.45, 1); 10 entries sorted 0.1 0.2 0.3 0.4
    0.45 | 0.55 0.6 0.7 0.8 0.9 (mirrors' y: 0 0 1 0 1).
    B = 3: targets 10/3 and 20/3 go to the nearest boundaries 3 and 7: buckets of 3, 4, 3 --
      0.1 0.2 0.3 -> 0.2, y 0 1 0 -> 1/3: gap 2/15;  0.4 0.45 0.55 0.6 -> 0.5, y 1 1 0 0 -> 1/2: gap 0;
      0.7 0.8 0.9 -> 0.8, y 1 0 1 -> 2/3: gap 2/15.  ECE = 2 x 3/10 x 2/15 = 2/25.
    B = 4: targets 2.5, 5, 7.5; 2.5 is as far from 2 as from 3: 3 (nearer the middle 5), 7.5: 7: buckets of 3, 2,
    2, 3 -- gaps 2/15, |0.425 - 1| = 23/40, |0.575 - 0| = 23/40, 2/15: ECE = 2 (3/10 x 2/15 + 2/10 x 23/40) =
    31/100. scikit-learn's quantile edges (percentiles at 2.25, 4.5, 6.75 of the 10 entries) cut there too:
    checked live where installed."""
    mu, y = [0.1, 0.2, 0.3, 0.4, 0.45], [0, 1, 0, 1, 1]
    got = _calibration(tmp_path, mu, y, 3)
    assert [n for _, _, n in _buckets(got)] == [3, 4, 3]
    assert got["ece"][0] == pytest.approx(float(Fraction(2, 25)), abs=1e-12)
    got = _calibration(tmp_path, mu, y, 4)
    ours = _buckets(got)
    assert [n for _, _, n in ours] == [3, 2, 2, 3]
    assert [v for v, _, _ in ours] == pytest.approx([0.2, 0.425, 0.575, 0.8], abs=1e-12)
    assert got["ece"][0] == pytest.approx(float(Fraction(31, 100)), abs=1e-12)
    try:
        from sklearn.calibration import calibration_curve
    except ImportError:
        return
    t, p = calibration_curve(np.array(y + [1 - v for v in y], dtype=float), np.array(mu + [1 - v for v in mu]),
                             n_bins=4, strategy="quantile")
    assert list(p) == pytest.approx([v for v, _, _ in ours], abs=1e-12)
    assert list(t) == pytest.approx([v for _, v, _ in ours], abs=1e-12)
