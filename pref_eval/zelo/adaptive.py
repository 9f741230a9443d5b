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

**Whole ranking** -- :func:`adaptive_ranking_pairs`: after a first random
cycle, batches of disjoint pairs chosen by the posterior probability that the
fitted order of the pair is wrong, P = Φ(−|x_i − x_j| / sqrt(se_i² + se_j²)),
among pairs not yet judged and close in the current ranking (neighbours up to
``window`` places apart): the pairs whose judgment is most likely to move the
ranking.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
                 prior: float = 0.5, seed: int = 0) -> None:
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

    def add(self, judgments) -> None:
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


def simulate_adaptive(M: np.ndarray, reps: int = 1000, *, seed: int = 0, progress=None, **params) -> dict:
    """Run :class:`AdaptiveBest` ``reps`` times against M (each judgment one draw from M).

    Returns the per-repetition arrays of :func:`pref_eval.zelo.bandits.simulate_bandit`.
    """
    from .bandits import winners

    M = np.asarray(M, dtype=float)
    K = len(M)
    win = winners(M)
    out = {k: np.zeros(reps, dtype=np.int64) for k in ("found_count", "best_size", "nonbest", "comparisons",
                                                         "max_pair")}
    for r in range(reps):
        rng = np.random.default_rng([seed, r, 2])
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


def adaptive_ranking_pairs(x: np.ndarray, se: np.ndarray, judged: np.ndarray, n_pairs: int,
                           window: int = 3) -> list[tuple[int, int]]:
    """The next batch for one query: up to ``n_pairs`` disjoint, not yet judged pairs.

    Candidates are pairs at most ``window`` places apart in the order of the
    posterior means ``x``; each is scored by the posterior probability that
    its fitted order is wrong, Φ(−|x_i − x_j| / sqrt(se_i² + se_j²)), and taken
    greedily, highest first, each document at most once per batch.
    ``judged[i, j]`` marks pairs already judged.
    """
    from scipy.special import ndtr

    K = len(x)
    order = np.argsort(-x, kind="stable")
    i_list, j_list = [], []
    for d in range(1, min(window, K - 1) + 1):
        i_list.append(order[:-d])
        j_list.append(order[d:])
    if not i_list:
        return []
    i = np.concatenate(i_list)
    j = np.concatenate(j_list)
    fresh = ~judged[i, j]
    i, j = i[fresh], j[fresh]
    sd = np.sqrt(np.nan_to_num(se[i], nan=10.0) ** 2 + np.nan_to_num(se[j], nan=10.0) ** 2) + 1e-12
    score = ndtr(-np.abs(x[i] - x[j]) / sd)
    used = np.zeros(K, dtype=bool)
    out = []
    for k in np.argsort(-score, kind="stable"):
        a, b = int(i[k]), int(j[k])
        if used[a] or used[b]:
            continue
        used[a] = used[b] = True
        out.append((a, b))
        if len(out) >= n_pairs:
            break
    return out
