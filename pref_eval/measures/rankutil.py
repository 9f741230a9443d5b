"""Vectorised building blocks over a :class:`~pref_eval.collection.Ranked` run.

All functions work on the flat, query-major retrieved arrays at once (no
Python loop per query or per document):

* :func:`cum_within` -- inclusive running count of a mask inside each query;
* :func:`first_pos` -- 0-based rank of the first document where a mask holds;
* :func:`nth_in_query` -- for flat entries selected by a mask, their 1-based
  order among the selected entries of the same query;
* :func:`suffix_max` -- segmented running maximum from the end of each segment;
* :func:`lround` / :func:`c_long` -- C's rounding and truncation to integers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..collection import Ranked


def cum_within(r: Ranked, mask: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:
    """Inclusive running count of ``mask`` inside each query, per retrieved doc; with ``at`` (flat
    positions) only there, = ``cum_within(r, mask)[at]`` without the full-length temporaries (a 10 M-line
    run: one int64 array instead of four)."""
    m = np.asarray(mask)
    cum = np.cumsum(m, dtype=np.int64) if m.dtype == np.bool_ else np.cumsum(m.astype(np.int64, copy=False))
    if not len(cum):
        return cum if at is None else cum[at]
    base = np.concatenate([[0], cum])[r.ptr[:-1]]
    if at is None:
        return cum - base[r.qidx]
    return cum[at] - base[r.qidx[at]]


def first_pos(r: Ranked, mask: np.ndarray) -> np.ndarray:
    """Per query, the 0-based rank of the first doc where ``mask`` holds (-1 if none)."""
    out = np.full(r.nq, -1, dtype=np.int64)
    idx = np.flatnonzero(mask)
    if len(idx):
        q = r.qidx[idx]
        first = np.concatenate([[True], q[1:] != q[:-1]])
        out[q[first]] = r.pos[idx[first]]
    return out


def suffix_max(values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Running maximum taken from the end of each segment.

    ``seg`` is non-decreasing (segments are contiguous). Exact: the values
    are replaced by their rank among the distinct values, segments are
    separated by integer offsets, and one ``maximum.accumulate`` runs over
    the reversed array.
    """
    if not len(values):
        return np.asarray(values, dtype=np.float64)
    uniq, inv = np.unique(values, return_inverse=True)
    n = len(uniq)
    seg = np.asarray(seg, dtype=np.int64)
    # later segments get smaller offsets so that, reversed, each new segment
    # starts above everything seen before it.
    key = inv.astype(np.int64) + (int(seg.max()) - seg) * n
    rev = np.maximum.accumulate(key[::-1])[::-1]
    return uniq[rev - (int(seg.max()) - seg) * n]


def lround(x: np.ndarray) -> np.ndarray:
    """C ``lround``: nearest integer, halves away from zero (exact, no x+0.5 error)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    f = np.floor(a)
    r = f + ((a - f) >= 0.5)
    return (np.sign(x) * r).astype(np.int64)


def c_long(x: np.ndarray) -> np.ndarray:
    """C cast ``(long) x``: truncation toward zero."""
    return np.trunc(np.asarray(x, dtype=np.float64)).astype(np.int64)
