"""Vectorised cascade primitives shared by ERR, the diversity measures and C/W/L.

* :func:`exclusive_level_product` -- per retrieved document, Π over the
  documents ranked above it (same query) of a factor that depends only on a
  small integer level: Π_l f_l^{n_l(above)}, with ``n_l`` counted by a
  segmented running count, so no per-document loop and no log of zero.
* :func:`cut_mask` -- ranks inside a cutoff.
"""
from __future__ import annotations

import numpy as np

from .. import libm


def exclusive_level_product(level: np.ndarray, factor: np.ndarray, ptr: np.ndarray,
                            qidx: np.ndarray) -> np.ndarray:
    """Π_{j above i in its query} factor[level[j]] for every flat entry ``i``.

    ``level`` int array (flat, query-major in rank order), ``factor`` per
    level value; entries with factor 1 cost nothing. Exact up to ``pow``.
    """
    n = len(level)
    out = np.ones(n, dtype=np.float64)
    if not n:
        return out
    base = ptr[:-1][qidx]
    for lv in np.flatnonzero(np.asarray(factor) != 1.0):
        m = (level == lv).astype(np.int64)
        cum = np.cumsum(m)
        start = np.concatenate([[0], cum])[base]
        above = cum - m - start  # count strictly above, inside the query
        out *= libm.power(float(factor[lv]), above)
    return out


def cut_mask(pos: np.ndarray, k: int | None) -> np.ndarray:
    """True for 0-based ranks inside cutoff ``k`` (everything when ``k`` is None)."""
    return np.ones(len(pos), dtype=bool) if k is None else pos < int(k)
