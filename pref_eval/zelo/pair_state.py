"""The state file of ``zelo_pairs`` and its batch protocol, shared by ``zelo_pairs`` and ``zelo_judge --state``.

A state file holds one pair-choosing strategy, declared by its JSON: an
object with ``"strategy": "adaptive"`` is :class:`~.adaptive_session.AdaptiveSession`
(the best item), ``"adaptive-ranking"`` :class:`~.ranking_session.RankingSession`
(the whole ranking), one without the key is Clarke et al.'s :class:`~.tournament.Tournament`
(states written before strategies existed). Every strategy answers the same
protocol, and these functions are the only place that runs it:

1. :func:`next_batch` -- the pairs to judge now (``zelo_pairs next``); it
   advances the state (the tournament's seeded left/right draw, the adaptive
   batch number), so it is called once per batch; a finished state is left
   unchanged.
2. :func:`repetitions` -- for each requested pair, how many judgments of it
   the strategy already holds: 0 for a first judgment, k for the (k+1)-th
   (the adaptive strategy asks a pair again, up to ``max_per_pair`` times; the
   tournament's extra final phase asks every final pair a second time).
3. :func:`add_batch` -- a batch of judgments, as the bytes of a judgment file
   in any ``zelo_fit`` format (``zelo_pairs add -J``); a batch whose bytes were
   already added for the same request is skipped (``add`` is idempotent).

``zelo_judge --state`` runs 1-3 in memory and writes the state once per batch,
after the add, with the batch's judgments as the bytes of
:func:`judgment_batch`. So the state it leaves is byte for byte the state of
``zelo_pairs next`` then ``zelo_pairs add -J FILE`` with FILE holding those bytes,
and a run killed at any point restarts from the last whole batch: the next
run draws the same batch again (the state it starts from is the same) and the
answers already stored serve it.
"""
from __future__ import annotations

import hashlib
from typing import Any

from ..errors import InputError, shown
from ..output.json_text import json_dumps

STRATEGIES = ("tournament", "adaptive", "adaptive-ranking")


def parse_state(text: str, name: str = "<state>", verify: bool = False) -> Any:
    """The strategy object of a state file's text (dispatch on its declared ``strategy``). An adaptive state
    resumes from what it stores, without replaying its rounds; ``verify``: it is also replayed from its
    judgments (the reference definition) and refused unless the replay gives the same state
    (:meth:`.adaptive_session.AdaptiveSession.from_json`, :meth:`.ranking_session.RankingSession.from_json`).
    A tournament state is a plain snapshot (checked by :mod:`.state_schema`; nothing to replay)."""
    from .adaptive_session import AdaptiveSession
    from .tournament import Tournament

    from .session_schema import state_json

    obj = state_json(text, name)
    strategy = obj.get("strategy", "tournament") if isinstance(obj, dict) else "tournament"
    if strategy == "adaptive":
        return AdaptiveSession.from_json(obj, name, verify=verify)
    if strategy == "adaptive-ranking":
        from .ranking_session import RankingSession

        return RankingSession.from_json(obj, name, verify=verify)
    if strategy != "tournament" or (isinstance(obj, dict) and "strategy" in obj):
        raise InputError(name, 0, f"zelo_pairs state: $.strategy: expected one of {', '.join(STRATEGIES)} "
                         f"(a tournament state has no strategy key), got {shown(strategy)}")
    return Tournament.from_json(text, name)


def load_state(path: str, verify: bool = False) -> Any:
    """Read and validate a state file (InputError names the file and the JSON path); ``verify``: as
    :func:`parse_state`."""
    from ..io.pair_state import read_state_text

    return parse_state(*read_state_text(path), verify=verify)


def next_batch(state: Any) -> list[tuple[str, str, str]]:
    """``(topic, docA, docB)`` to judge now; advances the state (call it once per batch).

    A finished state is left as it is (nothing outstanding, nothing drawn)."""
    if state.done():
        return []
    reissue = getattr(state, "reissue", None)  # the tournament: a repeated next asks the same pairs
    if reissue is not None:
        reissue()
    req = state.outstanding()
    state.issue()
    return req


def repetitions(state: Any, requests: list[tuple[str, str, str]]) -> list[int]:
    """Per request: the judgments of its (unordered) pair held before it -- the strategy's and earlier
    requests of the same pair in this batch. 0 = a first judgment; k = the pair's (k+1)-th."""
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for topic, a, b in requests:
        key = (topic, a, b) if a < b else (topic, b, a)
        if key not in seen:
            seen[key] = state.judged_before(topic, a, b)
        out.append(seen[key])
        seen[key] += 1
    return out


def history(state: Any) -> list[tuple[str, str, str]] | None:
    """``(topic, docA, docB)`` of every judgment the state holds, in the order they were added (oriented as
    requested); None for a strategy that keeps only its current stage (the tournament)."""
    adds = getattr(state, "adds", None)
    if adds is None:
        return None
    return [(tp, a, b) for group in adds for tp, a, b, _ in group]


def batch_digest(data: bytes) -> str:
    """SHA-256 of a judgment batch (line endings normalised): replaying the same file changes nothing."""
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


def add_batch(state: Any, data: bytes, name: str, fmt: str | None = None) -> dict | None:
    """Add the judgments of one file's bytes; ``None`` when this batch was already added (nothing changed).

    Returns the strategy's summary ``{"used", "duplicate", "unrequested"}``.
    """
    from ..io.judgments import parse_judgments

    digest = batch_digest(data)
    if state.has_batch(digest):
        return None
    j = parse_judgments(data, name, fmt)
    jq, ja, jb, js, _ = (c.tolist() for c in j.arrays())
    rows = ((j.queries[qi], j.docs[j.queries[qi]][ai], j.docs[j.queries[qi]][bi], si)
            for qi, ai, bi, si in zip(jq, ja, jb, js, strict=False))
    summary = state.add(rows)
    state.record_batch(digest)
    return summary


def judgment_batch(rows: list[tuple[str, str, str, float]]) -> bytes:
    """The judgment file of a batch ``(topic, docA, docB, s)``: canonical JSON lines with ``score``."""
    return "".join(json_dumps({"qid": t, "doc_a": a, "doc_b": b, "score": s}, ensure_ascii=False) + "\n"
                   for t, a, b, s in rows).encode("utf-8")
