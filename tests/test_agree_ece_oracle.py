"""zelo_agree's expected calibration error against outside oracles (session 28, j38; j37's leftover: ECE was
checked only against its own bucket rule).

ECE is Naeini, Cooper & Hauskrecht's (AAAI 2015, "Obtaining Well Calibrated Probabilities Using Bayesian
Binning"): ECE = sum_i P(i) |o_i - e_i| over bins of the predictions, P(i) the share of the entries in bin i,
o_i their observed mean, e_i their mean prediction; zelo_agree's bins are equal-population ones (docs/zelo_agree.md).

* Live: scikit-learn's ``sklearn.calibration.calibration_curve(y, p, n_bins=B, strategy="quantile")`` gives
  each bin's observed and predicted mean on bins cut at ``numpy.percentile`` edges. Without ties and with B
  dividing the number of entries, its bins are the plain equal-population ones, so they must be zelo_agree's
  buckets entry for entry, and the bins all hold N/B entries: ECE = the mean over the bins of |o_i - e_i|. The
  entries are zelo_agree's (each pair in both orientations), computed through ``pref_eval.agree``. Skipped
  without scikit-learn (not a dependency of the package or its tests; ``PYTHONPATH`` to a copy installed
  elsewhere runs it).
* Always: a case worked by hand through ``pref_eval.agree``.
"""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from pref_eval.api import agree


def _write(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _calibration(tmp_path, mu, y, n_buckets: int) -> dict:
    """zelo_agree's calibration records of a judge scoring the pairs ``mu`` against a reference voting ``y``."""
    ref = [{"qid": f"q{k % 7}", "doc_a": f"a{k}", "doc_b": f"b{k}", "score": float(v)} for k, v in enumerate(y)]
    judge = [{"qid": f"q{k % 7}", "doc_a": f"a{k}", "doc_b": f"b{k}", "score": float(v)} for k, v in enumerate(mu)]
    recs = agree([_write(tmp_path / "ref.jsonl", ref), _write(tmp_path / "judge.jsonl", judge)],
                 names=["ref", "judge"], levels=["calibration"], resamples=0, buckets=n_buckets)
    return {r.statistic: (r.value, r.n) for r in recs}


def test_hand_worked_ece_through_agree(tmp_path):
    """Six pairs, the judge's score mu against the reference's single vote y:
    (0.1, 0), (0.15, 1), (0.35, 1), (0.55, 0), (0.8, 1), (0.9, 1). Both orientations add (1 - mu, 1 - y):
    (0.9, 1), (0.85, 0), (0.65, 0), (0.45, 1), (0.2, 0), (0.1, 0). Sorted by mu, 12 entries:
    0.1 y0, 0.1 y0, 0.15 y1, 0.2 y0 | 0.35 y1, 0.45 y1, 0.55 y0, 0.65 y0 | 0.8 y1, 0.85 y0, 0.9 y1, 0.9 y1.
    Three buckets (cuts at 4 and 8, where mu changes):
      1: mean mu (0.1 + 0.1 + 0.15 + 0.2) / 4 = 0.1375, mean y 1/4 -> |0.1375 - 0.25| = 0.1125
      2: (0.35 + 0.45 + 0.55 + 0.65) / 4 = 0.5, mean y 2/4          -> 0
      3: (0.8 + 0.85 + 0.9 + 0.9) / 4 = 0.8625, mean y 3/4          -> 0.1125
    ECE = 4/12 * 0.1125 + 4/12 * 0 + 4/12 * 0.1125 = 0.075.
    Two buckets (cut at 6: 0.45 | 0.55): mean mu 1.35 / 6 = 0.225 and 0.775 (the curve is symmetric), mean y
    3/6 in both: ECE = 6/12 * |0.225 - 0.5| + 6/12 * |0.775 - 0.5| = 0.275."""
    mu = [0.1, 0.15, 0.35, 0.55, 0.8, 0.9]
    y = [0, 1, 1, 0, 1, 1]
    got = _calibration(tmp_path, mu, y, 3)
    assert got["ece"][0] == pytest.approx(0.075, abs=1e-12)
    assert [got[f"bucket0{i}.predicted"][0] for i in (1, 2, 3)] == pytest.approx([0.1375, 0.5, 0.8625], abs=1e-12)
    assert [got[f"bucket0{i}.observed"][0] for i in (1, 2, 3)] == pytest.approx([0.25, 0.5, 0.75], abs=1e-12)
    assert [got[f"bucket0{i}.predicted"][1] for i in (1, 2, 3)] == [4, 4, 4]
    got = _calibration(tmp_path, mu, y, 2)
    assert got["ece"][0] == pytest.approx(float(Fraction(11, 40)), abs=1e-12)


def test_hand_worked_ece_weights_unequal_buckets(tmp_path):
    """Ties make buckets of unequal size, which ECE weights by their share P(i) (Naeini et al.), not equally.
    Pairs (0.2, 0), (0.2, 0), (0.2, 1), (0.4, 1); with (1 - mu, 1 - y): (0.8, 1), (0.8, 1), (0.8, 0), (0.6, 0).
    Sorted, 8 entries: 0.2 y0, 0.2 y0, 0.2 y1 | 0.4 y1 | 0.6 y0 | 0.8 y1, 0.8 y1, 0.8 y0. Four buckets: the
    targets 2, 4, 6 move to the nearest places where mu changes (0, 3, 4, 5, 8): 3, 4, 5. Buckets of 3, 1, 1, 3:
    gaps |0.2 - 1/3| = 2/15, |0.4 - 1| = 3/5, |0.6 - 0| = 3/5, |0.8 - 2/3| = 2/15;
    ECE = 3/8 * 2/15 + 1/8 * 3/5 + 1/8 * 3/5 + 3/8 * 2/15 = 1/4 (an unweighted mean of the gaps: 11/30)."""
    got = _calibration(tmp_path, [0.2, 0.2, 0.2, 0.4], [0, 0, 1, 1], 4)
    assert [got[f"bucket0{i}.predicted"][1] for i in (1, 2, 3, 4)] == [3, 1, 1, 3]
    assert got["ece"][0] == pytest.approx(0.25, abs=1e-12)


@pytest.mark.parametrize("pairs, n_buckets, seed", [(50, 10, 1), (60, 20, 2), (200, 8, 3), (500, 20, 4), (37, 2, 5),
                                                    (1000, 25, 6), (90, 3, 7), (500, 1, 8)])
def test_ece_and_buckets_equal_scikit_learn_quantile_bins(tmp_path, pairs, n_buckets, seed):
    """scikit-learn's quantile bins, live (module docstring): every bucket's predicted and observed mean, and ECE,
    to 1e-12; the judge's scores distinct (no ties) and 2 x pairs a multiple of the buckets."""
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(seed)
    mu = np.round(rng.random(pairs), 9)  # distinct in both orientations (checked below)
    y = (rng.random(pairs) < (0.2 + 0.6 * mu)).astype(float)  # an under-confident judge: ECE well above 0
    entries = np.concatenate([mu, 1 - mu])
    assert len(np.unique(np.round(entries, 12))) == 2 * pairs and (2 * pairs) % n_buckets == 0
    prob_true, prob_pred = calibration.calibration_curve(np.concatenate([y, 1 - y]), entries, n_bins=n_buckets,
                                                         strategy="quantile")
    assert len(prob_true) == n_buckets  # every bin holds 2 x pairs / B entries: ECE is the mean gap
    got = _calibration(tmp_path, mu, y, n_buckets)
    ours_pred = [got[f"bucket{i + 1:02d}.predicted"] for i in range(n_buckets)]
    ours_obs = [got[f"bucket{i + 1:02d}.observed"][0] for i in range(n_buckets)]
    assert [n for _, n in ours_pred] == [2 * pairs // n_buckets] * n_buckets
    assert [v for v, _ in ours_pred] == pytest.approx(list(prob_pred), abs=1e-12)
    assert ours_obs == pytest.approx(list(prob_true), abs=1e-12)
    assert got["ece"][0] == pytest.approx(float(np.mean(np.abs(prob_true - prob_pred))), abs=1e-12)
    assert f"bucket{n_buckets + 1:02d}.predicted" not in got


@pytest.mark.parametrize("side", ["start", "end"])
@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_ties_across_a_cut_against_scikit_learn(side, seed):
    """Ties across a cut (session 29; j38 left them without an outside oracle). scikit-learn's quantile bins are
    cut by value at ``numpy.percentile`` edges and an entry equal to an edge goes to the lower bin
    (``numpy.searchsorted``'s left side; read in scikit-learn 1.9.1's source), so a run of equal mu around a cut
    lies wholly in the lower bin: the cut moves to the run's end. zelo_agree's rule moves it to the nearer end of
    the run. Where every run around a cut is nearer its end (``side="end"``) the two must give the same bins;
    where every run is nearer its start, the same holds for the mirrored entries (1 - mu, 1 - y: ours is
    symmetric, scikit-learn's is not, so it is asked about the mirror). Through the building block
    ``agree.calibration.buckets`` (entries not symmetrised), N = B * 40 entries, runs of 3-12 equal values around
    some of the cuts; every bin's predicted and observed mean to 1e-12, and ECE weighted by the bins' sizes (here
    unequal: Naeini et al.'s P(i))."""
    calibration = pytest.importorskip("sklearn.calibration")
    from pref_eval.agree.calibration import buckets, ece

    rng = np.random.default_rng(seed)
    B, m = 8, 40
    N = B * m
    mu = np.sort(rng.random(N))
    for b in range(1, B):
        if rng.random() < 0.7:
            near, far = sorted(rng.integers(1, 7, size=2).tolist())
            if near == far:
                far += 1
            d_lo, d_hi = (near, far) if side == "start" else (far, near)
            mu[b * m - d_lo:b * m + d_hi] = mu[b * m - d_lo]  # a run across the cut b*m, nearer one of its ends
    mu = np.round(mu, 12)
    y = (rng.random(N) < 0.15 + 0.7 * mu).astype(float)
    ours = buckets(mu, y, B)
    assert (ours.n != m).any()  # the runs moved some cuts
    if side == "end":
        prob_true, prob_pred = calibration.calibration_curve(y, mu, n_bins=B, strategy="quantile")
    else:  # the mirror's bins, back in mu's order
        t, p = calibration.calibration_curve(1 - y, 1 - mu, n_bins=B, strategy="quantile")
        prob_true, prob_pred = (1 - t)[::-1], (1 - p)[::-1]
    assert list(ours.predicted) == pytest.approx(list(prob_pred), abs=1e-12)
    assert list(ours.observed) == pytest.approx(list(prob_true), abs=1e-12)
    want = float(np.sum(ours.n / N * np.abs(prob_true - prob_pred)))
    assert ece(ours) == pytest.approx(want, abs=1e-12)
