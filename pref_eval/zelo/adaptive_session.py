"""``zelo_pairs init --strategy adaptive``: the adaptive best-item strategy as a resumable process.

The same batch protocol as Clarke's tournament (:mod:`pref_eval.zelo.tournament`):
``next`` lists the pairs to judge now, ``add`` takes judgments in any number of
batches, ``status`` and ``result`` report. Per topic the pool is the documents
with grade > 0 and :class:`pref_eval.zelo.adaptive.AdaptiveBest` chooses the pairs.

The state file (format 2) records the parameters, the seed, each topic's pool, the judgments
accepted by every ``add`` in order, and per topic what the strategy's next choices read besides
them (:meth:`pref_eval.zelo.adaptive.AdaptiveBest.snapshot`: lives lost, pairs met, the final's
pool and wins, the open matches, the random stream). A call resumes from it without refitting
earlier rounds (one fit when a round ends, as in a running process), so a ``next``/``add`` costs
about one round however long the session. Loading checks the types, ranges and consistency (every
judgment of two documents of the topic's pool, no pair over ``max_per_pair``, a match with no more
judgments than its pair); :meth:`AdaptiveSession.replay` is the reference definition -- the
judgments given to the strategy again in order -- and ``verify`` (``zelo_pairs status --verify``)
refuses a state unless the replay writes the same bytes. A format-1 state (the judgments only, before
the snapshots) is migrated by one replay, refusing a judgment the strategy did not ask for at that
point; a state of a newer format is refused. A refused file is left untouched::

    {"strategy": "adaptive", "version": 2, "seed": int >= 0,
     "params": {"lead": number > 0, "batch": int >= 1, "max_per_pair": int >= 1, "lives": int >= 1,
                "max_per_match": int >= 1, "final": int >= 1, "final_lead": number > 0},
     "topics": {TOPIC: [distinct docnos of the pool]},
     "games": {TOPIC: null (an empty pool) |
               {"losses": [int per pool document], "met": [[i, j], ...], "final": null | [i, ...],
                "final_wins": [[winner, loser, int], ...], "matches": [[a, b, wins a, wins b, judgments], ...],
                "rng": {"state": hex, "inc": hex, "has_uint32": 0 | 1, "uinteger": int}}}  (pool indices),
     "adds": [[[TOPIC, docA, docB, s in [0, 1]], ...], ...],
     "batches": ["BATCH:hex digest" of the judgment files added], "ignored": int >= 0,
     "issued": int >= 0 (the number of ``next`` calls: the batch number)}
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import InputError, shown
from ..seeds import PRODUCT, product_seed, stream_seed
from .session_schema import TopicSessions, bad, check_common, check_group, state_json, is_int, is_number
from .adaptive import AdaptiveBest
from .tournament import prefs_qrels
from ..output.json_text import json_dumps

VERSION = 2
SNAP_KEYS = frozenset({"losses", "met", "final", "final_wins", "matches", "rng"})
PARAMS = {"lead": (float, 2.0), "batch": (int, 1), "max_per_pair": (int, 6), "max_per_match": (int, 5),
          "lives": (int, 2), "final": (int, 6), "final_lead": (float, 3.0)}


class AdaptiveSession(TopicSessions):
    """Several topics, each an :class:`AdaptiveBest` over its pool of docnos."""

    strategy = "adaptive"

    def __init__(self, seed: int = 0, params: dict[str, Any] | None = None) -> None:
        self.seed = int(seed)
        self.params = {k: t(v) for k, (t, v) in PARAMS.items()}
        for k, v in (params or {}).items():
            if k not in PARAMS:
                raise ValueError(f"unknown parameter {shown(k)}")
            self.params[k] = PARAMS[k][0](v)
        self._empty()
        self.games: dict[str, AdaptiveBest | None] = {}

    # -- topics ---------------------------------------------------------------------
    def add_topic(self, topic: str, grades: dict[str, float]) -> None:
        """The pool: documents with grade > 0, by grade descending, then docno."""
        pool = sorted((d for d, g in grades.items() if g > 0), key=lambda d: (-grades[d], d))
        self._set_pool(topic, pool)

    def _set_pool(self, topic: str, pool: list[str]) -> None:
        self.pools[topic] = list(pool)
        self.index[topic] = {d: i for i, d in enumerate(pool)}
        n = len(self.pools)
        c = product_seed(self.seed, n)  # the old derived seed while it is one-to-one (pref_eval.seeds)
        seed = stream_seed(self.seed, n, PRODUCT, fixed=True) if c is None else c
        self.games[topic] = AdaptiveBest(len(pool), seed=seed, **self.params) if pool else None

    # -- protocol -------------------------------------------------------------------
    def add(self, judgments: Iterable[tuple[str, str, str, float]]) -> dict:
        """Judgments ``(topic, docA, docB, s)`` (s = 1: docB preferred), in either order of the pair.

        Only what ``outstanding()`` asks for counts; more judgments of a requested
        pair than requested are duplicates, other pairs unrequested (both ignored).
        """
        per_topic: dict[str, list[tuple[int, int, float]]] = {}
        accepted: list[list[Any]] = []
        room: dict[str, Counter] = {}
        asked: dict[str, dict[tuple[int, int], tuple[int, int]]] = {}
        duplicate = unrequested = 0
        self.last_ignored = ""
        for topic, a, b, s in judgments:
            g = self.games.get(topic)
            idx = self.index.get(topic, {})
            if g is None or g.done() or a not in idx or b not in idx:
                unrequested += 1
                self.last_ignored = self.last_ignored or f"{topic} {a} {b}"
                continue
            if topic not in room:
                req = g.outstanding()
                room[topic] = Counter((min(x, y), max(x, y)) for x, y in req)
                asked[topic] = {(min(x, y), max(x, y)): (x, y) for x, y in req}
            i, j = idx[a], idx[b]
            key = (min(i, j), max(i, j))
            if room[topic][key] <= 0:
                if key in asked[topic]:
                    duplicate += 1
                else:
                    unrequested += 1
                self.last_ignored = self.last_ignored or f"{topic} {a} {b}"
                continue
            room[topic][key] -= 1
            s = float(s)
            if asked[topic][key] != (i, j):
                i, j, s = j, i, 1.0 - s  # judged in the other order
            self.accept(topic, i, j, s, per_topic, accepted)
        self.feed_games(per_topic)
        return self.close_batch(accepted, duplicate, unrequested)

    def judged_before(self, topic: str, a: str, b: str) -> int:
        """Judgments of the pair (either order) accepted so far."""
        g, idx = self.games.get(topic), self.index.get(topic, {})
        if g is None or a not in idx or b not in idx:
            return 0
        return int(g.pair_n[idx[a], idx[b]])

    # -- reports --------------------------------------------------------------------
    def best(self, topic: str) -> list[str]:
        g = self.games.get(topic)
        if g is None or not g.done():
            return []
        return [self.pools[topic][i] for i in g.best()]

    def _phase(self, topic: str) -> str:
        g = self.games[topic]
        if g is None or g.done():
            return "done"
        return "final" if g.final_pool is not None else "elimination"

    @property
    def topics(self) -> dict[str, dict[str, Any]]:
        """``{topic: {"phase", "result"}}`` as the tournament's state has them (result: doc -> matches won)."""
        out = {}
        for topic, g in self.games.items():
            phase = self._phase(topic)
            result = None
            if phase == "done" and g is not None:
                won = g.final_wins.sum(axis=1) + (g.lives - g.losses).clip(min=0)
                result = {self.pools[topic][i]: float(max(won[i], 1)) for i in g.best()}
            out[topic] = {"phase": phase, "result": result}
        return out

    def status(self) -> list[tuple[str, str, int, int, int, int, int]]:
        """Per topic ``(topic, stage, pool, judged, pairs in play, outstanding, stages left)``."""
        out = []
        for topic, g in self.games.items():
            phase = self._phase(topic)
            if g is None:
                out.append((topic, phase, 0, 0, 0, 0, 0))
                continue
            left = 0 if phase == "done" else int(g.final_pool is None)
            out.append((topic, phase, len(self.pools[topic]), g.comparisons, len(g.matches), len(g.outstanding()),
                        left))
        return out

    def prefs_qrels(self, grades: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
        """As the tournament's: result docs get their score + max grade + 100, others keep their grade."""
        return prefs_qrels(self.topics, grades)

    # -- state ----------------------------------------------------------------------
    def to_json(self) -> str:
        games = {t: None if g is None else g.snapshot() for t, g in self.games.items()}
        return json_dumps({"strategy": "adaptive", "version": VERSION, "seed": self.seed, "params": self.params,
                           "topics": self.pools, "games": games, "adds": self.adds, "batches": self.batches,
                           "ignored": self.ignored, "issued": self.issued}, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | dict, name: str = "<state>", verify: bool = False) -> AdaptiveSession:
        """Validate and resume a state (see the module docstring); InputError names the JSON path. A format-1
        state is replayed (:meth:`replay`); ``verify``: a format-2 state too, and it is refused unless the
        replay gives the same state."""
        obj = state_json(text, name)
        if _check_header(obj, name) == 1:
            return cls.replay(obj, name)
        s = cls(obj["seed"], obj["params"])
        for tp, pool in obj["topics"].items():
            s._set_pool(tp, pool)
        judged = _judgments(s, obj, name)
        for tp, g in s.games.items():
            snap = obj["games"].get(tp)
            if g is None:
                if snap is not None:
                    raise _bad(name, f"$.games.{tp}", "expected null (an empty pool)")
                continue
            _check_snapshot(snap, g, judged[tp], name, f"$.games.{tp}")
            g.resume(snap, *judged[tp])
        s.adds = obj["adds"]
        s.restore_counts(obj)
        if verify:
            _verify(s, cls.replay(obj, name), name)
        return s

    @classmethod
    def replay(cls, obj: dict, name: str = "<state>") -> AdaptiveSession:
        """The reference definition of a state: its parameters and pools, then every ``add``'s judgments given
        to the strategy again in order (a fit per round; format 1 kept only this). A judgment the strategy did
        not ask for at that point is refused (a forged state). ``obj`` has passed :func:`_check_header`."""
        params = dict(obj["params"])
        params.setdefault("max_per_match", params["max_per_pair"])  # states before the per-match cap: no cap
        s = cls(obj["seed"], params)
        for tp, pool in obj["topics"].items():
            s._set_pool(tp, pool)
        for n, group in enumerate(obj["adds"]):
            rows = _check_group(group, f"$.adds[{n}]", name)
            if s.add(rows)["used"] != len(rows):
                raise _bad(name, f"$.adds[{n}]", "judgments the strategy did not ask for at that point "
                           "(a forged state?)")
        s.restore_counts(obj)
        return s


def _judgments(s: AdaptiveSession, obj: dict, name: str) -> dict[str, tuple[list[int], list[int], list[float]]]:
    """Per topic with a game, its judgments ``(a, b, s)`` as pool indices in the order added, checked: of
    documents of the topic's pool, no pair more than ``max_per_pair`` times."""
    out: dict[str, tuple[list[int], list[int], list[float]]] = {t: ([], [], []) for t, g in s.games.items() if g}
    for n, group in enumerate(obj["adds"]):
        for m, (tp, a, b, sc) in enumerate(_check_group(group, f"$.adds[{n}]", name)):
            idx = s.index.get(tp, {})
            if tp not in out or a not in idx or b not in idx or a == b:
                raise _bad(name, f"$.adds[{n}][{m}]", "expected a judgment of two documents of a topic's pool")
            ja, jb, js = out[tp]
            ja.append(idx[a])
            jb.append(idx[b])
            js.append(float(sc))
    cap = s.params["max_per_pair"]
    for tp, (ja, jb, _) in out.items():
        if ja:
            key = np.minimum(ja, jb) * len(s.pools[tp]) + np.maximum(ja, jb)
            if np.bincount(key).max() > cap:
                raise _bad(name, "$.adds", f"topic {tp}: a pair judged more than max_per_pair ({cap}) times "
                           "(judgments the strategy did not ask for: a forged state?)")
    return out


def _check_snapshot(snap: Any, g: AdaptiveBest, judged: tuple[list[int], list[int], list[float]], name: str,
                    where: str) -> None:
    """A topic's stored game (:meth:`AdaptiveBest.snapshot`): the types and ranges, and consistency with the
    judgments (a match has no more judgments than its pair)."""
    from .rng_state import rng_problem

    K = g.K

    def pair(x: Any, n: int = 2) -> bool:
        return (isinstance(x, list) and len(x) >= n and all(is_int(v) and v < K for v in x[:2]) and x[0] != x[1])

    if not isinstance(snap, dict) or set(snap) != SNAP_KEYS:
        raise _bad(name, where, f"expected an object with the keys {sorted(SNAP_KEYS)}")
    losses = snap["losses"]
    if not isinstance(losses, list) or len(losses) != K or not all(is_int(v) and v <= g.lives for v in losses):
        raise _bad(name, f"{where}.losses", f"expected {K} integers from 0 to {g.lives} (lives)")
    if not isinstance(snap["met"], list) or not all(pair(x) and len(x) == 2 and x[0] < x[1] for x in snap["met"]):
        raise _bad(name, f"{where}.met", "expected a list of [i, j], 0 <= i < j < pool size")
    final = snap["final"]
    if final is not None and (not isinstance(final, list) or not all(is_int(v) and v < K for v in final)
                              or final != sorted(set(final))):
        raise _bad(name, f"{where}.final", "expected null or increasing pool indices")
    fw = snap["final_wins"]
    if not isinstance(fw, list) or not all(pair(x, 3) and len(x) == 3 and is_int(x[2], 1) for x in fw) \
            or (fw and final is None):
        raise _bad(name, f"{where}.final_wins", "expected a list of [winner, loser, matches >= 1] (only in the final)")
    pair_n = Counter((min(a, b), max(a, b)) for a, b in zip(judged[0], judged[1], strict=True))
    for k, m in enumerate(snap["matches"] if isinstance(snap["matches"], list) else [None]):
        ok = (pair(m, 5) and len(m) == 5 and is_number(m[2]) and is_number(m[3]) and min(m[2], m[3]) >= 0
              and is_int(m[4]) and m[4] <= pair_n[(min(m[0], m[1]), max(m[0], m[1]))]
              and m[2] + m[3] <= m[4] + 1e-9)
        if not ok:
            raise _bad(name, f"{where}.matches[{k}]", "expected [a, b, wins of a, wins of b, judgments] (wins >= 0 "
                       "summing to at most the judgments, which the pair has had)")
    problem = rng_problem(snap["rng"])
    if problem:
        raise _bad(name, f"{where}.rng", problem)


def _verify(s: Any, again: Any, name: str) -> None:
    """Refuse the resumed state ``s`` unless the replay ``again`` writes the same bytes (the first topic whose
    stored game differs is named)."""
    mine, ref = json.loads(s.to_json()), json.loads(again.to_json())
    if mine == ref:
        return
    key = "games" if mine["games"] != ref["games"] else next(k for k in ref if mine.get(k) != ref[k])
    where = f"$.{key}"
    if key == "games":
        where += "." + next(t for t in ref["games"] if mine["games"].get(t) != ref["games"][t])
    raise _bad(name, where, "not what replaying the judgments gives (an edited or forged state?)")


def _bad(name: str, path: str, what: str) -> InputError:
    return bad("adaptive", name, path, what)


def _check_header(obj: Any, name: str) -> int:
    """Everything but the judgments (:func:`~.session_schema.check_common`), with the parameters (format 1:
    ``max_per_match`` may be missing, from before the per-match cap) and the games' keys. Returns the format."""

    def params(p: Any) -> None:
        keys = set(PARAMS) - ({"max_per_match"} if obj.get("version") == 1 else set())
        if not isinstance(p, dict) or not keys <= set(p) <= set(PARAMS):
            raise _bad(name, "$.params", f"expected the keys {sorted(PARAMS)}")
        for k, (t, _) in PARAMS.items():
            ok = k not in p or (is_int(p[k], 1) if t is int else is_number(p[k]) and p[k] > 0)
            if not ok:
                raise _bad(name, f"$.params.{k}", f"expected a {'whole number >= 1' if t is int else 'number > 0'}")
        if obj.get("version") != 1 and set(p) != set(PARAMS):
            raise _bad(name, "$.params", f"expected the keys {sorted(PARAMS)}")

    def games(o: dict) -> None:
        if "games" in o and (not isinstance(o["games"], dict) or set(o["games"]) != set(o["topics"])):
            raise _bad(name, "$.games", "expected an object with one entry per topic")

    return check_common(obj, name, "adaptive", version=VERSION, extra_keys={2: frozenset({"games"})},
                        params=params, extra=games)


def _check_group(group: Any, path: str, name: str) -> list[tuple]:
    return check_group(group, path, name, "adaptive")


def is_adaptive_state(text: str) -> bool:
    """True when a state file's JSON names the adaptive strategy (cheap check before full validation)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("strategy") == "adaptive"
