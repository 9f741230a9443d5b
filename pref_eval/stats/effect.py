"""Effect sizes and win/tie/loss counts for paired comparisons.

For a row d of per-query differences (run a minus run b):

* ``mean_diff`` = mean(d);
* ``d_z`` = mean(d) / sd(d, ddof=1) -- Cohen's standardised effect for paired
  data (nan when sd = 0 or n < 2);
* ``wins`` / ``ties`` / ``losses`` = #(d > 0) / #(d == 0) / #(d < 0).
"""
from __future__ import annotations

import numpy as np


def effect_sizes(D: np.ndarray) -> dict[str, np.ndarray]:
    """Mean difference, d_z and win/tie/loss counts for each row of ``D`` (C-ordered first: a row's sums do not
    depend on the other rows)."""
    D = np.ascontiguousarray(D, dtype=float)
    if D.ndim == 1:
        D = D[None, :]
    n = D.shape[1]
    with np.errstate(all="ignore"):
        mean = D.mean(axis=1) if n else np.full(D.shape[0], np.nan)
        sd = D.std(axis=1, ddof=1) if n > 1 else np.full(D.shape[0], np.nan)
        dz = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.nan)
    return {
        "mean_diff": mean,
        "d_z": dz,
        "wins": (D > 0).sum(axis=1),
        "ties": (D == 0).sum(axis=1),
        "losses": (D < 0).sum(axis=1),
    }
