"""Clarke et al.'s pruning tournament ("prefBest") as a resumable process.

Clarke, Vtyurina & Smucker, "Assessing top-k preferences", TOIS 2021;
parameters as in claclark/preferences ``prefj.py`` (k = 5, p = 7, f = 9).
Per topic:

1. Candidates: documents with grade > 0, by grade descending; the first k,
   extended by every document tied with the k-th grade. One candidate is the
   answer; none leaves nothing to judge.
2. Pruning, while the pool has more than f documents: choose pairs so every
   document is in at least n = min(p, |pool| - 1) pairs (repeat: shuffle the
   pool, stable-sort it by pairs held so far, pair the first document with
   the first later one it has not met). When **all** of the stage's pairs are
   judged, keep the documents with more than floor(p / 2) wins.
3. Final, pool <= f: round robin; when all pairs are judged, the top k by
   wins (extended by ties with the k-th) with wins > 0 are the result,
   score = wins.
4. Optional extra final phase (``final_phase=True``; Yan et al., "Human
   Preferences as Dueling Bandits", SIGIR 2022, Sections 4.4 and 5.3): every
   pair of the final pool is judged a second time, and the result (top k plus
   ties, wins > 0) is computed from the wins of both rounds together (their
   "Combined Set").

Differences from ``prefj.py`` (see docs/differences-zelo.md): wins are
accumulated across ``add`` calls, so a stage's judgments may arrive in any
number of batches; duplicate or unrequested judgments are counted and
ignored, never silently mixed in; a pruning stage that would leave nobody,
or prune nobody (possible with ties), keeps the documents with the most wins, and when those are the
whole pool (the judgments cannot separate them) the topic ends with the whole pool as its top set,
where a pruning stage that keeps everybody would repeat for ever; randomness is seeded
(``numpy.random.default_rng(stream_seed(seed, step))``, the list ``[seed, step]``: step >= 1, so
unambiguous for every seed, see :func:`pref_eval.seeds.stream_seed`). The whole state is one JSON
document (:meth:`Tournament.to_json`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, option_value
from ..seeds import stream_seed
from .state_schema import VERSION
from ..output.json_text import json_dumps


def _key(a: str, b: str) -> str:
    return f"{a}\t{b}" if a < b else f"{b}\t{a}"


class Tournament:
    """State of the tournament for many topics (see module docstring)."""

    strategy = "tournament"

    def __init__(self, k: int = 5, p: int | None = None, f: int | None = None, seed: int = 0,
                 final_phase: bool = False, stream: tuple[int, ...] | None = None):
        # stream: when given, stage s's pairings come from stream_seed(*stream, s, fixed=True) instead of
        # stream_seed(seed, s) (zelo_simulate's repetitions past the old derived seed; never in a state file)
        # p and f not given: 7 and 9, raised to k + 1 and p + 1 when k needs it (prefj.py's defaults and
        # floors). Given below their floors they are refused (prefj.py raises them with a warning).
        if k < 1:
            raise UsageError(f"{option_value('k', '--k', k)}: expected at least 1")
        if p is None:
            p = max(7, k + 1)
        elif p <= k:
            raise UsageError(f"{option_value('p', '--p', p)} must exceed {option_value('k', '--k', k)} (a pruning "
                             "stage keeps the documents with more than p/2 wins; prefj.py raises p to k + 1 = "
                             f"{k + 1})")
        if f is None:
            f = max(9, p + 1)
        elif f <= p:
            raise UsageError(f"{option_value('f', '--f', f)} must exceed {option_value('p', '--p', p)} (the pool "
                             f"size at which pruning stops; prefj.py raises f to p + 1 = {p + 1})")
        self.k, self.p, self.f, self.seed, self.final_phase = k, p, f, seed, final_phase
        self.stream = stream
        self.step = 0
        self.topics: dict[str, dict] = {}
        self.comparisons = 0
        self.ignored = 0
        self.batches: list[str] = []  # digests of the judgment batches added (see has_batch)
        self.issued: list[int] | None = None  # [step before the last next's draw, comparisons then]
        self.last_ignored = ""  # one ignored judgment of the last add, for messages

    # ------------------------------------------------------------------ setup
    def _rng(self):
        self.step += 1
        if self.stream is None:
            return np.random.default_rng(stream_seed(self.seed, self.step))
        return np.random.default_rng(stream_seed(*self.stream, self.step, fixed=True))

    def add_topic(self, topic: str, grades: dict[str, float]) -> None:
        """Start a topic from its graded documents (candidates = top k + ties)."""
        pos = sorted(((g, d) for d, g in grades.items() if g > 0), key=lambda x: -x[0])
        cands = [d for _, d in pos[: self.k]]
        if len(pos) > self.k:
            kth = pos[self.k - 1][0]
            cands += [d for g, d in pos[self.k:] if g == kth]
        t: dict[str, Any] = {"pool": cands, "phase": "prune", "pairs": [], "wins": {}, "judged": {}, "result": None}
        self.topics[topic] = t
        self._start_stage(topic)

    def _start_stage(self, topic: str) -> None:
        t = self.topics[topic]
        pool = t["pool"]
        t["wins"] = {d: 0.0 for d in pool}
        t["judged"] = {}
        if t["phase"] in ("prune", "final") and len(pool) <= 1:
            t["phase"] = "done"
            t["result"] = {d: 1.0 for d in pool}
            t["pairs"] = []
            return
        if t["phase"] == "prune" and len(pool) <= self.f:
            t["phase"] = "final"
        if t["phase"] in ("final", "extra"):
            t["pairs"] = [_key(pool[i], pool[j]) for i in range(len(pool)) for j in range(i + 1, len(pool))]
        else:
            t["pairs"] = self._prune_pairs(pool)

    def _prune_pairs(self, pool: list[str]) -> list[str]:
        """Pairs of one pruning stage: until every document has ``n`` = min(p, |pool| − 1) pairs, a random
        permutation of the pool stably sorted by pairs so far; its first document meets the first of the
        others it has not met yet."""
        rng = self._rng()
        n = min(self.p, len(pool) - 1)
        docs = list(pool)
        count = np.zeros(len(docs), dtype=np.int64)
        met = np.zeros((len(docs), len(docs)), dtype=bool)
        used: list[str] = []
        while count.min() < n:
            perm = rng.permutation(len(docs))
            order = perm[np.argsort(count[perm], kind="stable")].tolist()
            first = order[0]
            row = met[first]
            for other in order[1:]:
                if not row[other]:
                    met[first, other] = met[other, first] = True
                    used.append(_key(docs[first], docs[other]))
                    count[first] += 1
                    count[other] += 1
                    break
            else:  # first has met everyone; cannot happen while n <= |pool| - 1
                break
        return sorted(used)

    # ------------------------------------------------------------- requests
    def outstanding(self) -> list[tuple[str, str, str]]:
        """Pairs still to judge, ``(topic, left, right)`` in random left/right order."""
        rng = self._rng()
        out = []
        for topic, t in self.topics.items():
            for kk in t["pairs"]:
                if kk not in t["judged"]:
                    a, b = kk.split("\t")
                    out.append((topic, a, b))
        flips = rng.random(len(out)) < 0.5
        return [(tp, b, a) if fl else (tp, a, b) for (tp, a, b), fl in zip(out, flips, strict=True)]

    def done(self) -> bool:
        return all(t["phase"] == "done" for t in self.topics.values())

    def progress(self) -> dict:
        """Changes whenever a batch moved the tournament (a stage pruning nobody leaves it equal)."""
        return {tp: (t["phase"], len(t["pool"]), len(t["judged"])) for tp, t in self.topics.items()}

    def reissue(self) -> None:
        """Before ``next`` draws: if the last ``next`` was followed by no judgment, go back to the stream's
        place before its draw, so that asking again gives the same lines and leaves the later stages'
        draws (and so the result) as one ``next`` would have left them."""
        if self.issued is not None and self.issued[1] == self.comparisons:
            self.step = self.issued[0]

    def issue(self) -> None:
        """``next`` handed out the outstanding pairs (:func:`outstanding` advanced the draw by one)."""
        self.issued = [self.step - 1, self.comparisons]

    def judged_before(self, topic: str, a: str, b: str) -> int:  # noqa: ARG002 - the protocol's signature
        """Judgments of the pair the tournament already holds: 1 in the extra final phase (every pair of
        the final pool is judged a second time), else 0. A pair drawn again in a later pruning stage
        counts 0: the state keeps no earlier stage, and its earlier answer serves (as before)."""
        t = self.topics.get(topic)
        return 1 if t is not None and t["phase"] == "extra" else 0

    # ------------------------------------------------------------ judgments
    def add(self, judgments: Iterable[tuple[str, str, str, float]]) -> dict:
        """Record judgments ``(topic, doc_a, doc_b, score)`` (score 1 = b better, 1/2 = tie).

        Only outstanding pairs count (the first judgment of each); the rest is
        counted in the returned summary. Stages complete as soon as all of
        their pairs are judged, which may start the next stage.
        """
        used = dup = unrequested = 0
        example = ""
        touched = set()
        pairsets: dict[str, set] = {}
        for topic, a, b, s in judgments:
            t = self.topics.get(topic)
            kk = _key(a, b)
            if t is not None and topic not in pairsets:
                pairsets[topic] = set(t["pairs"]) if t["phase"] != "done" else set()
            if t is None or kk not in pairsets[topic]:
                unrequested += 1
                example = example or f"topic {topic} {a} {b}: not requested"
                continue
            if kk in t["judged"]:
                dup += 1
                example = example or f"topic {topic} {a} {b}: already judged"
                continue
            t["judged"][kk] = 1
            t["wins"][b] = t["wins"].get(b, 0.0) + s
            t["wins"][a] = t["wins"].get(a, 0.0) + (1.0 - s)
            used += 1
            touched.add(topic)
        self.comparisons += used
        self.ignored += dup + unrequested
        for topic in self.topics:  # in the state's topic order: each stage drawn here takes the next step
            if topic in touched:
                self._advance(topic)
        self.last_ignored = example  # one ignored judgment, for messages (not saved)
        return {"used": used, "duplicate": dup, "unrequested": unrequested}

    # batches already added (content digests): ``zelo_pairs add`` is idempotent. Keyed by the ``next`` that
    # asked for them (the step before its draw), as the adaptive session's are: the extra final phase asks
    # every final pair again, and the same answers to that new request (the same bytes when the left/right
    # draw repeats, certain for a final pool of two) are new judgments, not the batch added again.
    def _batch_key(self, digest: str) -> str:
        return digest if self.issued is None else f"{self.issued[0]}:{digest}"

    def has_batch(self, digest: str) -> bool:
        return self._batch_key(digest) in self.batches

    def record_batch(self, digest: str) -> None:
        key = self._batch_key(digest)
        if key not in self.batches:
            self.batches.append(key)

    def _advance(self, topic: str) -> None:
        t = self.topics[topic]
        while t["phase"] != "done" and len(t["judged"]) == len(t["pairs"]):
            wins = t["wins"]
            if t["phase"] == "prune":
                keep = [d for d in t["pool"] if wins[d] > self.p // 2]
                if not keep or len(keep) == len(t["pool"]):  # nobody left, or nobody pruned (ties): the most wins
                    best = max(wins.values())
                    keep = [d for d in t["pool"] if wins[d] == best]
                if len(keep) == len(t["pool"]) > 1:  # all equal: the judgments cannot separate them
                    t["result"] = {d: wins[d] for d in keep if wins[d] > 0}
                    t["phase"] = "done"
                    break
                t["pool"] = keep
                self._start_stage(topic)
            elif t["phase"] == "final" and self.final_phase:
                # Yan et al.'s extra final phase: the same round robin once more
                t["first_round_wins"] = dict(wins)
                t["phase"] = "extra"
                self._start_stage(topic)
            elif t["phase"] in ("final", "extra"):
                if t["phase"] == "extra":  # combined wins of both round robins
                    first = t.pop("first_round_wins")
                    wins = {d: wins[d] + first[d] for d in t["pool"]}
                ranked = sorted(t["pool"], key=lambda d: -wins[d])
                top = ranked[: self.k]
                if len(ranked) > self.k:
                    kth = wins[ranked[self.k - 1]]
                    top += [d for d in ranked[self.k:] if wins[d] == kth]
                t["result"] = {d: wins[d] for d in top if wins[d] > 0}
                t["phase"] = "done"

    # ---------------------------------------------------------------- output
    def status(self) -> list[tuple[str, str, int, int, int, int, int]]:
        """Per topic ``(topic, stage, pool size, judged, pairs of the stage, outstanding, stages left)``.

        Stages left counts the stages after the current one that will certainly come: a pruning
        stage is followed by at least the final round robin (and the extra one with
        ``final_phase``); how many pruning stages remain depends on the judgments.
        """
        out = []
        for topic, t in self.topics.items():
            phase = t["phase"]
            judged, pairs = len(t["judged"]), len(t["pairs"])
            later = {"prune": 1 + int(self.final_phase), "final": int(self.final_phase)}.get(phase, 0)
            out.append((topic, phase, len(t["pool"]), judged, pairs, pairs - judged, later))
        return out

    def best(self, topic: str) -> list[str]:
        """Documents with the top result score (several when tied)."""
        r = self.topics[topic]["result"] or {}
        if not r:
            return []
        m = max(r.values())
        return [d for d, v in r.items() if v == m]

    def prefs_qrels(self, grades: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
        """prefj ``prefs``: result docs get wins + max grade + 100, others keep their grade."""
        return prefs_qrels(self.topics, grades)

    def to_json(self) -> str:
        return json_dumps({"version": VERSION, "k": self.k, "p": self.p, "f": self.f, "seed": self.seed,
                           "final_phase": self.final_phase, "step": self.step, "comparisons": self.comparisons,
                           "ignored": self.ignored, "topics": self.topics, "batches": self.batches,
                           **({"issued": self.issued} if self.issued is not None else {})},
                          indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, name: str = "<state>") -> Tournament:
        from .state_schema import validate_state

        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise InputError(name, 0, f"not a zelo_pairs tournament state file ({err})") from None
        validate_state(obj, name)  # a refused state is never rewritten: nothing is saved before this
        try:
            t = cls(obj["k"], obj["p"], obj["f"], obj["seed"], obj["final_phase"])
            t.step, t.comparisons, t.ignored, t.topics = obj["step"], obj["comparisons"], obj["ignored"], obj["topics"]
            t.batches = list(obj.get("batches", []))  # optional: states written before batches were recorded
            t.issued = obj.get("issued")  # optional: states written before a repeated next was recognised
        except (ValueError, KeyError, TypeError) as err:
            raise InputError(name, 0, f"not a zelo_pairs tournament state file ({err})") from None
        return t


def prefs_qrels(topics: dict, grades: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
    """prefj ``prefs`` for the finished topics of a pair strategy's state (``{topic: {"phase",
    "result"}}``): a result document gets its result score + the topic's max grade + 100, every
    other judged document keeps its grade."""
    out: list[tuple[str, str, float]] = []
    for topic, t in topics.items():
        if t["phase"] != "done":
            continue
        g = grades.get(topic, {})
        mx = max(g.values()) if g else 0.0
        res = t["result"] or {}
        out.extend((topic, d, res[d] + mx + 100.0 if d in res else v) for d, v in g.items())
    return out
