"""zelo_agree calibration: ECE / Brier / log loss on hand-worked cases, buckets against a direct numpy
computation, and synthetic judges (calibrated -> ECE near 0; over-confident -> the expected curve)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pref_eval.agree.calibration import brier, buckets, ece, log_loss
from pref_eval.api import agree


def test_hand_worked_small_case():
    # two predictions against outcomes: (0.2 -> 0), (0.8 -> 1)
    mu, y = np.array([0.2, 0.8]), np.array([0.0, 1.0])
    assert brier(mu, y) == pytest.approx(0.04)  # (0.2^2 + 0.2^2) / 2
    assert log_loss(mu, y) == pytest.approx(-math.log(0.8))  # both terms log 0.8
    # soft target y = 1/2 against mu = 0.9: Brier 0.16, log loss -(0.5 ln 0.9 + 0.5 ln 0.1)
    assert brier(np.array([0.9]), np.array([0.5])) == pytest.approx(0.16)
    assert log_loss(np.array([0.9]), np.array([0.5])) == pytest.approx(-(0.5 * math.log(0.9) + 0.5 * math.log(0.1)))
    # mu = 0 against y = 1 is clipped at 1e-15: -ln(1e-15)
    assert log_loss(np.array([0.0]), np.array([1.0])) == pytest.approx(-math.log(1e-15))
    # ECE with 2 buckets of 2: {0.1, 0.3} observed {0, 1} -> |0.2 - 0.5|; {0.6, 0.8} observed {1, 1} -> |0.7 - 1|
    b = buckets(np.array([0.8, 0.1, 0.6, 0.3]), np.array([1.0, 0.0, 1.0, 1.0]), 2)
    assert list(b.n) == [2, 2]
    assert ece(b) == pytest.approx(0.5 * 0.3 + 0.5 * 0.3)


def _sklearn_means(mu: np.ndarray, y: np.ndarray, n_buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """The oracle: scikit-learn's calibration_curve(strategy="quantile") -> (mean mu, mean y) per non-empty
    bucket. It takes 0/1 outcomes only, so the mean of y in {0, 1/3, 1/2, 2/3, 1} is taken as
    1/3 [y >= 1/3] + 1/6 [y >= 1/2] + 1/6 [y >= 2/3] + 1/3 [y >= 1] (each indicator's curve is linear in y)."""
    from sklearn.calibration import calibration_curve

    obs = 0.0
    pred = None
    for t, w in ((1 / 3, 1 / 3), (0.5, 1 / 6), (2 / 3, 1 / 6), (1.0, 1 / 3)):
        ind = (y >= t - 1e-12).astype(int)
        ind[:2] = [0, 1]  # calibration_curve refuses a single class; these two entries are set in y as well
        true, p = calibration_curve(ind, mu, n_bins=n_buckets, strategy="quantile")
        obs = obs + w * true
        pred = p
    return pred, obs


def _parts(mu: np.ndarray, n_buckets: int) -> list[np.ndarray]:
    """Bucket members by the rule scikit-learn documents: percentile edges, e_b < mu <= e_b+1."""
    edges = np.percentile(mu, np.linspace(0, 100, n_buckets + 1))
    ids = np.searchsorted(edges[1:-1], mu)
    return [np.flatnonzero(ids == b) for b in np.unique(ids)]


@pytest.mark.parametrize("seed,n,n_buckets,values", [
    (5, 1003, 20, 100),  # repeated values (2 decimals)
    (6, 1000, 10, 0),  # continuous
    (7, 600, 20, 4),  # an ensemble of 3 votes: 0, 1/3, 2/3, 1 -> 4 buckets, not 20
    (8, 7, 20, 0),  # fewer entries than buckets
    (9, 50, 3, 2),
])
def test_buckets_against_sklearn_calibration_curve(seed, n, n_buckets, values):
    rng = np.random.default_rng(seed)
    mu = np.round(rng.random(n) * (values - 1)) / (values - 1) if values > 1 else rng.random(n)
    if values == 100:
        mu = np.round(rng.random(n), 2)
    y = rng.choice([0, 1 / 3, 0.5, 2 / 3, 1.0], size=n)
    y[:2] = [0.0, 1.0]
    b = buckets(mu, y, n_buckets)
    pred, obs = _sklearn_means(mu, y, n_buckets)
    assert b.predicted == pytest.approx(pred, abs=1e-12)
    assert b.observed == pytest.approx(obs, abs=1e-12)
    parts = _parts(mu, n_buckets)
    assert list(b.n) == [len(p) for p in parts]
    if values and values < 100:
        assert len(parts) == values
    for i, p in enumerate(parts):
        assert b.predicted[i] == pytest.approx(mu[p].mean(), abs=1e-12)
        assert b.observed[i] == pytest.approx(y[p].mean(), abs=1e-12)
        assert (b.mu_low[i], b.mu_high[i]) == (mu[p].min(), mu[p].max())
        shares = [np.mean(y[p] == 0), np.mean((y[p] > 0) & (y[p] < 0.5)), np.mean(y[p] == 0.5),
                  np.mean((y[p] > 0.5) & (y[p] < 1)), np.mean(y[p] == 1)]
        assert b.levels[i] == pytest.approx(shares, abs=1e-12)
    assert ece(b) == pytest.approx(sum(len(p) / n * abs(mu[p].mean() - y[p].mean()) for p in parts), abs=1e-12)


def test_equal_scores_never_split_so_the_order_of_entries_does_not_matter():
    """A run of equal mu is one bucket: shuffling the entries (other pair ids) gives the same buckets and ECE
    (before, equal-population buckets cut runs of equal mu by pair id, and the ECE followed the ids)."""
    rng = np.random.default_rng(3)
    mu = rng.choice([0.0, 1 / 3, 2 / 3, 1.0], size=400)
    y = rng.choice([0.0, 0.5, 1.0], size=400)
    b = buckets(mu, y, 20)
    for _ in range(5):
        perm = rng.permutation(400)
        c = buckets(mu[perm], y[perm], 20)
        assert list(c.n) == list(b.n) and ece(c) == ece(b)
        assert np.array_equal(c.observed, b.observed)
    assert len(b.n) == 4 and set(b.mu_low) == set(b.mu_high) == {0.0, 1 / 3, 2 / 3, 1.0}


def test_no_entries_no_buckets():
    b = buckets(np.zeros(0), np.zeros(0), 20)
    assert len(b.n) == 0 and np.isnan(ece(b))


def _write(tmp_path, name, rows):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(p)


def _synthetic(tmp_path, distort, n=20000, seed=11):
    """Reference: one Bernoulli(p) vote per pair; judge: score distort(p)."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(float)
    ref, judge = [], []
    for k in range(n):
        qid, a, b = f"q{k % 200}", f"a{k}", f"b{k}"
        ref.append({"qid": qid, "doc_a": a, "doc_b": b, "score": y[k]})
        judge.append({"qid": qid, "doc_a": a, "doc_b": b, "score": float(distort(p[k]))})
    recs = agree([_write(tmp_path, "ref.jsonl", ref), _write(tmp_path, "judge.jsonl", judge)],
                  names=["ref", "judge"], levels=["calibration"], resamples=0, buckets=10)
    return {r.statistic: r.value for r in recs}, p


def test_calibrated_judge_has_ece_near_zero(tmp_path):
    got, _ = _synthetic(tmp_path, lambda p: p)
    assert got["ece"] < 0.015
    for i in range(1, 11):
        assert abs(got[f"bucket{i:02d}.predicted"] - got[f"bucket{i:02d}.observed"]) < 0.04


def test_over_confident_judge_gives_the_expected_curve(tmp_path):
    def sharpen(p):  # logit multiplied by 3: pushes scores towards 0 and 1
        return 1 / (1 + math.exp(-3 * math.log(p / (1 - p))))

    got, _ = _synthetic(tmp_path, sharpen)
    assert got["ece"] > 0.1
    for i in range(1, 11):
        pred = got[f"bucket{i:02d}.predicted"]
        # expected observed mean: the true p behind a predicted mu is sigmoid(logit(mu) / 3)
        lo, hi = got[f"bucket{i:02d}.mu_low"], got[f"bucket{i:02d}.mu_high"]
        inv = [1 / (1 + math.exp(-math.log(m / (1 - m)) / 3)) for m in np.clip([lo, hi], 1e-12, 1 - 1e-12)]
        assert inv[0] - 0.03 <= got[f"bucket{i:02d}.observed"] <= inv[1] + 0.03
        # over-confidence: below 1/2 the judge predicts less than observed, above it more
        if hi < 0.5:
            assert pred < got[f"bucket{i:02d}.observed"]
        if lo > 0.5:
            assert pred > got[f"bucket{i:02d}.observed"]
