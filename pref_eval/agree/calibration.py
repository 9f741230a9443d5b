"""Calibration of a judge's pair scores against a reference judge (zELO note, Figures 5-7).

On the pairs both judges scored, mu = the judge's pair score (probability-like:
1 = the second document better) and y = the reference's pair score (the
ensemble's observed mean; 0, 1/2, 1 for a single vote). Each pair enters in
both orientations, (mu, y) and (1 - mu, 1 - y), so the result does not depend
on which document a file names first and the reliability curve is symmetric
about (1/2, 1/2).

* Buckets: equal-population buckets that never split a run of equal mu. The
  entries sorted by mu; the B - 1 cut points b*N/B (b = 1..B-1, N entries) each
  move to the nearest place where mu changes (at equal distance: the one nearer
  the middle N/2; if both are as near -- a run centred on N/2, which in the
  symmetrised entries is the run of mu = 1/2 -- both: the run is a bucket of
  its own; since session 30: before, no cut, so the two buckets around 1/2
  merged and their gaps, mirror images, cancelled: ECE 0 at B = 2 for any
  judge scoring a pair 1/2), repeated cuts merge. Entries
  with equal mu are therefore in one bucket (nothing depends on the order of
  the pairs or on document ids), the buckets are as equal in size as the ties
  allow, a judge with few distinct scores gets fewer than B buckets (an
  ensemble of 3 votes, mu in {0, 1/3, 2/3, 1}: at most 4; the run of 1/2 on
  its own can make B + 1), and the rule is
  symmetric: the symmetrised entries give a reliability curve symmetric about
  (1/2, 1/2). Without ties and with B dividing N the buckets are the plain
  equal-population ones. Per bucket: count, mean mu ("predicted"), mean
  y ("observed"), the mu range, and the share of the reference's five levels
  y = 0, 0 < y < 1/2, y = 1/2, 1/2 < y < 1, y = 1. Sums are taken in (mu, y)
  order, so the bits do not depend on the input order either.
* Expected calibration error (Naeini, Cooper & Hauskrecht 2015, on these buckets):
  ECE = sum_b (n_b / N) |mean mu_b - mean y_b|. Without ties and with B dividing N the buckets are
  scikit-learn's ``calibration_curve(..., strategy="quantile")`` bins (tests/test_agree_ece_oracle.py).
* Brier score (Brier 1950): mean (mu - y)^2.
* Log loss (cross-entropy with soft targets): -mean [y log mu + (1 - y) log(1 - mu)],
  mu clipped to [1e-15, 1 - 1e-15].
Brier score and log loss are unchanged by the symmetrisation; their intervals
come from the bootstrap over queries.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import libm
from .matching import Matched
from .records import Bootstrap, Record, per_query_sums, statistic

LEVEL = "calibration"
EPS = 1e-15
FIVE_LEVELS = ("share_0", "share_below_half", "share_half", "share_above_half", "share_1")


@dataclass
class Buckets:
    """Per bucket: ``n``, ``predicted`` (mean mu), ``observed`` (mean y), ``mu_low``, ``mu_high``,
    ``levels`` (n x 5 shares of the reference's five levels)."""

    n: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    mu_low: np.ndarray
    mu_high: np.ndarray
    levels: np.ndarray


def five_levels(y: np.ndarray) -> np.ndarray:
    """Level 0..4 of each reference score: 0, (0, 1/2), 1/2, (1/2, 1), 1."""
    return np.select([y == 0.0, y < 0.5, y == 0.5, y < 1.0], [0, 1, 2, 3], 4)


def tie_respecting_cuts(mu_sorted: np.ndarray, n_buckets: int) -> np.ndarray:
    """The cut positions (0 < c < N, increasing) of :func:`buckets`' rule on sorted ``mu``: each target b*N/B moved
    to the nearest run boundary (equal distance: the one nearer N/2; still equal -- a run centred on N/2 -- both:
    the run its own bucket); exact integer arithmetic."""
    N = len(mu_sorted)
    B = int(n_buckets)
    if N == 0 or B <= 1:
        return np.zeros(0, dtype=np.int64)
    bounds = np.concatenate([[0], np.flatnonzero(mu_sorted[1:] != mu_sorted[:-1]) + 1, [N]]).astype(np.int64)
    b = np.arange(1, B, dtype=np.int64)
    tB = b * N  # target times B
    k = np.searchsorted(bounds * B, tB, side="left")  # bounds[k-1] * B < tB <= bounds[k] * B
    hi = bounds[k]
    lo = bounds[np.maximum(k - 1, 0)]
    d_lo, d_hi = tB - lo * B, hi * B - tB
    m_lo, m_hi = np.abs(2 * lo - N), np.abs(2 * hi - N)  # distance to the middle, doubled
    pick = np.where(d_hi == 0, hi,
                    np.where(d_lo < d_hi, lo, np.where(d_hi < d_lo, hi,
                             np.where(m_lo < m_hi, lo, np.where(m_hi < m_lo, hi, -1)))))
    both = pick == -1  # a run centred on the middle (the symmetrised entries' mu = 1/2): cut at both its ends
    cuts = np.unique(np.concatenate([pick[~both], lo[both], hi[both]]))
    return cuts[(cuts > 0) & (cuts < N)]


def buckets(mu: np.ndarray, y: np.ndarray, n_buckets: int = 20) -> Buckets:
    """Tie-respecting equal-population buckets of ``mu`` (module docstring) with the mean of ``y`` in each."""
    mu = np.asarray(mu, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    order = np.lexsort((y, mu))
    m, yy = mu[order], y[order]
    N = len(m)
    if N == 0:
        z = np.zeros(0)
        return Buckets(np.zeros(0, dtype=np.int64), z, z, z, z, np.zeros((0, 5)))
    cuts = tie_respecting_cuts(m, n_buckets)
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [N]])
    nb = len(starts)
    bid = np.repeat(np.arange(nb), ends - starts)
    n = (ends - starts).astype(np.float64)
    pred = np.bincount(bid, m, minlength=nb) / n
    obs = np.bincount(bid, yy, minlength=nb) / n
    lev = np.stack([np.bincount(bid, five_levels(yy) == k, minlength=nb) for k in range(5)], axis=1) / n[:, None]
    return Buckets(n.astype(np.int64), pred, obs, m[starts], m[ends - 1], lev)


def ece(b: Buckets) -> float:
    """Expected calibration error of the buckets (Naeini, Cooper & Hauskrecht, AAAI 2015):
    sum_b n_b/N |predicted_b - observed_b|."""
    N = b.n.sum()
    return float((b.n / N * np.abs(b.predicted - b.observed)).sum()) if N else float("nan")


def brier(mu: np.ndarray, y: np.ndarray) -> float:
    """Brier score (Brier 1950): (1/N) Σ (mu_i - y_i)^2."""
    return float(np.mean((np.asarray(mu) - np.asarray(y)) ** 2))


def log_loss(mu: np.ndarray, y: np.ndarray) -> float:
    """Logarithmic score (Good 1952): -(1/N) Σ (y_i ln m_i + (1 - y_i) ln(1 - m_i)), m = mu clipped to
    [EPS, 1 - EPS]."""
    m = np.clip(np.asarray(mu, dtype=np.float64), EPS, 1.0 - EPS)
    y = np.asarray(y, dtype=np.float64)
    return float(-np.mean(y * libm.log(m) + (1.0 - y) * libm.log1p(-m)))


def is_graded(mu: np.ndarray) -> bool:
    """True when a judge's pair scores take a value other than 0, 1/2 and 1."""
    m = mu[np.isfinite(mu)]
    return bool(np.any((m != 0.0) & (m != 0.5) & (m != 1.0)))


def calibration_records(mt: Matched, r: int, k: int, boot: Bootstrap, n_buckets: int = 20) -> list[Record]:
    """Calibration of judge ``k``'s mu against the reference ``r``'s observed mean."""
    a, b = mt.names[r], mt.names[k]
    ok = np.isfinite(mt.mu[r]) & np.isfinite(mt.mu[k])
    mu, y, q = mt.mu[k][ok], mt.mu[r][ok], mt.q[ok]
    mu2 = np.round(np.concatenate([mu, 1.0 - mu]), 12)
    y2 = np.round(np.concatenate([y, 1.0 - y]), 12)
    bk = buckets(mu2, y2, n_buckets)
    out = [Record(a, b, LEVEL, "ece", ece(bk), float("nan"), float("nan"), int(ok.sum()))]
    nq = len(mt.queries)
    T = per_query_sums(q, nq, [(mu - y) ** 2, np.ones(len(mu))])
    out.append(statistic(boot, a, b, LEVEL, "brier", T, lambda S: S[..., 0] / S[..., 1], lambda S: S[..., 1]))
    m = np.clip(mu, EPS, 1.0 - EPS)
    ll = -(y * libm.log(m) + (1.0 - y) * libm.log1p(-m))
    T = per_query_sums(q, nq, [ll, np.ones(len(mu))])
    out.append(statistic(boot, a, b, LEVEL, "log_loss", T, lambda S: S[..., 0] / S[..., 1], lambda S: S[..., 1]))
    nan = float("nan")
    for i in range(len(bk.n)):
        tag = f"bucket{i + 1:02d}"
        n = int(bk.n[i])
        out.append(Record(a, b, LEVEL, f"{tag}.predicted", float(bk.predicted[i]), nan, nan, n))
        out.append(Record(a, b, LEVEL, f"{tag}.mu_low", float(bk.mu_low[i]), nan, nan, n))
        out.append(Record(a, b, LEVEL, f"{tag}.mu_high", float(bk.mu_high[i]), nan, nan, n))
        out.append(Record(a, b, LEVEL, f"{tag}.observed", float(bk.observed[i]), nan, nan, n))
        for j, name in enumerate(FIVE_LEVELS):
            out.append(Record(a, b, LEVEL, f"{tag}.{name}", float(bk.levels[i, j]), nan, nan, n))
    return out
