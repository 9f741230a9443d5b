"""Simulations: Clarke et al.'s tournament against a preference matrix, and
how well sparse random cycles recover a dense-matrix ranking.

* :func:`simulate_tournament` -- Yan et al., "Human Preferences as Dueling
  Bandits", SIGIR 2022, Section 4: M[i, j] is the probability that item i is
  preferred to j (M + M' = 1); every requested pair is decided by one draw.
  All K items start as equally graded candidates (so prefj's "top k plus
  ties" makes all of them candidates). Reported per repetition: number of
  comparisons, whether a best item (a Copeland winner of M: most entries
  > 1/2) is among the returned top set.
* :func:`recovery` -- Kendall tau between the BT fit from ``cycles`` random
  cycles (3 votes per pair) and the fit from all K(K-1)/2 pairs (3 votes
  each), truth scores N(0, sigma^2); both fits with the default prior.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .fit import fit_bt
from .tournament import Tournament


def copeland_winners(M: np.ndarray) -> np.ndarray:
    """Items with the most wins (entries > 1/2) in their row of M."""
    wins = (M > 0.5).sum(axis=1)
    return np.flatnonzero(wins == wins.max())


def simulate_tournament(
    M: np.ndarray,
    reps: int = 1000,
    *,
    k: int = 1,
    p: int = 7,
    f: int = 9,
    seed: int = 0,
    final_phase: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Run the pruning tournament ``reps`` times against matrix ``M``."""
    M = np.asarray(M, dtype=float)
    K = len(M)
    names = [str(i) for i in range(K)]
    winners = set(copeland_winners(M).tolist())
    comps = np.zeros(reps, dtype=np.int64)
    found = np.zeros(reps, dtype=bool)
    size = np.zeros(reps, dtype=np.int64)
    for r in range(reps):
        rng = np.random.default_rng([seed, r, 1])
        t = Tournament(k=k, p=p, f=f, seed=seed * 1_000_003 + r, final_phase=final_phase)
        t.add_topic("t", {d: 1.0 for d in names})
        while not t.done():
            req = t.outstanding()
            if not req:
                break
            ia = np.array([int(a) for _, a, _ in req])
            ib = np.array([int(b) for _, _, b in req])
            a_wins = rng.random(len(req)) < M[ia, ib]
            t.add((tp, a, b, 0.0 if w else 1.0) for (tp, a, b), w in zip(req, a_wins))
        best = t.best("t")
        comps[r] = t.comparisons
        found[r] = any(int(d) in winners for d in best)
        size[r] = len(best)
        if progress is not None:
            progress(r + 1, reps)
    return {"comparisons": comps, "found": found, "best_size": size}


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(x, y).statistic)


def recovery(
    K: int,
    sigma: float,
    cycles: int,
    trials: int = 100,
    *,
    seed: int = 0,
    votes: int = 3,
    top: int = 10,
) -> dict:
    """Kendall tau (and top-``top`` overlap) of sparse-cycle fits vs dense fits."""
    rng = np.random.default_rng([seed, K, int(sigma * 1000), cycles])
    truth = rng.normal(0.0, sigma, (trials, K))
    # sparse: random cycles
    perms = np.argsort(rng.random((trials, cycles, K)), axis=2)
    a_s = perms.reshape(trials, -1)
    b_s = np.roll(perms, -1, axis=2).reshape(trials, -1)
    q_s = np.repeat(np.arange(trials), cycles * K)
    # dense: every unordered pair once
    i, j = np.triu_indices(K, 1)
    a_d = np.tile(i, trials)
    b_d = np.tile(j, trials)
    q_d = np.repeat(np.arange(trials), len(i))

    def judge(q, a, b):
        pb = 1.0 / (1.0 + np.exp(-(truth[q, b] - truth[q, a])))
        return (rng.random((len(q), votes)) < pb[:, None]).mean(axis=1)

    s_s = judge(q_s, a_s.ravel(), b_s.ravel())
    s_d = judge(q_d, a_d, b_d)
    sizes = np.full(trials, K)
    xs = fit_bt(sizes, q_s, a_s.ravel(), b_s.ravel(), s_s, compute_se=False).score.reshape(trials, K)
    xd = fit_bt(sizes, q_d, a_d, b_d, s_d, compute_se=False).score.reshape(trials, K)
    taus = np.array([_kendall(xs[t], xd[t]) for t in range(trials)])
    taus_truth = np.array([_kendall(xs[t], truth[t]) for t in range(trials)])
    topn = min(top, K)
    ov = np.array([len(np.intersect1d(np.argsort(-xs[t])[:topn], np.argsort(-xd[t])[:topn])) / topn
                   for t in range(trials)])
    return {"tau_dense": taus, "tau_truth": taus_truth, "top_overlap": ov}
