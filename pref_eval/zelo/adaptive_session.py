"""``zelo_pairs init --strategy adaptive``: the adaptive best-item strategy as a resumable process.

The same batch protocol as Clarke's tournament (:mod:`pref_eval.zelo.tournament`):
``next`` lists the pairs to judge now, ``add`` takes judgments in any number of
batches, ``status`` and ``result`` report. Per topic the pool is the documents
with grade > 0 and :class:`pref_eval.zelo.adaptive.AdaptiveBest` chooses the pairs.

The state file records only what cannot be recomputed -- the parameters, the
seed, each topic's pool, and the judgments accepted by every ``add`` in order --
and is rebuilt on load by replaying those judgments through the strategy
(the strategy is deterministic for a seed). So a state cannot carry a forged
result: a judgment that the strategy did not ask for at that point is refused
on load with the file named, and the file is left untouched::

    {"strategy": "adaptive", "version": 1, "seed": int >= 0,
     "params": {"lead": number > 0, "batch": int >= 1, "max_per_pair": int >= 1, "lives": int >= 1,
                "max_per_match": int >= 1, "final": int >= 1, "final_lead": number > 0},
     "topics": {TOPIC: [distinct docnos of the pool]},
     "adds": [[[TOPIC, docA, docB, s in [0, 1]], ...], ...],
     "batches": ["BATCH:hex digest" of the judgment files added], "ignored": int >= 0,
     "issued": int >= 0 (the number of ``next`` calls: the batch number)}
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..errors import InputError
from .session_schema import TopicSessions, bad, check_common, check_group, is_int, is_number
from .adaptive import AdaptiveBest
from .tournament import prefs_qrels

VERSION = 1
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
                raise ValueError(f"unknown parameter {k!r}")
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
        self.games[topic] = AdaptiveBest(len(pool), seed=self.seed * 1_000_003 + n, **self.params) if pool else None

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
        used = duplicate = unrequested = 0
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
            per_topic.setdefault(topic, []).append((i, j, s))
            accepted.append([topic, self.pools[topic][i], self.pools[topic][j], s])
            used += 1
        for topic, rows in per_topic.items():
            game = self.games[topic]
            if game is not None:
                game.add(rows)
        if accepted:
            self.adds.append(accepted)
        self.ignored += duplicate + unrequested
        return {"used": used, "duplicate": duplicate, "unrequested": unrequested}

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
        return json.dumps({"strategy": "adaptive", "version": VERSION, "seed": self.seed, "params": self.params,
                           "topics": self.pools, "adds": self.adds, "batches": self.batches,
                           "ignored": self.ignored, "issued": self.issued}, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | dict, name: str = "<state>") -> AdaptiveSession:
        """Validate and replay a state (see the module docstring); InputError names the JSON path."""
        try:
            obj = json.loads(text) if isinstance(text, str) else text
        except ValueError as err:
            raise InputError(name, 0, f"not a zelo_pairs state file ({err})") from None
        _check_header(obj, name)
        s = cls(obj["seed"], obj["params"])
        for tp, pool in obj["topics"].items():
            s._set_pool(tp, pool)
        for n, group in enumerate(obj["adds"]):
            rows = _check_group(group, f"$.adds[{n}]", name)
            if s.add(rows)["used"] != len(rows):
                raise _bad(name, f"$.adds[{n}]", "judgments the strategy did not ask for at that point "
                           "(a forged state?)")
        s.restore_counts(obj)
        return s


def _bad(name: str, path: str, what: str) -> InputError:
    return bad("adaptive", name, path, what)


def _check_header(obj: Any, name: str) -> None:
    """Everything but the judgments (:func:`~.session_schema.check_common`), with the parameters."""

    def params(p: Any) -> None:
        if not isinstance(p, dict) or set(p) != set(PARAMS):
            raise _bad(name, "$.params", f"expected the keys {sorted(PARAMS)}")
        for k, (t, _) in PARAMS.items():
            ok = is_int(p[k], 1) if t is int else is_number(p[k]) and p[k] > 0
            if not ok:
                raise _bad(name, f"$.params.{k}", f"expected a {'whole number >= 1' if t is int else 'number > 0'}")

    check_common(obj, name, "adaptive", version=VERSION, params=params)


def _check_group(group: Any, path: str, name: str) -> list[tuple]:
    return check_group(group, path, name, "adaptive")


def is_adaptive_state(text: str) -> bool:
    """True when a state file's JSON names the adaptive strategy (cheap check before full validation)."""
    try:
        obj = json.loads(text)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("strategy") == "adaptive"
