"""Simulations: Clarke et al.'s tournament against a preference matrix, and
how well sparse random cycles recover a dense-matrix ranking.

* :func:`simulate_tournament` -- Yan et al., "Human Preferences as Dueling
  Bandits", SIGIR 2022, Section 4: M[i, j] is the probability that item i is
  preferred to j (M + M' = 1); every requested pair is decided by one draw.
  All K items start as equally graded candidates (so prefj's "top k plus
  ties" makes all of them candidates). Reported per repetition: number of
  comparisons, whether a best item (a Copeland winner of M: most entries
  > 1/2) is among the returned top set (``found``; Case B: "one found" +
  "both found"), whether all of them are (``found_all``; Case B: "both
  found"), the size of the returned top set, and the largest number of
  judgments of one pair (``max_pair``, Yan et al.'s "assessors").
* :func:`recovery` -- the research note's question (shared/specs/zelo_notes.md):
  how well do scores from sparse random cycles recover the scores of the
  dense matrix? Truth scores N(0, sigma^2); the dense matrix judges every one
  of the K(K-1)/2 pairs once (mean of 3 Bernoulli votes, P(B) = sigma(x_B - x_A));
  the sparse strategy draws ``cycles`` random cycles and reads its judgments
  from that same matrix (a pair drawn twice reads the same judgment, as an
  LLM at temperature 0 would repeat it). Kendall tau_b between the two fits
  (both with the default prior), and between the sparse fit and the truth.
* :func:`cycle_judgments` -- synthetic judged pairs for tests and benchmarks
  of the fit: truth N(0, sigma^2), random cycles, mean of Bernoulli votes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .. import libm
from ..seeds import PRODUCT, SEED_MAX, product_seed, stream_seed
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
    p: int | None = None,
    f: int | None = None,
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
    found_all = np.zeros(reps, dtype=bool)
    size = np.zeros(reps, dtype=np.int64)
    max_pair = np.zeros(reps, dtype=np.int64)
    found_count = np.zeros(reps, dtype=np.int64)
    nonbest = np.zeros(reps, dtype=np.int64)
    for r in range(reps):
        judged = np.zeros((K, K), dtype=np.int64)
        rng = np.random.default_rng(stream_seed(seed, r, 1))
        # pairings: the old derived seed S·1000003 + r while it is one-to-one and a seed (pref_eval.seeds)
        c = product_seed(seed, r)
        t = (Tournament(k=k, p=p, f=f, seed=c, final_phase=final_phase) if c is not None and c <= SEED_MAX
             else Tournament(k=k, p=p, f=f, seed=seed, final_phase=final_phase, stream=(seed, r, PRODUCT)))
        t.add_topic("t", {d: 1.0 for d in names})
        while not t.done():
            req = t.outstanding()
            if not req:
                break
            ia = np.array([int(a) for _, a, _ in req])
            ib = np.array([int(b) for _, _, b in req])
            np.add.at(judged, (np.minimum(ia, ib), np.maximum(ia, ib)), 1)
            a_wins = rng.random(len(req)) < M[ia, ib]
            t.add((tp, a, b, 0.0 if w else 1.0) for (tp, a, b), w in zip(req, a_wins, strict=True))
        # the returned top set: the top k plus ties of the final (with k = 1, the documents with the most wins:
        # t.best, as before session 22, when --k > 1 changed nothing but the floors of --p / --f)
        best = list(t.topics["t"]["result"] or {})
        comps[r] = t.comparisons
        hits = sum(int(d) in winners for d in best)
        found_count[r] = hits
        nonbest[r] = len(best) - hits
        found[r] = hits > 0
        found_all[r] = winners <= {int(d) for d in best}
        size[r] = len(best)
        max_pair[r] = judged.max()
        if progress is not None:
            progress(r + 1, reps)
    return {"comparisons": comps, "found": found, "found_all": found_all, "best_size": size, "max_pair": max_pair,
            "found_count": found_count, "nonbest": nonbest}


def cycle_judgments(queries: int, docs: int, cycles: int, sigma: float, seed: int = 0,
                    votes: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic judgments ``(sizes, q, a, b, s)`` in :func:`pref_eval.zelo.fit.fit_bt`'s form.

    Per query, ``docs`` truth scores x ~ N(0, sigma^2) and ``cycles`` random
    cycles (a random permutation, each item against the next, the last
    against the first); each pair's judgment s is the mean of ``votes``
    Bernoulli draws with P(b preferred to a) = 1 / (1 + exp(x_a − x_b))
    (Bradley–Terry). Seeded: the same arguments give the same arrays.
    """
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, sigma, (queries, docs))
    perms = np.argsort(rng.random((queries, cycles, docs)), axis=2)
    a = perms.reshape(queries, -1).ravel()
    b = np.roll(perms, -1, axis=2).reshape(queries, -1).ravel()
    q = np.repeat(np.arange(queries), cycles * docs)
    p = 1 / (1 + libm.exp(-(truth[q, b] - truth[q, a])))
    s = (rng.random((len(q), votes)) < p[:, None]).mean(1)
    return np.full(queries, docs), q, a, b, s


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
    strategy: str = "cycles",
    window: int = 6,
    start: str = "matching",
    batch: int | None = None,
    criterion: str = "discordance",
    design: bool = False,
    distance_bins: Sequence[int] | None = None,
) -> dict:
    """Kendall tau (and top-``top`` overlap) of sparse fits vs dense fits.

    ``strategy="cycles"``: ``cycles`` random cycles (zbench). ``"adaptive"``:
    the same budget (``cycles`` × K pairs per trial): a blind first batch (``start``: one random
    cycle, or a random perfect matching), then rounds of ``batch`` disjoint pairs per trial
    (default :func:`default_batch`) chosen by :func:`pref_eval.zelo.adaptive.ranking_batch`
    (``window``, ``criterion``: ``"discordance"``, the expected reduction in discordant pairs,
    ``"uncertainty"``, the probability that the pair's fitted order is wrong, or ``"rowsum"``, the
    expected reduction in pairs ordered unlike the dense matrix's win totals, with ``votes``) from a fit of the
    judgments so far (scores and posterior covariance). ``window``, ``start``, ``batch`` and
    ``criterion`` apply only to ``"adaptive"``.

    ``design=True`` adds the Cramér–Rao variances of each trial's design at the true scores
    (:func:`pref_eval.zelo.ranking_bound.design_variances`): ``adjacent_variance`` (mean over
    adjacent pairs of the true order), ``pair_variance`` (over all pairs), ``weighted_variance``
    (pairs weighted by 4p(1-p)), ``distinct_pairs``,
    ``information`` (total Fisher information), ``weighted_bound``, the lower bound on
    ``weighted_variance`` for any design of the budget's ``cycles * K`` pairs, and
    ``known_scores_tau``: τ against the dense fit of an oracle that knows the true scores and reads
    the design's judgments (:func:`pref_eval.zelo.ranking_bound.known_scores_wins`), and
    ``known_scores_tau_none``, the same reading no judgment (τ of the true scores against the dense fit).

    ``distance_bins`` (increasing integers e_0 < e_1 < ... with e_0 >= 1) adds
    ``discordant_by_distance`` (trials, len − 1): per trial, the number of pairs the sparse fit orders
    the other way round from the dense fit (strictly: a tie on either side counts in no bin), counted
    by how many places apart the two documents are in the dense fit's order (ties there broken by
    document index), d in [e_b, e_{b+1}): where the sparse fit loses its τ.
    """
    if strategy not in ("cycles", "adaptive"):
        raise ValueError(f"unknown strategy {strategy!r}")
    if start not in ("cycle", "matching"):
        raise ValueError(f"unknown start {start!r}")
    if criterion not in ("uncertainty", "discordance", "rowsum"):
        raise ValueError(f"unknown criterion {criterion!r}")
    if distance_bins is not None:
        edges = np.asarray(distance_bins)
        if (edges.ndim != 1 or len(edges) < 2 or edges.dtype.kind not in "iu" or edges[0] < 1
                or np.any(np.diff(edges) <= 0)):
            raise ValueError(f"distance_bins must be increasing integers >= 1, at least two, got {distance_bins!r}")
    for name, v in (("window", window), ("batch", batch)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1):
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    if strategy == "adaptive" and cycles * K > K * (K - 1) // 2:
        raise ValueError(f"the adaptive strategy judges each pair at most once: a budget of {cycles} cycles "
                         f"({cycles * K} pairs) exceeds the {K * (K - 1) // 2} pairs of K = {K} documents")
    # truth and dense matrix depend on (seed, K, sigma) only: rows for different
    # cycle counts read the same matrices
    rng = np.random.default_rng(stream_seed(seed, K, int(round(sigma * 1000))))
    truth = rng.normal(0.0, sigma, (trials, K))
    # sparse: random cycles
    rng_pairs = np.random.default_rng(stream_seed(seed, K, int(round(sigma * 1000)), cycles))
    perms = np.argsort(rng_pairs.random((trials, cycles, K)), axis=2)
    a_s = perms.reshape(trials, -1)
    b_s = np.roll(perms, -1, axis=2).reshape(trials, -1)
    q_s = np.repeat(np.arange(trials), cycles * K)
    # dense: every unordered pair once
    i, j = np.triu_indices(K, 1)
    a_d = np.tile(i, trials)
    b_d = np.tile(j, trials)
    q_d = np.repeat(np.arange(trials), len(i))

    # the dense judged matrix: D[t, i, j] = judged P(j better than i)
    with np.errstate(over="ignore"):  # exp overflows to inf for a huge --sigma: pb is then exactly 0, as it should
        pb = 1.0 / (1.0 + libm.exp(-(truth[q_d, b_d] - truth[q_d, a_d])))
    s_d = (rng.random((len(q_d), votes)) < pb[:, None]).mean(axis=1)
    D = np.zeros((trials, K, K))
    D[q_d, a_d, b_d] = s_d
    D[q_d, b_d, a_d] = 1.0 - s_d
    sizes = np.full(trials, K)
    if strategy == "adaptive":
        q_s, a_flat, b_flat = _adaptive_pairs(K, trials, cycles, perms[:, 0, :], D, rng_pairs, window,
                                                start, batch, criterion, votes)
        a_s, b_s = a_flat.reshape(trials, -1), b_flat.reshape(trials, -1)
    s_s = D[q_s, a_s.ravel(), b_s.ravel()]
    xs = fit_bt(sizes, q_s, a_s.ravel(), b_s.ravel(), s_s, compute_se=False).score.reshape(trials, K)
    xd = fit_bt(sizes, q_d, a_d, b_d, s_d, compute_se=False).score.reshape(trials, K)
    taus = np.array([_kendall(xs[t], xd[t]) for t in range(trials)])
    taus_truth = np.array([_kendall(xs[t], truth[t]) for t in range(trials)])
    topn = min(top, K)
    # top sets with ties broken by document index (a stable sort): the dense fit has exact ties (votes in
    # thirds), and numpy's default sort orders ties per kind of CPU (its AVX-512 / AVX2 sorts, or introsort)
    ov = np.array([len(np.intersect1d(np.argsort(-xs[t], kind="stable")[:topn],
                                      np.argsort(-xd[t], kind="stable")[:topn])) / topn for t in range(trials)])
    out = {"tau_dense": taus, "tau_truth": taus_truth, "top_overlap": ov}
    if distance_bins is not None:
        out["discordant_by_distance"] = discordant_by_distance(xs, xd, distance_bins)
    if design:
        from .ranking_bound import design_variances, known_scores_wins, weighted_variance_bound

        dv = design_variances(truth, a_s, b_s, votes)
        known = known_scores_wins(truth, D, a_s, b_s)
        out["known_scores_tau"] = np.array([_kendall(known[t], xd[t]) for t in range(trials)])
        out["known_scores_tau_none"] = np.array([_kendall(truth[t], xd[t]) for t in range(trials)])
        out.update(adjacent_variance=dv["adjacent"], pair_variance=dv["pairs"], distinct_pairs=dv["m"],
                   weighted_variance=dv["weighted"],
                   information=dv["information"], weighted_bound=weighted_variance_bound(truth, cycles * K, votes))
    return out


def discordant_by_distance(xs: np.ndarray, xd: np.ndarray, edges: Sequence[int]) -> np.ndarray:
    """(trials, len(edges) − 1): pairs ordered strictly the other way round by ``xs`` and ``xd``
    ((trials, K) scores), counted by their distance d = |rank_k − rank_l| in the order of ``xd``
    (descending, ties by index) in the bins [edges[b], edges[b + 1])."""
    trials, K = xd.shape
    rank = np.empty((trials, K), dtype=np.int64)
    rows = np.arange(trials)[:, None]
    rank[rows, np.argsort(-xd, axis=1, kind="stable")] = np.arange(K)
    i, j = np.triu_indices(K, 1)
    wrong = np.sign(xs[:, i] - xs[:, j]) * np.sign(xd[:, i] - xd[:, j]) < 0
    b = np.searchsorted(np.asarray(edges), np.abs(rank[:, i] - rank[:, j]), side="right") - 1
    nb = len(edges) - 1
    keep = wrong & (b >= 0) & (b < nb)
    t = np.broadcast_to(rows, wrong.shape)[keep]
    return np.bincount(t * nb + b[keep], minlength=trials * nb).reshape(trials, nb)


def default_batch(K: int) -> int:
    """Pairs per query and round of the adaptive strategy after its first batch: K // 4."""
    return max(1, K // 4)


def _adaptive_pairs(K: int, trials: int, cycles: int, first: np.ndarray, D: np.ndarray,
                    rng: np.random.Generator, window: int, start: str = "cycle", per_round: int | None = None,
                    criterion: str = "discordance", votes: int = 3):
    """Pairs of the adaptive strategy for every trial: (q, a, b), ``cycles * K`` per trial.

    A blind first batch (``start``: the random cycle ``first``, or the random perfect matching
    ``first[0::2]``-``first[1::2]``), then :func:`pref_eval.zelo.adaptive.ranking_batch` for all
    trials at once from a fit of the judgments so far; a batch short of pairs (the window is
    exhausted) is filled with unjudged pairs at random. ``per_round`` pairs per trial and round
    after the first batch (None: :func:`default_batch`).
    """
    from .adaptive import fill_round, posterior_covariance, ranking_batch

    budget = cycles * K
    if start == "cycle":
        a, b = first, np.roll(first, -1, axis=1)
    else:
        half = K // 2
        a, b = first[:, 0 : 2 * half : 2], first[:, 1 : 2 * half : 2]
    a, b = a[:, :budget], b[:, :budget]
    rows = np.arange(trials)[:, None]
    judged = np.zeros((trials, K, K), dtype=bool)
    judged[rows, a, b] = judged[rows, b, a] = True
    sizes = np.full(trials, K)
    while a.shape[1] < budget:
        need = min(default_batch(K) if per_round is None else per_round, budget - a.shape[1])
        q = np.repeat(np.arange(trials), a.shape[1])
        x = fit_bt(sizes, q, a.ravel(), b.ravel(), D[q, a.ravel(), b.ravel()], compute_se=False).score
        x = x.reshape(trials, K)
        batch = ranking_batch(x, posterior_covariance(x, a, b), judged, need, window, criterion,
                              votes=votes)
        new_a = np.empty((trials, need), dtype=np.int64)
        new_b = np.empty((trials, need), dtype=np.int64)
        for t, new in enumerate(batch):
            new = fill_round(new, need, judged[t], rng)
            new_a[t], new_b[t] = np.array(new).T
        judged[rows, new_a, new_b] = judged[rows, new_b, new_a] = True
        a, b = np.hstack([a, new_a]), np.hstack([b, new_b])
    q = np.repeat(np.arange(trials), budget)
    return q, a.ravel(), b.ravel()
