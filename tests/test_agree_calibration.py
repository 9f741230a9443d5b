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


def reference_parts(mu: np.ndarray, n_buckets: int) -> list[np.ndarray]:
    """The bucket rule written out plainly (the oracle): sort; the run boundaries (where mu changes, with 0 and N);
    each target b*N/B (b = 1..B-1) goes to the nearest boundary, at equal distance the one nearer N/2, if that
    is equal too it is dropped; the distinct cuts split the sorted entries. Returns index arrays into ``mu``."""
    from fractions import Fraction

    order = sorted(range(len(mu)), key=lambda i: mu[i])
    n = len(order)
    bounds = [0] + [i for i in range(1, n) if mu[order[i]] != mu[order[i - 1]]] + [n]
    cuts = set()
    for b in range(1, n_buckets):
        t = Fraction(b * n, n_buckets)
        best = min(abs(x - t) for x in bounds)
        near = [x for x in bounds if abs(x - t) == best]
        if len(near) == 2:
            mid = [abs(Fraction(x) - Fraction(n, 2)) for x in near]
            near = [] if mid[0] == mid[1] else [near[int(mid[1] < mid[0])]]
        cuts.update(x for x in near if 0 < x < n)
    edges = [0, *sorted(cuts), n]
    return [np.array(order[edges[k]:edges[k + 1]]) for k in range(len(edges) - 1)] if n else []


def test_hand_worked_ties():
    # 5 x 0, 2 x 1/2, 5 x 1 (N = 12): B = 2 -> the target 6 lies mid-way in the run of 1/2, both ends as near the
    # middle: both are cuts, the run a bucket of its own (since session 30; was: no cut, one bucket, whose gap is
    # 0 for any y symmetrised); B = 3 -> targets 4 and 8 move to 5 and 7: buckets of 5, 2, 5
    mu = np.array([0.0] * 5 + [0.5] * 2 + [1.0] * 5)
    assert list(buckets(mu, mu, 2).n) == [5, 2, 5]
    assert list(buckets(mu, mu, 3).n) == [5, 2, 5]
    # an ensemble of 3 votes: 3 x 0, 2 x 1/3, 2 x 2/3, 3 x 1 and 20 buckets: one bucket per value
    mu = np.array([0, 0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1, 1, 1.0])
    b = buckets(mu, 1 - mu, 20)
    assert list(b.n) == [3, 2, 2, 3] and list(b.mu_low) == list(b.mu_high) == [0, 1 / 3, 2 / 3, 1]
    # 0, 0, 0, 1 with 2 buckets: the target 2 is inside the run of zeros (0..3): nearest boundary 3
    assert list(buckets(np.array([0.0, 0, 0, 1]), np.zeros(4), 2).n) == [3, 1]


@pytest.mark.parametrize("seed,n,n_buckets,values", [
    (5, 1003, 20, 100),  # repeated values (2 decimals)
    (6, 1000, 10, 0),  # continuous
    (7, 600, 20, 4),  # an ensemble of 3 votes: 0, 1/3, 2/3, 1 -> 4 buckets, not 20
    (8, 7, 20, 0),  # fewer entries than buckets
    (9, 50, 3, 2),
    (10, 301, 7, 12),
])
def test_buckets_against_the_rule_written_out(seed, n, n_buckets, values):
    rng = np.random.default_rng(seed)
    mu = np.round(rng.random(n) * (values - 1)) / (values - 1) if values > 1 else rng.random(n)
    if values == 100:
        mu = np.round(rng.random(n), 2)
    y = rng.choice([0, 1 / 3, 0.5, 2 / 3, 1.0], size=n)
    b = buckets(mu, y, n_buckets)
    parts = reference_parts(mu, n_buckets)
    assert list(b.n) == [len(p) for p in parts]
    if values and values < 100:
        assert len(parts) == min(values, n_buckets)
    for i, p in enumerate(parts):
        assert b.predicted[i] == pytest.approx(mu[p].mean(), abs=1e-12)
        assert b.observed[i] == pytest.approx(y[p].mean(), abs=1e-12)
        assert (b.mu_low[i], b.mu_high[i]) == (mu[p].min(), mu[p].max())
        shares = [np.mean(y[p] == 0), np.mean((y[p] > 0) & (y[p] < 0.5)), np.mean(y[p] == 0.5),
                  np.mean((y[p] > 0.5) & (y[p] < 1)), np.mean(y[p] == 1)]
        assert b.levels[i] == pytest.approx(shares, abs=1e-12)
    assert ece(b) == pytest.approx(sum(len(p) / n * abs(mu[p].mean() - y[p].mean()) for p in parts), abs=1e-12)


def test_without_ties_the_buckets_are_numpy_array_split():
    rng = np.random.default_rng(4)
    mu, y = rng.random(1000), rng.random(1000)
    for B in (1, 4, 10, 20, 25):  # B divides N
        b = buckets(mu, y, B)
        parts = np.array_split(np.argsort(mu), B)
        assert list(b.n) == [len(p) for p in parts]
        assert b.observed == pytest.approx([y[p].mean() for p in parts], abs=1e-12)


@pytest.mark.parametrize("values", [0, 3, 4, 7, 100])
def test_symmetrised_entries_give_a_symmetric_curve(values):
    """zelo_agree enters each pair as (mu, y) and (1 - mu, 1 - y): the buckets mirror each other about 1/2 (the
    point masses at 0 and 1 of an ensemble too, which a left-open quantile rule would treat differently)."""
    rng = np.random.default_rng(values)
    mu = np.round(rng.random(301) * (values - 1)) / (values - 1) if values > 1 else rng.random(301)
    if values == 100:
        mu = np.round(rng.random(301), 2)
    y = rng.choice([0, 1 / 3, 0.5, 2 / 3, 1.0], size=301)
    m2, y2 = np.round(np.concatenate([mu, 1 - mu]), 12), np.round(np.concatenate([y, 1 - y]), 12)
    for B in (2, 3, 5, 10, 20):
        b = buckets(m2, y2, B)
        assert list(b.n) == list(b.n[::-1])
        assert b.predicted == pytest.approx(1 - b.predicted[::-1], abs=1e-12)
        assert b.observed == pytest.approx(1 - b.observed[::-1], abs=1e-12)


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
