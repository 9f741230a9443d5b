"""Effect sizes and win/tie/loss counts for paired comparisons.

For a row d of per-query differences (run a minus run b):

* ``mean_diff`` = mean(d);
* ``d_z`` = mean(d) / sd(d, ddof=1) -- Cohen's standardised effect for paired
  data (nan when sd = 0 or n < 2). A row of equal differences has sd 0 exactly:
  numpy's sd of it is the round-off of its mean (5e-17 for 55 queries 0.1 apart),
  whose bits follow the array's memory layout (a pair's d_z then depended on the
  other pairs compared, about +-1e15), so such rows get nan too.
* ``wins`` / ``ties`` / ``losses`` = #(d > 0) / #(d == 0) / #(d < 0).
"""
from __future__ import annotations

import numpy as np


def effect_sizes(D: np.ndarray) -> dict[str, np.ndarray]:
    """Mean difference, d_z and win/tie/loss counts for each row of ``D`` (C-ordered first: a row's sums do not
    depend on the other rows): mean(d), d_z = mean(d) / sd(d, ddof=1) (Cohen, Statistical Power Analysis for the
    Behavioral Sciences, 1988), #(d > 0) / #(d == 0) / #(d < 0)."""
    D = np.ascontiguousarray(D, dtype=float)
    if D.ndim == 1:
        D = D[None, :]
    n = D.shape[1]
    with np.errstate(all="ignore"):
        mean = D.mean(axis=1) if n else np.full(D.shape[0], np.nan)
        sd = D.std(axis=1, ddof=1) if n > 1 else np.full(D.shape[0], np.nan)
        if n > 1:
            sd[(D[:, :1] == D).all(axis=1)] = 0.0  # equal differences: sd 0, not the mean's round-off
        dz = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.nan)
    return {
        "mean_diff": mean,
        "d_z": dz,
        "wins": (D > 0).sum(axis=1),
        "ties": (D == 0).sum(axis=1),
        "losses": (D < 0).sum(axis=1),
    }
