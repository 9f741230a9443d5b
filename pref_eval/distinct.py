"""Sorted distinct values of a 1-D array: ``numpy.unique(a)`` without its import of ``numpy.ma``.

numpy 2.x's ``np.unique(a)`` (no ``return_*`` argument) first asks ``np.ma.is_masked(a)``, which
imports ``numpy.ma`` -- 10-15 ms, a sixth of ``import numpy`` itself -- in every command that
calls it once (issue #13, start-up). For integer, boolean, byte and string arrays the sorted
distinct values are found here by one sort and a comparison of neighbours (the same values in
the same dtype as ``np.unique``); so are floating-point arrays without NaN (``np.unique``
merges NaNs: an array with a NaN is passed to it). Of equal values (0.0 and -0.0) the first in
sorted order is kept.
"""
from __future__ import annotations

import numpy as np


def distinct(a) -> np.ndarray:
    """``np.unique(a)`` for a 1-D array (values sorted, each once)."""
    a = np.asarray(a)
    if a.dtype.kind in "cO" or a.ndim != 1:
        return np.unique(a)
    s = np.sort(a, kind="stable")
    if len(s) < 2:
        return s
    if s.dtype.kind == "f" and np.isnan(s[-1]):  # NaNs sort last
        return np.unique(a)
    return s[np.concatenate([[True], s[1:] != s[:-1]])]
