"""Adaptive choice of pairs: spend judgments where the order is still uncertain.

Two goals, two strategies; both take batches (judges work in parallel), cap
the judgments of any one pair, and tolerate ties (a tie is half a win each).

**Best item** -- :class:`AdaptiveBest`, a double elimination driven by the
Bradley–Terry posterior. Every item has two lives. A round pairs the items
that have lost the same number of matches (a 0-loss pool and a 1-loss pool),
seeded by the posterior mean of a Bradley–Terry fit of all judgments so far
(:func:`pref_eval.zelo.fit.fit_bt`, default prior): the strongest meets the
weakest it has not met, so a likely best item spends its matches where it is
most likely to win, and a bye goes to the strongest item of an odd pool. A
match is a sequential test: judgments come ``batch`` at a time (all matches of
a round in parallel) until one item leads by ``lead`` wins, or the pair
reaches ``max_per_pair`` judgments in all (or the match ``max_per_match``);
then the majority decides, and an exact tie goes to the higher posterior
mean. The loser loses a life. When at most ``final`` items are left, every
pair of them plays a match (lead ``final_lead``) and the most matches won
wins (equal counts: the higher posterior mean).

Why this shape (Case A of Yan et al., a total order in which every item beats
every lower one with 0.75): the best item and the second differ only in their
direct comparisons, so any strategy finds the best at most as often as it
wins its decisive matches, and with at most 6 judgments of a pair a single
match is won with probability ≤ P(Binomial(5, 0.75) ≥ 3) ≈ 0.90 (best of 5;
a "lead by 2" test gets 0.88 with about 3 judgments on average). A single
elimination asks the best item to win ~7 such matches in a row
(0.88⁷ ≈ 0.41 — the neighbourhood of Clarke et al.'s 502 of 1,000); a second
life lifts that to ~0.7 for about 2 × 99 matches × ~3 judgments ≈ 600
comparisons, the budget of Clarke et al.'s tournament.

**Whole ranking** -- :func:`ranking_batch` (many queries at once) and
:func:`adaptive_ranking_pairs` (one query): after a first blind batch (in
``zelo_simulate recovery``: a random perfect matching of K/2 pairs, or a random
cycle; nothing is known yet), rounds of disjoint pairs (every document at most
once per round, so each round is a matching that judges can work through in
parallel; ``recovery`` asks K/4 per query and round, and a collection's queries
run in parallel too) among pairs not yet judged that are at most ``window``
places apart in the current fitted order (``recovery`` uses 6), chosen by one
of two criteria. ``"uncertainty"``: the posterior probability that the fitted
order of the pair is wrong,

    P_ij = Φ(−|x_i − x_j| / sqrt(Var(x_i − x_j))),   Var(x_i − x_j) = C_ii + C_jj − 2 C_ij,

with C the posterior covariance of the Bradley–Terry fit (inverse of its Fisher
information plus the prior, :func:`posterior_covariance`). ``"discordance"``
(``recovery``'s default): the expected reduction in the expected number of
discordant pairs, Σ_kl min(P_kl, 1 − P_kl), after one judgment of the pair -- a
one-step look-ahead on the Laplace posterior (:func:`discordance_reduction`):
the rank-one update of C gives each pair's drop of variance δ_kl, the mean of
x_k − x_l moves by N(0, δ_kl) before the judgment is made, and the expected
drop of its error probability is about 2φ(0)/s' (√δ φ(|Δ|/√δ) − |Δ| Φ(−|Δ|/√δ)).
P_ij is largest for pairs adjacent in the posterior order whose order is
uncertain, which are also the pairs of largest Bradley–Terry Fisher information
p(1−p) (close scores) and largest posterior variance of the difference -- the
expected-information-gain choice of Glickman & Jensen, "Adaptive paired
comparison design", J. Statistical Planning and Inference 127, 2005, and of
Chen et al., "Pairwise ranking aggregation in a crowdsourced setting", WSDM
2013, restricted, as in a Swiss-system tournament (Csató, "Ranking by pairwise
comparisons for Swiss-system tournaments", CEJOR 21, 2013), to neighbours in
the current standing; the discordance criterion is the knowledge gradient of
Frazier, Powell & Dayanik (SIAM J. Control Optim. 47(5), 2008) with 1 − τ as
the loss. Each round is the greedy maximum-score matching (computed for all
queries at once by rounds of locally dominant pairs, which give the greedy
matching exactly). A pair is judged at most once (in ``recovery`` a pair read
again reads the same judgment); ties are judgments of 1/2.

What helped (``bench/recovery_adaptive.py``'s cells, 100 trials; NOTES.md,
session 5): rounds of K/4 instead of K/2 pairs (more rounds, more adaptivity;
τ up in eight of nine cells, by up to 0.014), then the discordance criterion
(up to +0.014 more at σ = 0.6, +0.003 to +0.006 at K = 100, nothing measurable
elsewhere). What does *not* help (30–100 trials): rounds of K/8 (no better than
K/4) or of 2 pairs (worse), wider windows (with small rounds the chosen pairs
are at most 3 places apart anyway), bands of far pairs first (Shell-sort gaps),
Thompson-sampled orders, the expected reduction of Σ P with the means held
fixed (a linearised rank-one update; Mikhailiuk et al.'s ASAP criterion in
spirit) with K/2 or K/4 rounds, P weighted by the pair's expected information
p̂(1−p̂) or by the items' Σ_k P_ik, the expected information gain
log(1 + Var p(1−p)), more than one document slot per batch, two random cycles
or a half-size matching first, rounds that shrink with the remaining budget, a
weaker or stronger prior in the fit that chooses the pairs; the first random
matching keeps the comparison graph connected (with pairs between neighbours
of the true order only, the fit drifts along the order: τ ≈ 0.1 at K = 100).
Session 6: ``"rowsum"`` (:func:`rowsum_reduction`), the same look-ahead aimed at
the dense fit's order, which is the order of the complete matrix's win totals,
counting what a judgment reveals of those totals besides what it tells about
the scores: no better (−0.015 at K = 50, σ = 0.6, +0.006 at K = 100, σ = 0.6,
within ±0.004 elsewhere, 100 trials; docs/zelo_simulate.md).
Session 7 (``bench/recovery_adaptive_variants.py``): a KG(*) version of the
discordance criterion, a global A-optimal criterion over all pairs, random
matchings among near items, the expected-information matching and repeated
quicksorts: no better at σ = 1.5, K = 50/100 (the chosen designs hold about
0.71–0.76 of 8 random cycles' Fisher information, whatever the criterion).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import libm
from ..seeds import stream_seed
from .fit import fit_bt


@dataclass
class _Match:
    a: int
    b: int
    wa: float = 0.0
    wb: float = 0.0
    n: int = 0


class AdaptiveBest:
    """Double elimination over items ``0..K-1`` (see the module docstring).

    Protocol (as :class:`pref_eval.zelo.tournament.Tournament`): ``outstanding()``
    gives the next batch of pairs ``(a, b)``; ``add([(a, b, s), ...])`` with
    s = 1 when b is preferred, 0 when a is, 1/2 for a tie; repeat until
    ``done()``; ``best()`` is the returned item.
    """

    def __init__(self, K: int, *, lead: float = 2.0, batch: int = 1, max_per_pair: int = 6, lives: int = 2,
                 final: int = 6, final_lead: float | None = 3.0, max_per_match: int | None = 5,
                 prior: float = 0.5, seed: int | list[int] = 0) -> None:
        if K < 1:
            raise ValueError("K must be >= 1")
        if batch < 1 or max_per_pair < 1 or lives < 1 or lead <= 0:
            raise ValueError("batch, max_per_pair and lives must be >= 1 and lead > 0")
        self.K, self.lead, self.batch, self.cap, self.lives, self.prior = K, lead, batch, max_per_pair, lives, prior
        self.final = final
        self.per_match = max_per_match
        self.final_lead = lead if final_lead is None else final_lead
        self.final_pool: np.ndarray | None = None
        self.final_wins = np.zeros((K, K))
        self.rng = np.random.default_rng(seed)
        self.losses = np.zeros(K, dtype=np.int64)
        self.pair_n = np.zeros((K, K), dtype=np.int64)
        self.met = np.zeros((K, K), dtype=bool)
        self.ja: list[int] = []
        self.jb: list[int] = []
        self.js: list[float] = []
        self.matches: list[_Match] = []
        self.comparisons = 0
        self._new_round()

    # -- resuming -------------------------------------------------------------------
    def snapshot(self) -> dict:
        """Everything the next choices read besides the judgments (which the caller keeps), as JSON values:
        ``losses`` per item, the pairs that have ``met`` ([i, j], i < j), the ``final`` pool (null before the
        final), its ``final_wins`` ([winner, loser, matches won]), the open ``matches`` ([a, b, wins of a,
        wins of b, judgments]) and the random stream (:func:`pref_eval.zelo.rng_state.rng_to_json`).
        :meth:`resume` of it and the same judgments continues exactly as this object does."""
        from .rng_state import rng_to_json

        mi, mj = np.nonzero(np.triu(self.met, 1))
        wi, wj = np.nonzero(self.final_wins)
        return {"losses": self.losses.tolist(), "met": np.stack([mi, mj], axis=1).tolist(),
                "final": None if self.final_pool is None else self.final_pool.tolist(),
                "final_wins": [[i, j, int(c)] for i, j, c in zip(wi.tolist(), wj.tolist(),
                                                                   self.final_wins[wi, wj].tolist(), strict=True)],
                "matches": [[m.a, m.b, m.wa, m.wb, m.n] for m in self.matches], "rng": rng_to_json(self.rng)}

    def resume(self, snap: dict, ja: list[int], jb: list[int], js: list[float]) -> None:
        """Take the state of :meth:`snapshot` ``snap`` (checked by the caller) and the judgments so far
        (``(ja, jb, js)`` in the order they were added): no fit, no draw (a fresh object of the same
        parameters is the starting point)."""
        from .rng_state import rng_from_json

        K = self.K
        self.losses = np.asarray(snap["losses"], dtype=np.int64).reshape(K)
        self.met = np.zeros((K, K), dtype=bool)
        met = np.asarray(snap["met"], dtype=np.int64).reshape(-1, 2)
        self.met[met[:, 0], met[:, 1]] = self.met[met[:, 1], met[:, 0]] = True
        self.final_pool = None if snap["final"] is None else np.asarray(snap["final"], dtype=np.int64)
        self.final_wins = np.zeros((K, K))
        fw = np.asarray(snap["final_wins"], dtype=np.int64).reshape(-1, 3)
        self.final_wins[fw[:, 0], fw[:, 1]] = fw[:, 2]
        self.matches = [_Match(int(a), int(b), float(wa), float(wb), int(n)) for a, b, wa, wb, n in snap["matches"]]
        self.rng = rng_from_json(snap["rng"])
        self.ja, self.jb, self.js = list(ja), list(jb), [float(x) for x in js]
        self.pair_n = np.zeros((K, K), dtype=np.int64)
        np.add.at(self.pair_n, (np.asarray(ja, dtype=np.int64), np.asarray(jb, dtype=np.int64)), 1)
        self.pair_n += self.pair_n.T
        self.comparisons = len(ja)

    # -- posterior ------------------------------------------------------------------
    def posterior(self) -> np.ndarray:
        """Posterior-mean Bradley–Terry scores of all items from all judgments."""
        if not self.ja:
            return np.zeros(self.K)
        n = len(self.ja)
        return fit_bt([self.K], np.zeros(n, dtype=np.int64), np.asarray(self.ja), np.asarray(self.jb),
                      np.asarray(self.js, dtype=float), prior=self.prior, compute_se=False).score

    # -- rounds ---------------------------------------------------------------------
    def alive(self) -> np.ndarray:
        return np.flatnonzero(self.losses < self.lives)

    def _new_round(self) -> None:
        alive = self.alive()
        if len(alive) <= 1 or self.final_pool is not None:
            self.matches = []
            return
        if len(alive) <= self.final:
            # the final: every pair of the remaining items, decided as a match; most matches won wins
            self.final_pool = alive
            self.matches = [_Match(int(i), int(j)) for n, i in enumerate(alive) for j in alive[n + 1:]]
            if any(self._room(m) == 0 for m in self.matches):
                self.add([])
            return
        x = self.posterior() + self.rng.random(self.K) * 1e-9  # random order among equal scores
        pools = [alive[self.losses[alive] == k] for k in range(self.lives)]
        pools = [p for p in pools if len(p)]
        if all(len(p) == 1 for p in pools):
            # one item per pool: the final (between the two with the fewest losses)
            pools = [np.array(sorted(alive, key=lambda i: self.losses[i])[:2])]
        matches = []
        for pool in pools:
            order = pool[np.argsort(-x[pool], kind="stable")].tolist()
            if len(order) % 2 == 1:
                order = order[1:]  # the strongest of an odd pool sits the round out
            while order:
                top = order.pop(0)
                # weakest not yet met, else the weakest
                pick = next((j for j in reversed(order) if not self.met[top, j]), order[-1])
                order.remove(pick)
                matches.append(_Match(top, pick))
        self.matches = matches
        if any(self._room(m) == 0 for m in matches):
            self.add([])  # a rematch of a pair with no judgments left is decided by the judgments it has

    # -- protocol -------------------------------------------------------------------
    def done(self) -> bool:
        if self.final_pool is not None:
            return not self.matches
        return len(self.alive()) <= 1

    def outstanding(self) -> list[tuple[int, int]]:
        out = []
        for m in self.matches:
            out.extend([(m.a, m.b)] * self._room(m))
        return out

    def _room(self, m: _Match) -> int:
        """Judgments the match may still ask for in this batch."""
        room = self.cap - int(self.pair_n[m.a, m.b])
        if self.per_match is not None and self.final_pool is None:
            room = min(room, self.per_match - m.n)
        return max(0, min(self.batch, room))

    def add(self, judgments: Iterable[tuple[int, int, float]]) -> None:
        """Record judged pairs ``(a, b, s)`` of the outstanding batch and decide matches."""
        by_pair: dict[tuple[int, int], list[float]] = {}
        for a, b, s in judgments:
            a, b, s = int(a), int(b), float(s)
            self.ja.append(a)
            self.jb.append(b)
            self.js.append(s)
            self.pair_n[a, b] += 1
            self.pair_n[b, a] += 1
            self.comparisons += 1
            by_pair.setdefault((a, b), []).append(1.0 - s)
            by_pair.setdefault((b, a), []).append(s)
        x = None
        still = []
        for m in self.matches:
            m.wa += sum(by_pair.get((m.a, m.b), []))
            m.wb += sum(by_pair.get((m.b, m.a), []))
            m.n += len(by_pair.get((m.a, m.b), []))
            lead = self.lead if self.final_pool is None else self.final_lead
            if abs(m.wa - m.wb) >= lead - 1e-12:
                loser = m.b if m.wa > m.wb else m.a
            elif self._room(m) == 0:
                if m.wa != m.wb:
                    loser = m.b if m.wa > m.wb else m.a
                else:
                    x = self.posterior() if x is None else x
                    loser = m.b if x[m.a] > x[m.b] else m.a if x[m.b] > x[m.a] else (m.a, m.b)[self.rng.integers(2)]
            else:
                still.append(m)
                continue
            self.met[m.a, m.b] = self.met[m.b, m.a] = True
            if self.final_pool is not None:
                winner = m.a if loser == m.b else m.b
                self.final_wins[winner, loser] += 1
            else:
                self.losses[loser] += 1
        self.matches = still
        if not still:
            self._new_round()

    def best(self) -> list[int]:
        """The returned item: the last one standing, or the final's most matches won
        (equal counts: the higher posterior mean; still equal: all of them)."""
        if self.final_pool is None:
            alive = self.alive()
            if len(alive) == 1:
                return [int(alive[0])]
            pool = alive
            wins = np.zeros(len(pool))
        else:
            pool = self.final_pool
            wins = self.final_wins[np.ix_(pool, pool)].sum(axis=1)
        cand = pool[wins == wins.max()]
        if len(cand) == 1:
            return [int(cand[0])]
        x = self.posterior()[cand]
        return [int(i) for i in cand[x == x.max()]]


def simulate_adaptive(M: np.ndarray, reps: int = 1000, *, seed: int = 0,
                      progress: Callable[[int, int], None] | None = None, **params: Any) -> dict:
    """Run :class:`AdaptiveBest` ``reps`` times against M (each judgment one draw from M).

    Returns the per-repetition arrays of :func:`pref_eval.zelo.bandits.simulate_bandit`.
    """
    from .bandits import winners

    M = np.asarray(M, dtype=float)
    K = len(M)
    win = winners(M)
    out: dict[str, np.ndarray] = {k: np.zeros(reps, dtype=np.int64)
                                  for k in ("found_count", "best_size", "nonbest", "comparisons", "max_pair")}
    for r in range(reps):
        rng = np.random.default_rng(stream_seed(seed, r, 2))
        t = AdaptiveBest(K, seed=int(rng.integers(2**32)), **params)
        while not t.done():
            req = t.outstanding()
            a = np.array([p[0] for p in req], dtype=np.int64)
            b = np.array([p[1] for p in req], dtype=np.int64)
            a_wins = rng.random(len(req)) < M[a, b]
            t.add(zip(a.tolist(), b.tolist(), np.where(a_wins, 0.0, 1.0).tolist(), strict=True))
        best = np.asarray(t.best())
        hit = int(np.isin(win, best).sum())
        out["found_count"][r] = hit
        out["best_size"][r] = len(best)
        out["nonbest"][r] = len(best) - hit
        out["comparisons"][r] = t.comparisons
        out["max_pair"][r] = int(t.pair_n.max())
        if progress is not None:
            progress(r + 1, reps)
    out["found"] = out["found_count"] > 0
    return out


def posterior_covariance(x: np.ndarray, a: np.ndarray, b: np.ndarray, weight: np.ndarray | None = None,
                         prior: float = 0.5) -> np.ndarray:
    """Posterior covariance of the Bradley–Terry scores of many queries: (Q, K, K).

    ``x`` (Q, K) fitted scores; ``a``, ``b`` (Q, n) judged pairs (``weight`` (Q, n), default 1, as in
    :func:`pref_eval.zelo.fit.fit_bt`). The inverse of the observed information of the fit, the
    Laplacian with weights w p_ab (1 − p_ab) plus the prior's diagonal 2 prior σ(x)σ(−x)
    (module docstring of :mod:`pref_eval.zelo.fit`).
    """
    x = np.asarray(x, dtype=float)
    Q, K = x.shape
    a = np.asarray(a, dtype=np.int64).reshape(Q, -1)
    b = np.asarray(b, dtype=np.int64).reshape(Q, -1)
    w = np.ones(a.shape) if weight is None else np.asarray(weight, dtype=float).reshape(Q, -1)
    t = np.repeat(np.arange(Q), a.shape[1])
    p = 1.0 / (1.0 + libm.exp(x[t, b.ravel()] - x[t, a.ravel()]))
    h = w.ravel() * p * (1.0 - p)
    H = np.zeros((Q, K, K))
    np.add.at(H, (t, a.ravel(), b.ravel()), -h)
    np.add.at(H, (t, b.ravel(), a.ravel()), -h)
    np.add.at(H, (t, a.ravel(), a.ravel()), h)
    np.add.at(H, (t, b.ravel(), b.ravel()), h)
    sx = 1.0 / (1.0 + libm.exp(-x))
    H[:, np.arange(K), np.arange(K)] += 2.0 * prior * sx * (1.0 - sx) + (0.0 if prior > 0 else 1e-9)
    from ..blas import one_blas_thread

    with one_blas_thread():  # a batch of small inverses: threads cost more than they save (pref_eval.blas)
        return np.linalg.inv(H)


def greedy_matching(key: np.ndarray, i: np.ndarray, j: np.ndarray, K: int) -> np.ndarray:
    """The greedy matching of many queries at once: ``key`` (Q, C) ranks candidate pairs (``i``, ``j``)
    (Q, C) of each query, lower first, all keys of a query distinct (invalid candidates: key = inf).

    Returns a boolean (Q, C) mask of the chosen pairs: what taking the candidates in key order and
    keeping each whose two documents are still free gives. Computed by rounds: a pair whose key is
    the smallest at both its documents among the pairs still possible is in the greedy matching
    (nothing before it can take either document), so every round takes all such pairs for all
    queries with a few array operations (Preis, "Linear time 1/2-approximation algorithm for maximum
    weighted matching in general graphs", STACS 1999, for the locally dominant edges).
    """
    Q, C = key.shape
    chosen = np.zeros((Q, C), dtype=bool)
    live = np.isfinite(key)
    rows = np.repeat(np.arange(Q), C).reshape(Q, C)
    while live.any():
        best = np.full((Q, K), np.inf)
        np.minimum.at(best, (rows[live], i[live]), key[live])
        np.minimum.at(best, (rows[live], j[live]), key[live])
        take = live & (key == best[rows, i]) & (key == best[rows, j])
        chosen |= take
        used = np.zeros((Q, K), dtype=bool)
        used[rows[take], i[take]] = True
        used[rows[take], j[take]] = True
        live &= ~(used[rows, i] | used[rows, j])
    return chosen


CRITERIA = ("uncertainty", "discordance", "rowsum")


def _band(order: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs at most ``width`` places apart in each row's ``order``: (i, j), each (Q, n), by distance."""
    d_max = min(width, order.shape[1] - 1)
    i = np.concatenate([order[:, :-d] for d in range(1, d_max + 1)], axis=1)
    j = np.concatenate([order[:, d:] for d in range(1, d_max + 1)], axis=1)
    return i, j


# A term of the sum is exactly 0 once z = |Δ|/√δ ≥ 40: exp(−z²/2) and Φ(−z) are then below half the smallest
# double (e^−800 and Φ(−40) < 1e-349; scipy's ndtr gives 0 from z ≈ 37.7 on, tests/test_zelo_adaptive_ranking.py
# checks both), so both parts are 0 and so is 2φ(0)/s′ · (0 − 0). Terms with |Δ|² > 42² max(δ, 1e-300) (z > 42,
# far from any rounding of z) are left at 0 unevaluated, and |Δ| Φ(−z) is evaluated only where it can be nonzero.
_ZERO_TERM_Z2 = 42.0**2
_NDTR_ZERO = 40.0


def _drop_rows(delta: np.ndarray, s2: np.ndarray, s2_cap: np.ndarray, gap: np.ndarray, gap2: np.ndarray,
               work: np.ndarray | None = None, places: np.ndarray | None = None) -> np.ndarray:
    """:func:`_expected_drop` of C-contiguous (n, M) arrays ``delta`` (overwritten), ``s2``, ``gap`` and
    ``s2_cap`` = 0.999 s², with ``gap2`` = |Δ|² (n, M) or (M,) (the same products). Every term that is not
    exactly 0 is evaluated with the operations of the plain formula, so the row sums (of the same terms,
    in the same places) are the same to the bit. ``work``: scratch space, a (6, ≥ n·M) float array, and
    ``places`` = arange(≥ n·M), reused between calls (fresh memory costs a page fault per 4 kB: a third
    of the time at 100 documents when each chunk allocated its own)."""
    from scipy.special import ndtr

    size = delta.size
    if work is None:
        work = np.empty((6, size))
    flat = delta.reshape(-1)
    lim = np.maximum(delta, 1e-300, out=work[0, :size].reshape(delta.shape))
    lim *= _ZERO_TERM_Z2
    # clipping δ below 0.999 s² only raises z: terms 0 for the unclipped δ are 0 for the clipped one
    keep = np.less_equal(gap2, lim, out=work[1, :size].view(bool)[:size].reshape(delta.shape)).reshape(-1)
    m = int(np.count_nonzero(keep))
    k = np.compress(keep, np.arange(size) if places is None else places[:size], out=work[0, :m].view(np.int64))
    d, v, g, sd = (np.take(a.reshape(-1), k, out=work[r, :m], mode="clip")
                   for r, a in ((2, delta), (3, s2), (4, gap), (5, s2_cap)))
    np.minimum(d, sd, out=d)
    # the formula evaluated in place, operation for operation (the same bits as the plain expression
    # two_phi0 / s' * (sd * exp(-0.5 z z) / sqrt(2 pi) - |Δ| Φ(-z))), without a temporary per operation
    np.maximum(d, 1e-300, out=sd)
    np.sqrt(sd, out=sd)
    s_after = np.sqrt(np.subtract(v, d, out=v), out=v)
    z = np.divide(g, sd, out=work[1, :m])
    t = np.multiply(z, -0.5, out=d)
    t *= z
    t[...] = libm.exp(t)
    t *= sd
    t /= np.sqrt(2.0 * np.pi)
    np.negative(z, out=z)
    ndtr(z, out=z)
    z *= g
    t -= z
    np.divide(2.0 / np.sqrt(2.0 * np.pi), s_after, out=s_after)
    s_after *= t
    flat[...] = 0.0
    flat[k] = s_after
    return delta.sum(axis=1)


def _expected_drop(delta: np.ndarray, s2: np.ndarray, gap: np.ndarray) -> np.ndarray:
    """The knowledge-gradient step shared by :func:`discordance_reduction` and :func:`rowsum_reduction`:
    for each candidate (row) and each pair (k, l) (column) with variance ``s2`` = s² of the compared
    difference and ``gap`` = |Δ| its mean, the expected drop of the probability that the order is wrong
    when one judgment moves the mean by a N(0, δ) amount (δ = ``delta``, clipped below s²):
    2φ(0)/s′ · (√δ φ(|Δ|/√δ) − |Δ| Φ(−|Δ|/√δ)), s′² = s² − δ; summed over the pairs."""
    delta = np.array(delta, dtype=float, order="C", copy=not delta.flags.writeable or None)
    s2 = np.ascontiguousarray(np.broadcast_to(s2, delta.shape), dtype=float)
    gap = np.ascontiguousarray(np.broadcast_to(gap, delta.shape), dtype=float)
    return _drop_rows(delta, s2, 0.999 * s2, gap, gap * gap)


def discordance_reduction(x: np.ndarray, cov: np.ndarray, i: np.ndarray, j: np.ndarray,
                          reach: int = 15, live: np.ndarray | None = None, chunk: int = 64) -> np.ndarray:
    """Expected reduction in the expected number of discordant pairs from one judgment of each
    candidate pair (``i``, ``j``) (Q, C): (Q, C).

    One-step look-ahead (the knowledge gradient of Frazier, Powell & Dayanik, "A knowledge-gradient
    policy for sequential information collection", SIAM J. Control Optim. 47(5), 2008) on the
    Laplace posterior N(x, C) of the Bradley–Terry fit. A judgment of u = e_i − e_j carries the
    Fisher information w = p(1 − p), p = σ(x_j − x_i); by the rank-one update of C it lowers
    Var(x_k − x_l) = s² by δ_kl = ((Cu)_k − (Cu)_l)² / (1/w + uᵀCu), and before it is made the new
    posterior mean m' of x_k − x_l is N(Δ, δ_kl) (Δ the current mean difference). The probability
    that the fitted order of (k, l) is wrong, min(P, 1 − P), P = Φ(−Δ/s), is then expected to drop by
    E[(1 − 2Φ(|m'|/s'))·1{m' changes sign}], s'² = s² − δ, which with 1 − 2Φ(t) ≈ −2φ(0)t near 0 is

        r_kl = 2φ(0)/s' · (√δ φ(|Δ|/√δ) − |Δ| Φ(−|Δ|/√δ))    (2φ(0)/s' times E[m' beyond 0]).

    The score of a candidate is Σ r_kl over the pairs (k, l) at most ``reach`` places apart in the
    order of ``x`` (farther pairs have P ≈ 0 and contribute nothing). Only candidates where ``live``
    (Q, C) is true are scored (the others get −inf), ``chunk`` candidates of a query at a time (memory
    chunk × K·reach). Terms that are exactly 0 (z = |Δ|/√δ > 42) are not evaluated (:func:`_drop_rows`).
    """

    Q, K = x.shape
    rows = np.arange(Q)[:, None]
    order = np.argsort(-x, axis=1, kind="stable")
    kk, ll = _band(order, reach)
    dg = np.diagonal(cov, axis1=1, axis2=2)
    s2 = np.maximum(dg[rows, kk] + dg[rows, ll] - 2.0 * cov[rows, kk, ll], 1e-12)
    s2_cap = 0.999 * s2
    gap = np.abs(x[rows, kk] - x[rows, ll])
    gap2 = gap * gap
    p = 1.0 / (1.0 + libm.exp(x[rows, j] - x[rows, i]))
    var = dg[rows, i] + dg[rows, j] - 2.0 * cov[rows, i, j]
    denom = 1.0 / np.maximum(p * (1.0 - p), 1e-300) + var
    out = np.full(i.shape, -np.inf)
    qi, ci = np.nonzero(np.ones(i.shape, dtype=bool) if live is None else live)
    # (Cu)_k − (Cu)_l for the band pairs, laid out as _band lays them out (by distance d, then place in
    # the order): C u taken in the query's order once, then differences of its shifted slices
    widths = [K - d for d in range(1, min(reach, K - 1) + 1)]
    M = kk.shape[1]
    work = np.empty((10, chunk * M))  # scratch space of every chunk: dk, the query's rows, _drop_rows's
    places = np.arange(chunk * M)
    ends = np.append(np.flatnonzero(np.diff(qi)) + 1, len(qi))
    for a0, a1 in zip(np.append(0, ends[:-1]).tolist(), ends.tolist(), strict=True):
        if a0 == a1:
            continue
        q = int(qi[a0])
        cq, oq = cov[q], order[q]
        n = min(chunk, a1 - a0)
        s2_q, cap_q, gap_q = (work[r, : n * M].reshape(n, M) for r in (1, 2, 3))  # the query's rows, per candidate
        s2_q[...], cap_q[...], gap_q[...] = s2[q], s2_cap[q], gap[q]
        for n0 in range(a0, a1, chunk):
            c = ci[n0 : min(n0 + chunk, a1)]
            cs = cq[i[q, c][:, None], oq] - cq[j[q, c][:, None], oq]  # C u, in the order of x
            dk = work[0, : len(c) * M].reshape(len(c), M)
            off = 0
            for d, w in enumerate(widths, 1):
                np.subtract(cs[:, :w], cs[:, d:], out=dk[:, off : off + w])
                off += w
            np.multiply(dk, dk, out=dk)
            dk /= denom[q, c][:, None]
            out[q, c] = _drop_rows(dk, s2_q[: len(c)], cap_q[: len(c)], gap_q[: len(c)], gap2[q], work[4:], places)
    return out


def rowsum_reduction(x: np.ndarray, cov: np.ndarray, judged: np.ndarray, i: np.ndarray, j: np.ndarray,
                     votes: int = 3, reach: int = 15, live: np.ndarray | None = None, chunk: int = 64,
                     info_scale: float | None = None) -> np.ndarray:
    """Expected reduction in the expected number of pairs whose order differs from the order of
    the *row sums* of the complete judgment matrix, from one judgment of each candidate (``i``,
    ``j``) (Q, C): (Q, C).

    With every pair judged once the Bradley–Terry fit orders the documents by their wins
    w_k = Σ_j y_kj (the score equations Σ_j σ(x_k − x_j) + prior (2σ(x_k) − 1) = w_k are
    increasing in x_k), so the dense order is w's order. Given the judgments so far, w_k − w_l =
    (judged part) + Σ over the unjudged y's; under the Laplace posterior N(x, C) of the scores and
    a judgment's own noise (the mean of ``votes`` Bernoulli votes: variance p(1 − p)/votes) it is
    about normal with mean μ_k − μ_l (μ_k = Σ_j σ(x_k − x_j)) and variance
    (h_k − h_l)ᵀ C (h_k − h_l) + N_k + N_l (+ 2p_kl(1 − p_kl)/votes when (k, l) is unjudged: y_kl
    counts in both), h_k the gradient of k's unjudged expected wins, N_k their noise variance.
    Judging (i, j) reveals y_ij, which is linear-Gaussian correlated with w_k − w_l through x (the
    term p_ij(1 − p_ij) (h_k − h_l)ᵀ C u, u = e_i − e_j) and, when k or l is i or j, through its
    own noise (± p(1 − p)/votes); δ_kl = Cov² / Var(y_ij) and the knowledge-gradient formula of
    :func:`discordance_reduction` give the expected drop of min(P, 1 − P) for each (k, l) at most
    ``reach`` places apart. ``info_scale`` multiplies the information behind ``cov`` (default
    ``votes``: the fit counts a judgment as one game, its votes carry ``votes`` games' worth).
    """

    Q, K = x.shape
    scale = float(votes) if info_scale is None else float(info_scale)
    C = cov / scale
    rows = np.arange(Q)[:, None]
    P = 1.0 / (1.0 + libm.exp(x[:, None, :] - x[:, :, None]))  # P[q, k, j] = σ(x_k − x_j)
    dP = P * (1.0 - P)
    U = ~judged
    U[:, np.arange(K), np.arange(K)] = False
    dPU = np.where(U, dP, 0.0)
    H = -dPU
    H[:, np.arange(K), np.arange(K)] = dPU.sum(axis=2)
    from ..blas import one_blas_thread

    with one_blas_thread():  # small batched products (pref_eval.blas)
        M = H @ C  # (Q, K, K): row k = h_kᵀ C
        G = M @ np.swapaxes(H, 1, 2)
    N = dPU.sum(axis=2) / votes
    mu = P.sum(axis=2)
    order = np.argsort(-x, axis=1, kind="stable")
    kk, ll = _band(order, reach)
    gd = np.diagonal(G, axis1=1, axis2=2)
    v = (gd[rows, kk] + gd[rows, ll] - 2.0 * G[rows, kk, ll] + N[rows, kk] + N[rows, ll]
         + 2.0 * U[rows, kk, ll] * dP[rows, kk, ll] / votes)
    v = np.maximum(v, 1e-12)
    gap = np.abs(mu[rows, kk] - mu[rows, ll])
    pij = dP[rows, i, j]
    dg = np.diagonal(C, axis1=1, axis2=2)
    var_y = pij * pij * (dg[rows, i] + dg[rows, j] - 2.0 * C[rows, i, j]) + pij / votes
    out = np.full(i.shape, -np.inf)
    qi, ci = np.nonzero(np.ones(i.shape, dtype=bool) if live is None else live)
    Mt = np.swapaxes(M, 1, 2)  # Mt[q, i, k] = M[q, k, i]
    for n0 in range(0, len(qi), chunk):
        q, c = qi[n0 : n0 + chunk], ci[n0 : n0 + chunk]
        a_, b_ = i[q, c], j[q, c]
        m = Mt[q, a_, :] - Mt[q, b_, :]  # (n, K): h_kᵀ C u
        kq, lq = kk[q], ll[q]
        xpart = (np.take_along_axis(m, kq, axis=1) - np.take_along_axis(m, lq, axis=1)) * pij[q, c][:, None]
        coef = ((kq == a_[:, None]).astype(float) - (kq == b_[:, None]) - (lq == a_[:, None]) + (lq == b_[:, None]))
        cv = xpart + coef * (pij[q, c] / votes)[:, None]
        out[q, c] = _expected_drop(cv * cv / var_y[q, c][:, None], v[q], gap[q])
    return out


def ranking_batch(x: np.ndarray, cov: np.ndarray, judged: np.ndarray, n_pairs: int | np.ndarray,
                  window: int = 3, criterion: str = "uncertainty",
                  reach: int = 15, votes: int = 3) -> list[list[tuple[int, int]]]:
    """The next batch of every query: up to ``n_pairs`` disjoint, not yet judged pairs each.

    ``x`` (Q, K) posterior means, ``cov`` (Q, K, K) posterior covariances
    (:func:`posterior_covariance`), ``judged`` (Q, K, K) pairs already judged. Candidates: pairs at
    most ``window`` places apart in the order of ``x``; score (``criterion``): ``"uncertainty"``,
    P_ij = Φ(−|x_i − x_j| / sd(x_i − x_j)) (module docstring), or ``"discordance"``, the expected
    reduction in the expected number of discordant pairs (:func:`discordance_reduction`, ``reach``),
    or ``"rowsum"``, the same against the order of the complete matrix's win totals
    (:func:`rowsum_reduction`, ``reach``, ``votes`` votes per judgment);
    the greedy maximum-score matching (:func:`greedy_matching`), its ``n_pairs`` best pairs. Ties in
    the score go to the pair closer in the order, then higher up.
    """
    from scipy.special import ndtr

    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}")
    x = np.asarray(x, dtype=float)
    Q, K = x.shape
    n_pairs = np.broadcast_to(np.asarray(n_pairs, dtype=np.int64), (Q,))
    order = np.argsort(-x, axis=1, kind="stable")
    if min(window, K - 1) < 1:
        return [[] for _ in range(Q)]
    i, j = _band(order, window)
    rows = np.arange(Q)[:, None]
    if criterion == "discordance":
        score = discordance_reduction(x, cov, i, j, reach, live=~judged[rows, i, j])
    elif criterion == "rowsum":
        score = rowsum_reduction(x, cov, judged, i, j, votes, reach, live=~judged[rows, i, j])
    else:
        var = cov[rows, i, i] + cov[rows, j, j] - 2.0 * cov[rows, i, j]
        score = ndtr(-np.abs(x[rows, i] - x[rows, j]) / np.sqrt(np.maximum(var, 1e-300)))
    score[judged[rows, i, j]] = -np.inf
    return best_matching(score, i, j, K, n_pairs)


def best_matching(score: np.ndarray, i: np.ndarray, j: np.ndarray, K: int,
                  n_pairs: int | np.ndarray) -> list[list[tuple[int, int]]]:
    """Per query, the greedy maximum-score matching of the candidates (``i``, ``j``) (Q, C) by ``score``
    (Q, C; −inf: not a candidate), its ``n_pairs`` best pairs in order of score. Ties in the score go
    to the candidate laid out first (:func:`_band` lays them out by distance, then position)."""
    Q = score.shape[0]
    rows = np.arange(Q)[:, None]
    n_pairs = np.broadcast_to(np.asarray(n_pairs, dtype=np.int64), (Q,))
    rank = np.argsort(-score, axis=1, kind="stable")
    key = np.empty(score.shape)
    key[rows, rank] = np.arange(score.shape[1], dtype=float)[None, :]
    key[~np.isfinite(score)] = np.inf
    chosen = greedy_matching(key, i, j, K)
    out = []
    for q in range(Q):
        c = np.flatnonzero(chosen[q])
        c = c[np.argsort(key[q, c], kind="stable")][: n_pairs[q]]
        out.append(list(zip(i[q, c].tolist(), j[q, c].tolist(), strict=True)))
    return out


def fill_round(new: list[tuple[int, int]], need: int, judged: np.ndarray,
               rng: np.random.Generator) -> list[tuple[int, int]]:
    """``new`` completed to ``need`` pairs with pairs drawn uniformly at random (``rng``) among those neither
    judged (``judged`` (K, K)) nor already in ``new``: a round short of window candidates, filled."""
    if len(new) >= need:
        return new
    free = np.triu(~np.asarray(judged, dtype=bool), 1)
    for i, j in new:
        free[min(i, j), max(i, j)] = False
    free_i, free_j = np.nonzero(free)
    pick = rng.permutation(len(free_i))[: need - len(new)]
    return new + list(zip(free_i[pick].tolist(), free_j[pick].tolist(), strict=True))


def adaptive_ranking_pairs(x: np.ndarray, se: np.ndarray, judged: np.ndarray, n_pairs: int,
                           window: int = 3) -> list[tuple[int, int]]:
    """The next batch for one query from scores and standard errors only: :func:`ranking_batch` with
    the covariance diag(se²), i.e. Var(x_i − x_j) = se_i² + se_j² (an unknown SE counts as 10).
    ``judged[i, j]`` marks pairs already judged.
    """
    x = np.asarray(x, dtype=float)
    se = np.nan_to_num(np.asarray(se, dtype=float), nan=10.0)
    return ranking_batch(x[None], np.diag(se**2)[None], np.asarray(judged, dtype=bool)[None], n_pairs, window)[0]
