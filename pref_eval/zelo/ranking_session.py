"""``zelo_pairs init --strategy adaptive --goal ranking``: the whole-ranking strategy as a resumable process.

The strategy of ``zelo_simulate recovery --strategy adaptive`` (docs/zelo_simulate.md, "Whole
rankings") on real topics, batch by batch, with the protocol of :mod:`pref_eval.zelo.pair_state`
(``next``, ``add``, ``status``, ``result``; ``zelo_judge --state`` drives it). Per topic of K
documents and a budget of ``cycles`` × K distinct pairs (at most all K(K − 1)/2):

* round 1, blind (nothing is known yet): a seeded random perfect matching of the documents (K/2
  pairs; ``start="cycle"``: a random cycle, K pairs);
* every later round, once the previous one is wholly judged: ``batch`` disjoint pairs not judged yet
  (default K/4), chosen by :func:`pref_eval.zelo.adaptive.ranking_batch` from the Bradley–Terry fit of
  the topic's judgments so far (:func:`pref_eval.zelo.fit.fit_bt`, default prior) and its posterior
  covariance (:func:`pref_eval.zelo.adaptive.posterior_covariance`), among pairs at most ``window``
  places apart in the fitted order, by ``criterion`` (the expected reduction in the expected number of
  discordant pairs, a knowledge gradient; or the probability that the pair's fitted order is wrong);
  a round short of candidates is filled with unjudged pairs drawn at random (seeded), as in the simulation;
* each pair is asked once; a tie (0.5) counts as half a win each, as in the fit.

So with the same judgments this chooses the pairs the simulation chooses (tested against
``ranking_batch`` directly). The result is the fit of all the topic's judgments: ``topic docno score``
(natural-log scale), the scores ``zelo_fit`` gives for the same judgments.

The state file (format 2) records the parameters, each topic's documents, the rounds asked so far,
each topic's random stream after them (:mod:`pref_eval.zelo.rng_state`) and the judgments accepted
by every ``add`` in order. On load the topics are rebuilt from them without refitting (a round is
chosen once, when the previous one is complete; choosing one costs a fit and the criterion): the
first round must be the seeded matching, every later one the right number of new, distinct pairs,
and every judgment one the open round asked for, else the state is refused with the file named.
:meth:`RankingSession.replay` (every round chosen again) is the reference definition: ``verify``
(``zelo_pairs status --verify``) refuses a state whose rounds or streams it does not reproduce, and
a format-1 state (no streams) is migrated by it. Each topic's random draws come from the seed and
the topic's name, so they do not depend on the order of the topics::

    {"strategy": "adaptive-ranking", "version": 2, "seed": int >= 0,
     "params": {"cycles": int >= 1, "batch": int >= 0 (0: K/4), "window": int >= 1,
                "start": "matching" | "cycle", "criterion": "discordance" | "uncertainty"},
     "topics": {TOPIC: [distinct docnos]},
     "rounds": {TOPIC: [[[docA, docB], ...], ...]},
     "rng": {TOPIC of 2 or more documents: {"state": hex, "inc": hex, "has_uint32": 0 | 1, "uinteger": int}},
     "adds": [[[TOPIC, docA, docB, s in [0, 1]], ...], ...],
     "batches": ["BATCH:hex digest", ...], "ignored": int >= 0, "issued": int >= 0}
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import InputError, shown
from ..seeds import stream_seed
from .session_schema import TopicSessions, bad, check_common, check_group, state_json, is_int
from ..output.json_text import json_dumps

VERSION = 2
STRATEGY = "adaptive-ranking"
STARTS = ("matching", "cycle")
CRITERIA = ("discordance", "uncertainty")
PARAMS: dict[str, Any] = {"cycles": 4, "batch": 0, "window": 6, "start": "matching", "criterion": "discordance"}


def topic_seed(seed: int, topic: str) -> list[int]:
    """The seed of a topic's draws: the state's seed and h, the first 8 bytes of SHA-256 of the topic's name.

    :func:`pref_eval.seeds.stream_seed` ``(seed, h, wide=(0, 1))``: the list ``[seed, h]`` of before session 19
    unless the seed is >= 2^32 and h < 2^32 (a chance of 2^-32 per topic), where that list was ambiguous."""
    h = int.from_bytes(hashlib.sha256(topic.encode("utf-8", "surrogatepass")).digest()[:8], "little")
    return stream_seed(int(seed), h, wide=(0, 1))


class RankingGame:
    """One topic of K documents: the rounds of the whole-ranking strategy (indices 0..K-1)."""

    def __init__(self, K: int, *, seed: int | list[int], cycles: int, batch: int, window: int, start: str,
                 criterion: str) -> None:
        self.K = K
        self.budget = min(cycles * K, K * (K - 1) // 2)
        self.batch = batch or max(1, K // 4)
        self.window, self.criterion = window, criterion
        self.rng = np.random.default_rng(seed)
        self.judged = np.zeros((K, K), dtype=bool)
        self.a: list[int] = []
        self.b: list[int] = []
        self.s: list[float] = []
        self.history: list[list[tuple[int, int]]] = []  # every round asked, in order
        self.pending: dict[tuple[int, int], tuple[int, int]] = {}  # unordered pair -> requested orientation
        perm = self.rng.permutation(K)
        if start == "cycle" and K > 2:
            first = list(zip(perm.tolist(), np.roll(perm, -1).tolist(), strict=True))
        else:
            first = list(zip(perm[0:K - K % 2:2].tolist(), perm[1:K - K % 2:2].tolist(), strict=True))
        self.open_round(first[: self.budget])

    @property
    def rounds(self) -> int:
        return len(self.history)

    def open_round(self, pairs: list[tuple[int, int]]) -> None:
        """Ask the round ``pairs``."""
        self.history.append(list(pairs))
        self.pending = {(min(i, j), max(i, j)): (i, j) for i, j in pairs}

    def wants_round(self) -> int:
        """Pairs of the next round, when the open one is wholly judged and budget is left; else 0."""
        return 0 if self.pending else min(self.batch, self.budget - self.comparisons)

    @property
    def comparisons(self) -> int:
        return len(self.a)

    def done(self) -> bool:
        return not self.pending and self.comparisons >= self.budget

    def outstanding(self) -> list[tuple[int, int]]:
        return list(self.pending.values())

    def scores(self, doc_rank: np.ndarray | None = None) -> np.ndarray:
        """The Bradley–Terry fit (default prior) of the judgments so far (``doc_rank``: as
        :func:`pref_eval.zelo.fit.fit_bt`, the canonical order ``zelo_fit`` fits in)."""
        from .fit import fit_bt

        n = len(self.a)
        return fit_bt([self.K], np.zeros(n, dtype=np.int64), np.array(self.a, dtype=np.int64),
                      np.array(self.b, dtype=np.int64), np.array(self.s, dtype=float), compute_se=False,
                      doc_rank=doc_rank).score

    def add(self, rows: list[tuple[int, int, float]]) -> None:
        """Judgments of requested pairs, in the requested orientation (s: share of wins of the second)."""
        for i, j, s in rows:
            del self.pending[(min(i, j), max(i, j))]
            self.judged[i, j] = self.judged[j, i] = True
            self.a.append(i)
            self.b.append(j)
            self.s.append(float(s))

    def fill(self, new: list[tuple[int, int]], need: int) -> list[tuple[int, int]]:
        """``new`` completed to ``need`` pairs with unjudged pairs not in ``new``, at random (window exhausted)."""
        from .adaptive import fill_round

        return fill_round(new, need, self.judged, self.rng)


def next_rounds(games: list[RankingGame]) -> None:
    """Open the next round of each of ``games`` (each wholly judged, with budget left): topics of the same
    size are fitted and scored together (:func:`~pref_eval.zelo.fit.fit_bt` and
    :func:`~pref_eval.zelo.adaptive.ranking_batch` work on many queries at once, as in the simulation)."""
    from .adaptive import posterior_covariance, ranking_batch
    from .fit import fit_bt

    groups: dict[tuple[int, int, int, str], list[RankingGame]] = {}
    for g in games:
        groups.setdefault((g.K, g.comparisons, g.window, g.criterion), []).append(g)
    for (K, m, window, criterion), gs in groups.items():
        Q = len(gs)
        a = np.array([g.a for g in gs], dtype=np.int64).reshape(Q, m)
        b = np.array([g.b for g in gs], dtype=np.int64).reshape(Q, m)
        s = np.array([g.s for g in gs], dtype=float).reshape(Q, m)
        x = fit_bt(np.full(Q, K), np.repeat(np.arange(Q), m), a.ravel(), b.ravel(), s.ravel(),
                   compute_se=False).score.reshape(Q, K)
        need = np.array([g.wants_round() for g in gs])
        chosen = ranking_batch(x, posterior_covariance(x, a, b), np.stack([g.judged for g in gs]), need, window,
                               criterion)
        for g, new, n in zip(gs, chosen, need.tolist(), strict=True):
            g.open_round(g.fill(new, n))


class RankingSession(TopicSessions):
    """Several topics, each a :class:`RankingGame` over its documents (the protocol of ``pair_state``)."""

    strategy = STRATEGY

    def __init__(self, seed: int = 0, params: dict[str, Any] | None = None) -> None:
        self.seed = int(seed)
        self.params = dict(PARAMS)
        for k, v in (params or {}).items():
            if k not in PARAMS:
                raise ValueError(f"unknown parameter {shown(k)}")
            self.params[k] = v
        self._empty()
        self.games: dict[str, RankingGame | None] = {}
        self._stored: tuple[str, dict] | None = None  # (file name, stored rounds) while a state is loaded

    # -- topics ---------------------------------------------------------------------
    def add_topic(self, topic: str, grades: dict[str, float]) -> None:
        """From graded qrels: the documents with grade > 0, by grade descending, then docno."""
        self.set_pool(topic, sorted((d for d, g in grades.items() if g > 0), key=lambda d: (-grades[d], d)))

    def set_pool(self, topic: str, pool: list[str]) -> None:
        self.pools[topic] = list(pool)
        self.index[topic] = {d: i for i, d in enumerate(pool)}
        p = self.params
        self.games[topic] = RankingGame(len(pool), seed=topic_seed(self.seed, topic), cycles=p["cycles"],
                                        batch=p["batch"], window=p["window"], start=p["start"],
                                        criterion=p["criterion"]) if len(pool) >= 2 else None

    # -- protocol -------------------------------------------------------------------
    def add(self, judgments: Iterable[tuple[str, str, str, float]]) -> dict:
        """Judgments ``(topic, docA, docB, s)`` (s = 1: docB preferred), either order of the pair.

        Only pairs of the current round count (the first judgment of each); more judgments of a
        requested pair are duplicates, other pairs unrequested (both ignored). A round's next one is
        chosen once it is wholly judged.
        """
        per_topic: dict[str, list[tuple[int, int, float]]] = {}
        taken: dict[str, set[tuple[int, int]]] = {}
        accepted: list[list[Any]] = []
        duplicate = unrequested = 0
        self.last_ignored = ""
        for topic, a, b, s in judgments:
            g = self.games.get(topic)
            idx = self.index.get(topic, {})
            key = (min(idx[a], idx[b]), max(idx[a], idx[b])) if a in idx and b in idx else None
            if g is None or key is None or key not in g.pending:
                unrequested += 1
                self.last_ignored = self.last_ignored or f"{topic} {a} {b}"
                continue
            if key in taken.setdefault(topic, set()):
                duplicate += 1
                self.last_ignored = self.last_ignored or f"{topic} {a} {b}"
                continue
            taken[topic].add(key)
            i, j = g.pending[key]
            s = float(s)
            if (idx[a], idx[b]) != (i, j):
                s = 1.0 - s  # judged in the other order
            self.accept(topic, i, j, s, per_topic, accepted)
        self.feed_games(per_topic)
        self._advance([t for t in per_topic if (g := self.games[t]) is not None and g.wants_round()])
        return self.close_batch(accepted, duplicate, unrequested)

    def _advance(self, topics: list[str]) -> None:
        """Open the next round of ``topics`` (chosen now, or while a state is loaded, the stored one)."""
        if self._stored is None:
            next_rounds([g for t in topics if (g := self.games[t]) is not None])
            return
        name, stored = self._stored
        for t in topics:
            g = self.games[t]
            if g is not None:
                g.open_round(self._stored_round(t, g, name, stored.get(t, [])))

    def _stored_round(self, topic: str, g: RankingGame, name: str, rounds: list) -> list[tuple[int, int]]:
        """The next round of ``topic`` as the state file ``name`` has it (``rounds``), checked: the number of
        pairs the round asks for, each new and of two distinct documents of the topic."""
        where = f"$.rounds.{topic}[{g.rounds}]"
        if g.rounds >= len(rounds):
            raise _bad(name, where, "missing: the topic's rounds end before its judgments")
        idx, seen = self.index[topic], set()
        out = []
        for k, pair in enumerate(rounds[g.rounds]):
            ok = isinstance(pair, list) and len(pair) == 2 and all(isinstance(d, str) and d in idx for d in pair)
            key = (min(idx[pair[0]], idx[pair[1]]), max(idx[pair[0]], idx[pair[1]])) if ok else None
            if key is None or key[0] == key[1] or key in seen or g.judged[key]:
                raise _bad(name, f"{where}[{k}]", "expected a pair of two documents of the topic not asked before")
            seen.add(key)
            out.append((idx[pair[0]], idx[pair[1]]))
        if len(out) != g.wants_round():
            raise _bad(name, where, f"expected {g.wants_round()} pairs, found {len(out)}")
        return out

    def judged_before(self, topic: str, a: str, b: str) -> int:
        """Each pair is asked once: a request is always a first judgment."""
        return 0

    # -- reports --------------------------------------------------------------------
    @property
    def topics(self) -> dict[str, dict[str, Any]]:
        """``{topic: {"phase", "result"}}``; the result of a finished topic: document -> fitted score."""
        out: dict[str, dict[str, Any]] = {}
        for topic, g in self.games.items():
            if g is None:
                out[topic] = {"phase": "done", "result": dict.fromkeys(self.pools[topic], 0.0)}
            elif g.done():  # fitted as zelo_fit fits (documents in id order): the same scores
                from .fit import id_ranks

                x = g.scores(doc_rank=id_ranks([self.pools[topic]]))
                out[topic] = {"phase": "done", "result": dict(zip(self.pools[topic], x.tolist(), strict=True))}
            else:
                out[topic] = {"phase": f"round {g.rounds}", "result": None}
        return out

    def status(self) -> list[tuple[str, str, int, int, int, int, int]]:
        """Per topic ``(topic, stage, pool, judged, pairs, outstanding, rounds left)`` of the open round (the last
        when done), as the tournament's of its stage; the total of judgments is :attr:`comparisons`."""
        out = []
        for topic, g in self.games.items():
            if g is None:
                out.append((topic, "done", len(self.pools[topic]), 0, 0, 0, 0))
                continue
            left = 0 if g.done() else math.ceil(max(g.budget - g.comparisons - len(g.pending), 0) / g.batch)
            size = len(g.history[-1])  # the open (or last) round: judged + outstanding = its pairs
            out.append((topic, "done" if g.done() else f"round {g.rounds}", g.K, size - len(g.pending), size,
                        len(g.pending), left))
        return out

    def prefs_qrels(self, grades: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
        from ..errors import UsageError, command_running

        if command_running():
            raise UsageError("result --qrels (preference qrels of the top set) applies to the tournament and the "
                             "best-item strategy; for graded qrels from a whole ranking run zelo_fit "
                             "-J JUDGMENTS --qrels OUT.qrels --grades 0,1,2,3 on the judgments")
        raise UsageError("pairs_result(qrels=...) (preference qrels of the top set) applies to the tournament and the "
                         "best-item strategy; for graded qrels from a whole ranking call fit(JUDGMENTS, "
                         "qrels_output='OUT.qrels', grades='0,1,2,3') on the judgments")

    # -- state ----------------------------------------------------------------------
    def to_json(self) -> str:
        rounds = {t: [[[self.pools[t][i], self.pools[t][j]] for i, j in r] for r in g.history]
                  for t, g in self.games.items() if g is not None}
        from .rng_state import rng_to_json

        rng = {t: rng_to_json(g.rng) for t, g in self.games.items() if g is not None}
        return json_dumps({"strategy": STRATEGY, "version": VERSION, "seed": self.seed, "params": self.params,
                           "topics": self.pools, "rounds": rounds, "rng": rng, "adds": self.adds,
                           "batches": self.batches, "ignored": self.ignored, "issued": self.issued},
                          indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | dict, name: str = "<state>", verify: bool = False) -> RankingSession:
        """Validate and resume a state (module docstring); InputError names the JSON path. A format-1 state
        (no random streams) is migrated by one replay (:meth:`replay`): each topic continues the replay's
        stream -- unless the replay chooses other rounds than the stored ones (format 1 started a topic's
        stream afresh at every call, so a small topic whose rounds were filled at random twice or more from a
        shell loop drew other pairs than a running process): then the stored rounds stand and the stream
        starts afresh, as format 1 went on. ``verify``: the state is refused unless the replay chooses the
        stored rounds and (format 2) leaves the same random streams."""
        obj = state_json(text, name)
        version = _check_header(obj, name)
        s = cls._resume(obj, name)
        if version == 1 or verify:
            again = cls.replay(obj, name)
            for tp, g in s.games.items():
                h = again.games[tp]
                if g is not None and h is not None and g.history != h.history:
                    if not verify:  # format 1 restarted a topic's stream at every call: kept as it chose them
                        continue
                    r = next(k for k, (x, y) in enumerate(zip(g.history, h.history, strict=False)) if x != y)
                    raise _bad(name, f"$.rounds.{tp}[{r}]", "not the round the strategy chooses from the judgments "
                               "before it (a forged state?)")
                if g is not None and h is not None and version == 1:
                    g.rng = h.rng  # format 1 kept no stream: the replay's continues it
            if verify and s.to_json() != again.to_json():
                tp = next(t for t, g in s.games.items() if g is not None and g.rng.bit_generator.state
                          != again.games[t].rng.bit_generator.state)  # type: ignore[union-attr]
                raise _bad(name, f"$.rng.{tp}", "not the random stream the strategy leaves (an edited state?)")
        return s

    @classmethod
    def _resume(cls, obj: dict, name: str) -> RankingSession:
        """The state of a checked header: the topics rebuilt from the stored rounds and judgments, without a fit."""
        from .rng_state import rng_from_json

        s = cls(obj["seed"], obj["params"])
        for tp, pool in obj["topics"].items():
            s.set_pool(tp, pool)
        rounds = obj["rounds"]
        for tp, g in s.games.items():
            first = (rounds.get(tp) or [None])[0] if g is not None else None
            if g is not None and first != [[s.pools[tp][i], s.pools[tp][j]] for i, j in g.history[0]]:
                raise _bad(name, f"$.rounds.{tp}[0]", "expected the seeded first round (a forged state?)")
        s._stored = (name, rounds)
        try:
            for n, group in enumerate(obj["adds"]):
                rows = _check_group(group, f"$.adds[{n}]", name)
                if s.add(rows)["used"] != len(rows):
                    raise _bad(name, f"$.adds[{n}]", "judgments the strategy did not ask for at that point "
                               "(a forged state?)")
        finally:
            s._stored = None
        for tp, g in s.games.items():
            if len(rounds.get(tp, [])) != (g.rounds if g is not None else 0):
                raise _bad(name, f"$.rounds.{tp}", "expected one round per round asked (a forged state?)")
            if g is not None and "rng" in obj:
                g.rng = rng_from_json(obj["rng"][tp])
        s.restore_counts(obj)
        return s

    @classmethod
    def replay(cls, obj: dict, name: str = "<state>") -> RankingSession:
        """The reference definition of a state (``obj`` with a checked header): its parameters and topics, then
        every ``add``'s judgments given to the strategy again in order, each round chosen again when the one
        before is wholly judged (a fit and the criterion per round); the stored rounds are not read."""
        again = cls(obj["seed"], obj["params"])
        for tp, pool in obj["topics"].items():
            again.set_pool(tp, pool)
        for n, group in enumerate(obj["adds"]):
            again.add(_check_group(group, f"$.adds[{n}]", name))
        again.restore_counts(obj)
        return again


def _bad(name: str, path: str, what: str) -> InputError:
    return bad(STRATEGY, name, path, what)


def _check_header(obj: Any, name: str) -> int:
    """Everything but the judgments (:func:`~.session_schema.check_common`), with the parameters, rounds and
    (format 2) random streams. Returns the format."""

    def params(p: Any) -> None:
        if not isinstance(p, dict) or set(p) != set(PARAMS):
            raise _bad(name, "$.params", f"expected the keys {sorted(PARAMS)}")
        checks = {"cycles": (is_int(p["cycles"], 1), "a whole number >= 1"),
                  "batch": (is_int(p["batch"]), "a whole number >= 0 (0: K/4)"),
                  "window": (is_int(p["window"], 1), "a whole number >= 1"),
                  "start": (p["start"] in STARTS, f"one of {', '.join(STARTS)}"),
                  "criterion": (p["criterion"] in CRITERIA, f"one of {', '.join(CRITERIA)}")}
        for k, (ok, what) in checks.items():
            if not ok:
                raise _bad(name, f"$.params.{k}", f"expected {what}")

    def rounds(o: dict) -> None:
        r = o["rounds"]
        if not isinstance(r, dict) or not set(r) <= set(o["topics"]) \
                or not all(isinstance(x, list) and all(isinstance(y, list) for y in x) for x in r.values()):
            raise _bad(name, "$.rounds", "expected an object of the topics' rounds (lists of [docA, docB])")

    def rng(o: dict) -> None:
        from .rng_state import rng_problem

        if "rng" not in o:
            return
        r = o["rng"]
        want = {t for t, pool in o["topics"].items() if len(pool) >= 2}
        if not isinstance(r, dict) or set(r) != want:
            raise _bad(name, "$.rng", "expected an object with one random stream per topic of two or more documents")
        for t, x in r.items():
            problem = rng_problem(x)
            if problem:
                raise _bad(name, f"$.rng.{t}", problem)

    def extra(o: dict) -> None:
        rounds(o)
        rng(o)

    return check_common(obj, name, STRATEGY, version=VERSION,
                        extra_keys={1: frozenset({"rounds"}), 2: frozenset({"rounds", "rng"})}, params=params,
                        extra=extra)


def _check_group(group: Any, path: str, name: str) -> list[tuple]:
    return check_group(group, path, name, STRATEGY)
