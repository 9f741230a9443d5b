"""Wilcoxon's signed-rank test (Wilcoxon 1945), vectorised over rows, without scipy.

For one row of differences d_1..d_n (H0: symmetric about 0, two-sided):

* ranks: average ranks of |d_i| (ties share their mean rank). Zero
  differences per ``zero_method``: ``wilcox`` drops them (Wilcoxon 1945),
  ``pratt`` ranks them and then counts no rank for them (Pratt 1959),
  ``zsplit`` ranks them and gives half their rank sum to each sign.
* R+ = sum of the ranks of the positive d_i (+ half the zero ranks for
  zsplit), R- likewise; the reported statistic is min(R+, R-).
* ``exact``: the null distribution of R+ for m = the number of ranked values
  without ties, P(R+ = r) = #{subsets of {1..m} summing to r} / 2^m, counted
  with integers (the coefficients of prod_k (1 + x^k), packed as below);
  a non-integral R+ (ties) is rounded up for the lower tail and down for the
  upper; p = min(1, 2 min(P(R+ <= ceil R+), P(R+ >= floor R+))).
  Only for rows without tied |d| and without zeros among the ranked values
  (``pratt`` / ``zsplit`` zeros): for ``pratt`` R+ leaves the zeros' ranks out,
  and the distribution over all n ranks (scipy's ``method="exact"``) gives
  identical runs p = 2/2^n; tied ranks make that distribution approximate
  (scipy keeps it). Such rows use ``permutation`` below, the exact
  distribution of their own ranks (= scipy's ``PermutationMethod(n_resamples=inf)``).
* ``permutation``: the exact sign-flip distribution of R+ over all 2^n sign
  vectors (the ranks of |d| do not change), counted with integers over the
  doubled ranks; p = min(1, 2 min(#{R+* <= R+}, #{R+* >= R+}) / 2^n).
  The counts of the sums of the m movable doubled ranks w_i are the
  coefficients of prod (1 + x^w_i); the distribution is symmetric (a subset
  and its complement), so min(#{<= a}, #{>= a'}) is one lower tail
  #{<= min(a, W - a')} with W = sum w_i, at most W/2. That tail is counted
  with Python integers packed m + 1 bits a coefficient into one integer
  (x = 2^(m+1): no coefficient reaches 2^(m+1), so none carries into the
  next); each factor is one shift and one add, truncated above the tail's
  end, and the tail is the packed integer modulo 2^(m+1) - 1 (the sum of its
  coefficients, below 2^(m+1) - 1). Rows with the same doubled ranks share
  one product.
* ``asymptotic``: z = (R+ - mu)/sigma with mu = m(m+1)/4 and
  sigma^2 = (m(m+1)(2m+1) - sum_ties (t^3 - t)/2)/24 (Pratt: minus the
  zeros' share, Cureton 1967); ``correction`` moves R+ half a unit towards
  mu; p = erfc(|z|/sqrt 2).

``method="auto"`` decides per row as ``scipy.stats.wilcoxon`` 1.17 decides for
one sample of length n: n > 50 -> asymptotic; otherwise exact when the row
has no zero and no tied |d|, else the exhaustive permutation test when
n <= 13, else asymptotic. scipy is the oracle of ``tests/test_stats_exact.py``
(exact and permutation p-values are equal to the last bit: both are ratios
of integers below 2^53 to 2^n; asymptotic ones within 1e-13).
"""
from __future__ import annotations

import math

import numpy as np

from .special import normal_two_sided
from ..errors import shown

ZERO_METHODS = ("wilcox", "pratt", "zsplit")
METHODS = ("auto", "exact", "asymptotic")


def average_ranks(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise average ranks (1-based) of ``A``; nan entries rank last, each on its own.

    Returns (ranks, tie term sum (t^3 - t) over each row's groups of equal values).
    """
    k, n = A.shape
    order = np.argsort(A, axis=1, kind="stable")
    S = np.take_along_axis(A, order, axis=1)
    new_group = np.ones((k, n), dtype=bool)
    if n > 1:
        new_group[:, 1:] = S[:, 1:] != S[:, :-1]  # nan != nan: each nan its own group
    pos = np.arange(n)
    start = np.where(new_group, pos, 0)
    start = np.maximum.accumulate(start, axis=1)
    # group end (exclusive): the next group's start, scanned from the right
    nxt = np.where(new_group, pos, n)
    end = np.empty((k, n), dtype=np.int64)
    if n:
        shifted = np.full((k, n), n, dtype=np.int64)
        shifted[:, :-1] = nxt[:, 1:]
        end = np.minimum.accumulate(shifted[:, ::-1], axis=1)[:, ::-1]
    size = end - start
    ranks_sorted = (start + end + 1) / 2.0
    ranks = np.empty((k, n))
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    sizes = np.where(new_group, size, 0).astype(float)
    return ranks, sizes


def _signed_rank_parts(D: np.ndarray, zero_method: str):
    """(ranks, positive mask, zero mask, counted mask, tie sizes per group start, has_ties)."""
    zero = D == 0
    A = np.abs(D)
    if zero_method == "wilcox":
        A = np.where(zero, np.nan, A)
    ranks, sizes = average_ranks(A)
    counted = ~np.isnan(A)
    has_ties = (sizes > 1).any(axis=1)
    return ranks, D > 0, zero, counted, sizes, has_ties


def _exact_null_counts(m: int) -> list[int]:
    """c[r] = #{subsets of {1..m} with sum r}, r = 0..m(m+1)/2 (integers).

    The coefficients of prod_j (1 + x^j) up to the middle (packed, ``_packed_subset_sums``, in whole bytes a
    coefficient so that they unpack by slicing), the rest by symmetry: c[r] = c[m(m+1)/2 - r].
    """
    total = m * (m + 1) // 2
    half = total // 2
    nbytes = (m + 8) // 8  # 8 * nbytes >= m + 1 bits
    P = _packed_subset_sums(list(range(1, m + 1)), half, 8 * nbytes)
    buf = P.to_bytes((half + 1) * nbytes, "little")
    c = [int.from_bytes(buf[i * nbytes:(i + 1) * nbytes], "little") for i in range(half + 1)]
    return c + c[:total - half][::-1]


def _packed_subset_sums(weights: list[int], top: int, bits: int) -> int:
    """prod (1 + X^w) over ``weights`` (ascending, positive) truncated above X^top, at X = 2^bits.

    Coefficient s (bits [s * bits, (s + 1) * bits) of the result) is #{subsets of ``weights`` with sum s}
    for s <= top; ``bits`` must exceed log2 of the largest coefficient (len(weights) + 1 does: they sum to
    2^len(weights)), so no coefficient carries into the next.
    """
    P = 1
    deg = 0
    keep = (1 << ((top + 1) * bits)) - 1
    for w in weights:
        if w > top:  # ascending: this and every later factor only adds terms above X^top
            break
        P += P << (w * bits)
        deg += w
        if deg > top:
            P &= keep
            deg = top
    return P


def _sign_flip_lower_tails(weights: list[int], tops: list[int]) -> list[int]:
    """#{subsets of ``weights`` (ascending, positive integers) with sum <= t} for each t of ``tops``."""
    m = len(weights)
    total = sum(weights)
    inner = [t for t in tops if 0 <= t < total]
    out: dict[int, int] = {}
    if inner:
        bits = m + 1
        P = _packed_subset_sums(weights, max(inner), bits)
        ones = (1 << bits) - 1  # X = 2^bits = 1 modulo 2^bits - 1: the remainder is the coefficient sum
        for t in set(inner):
            out[t] = (P & ((1 << ((t + 1) * bits)) - 1)) % ones
    return [0 if t < 0 else (1 << m) if t >= total else out[t] for t in tops]


def wilcoxon(D: np.ndarray, zero_method: str = "wilcox", method: str = "auto",
             correction: bool = False) -> dict[str, np.ndarray]:
    """The signed-rank test of each row of ``D`` (k x n) against 0 (Wilcoxon 1945): R+ = Σ_{d_i > 0} rank(|d_i|),
    R- likewise, the null distribution of R+ exact or normal; see the module docstring.

    Returns ``statistic`` (min(R+, R-)), ``p_value``, ``method_used``
    (exact / permutation / asymptotic per row) and ``n_zero``.
    """
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"unknown zero method {shown(zero_method)}")
    if method not in METHODS:
        raise ValueError(f"unknown Wilcoxon method {shown(method)}")
    D = np.asarray(D, dtype=float)
    k, n = D.shape
    n_zero = (D == 0).sum(axis=1)
    used = np.empty(k, dtype=object)
    if n == 0 or k == 0:
        used[:] = method
        return {"statistic": np.full(k, np.nan), "p_value": np.full(k, np.nan), "method_used": used,
                "n_zero": n_zero}
    ranks, pos, zero, counted, sizes, has_ties = _signed_rank_parts(D, zero_method)
    r_plus = (pos * ranks).sum(axis=1)
    r_minus = ((D < 0) * ranks).sum(axis=1)
    if zero_method == "zsplit":
        half_zero = (zero * ranks).sum(axis=1) / 2
        r_plus = r_plus + half_zero
        r_minus = r_minus + half_zero
    statistic = np.minimum(r_plus, r_minus)
    if method == "auto":
        if n > 50:
            used[:] = "asymptotic"
        else:
            exact = ~has_ties & (n_zero == 0)
            used[:] = "permutation" if n <= 13 else "asymptotic"
            used[exact] = "exact"
    else:
        used[:] = method
        if method == "exact":
            # the subset counts of ranks 1..m are R+'s null distribution only for untied ranks without zeros in
            # them. Pratt: R+ leaves the zeros' ranks out, and counting subsets of all n ranks (scipy's "exact")
            # puts identical runs at p = 2/2^n (scipy/scipy#6805); zsplit adds half the zeros' ranks; tied |d|
            # share mid-ranks (scipy rounds R+ and stays approximate). Those rows get the exact sign-flip
            # distribution of their own ranks instead.
            used[has_ties | ((n_zero > 0) & (zero_method != "wilcox"))] = "permutation"
    p = np.full(k, np.nan)
    rows = np.flatnonzero(used == "asymptotic")
    if rows.size:
        p[rows] = _asymptotic(D[rows], r_plus[rows], counted[rows], zero[rows], sizes[rows], zero_method,
                              correction)
    rows = np.flatnonzero(used == "exact")
    if rows.size:
        m = counted[rows].sum(axis=1)
        tables: dict[int, tuple[list[int], list[int]]] = {}
        for i, r in enumerate(rows):
            mi = int(m[i])
            if mi not in tables:
                c = _exact_null_counts(mi)
                tables[mi] = (c, list(_cumsum(c)))
            p[r] = _exact_p(tables[mi], mi, float(r_plus[r]))
    rows = np.flatnonzero(used == "permutation")
    if rows.size:
        p[rows] = _permutation_p(ranks[rows], zero[rows], counted[rows], r_plus[rows], zero_method)
    return {"statistic": statistic, "p_value": p, "method_used": used, "n_zero": n_zero}


def _cumsum(c: list[int]):
    s = 0
    for v in c:
        s += v
        yield s


def _exact_p(table: tuple[list[int], list[int]], m: int, r_plus: float) -> float:
    """2 min(P(R+ <= ceil r), P(R+ >= floor r)) for R+ under H0 with m ranks 1..m, at most 1."""
    counts, cum = table
    total = 1 << m
    top = len(counts) - 1
    hi = math.ceil(r_plus)
    lo = math.floor(r_plus)
    below = 0 if hi < 0 else (total if hi >= top else cum[hi])  # #{R+ <= hi}
    above = total if lo <= 0 else (0 if lo > top else total - cum[lo - 1])  # #{R+ >= lo}
    num = 2 * min(below, above)
    return min(1.0, num / total)


def _permutation_p(ranks: np.ndarray, zero: np.ndarray, counted: np.ndarray, r_plus: np.ndarray,
                   zero_method: str) -> np.ndarray:
    """Exhaustive sign-flip p-values of R+ (every one of the 2^n sign vectors, zeros included), one per row.

    With w the doubled ranks that change sides with the sign of d (W their sum) and c the doubled constant
    (zsplit: the zeros' ranks), 2R+* = S + c with S a subset sum of w: #{R+* <= R+} = #{S <= floor(2R+) - c}
    and, the subset sums being symmetric about W/2, #{R+* >= R+} = #{S <= W - ceil(2R+) + c}; the smaller
    of the two is the lower tail at the smaller end.
    """
    k, n = ranks.shape
    movable = counted & ~zero  # ranks that change sides with the sign of d
    doubled = np.rint(2 * ranks).astype(np.int64)
    groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for i in range(k):
        weights = tuple(sorted(doubled[i][movable[i]].tolist()))
        const2 = int(round(ranks[i][zero[i]].sum())) if zero_method == "zsplit" else 0  # 2 x (half the zero ranks)
        obs2 = 2 * float(r_plus[i])
        top = min(math.floor(obs2) - const2, sum(weights) - (math.ceil(obs2) - const2))
        groups.setdefault(weights, []).append((i, top))
    p = np.empty(k)
    for weights, members in groups.items():
        tails = _sign_flip_lower_tails(list(weights), [top for _, top in members])
        factor = 1 << (n - len(weights))  # flipping a zero changes nothing
        for (i, _), tail in zip(members, tails, strict=True):
            p[i] = min(1.0, 2 * tail * factor / (1 << n))
    return p


def _asymptotic(D: np.ndarray, r_plus: np.ndarray, counted: np.ndarray, zero: np.ndarray, sizes: np.ndarray,
                zero_method: str, correction: bool) -> np.ndarray:
    count = counted.sum(axis=1).astype(float)
    mn = count * (count + 1.0) * 0.25
    se = count * (count + 1.0) * (2.0 * count + 1.0)
    t = sizes
    if zero_method == "pratt":
        nz = zero.sum(axis=1).astype(float)
        mn = mn - nz * (nz + 1.0) * 0.25
        se = se - nz * (nz + 1.0) * (2.0 * nz + 1.0)
        # the zeros (the smallest |d|, the first group) are left out of the tie term
        t = t.copy()
        t[:, 0] = np.where(zero.any(axis=1), 0.0, t[:, 0])
    tie = (t ** 3 - t).sum(axis=1)
    with np.errstate(all="ignore"):
        se = np.sqrt((se - tie / 2) / 24)
        z = (r_plus - mn) / se
        if correction:
            z = z - np.sign(z) * 0.5 / se
    return np.array([normal_two_sided(float(v)) for v in z])
