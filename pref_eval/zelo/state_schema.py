"""The versioned schema of a ``zelo_pairs`` tournament state file, checked on load.

A state (written by :meth:`pref_eval.zelo.tournament.Tournament.to_json`) is
one JSON object::

    {"version": 2, "k": int>=1, "p": int>k, "f": int>p, "seed": int>=0,
     "final_phase": bool, "step": int>=0, "comparisons": int>=0, "ignored": int>=0,
     "batches": [distinct hex digests of the judgment batches added, each after "STEP:" (the step
                 before the draw of the next that asked for it) once a next recorded "issued"]
                (optional: older states),
     "issued": [step before the last next's draw, comparisons then]  (optional: older states),
     "topics": {TOPIC: {"phase": "prune"|"final"|"extra"|"done",
                        "pool": [distinct docnos],
                        "pairs": [distinct "a<TAB>b", a < b, both in the pool],
                        "judged": {pair: 1, ...}  (a subset of pairs),
                        "wins": {docno of the pool: number >= 0},
                        "result": null | {docno of the pool: number > 0}  (only when done),
                        "first_round_wins": {...}  (only in the extra phase)}}}

Format 2 has the keys of format 1 (read as well); it marks a state that may hold ``issued``, which an
older pref_eval would misread. A state of a later format is refused as written by a newer pref_eval.

Consistency checked beyond the types: every judged pair adds exactly one win
(``sum(wins) == len(judged)``, a judgment of score s gives s to one document
and 1 - s to the other), a result only in the ``done`` phase, the ``extra``
phase only with ``final_phase``. Anything else -- another version, an unknown
key, a list where an object belongs, a forged result -- is refused with
:class:`~pref_eval.errors.InputError` naming the file and the JSON path, and
the file is left untouched (it is never rewritten).
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import InputError, shown
from ..seeds import SEED_MAX

VERSION = 2
TOP_KEYS = {"version", "k", "p", "f", "seed", "final_phase", "step", "comparisons", "ignored", "topics"}
TOPIC_KEYS = {"pool", "phase", "pairs", "wins", "judged", "result"}
PHASES = ("prune", "final", "extra", "done")


class _Bad(Exception):
    pass


def _int(v: Any, where: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        raise _Bad(f"{where}: expected an integer >= {lo}{'' if hi is None else f' and <= {hi}'}, got {shown(v)}")
    return v


def _num(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise _Bad(f"{where}: expected a finite number >= 0, got {shown(v)}")
    return float(v)


def _obj(v: Any, where: str) -> dict:
    if not isinstance(v, dict):
        raise _Bad(f"{where}: expected a JSON object, got {type(v).__name__}")
    return v


def _keys(obj: dict, need: set[str], where: str, optional: frozenset = frozenset()) -> None:
    missing = sorted(need - set(obj))
    if missing:
        raise _Bad(f"{where}: missing key {shown(missing[0])}")
    extra = sorted(set(obj) - need - optional)
    if extra:
        raise _Bad(f"{where}: unknown key {shown(extra[0])}")


def _topic(name: str, t: Any, final_phase: bool) -> None:
    w = f"topics[{shown(name)}]"
    t = _obj(t, w)
    phase = t.get("phase")
    if phase not in PHASES:
        raise _Bad(f"{w}.phase: expected one of {', '.join(PHASES)}, got {shown(phase)}")
    _keys(t, TOPIC_KEYS, w, frozenset({"first_round_wins"}) if phase == "extra" else frozenset())
    if phase == "extra" and not final_phase:
        raise _Bad(f"{w}.phase: 'extra' without final_phase")
    members, pairs = _pool_and_pairs(t, w)
    _wins_and_result(t, w, phase, members, pairs, final_phase)


def _pool_and_pairs(t: dict, w: str) -> tuple[set, list]:
    pool = t["pool"]
    if not isinstance(pool, list) or not all(isinstance(d, str) and d and "\t" not in d for d in pool):
        raise _Bad(f"{w}.pool: expected a list of docnos")
    members = set(pool)
    if len(members) != len(pool):
        raise _Bad(f"{w}.pool: a docno is listed twice")
    pairs = t["pairs"]
    if not isinstance(pairs, list):
        raise _Bad(f"{w}.pairs: expected a list")
    for kk in pairs:
        parts = kk.split("\t") if isinstance(kk, str) else []
        if len(parts) != 2 or not parts[0] < parts[1] or not set(parts) <= members:
            raise _Bad(f"{w}.pairs: expected 'docA<TAB>docB' (docA < docB, both in the pool), got {shown(kk)}")
    if len(set(pairs)) != len(pairs):
        raise _Bad(f"{w}.pairs: a pair is listed twice")
    return members, pairs


def _wins_and_result(t: dict, w: str, phase: str, members: set, pairs: list, final_phase: bool) -> None:
    judged = _obj(t["judged"], f"{w}.judged")
    pairset = set(pairs)
    for kk, v in judged.items():
        if kk not in pairset or v != 1 or isinstance(v, bool):
            raise _Bad(f"{w}.judged: {shown(kk)} is not one of the pairs (or its value is not 1)")
    wins = _obj(t["wins"], f"{w}.wins")
    total = 0.0
    for d, v in wins.items():
        if d not in members:
            raise _Bad(f"{w}.wins: {shown(d)} is not in the pool")
        total += _num(v, f"{w}.wins[{shown(d)}]")
    if set(wins) != members:
        raise _Bad(f"{w}.wins: expected one entry per pool document")
    if abs(total - len(judged)) > 1e-6 * max(1, len(judged)):
        raise _Bad(f"{w}.wins: they sum to {total:g}, but {len(judged)} pairs are judged (one win per judgment)")
    result = t["result"]
    if phase != "done":
        if result is not None:
            raise _Bad(f"{w}.result: a result before the topic is done")
    else:
        result = _obj(result, f"{w}.result")
        for d, v in result.items():
            if d not in members:
                raise _Bad(f"{w}.result: {shown(d)} is not in the pool")
            if _num(v, f"{w}.result[{shown(d)}]") <= 0:
                raise _Bad(f"{w}.result[{shown(d)}]: expected a number > 0")
            if not final_phase and pairs and abs(v - wins.get(d, -1)) > 1e-9:
                raise _Bad(f"{w}.result[{shown(d)}]: {shown(v)} is not the document's wins")
    if phase == "extra":
        _first_round(t, w, members)


def _first_round(t: dict, w: str, members: set) -> None:
    first = _obj(t.get("first_round_wins"), f"{w}.first_round_wins")
    if set(first) != members:
        raise _Bad(f"{w}.first_round_wins: expected one entry per pool document")
    for d, v in first.items():
        _num(v, f"{w}.first_round_wins[{shown(d)}]")


def _batch_key(b: str) -> bool:
    """A batch key: a hexadecimal digest, or ``STEP:digest`` (the step of the ``next`` that asked for it)."""
    import re

    return re.fullmatch(r"(?:[0-9]+:)?[0-9a-f]+", b) is not None


def validate_state(obj: Any, name: str) -> None:
    """Raise :class:`InputError` unless ``obj`` (parsed JSON) is a valid state of format 1 or 2 (the same keys;
    2 marks a state whose ``issued`` a repeated ``next`` reads: an older pref_eval refuses it instead of
    misreading it); a later format is refused as written by a newer pref_eval."""
    try:
        obj = _obj(obj, "state")
        if "version" not in obj:
            raise _Bad("missing key 'version'")
        v = obj["version"]
        if isinstance(v, int) and not isinstance(v, bool) and v > VERSION:
            from .session_schema import newer_format

            raise newer_format(name, v, VERSION)
        if v not in (1, VERSION) or isinstance(v, bool):
            raise _Bad(f"version {shown(v)} is not supported (this zelo_pairs reads versions 1 to {VERSION})")
        _keys(obj, TOP_KEYS, "state", frozenset({"batches", "issued"}))
        batches = obj.get("batches", [])
        if not isinstance(batches, list) or not all(isinstance(b, str) and _batch_key(b) for b in batches) \
                or len(set(batches)) != len(batches):
            raise _Bad("batches: expected a list of distinct hexadecimal digests (each after 'STEP:' or not)")
        k = _int(obj["k"], "k", 1)
        p = _int(obj["p"], "p", k + 1)
        _int(obj["f"], "f", p + 1)
        _int(obj["seed"], "seed", 0, SEED_MAX)
        if not isinstance(obj["final_phase"], bool):
            raise _Bad(f"final_phase: expected true or false, got {shown(obj['final_phase'])}")
        for key in ("step", "comparisons", "ignored"):
            _int(obj[key], key)
        if "issued" in obj:
            iss = obj["issued"]
            if not isinstance(iss, list) or len(iss) != 2:
                raise _Bad(f"issued: expected [step, comparisons], got {shown(iss)}")
            _int(iss[0], "issued[0]")
            _int(iss[1], "issued[1]")
            if iss[0] >= obj["step"] or iss[1] > obj["comparisons"]:
                raise _Bad(f"issued: {shown(iss)} is not before step {obj['step']} "
                           f"and comparisons {obj['comparisons']}")
        topics = _obj(obj["topics"], "topics")
        judged = 0
        for tname, t in topics.items():
            _topic(tname, t, obj["final_phase"])
            judged += len(t["judged"])
        if obj["comparisons"] < judged:
            raise _Bad(f"comparisons: {obj['comparisons']} is fewer than the {judged} judged pairs")
    except _Bad as err:
        raise InputError(name, 0, f"not a valid zelo_pairs state: {err}") from None
