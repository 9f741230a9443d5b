"""Preference measures for every pair of runs at once.

All functions take :class:`~pref_eval.run_preferences.data.RelVectors` ``rv`` and
pair index arrays ``run_i``, ``run_j`` (the papers' runs I and J: x = run I, y = run J)
and return ``(P, nq)`` arrays. Sign convention: > 0 means run I is better.

With x, y the relevance vectors (ranks ascending, unretrieved = ∞):

* RPP (Diaz & Ferraro, SIGIR 2022): ``Σ_i w_i·sgn(y_i − x_i)`` with
  ``w_i = 1/m`` (rpp), ``∝ 1/(i+1)`` (invrpp), ``∝ 1/log2(i+2)`` (dcgrpp),
  normalised to sum to 1 over the m levels. Graded: ``Σ_g m_g·rpp_g / Σ_g m_g``
  over the query's grade thresholds g, where rpp_g uses the documents with
  grade ≥ g (pref_eval before its 2024 cache change).
* lexiprecision (Diaz, 2023): ``sgn(y_d − x_d)`` at the **first** index d
  where x and y differ, 0 if none; rrlexiprecision: ``1/x_d − 1/y_d`` (1/∞ = 0).
* lexirecall (Diaz, Ekstrand & Mitra): ``sgn(y_d − x_d)`` at the **last**
  index d where they differ — the run retrieving more relevant documents wins,
  then the better rank of the deepest differing one.
"""
from __future__ import annotations

import numpy as np

from .data import BIG, RelVectors

CHUNK_CELLS = 1 << 22  # pairs × group slots per RPP block (a Python loop over depth per block)
LEVEL_CELLS = 1 << 16  # depth × groups × pairs up to which a block sums all levels at once (no loop)
LEXI_CELLS = 1 << 18  # pairs × slots per lexicographic block (small: the temporaries stay in cache)


def pairs_of(n: int, reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All i < j (pref_eval.py's order), or (reference, j) for every j ≠ reference."""
    if reference is None:
        i, j = np.triu_indices(n, 1)
        return i.astype(np.int64), j.astype(np.int64)
    others = np.array([k for k in range(n) if k != reference], dtype=np.int64)
    return np.full(len(others), reference, dtype=np.int64), others


def _blocks(P: int, width: int, cells: int = CHUNK_CELLS):
    step = max(1, cells // max(width, 1))
    for a in range(0, P, step):
        yield slice(a, min(P, a + step))


def rpp_weights(sizes: np.ndarray, scheme: str) -> np.ndarray:
    """Flat weights ``w_i = v_i / Σ_k v_k`` for groups of the given sizes.

    ``v_i`` = 1 (rpp), 1/(i+1) (invrpp), 1/log2(i+2) (dcgrpp); the mass is
    summed sequentially, as pref_eval.py does, so weights are bit-identical.
    One vector of values for the largest size; masses by one sequential
    accumulation (``np.add.accumulate``), no loop per group.
    """
    import math

    sizes = np.asarray(sizes, dtype=np.int64)
    if len(sizes) == 0:
        return np.zeros(0)
    top = int(sizes.max())
    if scheme == "rpp":
        v = np.ones(top)
    elif scheme == "invrpp":
        v = 1.0 / np.arange(1, top + 1, dtype=np.float64)  # IEEE division: = 1.0 / float(i + 1)
    elif scheme == "dcgrpp":
        v = np.array([1.0 / math.log2(i + 2) for i in range(top)])  # math.log2, as the reference
    else:
        raise ValueError(scheme)
    # mass of the first m values summed one after the other (np.add.accumulate is sequential)
    mass = np.add.accumulate(v)
    starts = np.cumsum(sizes) - sizes
    slot = np.arange(int(sizes.sum())) - np.repeat(starts, sizes)  # position inside its group
    return v[slot] / np.repeat(mass[sizes - 1], sizes)


def rpp_family(rv: RelVectors, run_i: np.ndarray, run_j: np.ndarray, schemes: list[str]) -> dict[str, np.ndarray]:
    """Graded RPP variants → {scheme: (P, nq)}.

    Per group g: ``rpp_g = Σ_i w_i·sgn(y_i − x_i)`` summed in i order; per
    query ``Σ_g m_g·rpp_g / Σ_g m_g`` summed in the order in which run I's
    ranking first shows each grade (pref_eval.py's ``u.grades`` order).

    The groups are sorted by size and laid out as a (depth, groups) grid; for
    a block of pairs the sums run over the depth one level i at a time, for
    every group with m_g > i (a prefix) and every pair at once -- sequential
    in i, as the reference's loops, so the floats agree bit for bit (each
    term ±w_i or 0 is exact).
    """
    out = {s: np.zeros((len(run_i), rv.nq)) for s in schemes}
    if rv.nq == 0 or len(run_i) == 0 or not schemes:
        return out
    NG, R = len(rv.gm), rv.nruns
    # groups by size descending: at level i the groups with m_g > i are a prefix
    gperm = np.argsort(-rv.gm, kind="stable")
    gm_s = rv.gm[gperm]
    depth = int(gm_s[0]) if NG else 0
    active = np.searchsorted(-gm_s, -np.arange(depth), side="left")  # #groups with m_g > i
    lvl = np.arange(depth)[:, None]
    src = np.where(lvl < gm_s[None, :], rv.gptr[:-1][gperm][None, :] + lvl, -1)  # (depth, NG)
    top = np.iinfo(np.int32).max  # int32 ranks halve the memory traffic; BIG → top
    seen = rv.granks[rv.granks < BIG]
    dt = np.int32 if seen.max(initial=0) < top else np.int64
    small = np.where(rv.granks >= BIG, top if dt is np.int32 else BIG, rv.granks).astype(dt)
    Gp = np.concatenate([small, np.full((R, 1), top if dt is np.int32 else BIG, dtype=dt)], axis=1)
    grid = np.ascontiguousarray(Gp[:, src].transpose(1, 2, 0))  # (depth, NG, R)
    W = {}
    for sc in schemes:
        w = np.zeros((depth, NG))
        w[src >= 0] = rpp_weights(rv.gm, sc)[src[src >= 0]]  # flat weights are in slot order
        W[sc] = w[:, :, None]
    gmf = rv.gm.astype(np.float64)[:, None]
    denom = np.bincount(rv.gq, weights=rv.gm.astype(np.float64), minlength=rv.nq)[:, None]
    # per run: the groups of each query in summation order, padded with NG (a zero row)
    Gq = int(np.diff(rv.qgptr).max())
    order_idx = np.full((R, Gq, rv.nq), NG, dtype=np.int64)
    for r in range(R):
        perm = np.lexsort((np.arange(NG), rv.gfirst[r], rv.gq))
        pos = np.arange(NG) - rv.qgptr[rv.gq[perm]]
        order_idx[r, pos, rv.gq[perm]] = perm
    TG = int(rv.gptr[-1])
    inv = np.empty(NG, dtype=np.int64)
    inv[gperm] = np.arange(NG)
    for sl in _blocks(len(run_i), TG):
        Ib, Jb = run_i[sl], run_j[sl]
        Pc = len(Ib)
        if depth * NG * Pc <= LEVEL_CELLS:
            acc = _levels_at_once(grid, W, Ib, Jb, schemes)
        else:
            acc = _levels_in_turn(grid, W, Ib, Jb, schemes, active)
        cols = np.arange(Pc)
        idx = np.moveaxis(order_idx[Ib], 0, -1)  # (Gq, nq, Pc)
        for sc in schemes:
            V = acc[sc][inv] * gmf  # (NG, Pc): m_g·rpp_g, groups back in their order
            Vx = np.vstack([V, np.zeros((1, Pc))])
            out[sc][sl] = (Vx[idx, cols].sum(axis=0) / denom).T
    return out


def _levels_in_turn(grid: np.ndarray, W: dict, Ib: np.ndarray, Jb: np.ndarray, schemes: list[str],
                    active: np.ndarray) -> dict[str, np.ndarray]:
    """``Σ_i w_i·sgn(y_i − x_i)`` per (group, pair), one level i at a time (groups with m_g > i)."""
    NG, Pc = grid.shape[1], len(Ib)
    acc = {sc: np.zeros((NG, Pc)) for sc in schemes}
    from ..native import kernels

    kern = kernels()
    if kern is not None and hasattr(kern, "rpp_levels"):  # the same additions in C (no temporaries)
        ws = [np.ascontiguousarray(W[sc][:, :, 0]) for sc in schemes]
        kern.rpp_levels(grid, ws, np.ascontiguousarray(Ib, dtype=np.int64), np.ascontiguousarray(Jb, dtype=np.int64),
                        np.ascontiguousarray(active, dtype=np.int64), [acc[sc] for sc in schemes])
        return acc
    for i in range(grid.shape[0]):
        n = int(active[i])
        row = grid[i, :n]  # (n, R) int32
        x, y = row[:, Ib], row[:, Jb]
        s = (y > x).view(np.int8) - (y < x).view(np.int8)  # sgn(y − x)
        for sc in schemes:
            a = acc[sc][:n]
            a += W[sc][i, :n] * s
    return acc


def _levels_at_once(grid: np.ndarray, W: dict, Ib: np.ndarray, Jb: np.ndarray,
                    schemes: list[str]) -> dict[str, np.ndarray]:
    """The same sums for a small block, all levels in one array (depth, groups, pairs).

    ``np.add.accumulate`` adds level after level, as :func:`_levels_in_turn`; a group's levels
    past its size add +0.0 (both ranks are the padding value, weight 0), which changes no sum.
    The loop starts from +0.0 and this from the first term; they can differ only in the sign
    of a zero sum, which the final ``+ 0.0`` makes +0.0 as the loop has it.
    """
    x, y = grid[:, :, Ib], grid[:, :, Jb]
    s = (y > x).view(np.int8) - (y < x).view(np.int8)
    return {sc: np.add.accumulate(W[sc] * s, axis=0)[-1] + 0.0 for sc in schemes}


def lexicographic(rv: RelVectors, run_i: np.ndarray, run_j: np.ndarray, which: set[str]) -> dict[str, np.ndarray]:
    """lexiprecision / rrlexiprecision / lexirecall → {name: (P, nq)}.

    lexi values are int64 (−1/0/1); rrlexiprecision is float with exact
    ties marked by :data:`TIE` (so the JSON writer prints ``0``).
    """
    P, nq = len(run_i), rv.nq
    res = {w: np.zeros((P, nq), dtype=np.float64 if w == "rrlexiprecision" else np.int64) for w in which}
    ties = np.zeros((P, nq), bool)
    if "rrlexiprecision" in which:
        res["rrlexiprecision_tie"] = ties
    if nq == 0 or P == 0:
        return res
    T = rv.ranks.shape[1]
    ar = np.arange(T)
    starts = rv.slot_ptr[:-1]
    for sl in _blocks(P, T, LEXI_CELLS):
        X = rv.ranks[run_i[sl]]
        Y = rv.ranks[run_j[sl]]
        neq = X != Y
        rows = np.arange(X.shape[0])[:, None]
        if which & {"lexiprecision", "rrlexiprecision"}:
            f = np.minimum.reduceat(np.where(neq, ar, T), starts, axis=1)
            tie = f >= T
            fc = np.minimum(f, T - 1)
            xv, yv = X[rows, fc], Y[rows, fc]
            # a first "difference" found past the query's slots belongs to a later query
            tie |= fc >= rv.slot_ptr[1:][None, :]
            if "lexiprecision" in which:
                res["lexiprecision"][sl] = np.where(tie, 0, np.where(xv < yv, 1, -1))
            if "rrlexiprecision" in which:
                rx = np.where(xv >= BIG, 0.0, 1.0 / np.maximum(xv, 1))
                ry = np.where(yv >= BIG, 0.0, 1.0 / np.maximum(yv, 1))
                res["rrlexiprecision"][sl] = np.where(tie, 0.0, rx - ry)
                ties[sl] = tie
        if "lexirecall" in which:
            d = np.maximum.reduceat(np.where(neq, ar, -1), starts, axis=1)
            tie = d < rv.slot_ptr[:-1][None, :]
            dc = np.maximum(d, 0)
            xv, yv = X[rows, dc], Y[rows, dc]
            res["lexirecall"][sl] = np.where(tie, 0, np.where(xv < yv, 1, -1))
    return res
