"""Gain levels for the nDCG family and rbp: trec_eval's ``rel_level=gain`` parameters.

A measure with ``gains`` parameters (``ndcg.1=3,2=9``) maps each qrels grade to
a gain; unlisted grades keep gain = grade, and a parameter whose name is not
an integer (``p`` of ``rbp.p=0.8``) is not a gain. Per query, the *gain
levels* are the listed pairs (in the order written) followed by the grades
0 … max(grade of the query) that were not listed, each with the number of the
query's judged documents at that grade.

The levels are then sorted by gain, and the **ideal ranking** walks them from
the highest gain down, taking each level's documents, and stops at the first
level (with documents) whose gain is ≤ 0. Järvelin & Kekäläinen, "Cumulated
gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002.

**trec_eval's comparator** (``gain_init.c``) compares two gains by the C
``int`` truncation of their difference, so gains closer than 1 compare equal
and the level list is not truly sorted when gains are fractional (e.g.
``ndcg.1=2.5,2=2`` yields an nDCG above 1, and the result depends on the order
in which the pairs are written). We reproduce it: the levels are ordered by
the top-down merge sort of glibc's ``qsort`` (what a Linux build of trec_eval
runs for such short arrays) with that comparator. With integer-spaced gains —
the default gains, or 2^g−1 — the order is the true sort, so this only
matters for fractional gains; when the gains are at least 1 apart the
comparator is a true order and numpy's stable sort gives the same list (fast
for a grade of 10^6 too); otherwise :func:`msort_gains` gives the merge sort's
list by runs (fast too: the grades 0 … max are already in order). Everything is computed for all queries at once;
the sort runs on the levels once per distinct max grade.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import re
from collections.abc import Callable

import numpy as np

from .. import libm

from ..records import record
from ..io.keys import distinct

if TYPE_CHECKING:
    from ..collection import Ranked

_INT = r"[+-]?[0-9]+"  # compiled on use (re caches it): no regex compilation at import


def gain_pairs(params: tuple) -> list[tuple[int, float]]:
    """The ``(grade, gain)`` pairs of the parameters whose name is an integer."""
    out = []
    for name, value in params:
        if re.fullmatch(_INT, str(name)):
            out.append((int(name), float(value)))
    return out


def _trec_cmp(a: float, b: float) -> int:
    """trec_eval's ``comp_rel_gain``: ``(int)(a - b)`` (truncation toward 0)."""
    return int(a - b)


def glibc_msort(items: list, key: Callable) -> list:
    """glibc ``qsort`` on short arrays: top-down merge sort, left half n//2.

    ``key(x, y)`` is the C comparator; an element of the left run is taken
    while ``key(left, right) <= 0`` (stable for a consistent comparator).
    """
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left, right = glibc_msort(items[:n1], key), glibc_msort(items[n1:], key)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if key(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def msort_gains(gains: np.ndarray) -> np.ndarray:
    """The order :func:`glibc_msort` gives the finite ``gains`` with trec_eval's comparator
    ``(int)(a - b)`` (take the left element while ``a - b < 1``), computed by runs: a non-decreasing
    stretch is what the merge sort returns unchanged (every left element compares <= 0 with every right
    one), and a merge takes whole runs at a time, found in numpy (windows doubling from 16). The levels
    are the listed pairs followed by the grades 0 ... max in order, so all but O(pairs x log levels)
    nodes of the recursion are such stretches: a grade of 10^6 with a fractional gain map costs
    ~0.1 s instead of the element-by-element merge sort's ~5 s."""
    return _msort_runs(np.asarray(gains, dtype=np.float64), np.arange(len(gains), dtype=np.int64))


def _msort_runs(gains: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """glibc's top-down merge sort of the ids ``idx`` (in their input order) by ``gains[id]``."""
    n = len(idx)
    if n <= 1:
        return idx
    g = gains[idx]
    if bool(np.all(g[1:] >= g[:-1])):
        return idx  # already in order: every merge below takes the whole left run first
    n1 = n // 2
    return _merge_runs(_msort_runs(gains, idx[:n1]), _msort_runs(gains, idx[n1:]), gains)


def _first(mask_of, arr: np.ndarray, start: int) -> int:
    """The first position >= ``start`` where ``mask_of(arr[...])`` holds, else ``len(arr)``."""
    w = 16
    while start < len(arr):
        m = mask_of(arr[start:start + w])
        if m.any():
            return start + int(np.argmax(m))
        start += w
        w *= 2
    return len(arr)


def _merge_runs(li: np.ndarray, ri: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """glibc's merge of two sorted runs (ids into ``gains``): the left element while ``l - r < 1``."""
    lg, rg = gains[li], gains[ri]
    parts = []
    i = j = 0
    while i < len(li) and j < len(ri):
        r, left = rg[j], lg[i]
        if left - r < 1:
            t = _first(lambda a, r=r: a - r >= 1, lg, i)
            parts.append(li[i:t])
            i = t
        else:
            t = _first(lambda b, left=left: left - b < 1, rg, j)
            parts.append(ri[j:t])
            j = t
    parts += [li[i:], ri[j:]]
    return np.concatenate(parts)


@record(frozen=True)
class Levels:
    """Sorted gain levels for queries whose max grade is ``nlev - 1``.

    ``grade``/``gain``: the levels in trec_eval's sorted order (ascending);
    ``count_of``: the grade whose document count a level carries, -1 for none
    (a listed grade beyond the query's max, or a repeated pair).
    """

    grade: np.ndarray
    gain: np.ndarray
    count_of: np.ndarray


def sorted_levels(pairs: list[tuple[int, float]], nlev: int) -> Levels:
    """trec_eval ``setup_gains`` for one number of grade levels."""
    entries = list(pairs)
    listed = {g for g, _ in pairs}
    entries += [(i, float(i)) for i in range(nlev) if i not in listed]
    count_of, seen = [], set()
    for g, _ in entries:
        if 0 <= g < nlev and g not in seen:
            count_of.append(g)
            seen.add(g)
        else:
            count_of.append(-1)
    gains = np.array([e[1] for e in entries], dtype=np.float64)
    distinct_gains = np.unique(gains)
    if len(distinct_gains) < 2 or bool(np.all(np.diff(distinct_gains) >= 1)):
        # gains at least 1 apart (the default gain = grade, integer gain maps): the comparator is a
        # true order, and a merge sort with it is a stable sort -- numpy's, for a grade of 10^6 too
        idx = np.argsort(gains, kind="stable").tolist()
    elif bool(np.all(np.isfinite(gains))):
        idx = msort_gains(gains).tolist()  # glibc_msort with trec_eval's comparator, by runs (same list)
    else:
        idx = glibc_msort(list(range(len(entries))), lambda a, b: _trec_cmp(entries[a][1], entries[b][1]))
    return Levels(grade=np.array([entries[i][0] for i in idx], dtype=np.int64),
                  gain=np.array([entries[i][1] for i in idx], dtype=np.float64),
                  count_of=np.array([count_of[i] for i in idx], dtype=np.int64))


@record(frozen=True)
class GainSetup:
    """Per-query gains of one run for one ``gains`` parameter list.

    * ``result_gain``: gain of every retrieved document (flat, rank order);
      a grade absent from the levels (unjudged, not pooled) has gain 0.
    * ``ideal``: the ideal gains (flat, query-major, positive only, cut at the
      first level with gain ≤ 0); ``iptr`` offsets, ``ipos`` 0-based rank.
    * ``top``: per query the gain of the highest sorted level (trec_eval
      does not build an ideal list at all when it is ≤ 0).
    """

    result_gain: np.ndarray
    ideal: np.ndarray
    iptr: np.ndarray
    ipos: np.ndarray
    iqidx: np.ndarray
    top: np.ndarray

    @property
    def ideal_len(self) -> np.ndarray:
        return np.diff(self.iptr)


def setup_gains(r: Ranked, params: tuple, transform: Callable[[np.ndarray], np.ndarray] | None = None) -> GainSetup:
    """Gains of run ``r`` under ``params``; ``transform`` rescales a level list (rbp)."""
    pairs = gain_pairs(params)
    nq = r.nq
    jq = r.jqidx()
    nonneg = r.jgrade >= 0
    maxg = int(r.jgrade[nonneg].max()) if nonneg.any() else -1
    # levels per query = max non-negative grade + 1 (0 when none)
    nlev = np.zeros(nq, dtype=np.int64)
    np.maximum.at(nlev, jq[nonneg], r.jgrade[nonneg] + 1)
    width = maxg + 2  # grades 0..maxg, plus a zero column for "no count"
    counts = np.zeros((nq, width), dtype=np.int64)
    np.add.at(counts, (jq[nonneg], r.jgrade[nonneg]), 1)
    # lookup of retrieved grades: internal grades -2, -1, 0..maxg
    rmax = max(maxg, int(r.grade.max()) if len(r.grade) else -1)
    result_gain = np.zeros(len(r.grade), dtype=np.float64)
    top = np.zeros(nq, dtype=np.float64)
    iq_parts, ig_parts = [], []
    for L in distinct(nlev):
        qs = np.flatnonzero(nlev == L)
        lv = sorted_levels(pairs, int(L))
        gain = transform(lv.gain) if transform is not None and len(lv.gain) else lv.gain
        table = np.zeros(rmax + 3, dtype=np.float64)
        # get_gain: the first level (in sorted order) with that grade
        inside = np.flatnonzero((lv.grade >= -2) & (lv.grade <= rmax))
        first_grades, first_at = np.unique(lv.grade[inside], return_index=True)
        table[first_grades + 2] = gain[inside[first_at]]
        sel = np.isin(r.qidx, qs)
        result_gain[sel] = table[r.grade[sel] + 2]
        if not len(gain):
            continue
        top[qs] = gain[-1]
        if gain[-1] <= 0:
            continue
        gtd = gain[::-1]
        src = np.where(lv.count_of[::-1] >= 0, lv.count_of[::-1], width - 1)
        cnt = counts[qs][:, src]
        cnt[:, lv.count_of[::-1] < 0] = 0
        bad = (gtd <= 0)[None, :] & (cnt > 0)
        first_bad = np.where(bad.any(axis=1), bad.argmax(axis=1), len(gtd))
        cnt[np.arange(len(gtd))[None, :] >= first_bad[:, None]] = 0
        reps = cnt.ravel()
        ig_parts.append(np.repeat(np.tile(gtd, len(qs)), reps))
        iq_parts.append(np.repeat(np.repeat(qs, len(gtd)), reps))
    if ig_parts:
        iq = np.concatenate(iq_parts)
        ig = np.concatenate(ig_parts)
        o = np.argsort(iq, kind="stable")
        iq, ig = iq[o], ig[o]
    else:
        iq, ig = np.zeros(0, np.int64), np.zeros(0)
    iptr = np.concatenate([[0], np.cumsum(np.bincount(iq, minlength=nq))]).astype(np.int64)
    ipos = np.arange(len(iq)) - iptr[:-1][iq] if len(iq) else np.zeros(0, np.int64)
    return GainSetup(result_gain=result_gain, ideal=ig, iptr=iptr, ipos=ipos, iqidx=iq, top=top)


def discounted(gain: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """gain / log2(rank + 1) for 0-based ``pos`` (0 where the gain is 0)."""
    out = np.zeros(len(gain), dtype=np.float64)
    nz = gain != 0
    out[nz] = gain[nz] / libm.log2(pos[nz] + 2)
    return out


def seg_cumsum(x: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Inclusive running sum restarted at every ``ptr`` offset.

    Summed sequentially within each segment (as the C loops do), so the
    values are bit-identical to a per-query loop.
    """
    n = np.diff(ptr)
    if not len(x):
        return np.zeros(0)
    nseg, m = len(n), int(n.max())
    if bool(np.all(n == m)):  # segments of one length (a run cut at one depth): rows of a matrix, no padding
        return np.cumsum(np.asarray(x, dtype=np.float64).reshape(nseg, m), axis=1).reshape(-1)
    if nseg * m <= 8_000_000:
        # one flat index into the (segments x longest) padded matrix: row * m + position in the segment
        cell = np.repeat(np.arange(nseg, dtype=np.int64) * m - ptr[:-1], n)
        cell += np.arange(len(x))
        pad = np.zeros(nseg * m)
        pad[cell] = x
        grid = pad.reshape(nseg, m)
        np.cumsum(grid, axis=1, out=grid)  # in place: each sum reads the running sum and its own cell only
        return grid.reshape(-1)[cell]
    out = np.empty(len(x))
    for i in np.flatnonzero(n):  # loop per query (few long ones), not per document
        out[ptr[i]:ptr[i + 1]] = np.cumsum(x[ptr[i]:ptr[i + 1]])
    return out
