"""Dueling-bandit algorithms simulated against a preference matrix.

Yan, Luo, Clarke, Craswell, Voorhees, Castells. "Human Preferences as Dueling
Bandits", SIGIR 2022, Section 4 and Figure 3: each algorithm gets a budget of
T = 1,000 comparisons over K = 100 items; every requested comparison of items
i and j is decided by one draw, i winning with probability ``M[i, j]``
(M + Mᵀ = 1). When the budget is spent, the algorithm returns its empirically
best items (a set: ties are returned together). Three algorithms, written from
their papers:

* :func:`double_thompson` -- Double Thompson Sampling (Wu and Liu, NeurIPS 2016,
  Algorithm 1). With win counts B, N = B + Bᵀ and t the time step,
  U = B/N + sqrt(α ln t / N) and L = B/N − sqrt(α ln t / N) (x/0 := 1 in U,
  0 in L; 1/2 on the diagonal). Candidates C = argmax_i #{k: U_ik > 1/2}
  (upper Copeland score). First arm: θ⁽¹⁾_ij ~ Beta(B_ij + 1, B_ji + 1),
  θ⁽¹⁾_ji = 1 − θ⁽¹⁾_ij, a₁ = argmax_{i ∈ C} #{k: θ⁽¹⁾_ik > 1/2}. Second arm:
  θ⁽²⁾_i,a₁ ~ Beta(B_i,a₁ + 1, B_a₁,i + 1) (1/2 for a₁), a₂ = argmax θ⁽²⁾_i,a₁
  over {i: L_i,a₁ ≤ 1/2}. Ties at random. Yan et al. use α = 0.8⁷.
* :func:`merge_dts` -- MergeDTS (Li, Markov, de Rijke, Zoghi, ACM TOIS 38(4),
  2020, Algorithm 1): the arms are split at random into batches of at most M;
  time step t works on batch t mod (number of batches). Within the batch,
  U = B/N + sqrt(α ln(t + C) / N); an arm j is eliminated when U_ji < 1/2 for
  some arm i of the batch (it loses to i by a wide margin); a batch left with
  one arm is merged into the next batch. First arm as in DTS (Thompson-sampled
  Copeland winner of the batch), second arm its worst competitor:
  a₂ = argmax_j θ⁽²⁾_j,a₁ over the batch. Yan et al. use α = 0.8⁶, M = 16,
  C = 4,000,000.
* :func:`round_efficient` -- Round-Efficient Dueling Bandits (Lin and Lu, 2018,
  as Yan et al. Section 3.3 describe it): each round pairs the remaining arms
  at random (an odd one out sits the round out); an arm's score adds 2(n−1)/n
  per win when n is even, 2 when n is odd (so that score/t estimates its Borda
  score); after round t an arm is eliminated when its score is below the best
  score minus t·C_t, C_t = sqrt(18/t · ln(2 n t² / δ)). Stops when one arm
  remains or the budget is spent. Yan et al. use δ = 0.2.

"Empirically best" at the end of the budget: the arms with the most wins
(DTS, MergeDTS: among the surviving arms; round-efficient: the highest score).
Figure 3's counts then follow: best found, one/both found (Case B), the
comparisons spent, and the largest number of judgments any one pair received
("assessors").

Self-duels (a₁ = a₂) spend a time step but need no judgment; they count in
the budget, as in the algorithms' papers, and not as a judged pair.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..seeds import stream_seed


@dataclass
class BanditResult:
    """One run: the returned items, comparisons spent, largest judgments of one pair."""

    best: np.ndarray
    comparisons: int
    max_pair: int


def _pick(rng: np.random.Generator, idx: np.ndarray) -> int:
    """One element of ``idx`` uniformly at random (ties broken at random)."""
    return int(idx[rng.integers(len(idx))]) if len(idx) > 1 else int(idx[0])


def _argmax_set(values: np.ndarray) -> np.ndarray:
    return np.flatnonzero(values == values.max())


def _beta_above_half(rng: np.random.Generator, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Draw 1(θ > 1/2) for θ ~ Beta(a, b) with integer a, b ≥ 1, exactly.

    θ is distributed as the a-th smallest of a + b − 1 uniforms, so θ > 1/2
    exactly when fewer than a of them fall below 1/2: Binomial(a + b − 1, 1/2) < a.
    """
    return rng.binomial(a + b - 1, 0.5) < a


def _duel(rng: np.random.Generator, M: np.ndarray, i: int, j: int) -> tuple[int, int]:
    """(winner, loser) of one comparison, i winning with probability M[i, j]."""
    return (i, j) if rng.random() < M[i, j] else (j, i)


def double_thompson(M: np.ndarray, T: int = 1000, alpha: float = 0.8 ** 7,
                    rng: np.random.Generator | None = None) -> BanditResult:
    """Double Thompson Sampling for T steps; returns the arms with the most wins.

    Unjudged pairs have U = 1 and θ⁽¹⁾ ~ Beta(1, 1), so the step only works on the
    judged pairs: the upper Copeland score is K − 1 minus the judged pairs with
    U ≤ 1/2, and θ⁽¹⁾ > 1/2 is a fair coin for every unjudged pair (4,950 random
    bits a step for K = 100) and :func:`_beta_above_half` for the judged ones.
    """
    rng = np.random.default_rng() if rng is None else rng
    K = len(M)
    W = np.zeros((K, K), dtype=np.int64)
    judged = np.zeros((K, K), dtype=np.int64)
    ti, tk = np.triu_indices(K, 1)
    n_pairs = len(ti)
    n_bytes = (n_pairs + 7) // 8
    arange = np.arange(K)
    # θ⁽¹⁾ > 1/2 of the pairs i < k laid out in the upper triangle of ``upper`` (row sums: wins of i,
    # column sums: losses of k), so the Copeland counts are two reductions of one K×K buffer
    up_flat = ti * K + tk
    upper_buf = np.zeros(K * K, dtype=np.uint8)
    upper = upper_buf.reshape(K, K)
    # the judged pairs i < k in the order of their first judgment, with their win counts kept current
    cap = max(min(T, n_pairs), 1)
    vi = np.empty(cap, dtype=np.int64)
    vk = np.empty(cap, dtype=np.int64)
    flat = np.empty(cap, dtype=np.int64)  # the pair's position among the pairs i < k (row-major)
    wik = np.zeros(cap, dtype=np.int64)
    wki = np.zeros(cap, dtype=np.int64)
    slot: dict[tuple[int, int], int] = {}
    m = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for t in range(1, T + 1):
            la = alpha * math.log(t)
            if m:
                jw, jl = wik[:m], wki[:m]
                n = jw + jl
                r = np.sqrt(la / n)
                p = jw / n
                # upper Copeland score: unjudged pairs count as U > 1/2
                zeta = (K - 1) - np.bincount(vi[:m], weights=p + r <= 0.5, minlength=K) \
                    - np.bincount(vk[:m], weights=(1 - p) + r <= 0.5, minlength=K)
                C = _argmax_set(zeta)
            else:
                C = arange
            # theta1 > 1/2 for every pair i < k: coins, then the judged pairs exactly
            bits = np.unpackbits(np.frombuffer(rng.bytes(n_bytes), dtype=np.uint8))[:n_pairs]
            if m:
                bits[flat[:m]] = _beta_above_half(rng, jw + 1, jl + 1)
            upper_buf[up_flat] = bits
            counts = upper.sum(axis=1, dtype=np.int64) + (arange - upper.sum(axis=0, dtype=np.int64))
            c = counts[C]
            a1 = _pick(rng, C[c == c.max()])
            col, row = W[:, a1], W[a1, :]
            th2 = rng.beta(col + 1, row + 1)
            th2[a1] = 0.5
            na = col + row
            low = np.where(na > 0, col / na - np.sqrt(la / na), 0.0)
            low[a1] = 0.5
            cand = np.flatnonzero(low <= 0.5)
            v = th2[cand]
            a2 = _pick(rng, cand[v == v.max()])
            if a1 != a2:
                i, k = min(a1, a2), max(a1, a2)
                s = slot.get((i, k))
                if s is None:
                    s = slot[i, k] = m
                    vi[s], vk[s], flat[s] = i, k, i * K - i * (i + 1) // 2 + (k - i - 1)
                    m += 1
                w, l_ = _duel(rng, M, a1, a2)
                W[w, l_] += 1
                if w == i:
                    wik[s] += 1
                else:
                    wki[s] += 1
                judged[i, k] += 1
    return BanditResult(_argmax_set(W.sum(axis=1)), T, int(judged.max()))


def merge_dts(M: np.ndarray, T: int = 1000, alpha: float = 0.8 ** 6, batch: int = 16, C: float = 4_000_000,
              rng: np.random.Generator | None = None) -> BanditResult:
    """MergeDTS for T steps; returns the surviving arms with the most wins."""
    rng = np.random.default_rng() if rng is None else rng
    K = len(M)
    W = np.zeros((K, K), dtype=np.int64)
    judged = np.zeros((K, K), dtype=np.int64)
    perm = rng.permutation(K)
    batches = [perm[i:i + batch] for i in range(0, K, batch)]
    ups: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # batch size n → (i < k mask, its transpose)
    with np.errstate(divide="ignore", invalid="ignore"):
        for t in range(1, T + 1):
            if len(batches) == 1 and len(batches[0]) == 1:
                continue  # one arm left: it duels itself for the rest of the budget
            s = t % len(batches)
            b = batches[s]
            Wb = W[b[:, None], b]
            Nb = Wb + Wb.T
            Nm = np.maximum(Nb, 1)
            # U_ji < 1/2 for a judged pair (unjudged pairs and the diagonal have U ≥ 1/2)
            lost = (Wb / Nm + np.sqrt(alpha * math.log(t + C) / Nm) < 0.5) & (Nb > 0)
            keep = ~lost.any(axis=1)
            if not keep.all():
                b = b[keep]
                batches[s] = b
                Wb = Wb[keep][:, keep]
            if len(b) == 1:
                if len(batches) > 1:
                    nxt = (s + 1) % len(batches)
                    batches[nxt] = np.concatenate([batches[nxt], b])
                    del batches[s]
                continue
            n = len(b)
            if n not in ups:
                u = np.triu(np.ones((n, n), dtype=bool), 1)
                ups[n] = (u, u.T.copy())
            up, low = ups[n]
            ind = _beta_above_half(rng, Wb + 1, Wb.T + 1) & up
            ind |= ~ind.T & low
            counts = ind.sum(axis=1)
            c1 = _pick(rng, _argmax_set(counts))
            th2 = rng.beta(Wb[:, c1] + 1, Wb[c1, :] + 1)
            th2[c1] = 0.5
            c2 = _pick(rng, _argmax_set(th2))
            a1, a2 = int(b[c1]), int(b[c2])
            if a1 != a2:
                w, l_ = _duel(rng, M, a1, a2)
                W[w, l_] += 1
                judged[min(a1, a2), max(a1, a2)] += 1
    alive = np.sort(np.concatenate(batches))
    return BanditResult(alive[_argmax_set(W[alive].sum(axis=1))], T, int(judged.max()))


def round_efficient(M: np.ndarray, T: int = 1000, delta: float = 0.2,
                    rng: np.random.Generator | None = None) -> BanditResult:
    """Round-Efficient Dueling Bandits until one arm remains or T comparisons."""
    rng = np.random.default_rng() if rng is None else rng
    K = len(M)
    alive = np.arange(K)
    score = np.zeros(K)
    judged = np.zeros((K, K), dtype=np.int64)
    spent = 0
    t = 0
    while len(alive) > 1 and spent < T:
        t += 1
        n = len(alive)
        p = rng.permutation(alive)
        m = min(n // 2, T - spent)
        a, b = p[0:2 * m:2], p[1:2 * m:2]
        a_wins = rng.random(m) < M[a, b]
        winners = np.where(a_wins, a, b)
        scale = 2.0 * (n - 1) / n if n % 2 == 0 else 2.0
        np.add.at(score, winners, scale)
        np.add.at(judged, (np.minimum(a, b), np.maximum(a, b)), 1)
        spent += m
        if m < n // 2:
            break  # budget spent in the middle of a round
        ct = math.sqrt(18.0 / t * math.log(2.0 * n * t * t / delta))
        s = score[alive]
        alive = alive[s >= s.max() - t * ct]
    s = score[alive]
    return BanditResult(alive[_argmax_set(s)], spent, int(judged.max()))


ALGORITHMS: dict[str, Callable[..., BanditResult]] = {
    "dts": double_thompson,
    "mergedts": merge_dts,
    "round-efficient": round_efficient,
}


def case_matrix(case: str, K: int = 100) -> np.ndarray:
    """Yan et al.'s test cases (Section 4), M[i, j] = P(i preferred to j).

    Case A (total order, no ties): i < j ⇒ M[i, j] = 0.75, M[j, i] = 0.25.
    Case B (two winners, many ties): items 0 and 1 tie and beat every other
    item with 0.75; all other pairs tie (0.5).
    """
    if case.upper() == "A":
        M = np.where(np.arange(K)[:, None] < np.arange(K)[None, :], 0.75, 0.25)
    elif case.upper() == "B":
        M = np.full((K, K), 0.5)
        M[:2, 2:] = 0.75
        M[2:, :2] = 0.25
    else:
        raise ValueError(f"unknown case {case!r} (expected A or B)")
    np.fill_diagonal(M, 0.5)
    return M


def winners(M: np.ndarray) -> np.ndarray:
    """Copeland winners of M: the items with the most entries > 1/2 in their row."""
    wins = (np.asarray(M) > 0.5).sum(axis=1)
    return _argmax_set(wins)


def simulate_bandit(algorithm: str, M: np.ndarray, reps: int = 1000, *, seed: int = 0, T: int = 1000,
                    progress: Callable[[int, int], None] | None = None, **params: float) -> dict:
    """Run ``algorithm`` ``reps`` times against M (repetition r draws from the seed (seed, r)).

    Returns per repetition: ``found`` (a Copeland winner of M is returned),
    ``found_count`` (how many of the winners are returned), ``best_size``
    (items returned), ``nonbest`` (returned items that are not winners),
    ``comparisons`` and ``max_pair`` (largest number of judgments of one pair,
    Yan et al.'s "assessors").
    """
    try:
        fn = ALGORITHMS[algorithm]
    except KeyError:
        raise ValueError(f"unknown algorithm {algorithm!r} (expected one of {', '.join(ALGORITHMS)})") from None
    M = np.asarray(M, dtype=float)
    win = winners(M)
    out: dict[str, np.ndarray] = {k: np.zeros(reps, dtype=np.int64)
                                  for k in ("found_count", "best_size", "nonbest", "comparisons", "max_pair")}
    for r in range(reps):
        res = fn(M, T, rng=np.random.default_rng(stream_seed(seed, r)), **params)
        hit = int(np.isin(win, res.best).sum())
        out["found_count"][r] = hit
        out["best_size"][r] = len(res.best)
        out["nonbest"][r] = len(res.best) - hit
        out["comparisons"][r] = res.comparisons
        out["max_pair"][r] = res.max_pair
        if progress is not None:
            progress(r + 1, reps)
    out["found"] = out["found_count"] > 0
    return out
