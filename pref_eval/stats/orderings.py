"""Correlation between two orderings of systems.

Scores are "higher = better" (an ordering given only as a list is turned
into scores -position). Both orderings are restricted to the systems they
share.

* Kendall tau_b -- ``scipy.stats.kendalltau(a, b, variant="b")``:
  (P - Q) / sqrt((P + Q + T)(P + Q + U)).
* tau_AP -- AP rank correlation (Yilmaz, Aslam & Robertson, SIGIR 2008) of
  an *evaluated* ordering L against a *reference* ordering T, without ties:
  tau_AP = 2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1, C(i) = number of systems
  above position i in L that T also ranks above L's i-th system. Asymmetric:
  errors near the top of L weigh more.
* Ties, rule used here (Urbano & Marrero, ICTIR 2017, "The treatment of ties
  in AP correlation"):

  - :func:`tau_ap_a` ("accuracy": the reference has no ties, the evaluated
    ordering may): the **expected** tau_AP when the ties of the evaluated
    ordering are broken uniformly at random, computed in closed form. A
    system in a tie group of size g starting at position p takes each of the
    positions p..p+g-1 with probability 1/g, and when it is at p+r the r
    systems above it from its own group are a random subset of the others.
    Ties in the reference (not covered by the paper's accuracy scenario)
    count as half-correct, which is the same expectation over random
    breaking of the reference's ties. Equals tau_AP when there are no ties.
  - :func:`tau_ap_b` ("agreement": ties in both): for each system i outside
    the top tie group of one ordering Y, let p_i be the first position of its
    tie group and A_i the p_i - 1 systems strictly above it in Y; score
    s_i = (#{j in A_i: X ranks j strictly above i} - #{j in A_i: not strictly
    above}) / (p_i - 1); tau_AP_b(X|Y) = mean of s_i; tau_AP_b =
    (tau_AP_b(X|Y) + tau_AP_b(Y|X)) / 2. Without ties it is the symmetric
    average of the two tau_AP.

  Both reproduce the golden values of the R package ircor's tests.
* Rank-biased overlap, extrapolated (Webber, Moffat & Zobel, TOIS 2010,
  eq. 32), for two complete orderings of the same k systems:
  RBO_ext = A_k p^k + (1-p)/p * sum_{d=1..k} A_d p^d, A_d = X_d/d, X_d = overlap
  of the two top-d prefixes. Ties: :func:`rbo_ext_tied`, the variants of
  Corsi & Urbano (SIGIR 2024) -- ``a`` (default; the expected RBO over random
  tie-breaking), ``b`` (RBO^b, = 1 for an ordering against itself) and ``w``
  (Webber et al.'s section 4.3: tied systems share a rank) -- or ``name``
  (ties broken by system name, this module's rule before session 18).
* Swapped pairs: pairs of systems ordered strictly one way by A and strictly
  the other way by B.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import libm
from ..errors import shown


def kendall_tau_b(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """(tau_b, two-sided p) from ``scipy.stats.kendalltau``: tau_b = (P - Q) / sqrt((P + Q + T)(P + Q + U)), P / Q
    the concordant / discordant pairs, T / U those tied in ``a`` only / ``b`` only (Kendall, Biometrika 1945)."""
    from scipy import stats

    res = stats.kendalltau(np.asarray(a, float), np.asarray(b, float), variant="b")
    return float(res.statistic), float(res.pvalue)


def _paired_rows(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two float arrays of rows (resamples x systems), of the same shape."""
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.shape != B.shape or A.ndim != 2:
        raise ValueError("the two score arrays must be 2-d and of the same shape")
    return A, B


def kendall_tau_b_rows(A: np.ndarray, B: np.ndarray, max_cells: int = 1 << 23) -> np.ndarray:
    """Kendall's tau_b (Kendall, Biometrika 1945) of each row pair (A[r], B[r]) at once (bootstrap resamples of
    system means).

    tau_b = (P - Q) / sqrt(n0 - n1) / sqrt(n0 - n2), n0 = n(n-1)/2 pairs, n1 / n2 the pairs tied in A / B,
    P - Q = sum over pairs of sgn(A_i - A_j) sgn(B_i - B_j) (integers), clipped to [-1, 1]; NaN when every
    pair is tied in A or in B: the arithmetic of ``scipy.stats.kendalltau(variant="b")`` on the same
    counts (so the same values), without a Python call per row. Rows are taken in blocks of at most
    ``max_cells`` pair cells.
    """
    A, B = _paired_rows(A, B)
    R, n = A.shape
    out = np.full(R, np.nan)
    if n < 2:
        return out
    i, j = np.triu_indices(n, 1)
    tot = n * (n - 1) // 2
    step = max(1, max_cells // tot)
    for r0 in range(0, R, step):
        sa = np.sign(A[r0:r0 + step, i] - A[r0:r0 + step, j]).astype(np.int8)
        sb = np.sign(B[r0:r0 + step, i] - B[r0:r0 + step, j]).astype(np.int8)
        cmd = (sa.astype(np.int64) * sb).sum(axis=1)
        xtie = (sa == 0).sum(axis=1)
        ytie = (sb == 0).sum(axis=1)
        ok = (xtie != tot) & (ytie != tot)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = cmd / np.sqrt((tot - xtie).astype(np.float64)) / np.sqrt((tot - ytie).astype(np.float64))
        out[r0:r0 + step] = np.where(ok, np.clip(tau, -1.0, 1.0), np.nan)
    return out


def tau_ap_a_rows(X: np.ndarray, Y: np.ndarray, max_cells: int = 1 << 23) -> np.ndarray:
    """:func:`tau_ap_a` (Urbano & Marrero, ICTIR 2017) of each row pair (reference X[r], evaluated Y[r]) at once,
    vectorised over rows and systems (the bootstrap of ``zelo_agree -l system``; :func:`tau_ap_a` is its one-row case).
    Per system i with p0 systems strictly above it in Y and a tie group of size g: the mean over its positions p0 + t (t
    < g) of (c_strict + t * share) / (p0 + t), c_strict the reference's credit for the systems above, share its mean
    credit for one of the group (module docstring)."""
    X, Y = _paired_rows(X, Y)
    R, n = X.shape
    out = np.full(R, np.nan)
    if n < 2:
        return out
    step = max(1, max_cells // (n * n))
    eye = np.eye(n, dtype=bool)
    for r0 in range(0, R, step):
        x, y = X[r0:r0 + step], Y[r0:r0 + step]
        # correct[r, i, j]: the reference ranks j above i (1), tied (1/2), below (0); 0 on the diagonal
        correct = (x[:, None, :] > x[:, :, None]) + 0.5 * (x[:, None, :] == x[:, :, None])
        correct[:, eye] = 0.0
        above = y[:, None, :] > y[:, :, None]
        same = y[:, None, :] == y[:, :, None]
        same[:, eye] = False
        c_strict = (correct * above).sum(axis=2)
        c_group = (correct * same).sum(axis=2)
        p0 = above.sum(axis=2)
        g = same.sum(axis=2) + 1
        share = np.where(g > 1, c_group / np.maximum(g - 1, 1), 0.0)
        acc = np.zeros(p0.shape)
        for t in range(int(g.max())):  # the positions p0 + t of a tie group, t < g (1 without ties)
            pos = p0 + t
            live = (t < g) & (pos > 0)
            acc += np.where(live, (c_strict + t * share) / np.where(live, pos, 1), 0.0)
        out[r0:r0 + step] = 2.0 / (n - 1) * (acc / g).sum(axis=1) - 1.0
    return out


def tau_ap(reference: Sequence[float] | np.ndarray, evaluated: Sequence[float] | np.ndarray) -> float:
    """tau_AP of ``evaluated`` against ``reference`` (scores, higher = better,
    no ties allowed in either; use :func:`tau_ap_a` / :func:`tau_ap_b` with ties): tau_AP = 2/(N-1)
    Σ_{i=2..N} C(i)/(i-1) - 1, C(i) the systems above position i of the evaluated ordering that the reference
    also ranks above its i-th system (Yilmaz, Aslam & Robertson, SIGIR 2008)."""
    x = np.asarray(reference, float)
    y = np.asarray(evaluated, float)
    if len(np.unique(x)) != x.size or len(np.unique(y)) != y.size:
        raise ValueError("tau_ap needs orderings without ties; use tau_ap_a or tau_ap_b")
    return tau_ap_a(x, y)


def tau_ap_a(reference: Sequence[float] | np.ndarray, evaluated: Sequence[float] | np.ndarray) -> float:
    """Expected tau_AP over random breaking of the evaluated ordering's ties (Urbano & Marrero, ICTIR 2017, the
    accuracy scenario; tau_AP = 2/(N-1) Σ_{i=2..N} C(i)/(i-1) - 1 of Yilmaz, Aslam & Robertson, SIGIR 2008; see
    the module docstring); :func:`tau_ap_a_rows` on one row."""
    x = np.asarray(reference, float)
    y = np.asarray(evaluated, float)
    if y.size != x.size:
        raise ValueError("the two score vectors differ in length")
    return float(tau_ap_a_rows(x[None, :], y[None, :])[0])


def _tau_ap_b_one(x: np.ndarray, y: np.ndarray) -> float:
    above = y[None, :] > y[:, None]
    p_minus_1 = above.sum(axis=1)
    agree = above & (x[None, :] > x[:, None])
    s = 2 * agree.sum(axis=1) - p_minus_1
    keep = p_minus_1 > 0
    if not keep.any():
        return float("nan")
    return float(np.mean(s[keep] / p_minus_1[keep]))


def tau_ap_b(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Symmetric tie-aware tau_AP_b (Urbano & Marrero, ICTIR 2017, the agreement scenario):
    (tau_AP_b(a|b) + tau_AP_b(b|a)) / 2, tau_AP_b(X|Y) = mean_i s_i, s_i = (#{j above i in Y: X ranks j strictly
    above i} - #{j above i in Y: not}) / (p_i - 1), p_i the first position of i's tie group in Y (module
    docstring)."""
    x = np.asarray(a, float)
    y = np.asarray(b, float)
    if x.size != y.size:
        raise ValueError("the two score vectors differ in length")
    return (_tau_ap_b_one(x, y) + _tau_ap_b_one(y, x)) / 2


def _order(names: Sequence[str], scores: np.ndarray) -> list[str]:
    return [names[i] for i in sorted(range(len(names)), key=lambda i: (-scores[i], names[i]))]


def rbo_ext(a: Sequence[str], b: Sequence[str], p: float = 0.9, depth: int | None = None) -> float:
    """Extrapolated rank-biased overlap of two orderings (lists, best first)
    of the same length k (Webber et al. 2010, eq. 32): RBO_ext = A_k p^k + (1-p)/p Σ_{d=1..k} A_d p^d, A_d the
overlap of the two top-d prefixes over d; ``depth``: evaluated at depth
    min(depth, k), as :func:`rbo_at_depth`."""
    return _rbo_ext_parts(a, b, p, depth)[1]


def _check_depth(depth: int | None) -> None:
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"RBO depth must be an integer >= 1 (got {shown(depth)})")


def _rbo_ext_parts(a: Sequence[str], b: Sequence[str], p: float, depth: int | None) -> tuple[float, float, int]:
    """(the sum (1-p)/p sum_{d<=K} A_d p^d, RBO_ext = sum + A_K p^K, K) of two tie-free lists of one length k,
    K = min(depth, k)."""
    _check_depth(depth)
    if not 0 < p < 1:
        raise ValueError("RBO persistence p must be in (0, 1)")
    if len(a) != len(b):  # eq. 32 is for lists of one length; cutting the longer one was another number
        raise ValueError(f"the two orderings differ in length ({len(a)} and {len(b)}); rbo_prefix takes "
                         "lists of two lengths")
    k = len(a) if depth is None else min(len(a), int(depth))
    if k == 0:
        return float("nan"), float("nan"), 0
    seen_a: set = set()
    seen_b: set = set()
    overlap = 0
    acc = 0.0
    for d in range(1, k + 1):
        x, y = a[d - 1], b[d - 1]
        if x == y:
            overlap += 1
        else:
            overlap += (x in seen_b) + (y in seen_a)
        seen_a.add(x)
        seen_b.add(y)
        acc += overlap / d * p ** d
    total = (1 - p) / p * acc
    return float(total), float(overlap / k * p ** k + total), k


#: Tie treatments of RBO in :func:`compare_orderings` (``zelo_compare --rbo-ties``).
RBO_TIES = ("a", "b", "w", "name")


def _tie_ranks(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: t = number of items scored strictly higher, g = size of its tie group (itself included)."""
    s = np.sort(scores)
    above = scores.size - np.searchsorted(s, scores, side="right")
    group = np.searchsorted(s, scores, side="right") - np.searchsorted(s, scores, side="left")
    return above, group


def rbo_ext_tied(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, p: float = 0.9,
                 ties: str = "a", max_cells: int = 1 << 22, depth: int | None = None) -> float:
    """Tie-aware extrapolated RBO of two complete orderings of the same k items, given as aligned scores.

    ``a[i]`` and ``b[i]`` are item i's scores (higher = better; equal scores are a tie). Corsi & Urbano,
    "The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024 (https://arxiv.org/abs/2406.07121; their
    code https://github.com/julian-urbano/sigir2024-rbo). An item whose tie group in ordering S has
    t_i items above it and g_i members occupies the positions t_i+1..t_i+g_i; its contribution to the
    depth-d prefix of S is

    * ``w`` (Webber, Moffat & Zobel, TOIS 2010, section 4.3: tied items share one rank and a prefix takes
      whole tie groups): c_S,i(d) = 1 if d > t_i else 0;
    * ``a`` and ``b``: the probability that it is among the top d when S's ties are broken uniformly at
      random, c_S,i(d) = min(1, max(0, (d - t_i)/g_i)).

    With X_d = sum_i c_S,i(d) c_L,i(d), the agreement at depth d is

    * ``w``: A_d = 2 X_d / (sum_i c_S,i(d) + sum_i c_L,i(d));
    * ``a``: A_d = X_d / d -- so RBO^a is exactly the mean of the tie-free RBO over all independent random
      tie breaks of the two orderings (RBO is linear in X_d, and X_d^a is the expected overlap);
    * ``b``: A_d = X_d / sqrt(sum_i c_S,i(d)^2 * sum_i c_L,i(d)^2) (the tau_b-like correction for the
      information lost to ties: RBO^b(S, S) = 1, RBO^a <= RBO^b).

    RBO_ext = A_k p^k + (1 - p)/p * sum_{d=1..k} A_d p^d (Webber et al. eq. 32 with A_d for X_d/d; both
    orderings are complete, so A_k = 1, and the extrapolated value equals Corsi & Urbano's upper bound).
    Without ties the three variants equal the tie-free RBO_ext. Symmetric in a and b; does not depend
    on item names. ``max_cells`` bounds the item x depth block held in memory. ``depth``: evaluated at depth
    K = min(depth, k) (:func:`rbo_at_depth`): the sum to K and A_K p^K, A_K of the top K of each ordering.
    """
    return _rbo_tied_parts(a, b, p, ties, max_cells, depth)[1]


def _rbo_tied_parts(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, p: float, ties: str,
                    max_cells: int, depth: int | None) -> tuple[float, float, int]:
    """(the sum (1-p)/p sum_{d<=K} A_d p^d, RBO_ext = sum + A_K p^K, K = min(depth, k)) of :func:`rbo_ext_tied`."""
    _check_depth(depth)
    if not 0 < p < 1:
        raise ValueError("RBO persistence p must be in (0, 1)")
    if ties not in ("a", "b", "w"):
        raise ValueError(f"RBO ties must be one of a, b, w (got {shown(ties)})")
    x = np.asarray(a, float)
    y = np.asarray(b, float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("the two score vectors differ in length")
    n = x.size
    k = n if depth is None else min(n, int(depth))
    if k == 0:
        return float("nan"), float("nan"), 0
    tx, gx = _tie_ranks(x)
    ty, gy = _tie_ranks(y)
    acc = 0.0
    a_d = 1.0
    step = max(1, max_cells // n)
    for d0 in range(1, k + 1, step):
        d = np.arange(d0, min(k, d0 + step - 1) + 1, dtype=np.float64)
        if ties == "w":
            cx = (d[None, :] > tx[:, None]).astype(np.float64)
            cy = (d[None, :] > ty[:, None]).astype(np.float64)
        else:
            cx = np.clip((d[None, :] - tx[:, None]) / gx[:, None], 0.0, 1.0)
            cy = np.clip((d[None, :] - ty[:, None]) / gy[:, None], 0.0, 1.0)
        xd = (cx * cy).sum(axis=0)
        if ties == "w":
            agree = 2 * xd / (cx.sum(axis=0) + cy.sum(axis=0))
        elif ties == "a":
            agree = xd / d
        else:
            agree = xd / np.sqrt((cx * cx).sum(axis=0) * (cy * cy).sum(axis=0))
        acc += float((agree * libm.power(p, d)).sum())
        a_d = float(agree[-1])
    total = (1 - p) / p * acc
    return float(total), float(a_d * p ** k + total), k


def rbo_at_depth(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, p: float = 0.9,
                 depth: int = 10, ties: str = "a") -> dict:
    """RBO of two complete orderings of the same k items (aligned scores, as :func:`rbo_ext_tied`; ``ties``
    one of a, b, w) evaluated at depth K = min(``depth``, k): only the top K of each ordering is seen
    (Webber, Moffat & Zobel, TOIS 2010, section 4: RBO on prefixes of an evaluation depth).

    Returns ``{"ext", "sum", "depth"}``: ``sum`` = (1-p)/p sum_{d=1..K} A_d p^d (the truncated series, eq. 7
    cut at K: a lower bound of the full RBO when K < k; the PyPI ``rbo`` package's
    ``RankingSimilarity(S, T).rbo(k=K, p=p)``) and ``ext`` = sum + A_K p^K (eq. 32 for two depth-K prefixes,
    the agreement at depth K carried on: ``rbo(k=K, p=p, ext=True)``), ``depth`` = K. With ties, A_d is
    Corsi & Urbano's (:func:`rbo_ext_tied`) of the two whole orderings at d <= K, so a tie group across
    depth K counts its chance of being above it (``a``: the mean of the tie-free values over random
    tie breaks). At K = k, ``ext`` is :func:`rbo_ext_tied`.
    """
    if ties not in ("a", "b", "w"):
        raise ValueError(f"RBO ties must be one of a, b, w (got {shown(ties)})")
    if depth is None:
        raise ValueError("RBO depth must be an integer >= 1 (got None)")
    total, ext, k = _rbo_tied_parts(a, b, p, ties, 1 << 22, depth)
    return {"ext": ext, "sum": total, "depth": k}


#: Which lists RBO compares in :func:`compare_orderings` (``zelo_compare --rbo-lists``): ``common`` = the
#: complete orderings of the systems both hold, ``prefix`` = each whole ordering as the top of a longer one.
RBO_LISTS = ("common", "prefix")


def _as_scores(x: Mapping[str, float] | Sequence[str], label: str) -> tuple[list[str], np.ndarray]:
    """(names, scores) of an ordering given as a mapping name -> score or as a list of names, best first."""
    if isinstance(x, Mapping):
        names = list(x)
        scores = np.array([float(x[s]) for s in names], dtype=np.float64)
        if np.isnan(scores).any():
            raise ValueError(f"ordering {label}: a score is NaN; expected a number")
        return names, scores
    names = list(x)
    if len(set(names)) != len(names):
        raise ValueError(f"ordering {label}: an item is listed twice")
    return names, -np.arange(len(names), dtype=np.float64)


def rbo_prefix(a: Mapping[str, float] | Sequence[str], b: Mapping[str, float] | Sequence[str], p: float = 0.9,
               ties: str = "a", max_cells: int = 1 << 22) -> dict:
    """Rank-biased overlap of two *prefixes* (of possibly different lengths and items): RBO_ext, RBO_min,
    RBO_max and RBO_res (Webber, Moffat & Zobel, "A similarity measure for indefinite rankings", ACM TOIS
    28(4), 2010, section 4; with ties, Corsi & Urbano, SIGIR 2024, https://arxiv.org/abs/2406.07121).

    ``a`` and ``b`` are the visible tops of two longer rankings whose rest is unknown: mappings item ->
    score (higher = better, equal scores a tie) or lists of items, best first. S is the shorter (s items),
    L the longer (l items; S = ``a`` when s = l). X_d is the overlap of the depth-d prefixes (for s < d <= l:
    of all of S with the top d of L), A_d the agreement at depth d (X_d / d without ties), and
    RBO = (1 - p)/p * sum_{d>=1} A_d p^d. Without ties (Webber et al. eqs. 11, 30, 32 with k = l):

    * ``min`` (nothing unseen overlaps): RBO_min = (1-p)/p * (sum_{d=1..l} (X_d - X_l) p^d / d - X_l ln(1-p));
    * ``max`` (every unseen item overlaps as early as it can): for s < d <= l, X_d + (d - s); for d > l,
      min(d, X_l + 2d - l - s), which reaches d at f = l + s - X_l; RBO_res = max - min =
      p^s + p^l - p^f - (1-p)/p * (s sum_{d=s+1..f} p^d/d + l sum_{d=l+1..f} p^d/d
      + X_l (ln(1/(1-p)) - sum_{d=1..f} p^d/d));
    * ``ext`` (the agreement A_s of the short list continues in its unseen part, eq. 32):
      RBO_ext = (1-p)/p * (sum_{d=1..l} X_d p^d / d + sum_{d=s+1..l} X_s (d - s) p^d / (s d))
      + ((X_l - X_s)/l + X_s/s) p^l.

    min <= ext <= max. For two complete orderings of the same items RBO_ext equals :func:`rbo_ext` /
    :func:`rbo_ext_tied` (min and res then describe prefixes of longer rankings, which they are not).

    Ties (``ties``, as in :func:`rbo_ext_tied`; Corsi & Urbano's generalisation of the four forms): item i's
    contribution c_S,i(d), c_L,i(d) to a prefix (``a``/``b``: the probability it is in the top d when the
    ties are broken at random; ``w``: 1 from the first position of its tie group), X_d = sum_i c_S,i(d)
    c_L,i(d), the unseen items of S beyond depth s counted as untied singletons: A_d = X_d / d (``a``),
    X_d / sqrt(sum_i c_S,i(d)^2 * sum_i c_L,i(d)^2) (``b``), 2 X_d / (sum_i c_S,i(d) + sum_i c_L,i(d))
    (``w``); for s < d <= l the unseen part of S adds, to ``max``, the contributions c_L,j(d) of the first
    d - s items j of L not in S, and to ``ext``, (d - s) A_s times the mean non-zero c_L,j(d) of the items
    of L not in S; beyond l, A_d = X_l/d (``min``), min(1, (X_l + 2d - l - s)/d) (``max``),
    (X_l + (l - s) A_s)/l (``ext``). At depth l every item of both lists is in, so X_l = |S & L| and f are
    integers with ties too. ``min`` with ``a`` is the mean of the tie-free RBO_min over all random tie
    breaks. Vectorised over blocks of item x depth cells (``max_cells``).

    Returns ``{"ext", "min", "max", "res", "s", "l"}``.
    """
    if not 0 < p < 1:
        raise ValueError("RBO persistence p must be in (0, 1)")
    if ties not in ("a", "b", "w"):
        raise ValueError(f"RBO ties must be one of a, b, w (got {shown(ties)})")
    na, xa = _as_scores(a, "A")
    nb, xb = _as_scores(b, "B")
    if not na or not nb:
        raise ValueError("RBO needs two non-empty orderings")
    if len(nb) < len(na):
        (na, xa), (nb, xb) = (nb, xb), (na, xa)
    s, n_l = len(na), len(nb)
    ts, gs = _tie_ranks(xa)
    tl, gl = _tie_ranks(xb)
    pos_l = {name: j for j, name in enumerate(nb)}
    common_s = np.array([i for i, name in enumerate(na) if name in pos_l], dtype=np.intp)
    common_l = np.array([pos_l[na[i]] for i in common_s], dtype=np.intp)
    in_s = set(na)
    only_l = np.array([j for j in range(n_l) if nb[j] not in in_s], dtype=np.intp)
    only_l = only_l[np.argsort(tl[only_l], kind="stable")]  # L's order (within a tie group any order: same c)

    def contrib(d: np.ndarray, t: np.ndarray, g: np.ndarray) -> np.ndarray:
        if ties == "w":
            return (d[None, :] > t[:, None]).astype(np.float64)
        return np.clip((d[None, :] - t[:, None]) / g[:, None], 0.0, 1.0)

    def agreement(d: np.ndarray, x: np.ndarray) -> np.ndarray:
        """A_d of the overlaps x at depths d (unseen items of S beyond s: untied singletons)."""
        if ties == "a":
            return x / d
        cs = contrib(d, ts, gs)
        cl = contrib(d, tl, gl)
        extra = np.maximum(d - s, 0.0)
        if ties == "w":
            return 2 * x / (cs.sum(axis=0) + extra + cl.sum(axis=0))
        return x / np.sqrt(((cs * cs).sum(axis=0) + extra) * (cl * cl).sum(axis=0))

    def overlap(d: np.ndarray) -> np.ndarray:
        return (contrib(d, ts[common_s], gs[common_s]) * contrib(d, tl[common_l], gl[common_l])).sum(axis=0)

    d_s = np.array([float(s)])
    a_s = float(agreement(d_s, overlap(d_s))[0])
    acc = dict.fromkeys(("min", "max", "ext"), 0.0)
    step = max(1, max_cells // max(1, s + n_l))
    for d0 in range(1, n_l + 1, step):
        d = np.arange(d0, min(n_l, d0 + step - 1) + 1, dtype=np.float64)
        x = overlap(d)
        w = libm.power(p, d)
        acc["min"] += float((agreement(d, x) * w).sum())
        beyond = d > s
        if not beyond.any():
            acc["max"] += float((agreement(d, x) * w).sum())
            acc["ext"] += float((agreement(d, x) * w).sum())
            continue
        cl = contrib(d, tl[only_l], gl[only_l])  # the items of L not in S, in L's order
        first = np.arange(only_l.size)[:, None] < (d - s)[None, :]
        x_max = x + np.where(beyond, (cl * first).sum(axis=0), 0.0)
        live = (cl > 0).sum(axis=0)
        mean_c = np.where(live > 0, cl.sum(axis=0) / np.maximum(live, 1), 0.0)
        x_ext = x + np.where(beyond, (d - s) * a_s * mean_c, 0.0)
        acc["max"] += float((agreement(d, x_max) * w).sum())
        acc["ext"] += float((agreement(d, x_ext) * w).sum())
    # beyond depth n_l (both lists unseen): sum_{d>n_l} p^d / d = ln(1/(1-p)) - sum_{d<=n_l} p^d / d
    dl = np.arange(1, n_l + 1, dtype=np.float64)
    tail_inv = -math.log1p(-p) - float((libm.power(p, dl) / dl).sum())
    x_l = float(common_s.size)  # = the overlap at depth n_l, every item of both lists being in
    f = n_l + s - common_s.size  # the depth from which the maximal agreement is 1
    lin = np.arange(n_l + 1, f, dtype=np.float64)
    tail_max = float(((2 * lin - n_l - s + x_l) / lin * libm.power(p, lin)).sum()) + p ** max(f, n_l + 1) / (1 - p)
    c = (1 - p) / p
    out = {"min": c * (acc["min"] + x_l * tail_inv),
           "max": c * (acc["max"] + tail_max),
           "ext": c * acc["ext"] + (x_l + (n_l - s) * a_s) / n_l * p ** n_l}
    out["res"] = out["max"] - out["min"]
    out["s"], out["l"] = s, n_l
    return out


def swapped_pairs(names: Sequence[str], a: Sequence[float] | np.ndarray,
                  b: Sequence[float] | np.ndarray) -> list[tuple[str, str]]:
    """Pairs (s, t) with a[s] > a[t] and b[s] < b[t] (A puts s above t, B below),
    listed in A's order."""
    x = np.asarray(a, float)
    y = np.asarray(b, float)
    order = sorted(range(len(names)), key=lambda i: (-x[i], names[i]))
    out = []
    for pi, i in enumerate(order):
        for j in order[pi + 1:]:
            if x[i] > x[j] and y[i] < y[j]:
                out.append((names[i], names[j]))
    return out


def compare_orderings(a: Mapping[str, float], b: Mapping[str, float], rbo_p: float | None = 0.9,
                      rbo_ties: str = "a", rbo_lists: str = "common", rbo_depth: int | None = None) -> dict:
    """All the correlations between two score mappings (system -> score).

    Returns a dict with ``systems`` (common), ``only_a``, ``only_b``,
    ``kendall_tau_b``, ``kendall_p``, ``tau_ap_b_given_a`` (B evaluated, A
    the reference), ``tau_ap_a_given_b``, ``tau_ap_sym`` (tau_AP_b),
    ``rbo`` (when ``rbo_p``; with ``rbo_p`` and ``rbo_ties``, one of
    :data:`RBO_TIES`: the tie variant of :func:`rbo_ext_tied`, or ``name``
    = ties broken by system name), ``swapped`` (list of pairs), ``n_pairs``,
    ``ties_a`` / ``ties_b`` (number of tied pairs). ``rbo_lists`` (one of
    :data:`RBO_LISTS`): ``common`` (default) = RBO_ext of the two complete
    orderings of the common systems; ``prefix`` = :func:`rbo_prefix` of the
    two whole orderings, each the top of a longer ranking: ``rbo`` is its
    RBO_ext, with ``rbo_min``, ``rbo_max``, ``rbo_res``, ``rbo_len_a``,
    ``rbo_len_b``. ``rbo_depth`` (``common`` only): RBO evaluated at depth
    K = min(rbo_depth, systems), :func:`rbo_at_depth`: ``rbo`` its ``ext``, with
    ``rbo_sum`` (the truncated series) and ``rbo_depth`` = K. A NaN score is
    refused (ValueError); +-inf is a score like any other (it only orders).
    """
    _check_depth(rbo_depth)
    if rbo_depth is not None and rbo_lists == "prefix":
        raise ValueError("an RBO depth applies to the common orderings (rbo_lists common); a prefix is seen to "
                         "its length: cut the orderings to their top k instead")
    if rbo_ties not in RBO_TIES:
        raise ValueError(f"RBO ties must be one of {', '.join(RBO_TIES)} (got {shown(rbo_ties)})")
    if rbo_lists not in RBO_LISTS:
        raise ValueError(f"RBO lists must be one of {', '.join(RBO_LISTS)} (got {shown(rbo_lists)})")
    for label, scores in (("A", a), ("B", b)):
        bad = [s for s, v in scores.items() if math.isnan(float(v))]
        if bad:  # NaN compares false with everything: tau_b NaN, tau_AP a silent 0 (every pair "not above")
            raise ValueError(f"ordering {label}: the score of system {shown(bad[0])} is NaN; expected a number")
    names = [s for s in a if s in b]
    only_a = [s for s in a if s not in b]
    only_b = [s for s in b if s not in a]
    x = np.array([a[s] for s in names], float)
    y = np.array([b[s] for s in names], float)
    n = len(names)
    out: dict = {"systems": names, "only_a": only_a, "only_b": only_b, "n_systems": n,
                 "n_pairs": n * (n - 1) // 2}
    if n < 2:
        raise ValueError("need at least two systems common to both orderings")
    tau, p = kendall_tau_b(x, y)
    iu = np.triu_indices(n, 1)
    out.update({
        "kendall_tau_b": tau, "kendall_p": p,
        "tau_ap_b_given_a": tau_ap_a(x, y),
        "tau_ap_a_given_b": tau_ap_a(y, x),
        "tau_ap_sym": tau_ap_b(x, y),
        "ties_a": int((x[iu[0]] == x[iu[1]]).sum()),
        "ties_b": int((y[iu[0]] == y[iu[1]]).sum()),
        "swapped": swapped_pairs(names, x, y),
    })
    if rbo_p is not None:
        out["rbo_p"] = rbo_p
        out["rbo_ties"] = rbo_ties
        out["rbo_lists"] = rbo_lists
        if rbo_lists == "prefix":
            if rbo_ties == "name":  # each list's ties broken by system name, then the tie-free prefix RBO
                pre = rbo_prefix(_order(list(a), np.array([a[s] for s in a], float)),
                                 _order(list(b), np.array([b[s] for s in b], float)), rbo_p)
            else:
                pre = rbo_prefix(a, b, rbo_p, rbo_ties)
            out.update({"rbo": pre["ext"], "rbo_min": pre["min"], "rbo_max": pre["max"], "rbo_res": pre["res"],
                        "rbo_len_a": len(a), "rbo_len_b": len(b),
                        "rbo_lists_tied": len(set(a.values())) < len(a) or len(set(b.values())) < len(b)})
        elif rbo_ties == "name":
            total, out["rbo"], k = _rbo_ext_parts(_order(names, x), _order(names, y), rbo_p, rbo_depth)
        else:
            total, out["rbo"], k = _rbo_tied_parts(x, y, rbo_p, rbo_ties, 1 << 22, rbo_depth)
        if rbo_depth is not None:
            out["rbo_sum"], out["rbo_depth"] = total, k
    return out
