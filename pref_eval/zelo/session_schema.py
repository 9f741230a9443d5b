"""What the state files of ``zelo_pairs``' two adaptive strategies share, checked on load.

Both (:mod:`pref_eval.zelo.adaptive_session`, the best item; :mod:`pref_eval.zelo.ranking_session`,
the whole ranking) are one JSON object with exactly their keys: ``"strategy"``, ``"version"``,
``"seed"``, ``"ignored"``, ``"issued"`` (integers >= 0), ``"params"`` (the strategy's own, checked by
the caller), ``"topics"`` ({topic: [distinct non-empty docnos]}), ``"batches"`` (["BATCH:digest"]),
``"adds"`` (lists of [topic, docA, docB, score in [0, 1]], checked by :func:`check_group`), and for a
strategy its own extra keys (checked by the caller's ``extra``). A fault is an
:class:`~pref_eval.errors.InputError` naming the file, the strategy and the JSON path.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeGuard

from ..errors import InputError, shown
from ..seeds import SEED_MAX

COMMON_KEYS = frozenset({"strategy", "version", "seed", "params", "topics", "adds", "batches", "ignored", "issued"})


def bad(kind: str, name: str, path: str, what: str) -> InputError:
    """``NAME: KIND state: PATH: WHAT`` (line 0: a JSON path, not a line, locates it)."""
    return InputError(name, 0, f"{kind} state: {path}: {what}")


def is_int(x: Any, lo: int = 0) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool) and x >= lo


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def newer_format(name: str, version: int, current: int) -> InputError:
    """``NAME: written by a newer pref_eval (format N; this version reads up to M)``."""
    return InputError(name, 0, f"written by a newer pref_eval (format {version}; this version reads up to {current})")


def check_version(obj: Any, name: str, kind: str, current: int) -> int:
    """The format version of a state object: an integer 1..``current``; a larger one is refused as written by
    a newer pref_eval (:func:`newer_format`), anything else as not a version."""
    if not isinstance(obj, dict):
        raise bad(kind, name, "$", "expected an object")
    v = obj.get("version")
    if is_int(v, 1) and v > current:
        raise newer_format(name, v, current)
    if not is_int(v, 1):
        raise bad(kind, name, "$.version", f"expected an integer from 1 to {current}, got {shown(v)}")
    return v


def check_common(obj: Any, name: str, kind: str, *, version: int, extra_keys: dict[int, frozenset] | None = None,
                 params: Callable[[dict], None], extra: Callable[[dict], None] | None = None) -> int:
    """Everything but the judgments, in this order: the version (1 to ``version``), an object with exactly
    the keys (the common ones and ``extra_keys[its version]``), the integers, ``params(obj["params"])``, the
    topics, ``extra(obj)``, the batch digests, the adds' list. Returns the version."""
    v = check_version(obj, name, kind, version)
    keys = COMMON_KEYS | (extra_keys or {}).get(v, frozenset())
    if set(obj) != keys:
        more, missing = sorted(set(obj) - keys), sorted(keys - set(obj))
        raise bad(kind, name, "$", f"unknown keys {more}" if more else f"missing keys {missing}")
    for key in ("seed", "ignored", "issued"):
        if not is_int(obj[key]):
            raise bad(kind, name, f"$.{key}", "expected an integer >= 0")
    if obj["seed"] > SEED_MAX:
        raise bad(kind, name, "$.seed", f"expected an integer <= {SEED_MAX} (2^64 - 1)")
    params(obj["params"])
    if not isinstance(obj["topics"], dict):
        raise bad(kind, name, "$.topics", "expected an object")
    for tp, pool in obj["topics"].items():
        if not isinstance(pool, list) or not all(isinstance(d, str) and d for d in pool) \
                or len(set(pool)) != len(pool):
            raise bad(kind, name, f"$.topics.{tp}", "expected a list of distinct docnos")
    if extra is not None:
        extra(obj)
    if not isinstance(obj["batches"], list) or not all(isinstance(b, str) for b in obj["batches"]):
        raise bad(kind, name, "$.batches", "expected a list of digests")
    if not isinstance(obj["adds"], list):
        raise bad(kind, name, "$.adds", "expected a list")
    return v


def check_group(group: Any, path: str, name: str, kind: str) -> list[tuple]:
    """One ``add``'s judgments: a non-empty list of [topic, docA, docB, score in [0, 1]], as tuples."""
    if not isinstance(group, list) or not group:
        raise bad(kind, name, path, "expected a non-empty list of judgments")
    rows = []
    for m, row in enumerate(group):
        ok = (isinstance(row, list) and len(row) == 4 and all(isinstance(x, str) for x in row[:3])
              and is_number(row[3]) and 0 <= row[3] <= 1)
        if not ok:
            raise bad(kind, name, f"{path}[{m}]", "expected [topic, docA, docB, score in [0, 1]]")
        rows.append(tuple(row))
    return rows


class TopicSessions:
    """The protocol plumbing both sessions share (:mod:`pref_eval.zelo.pair_state`): per topic a game over
    its pool of docnos (None: nothing to ask), the judgments counted over all games, the outstanding
    requests as ``(topic, docA, docB)``, and the batch numbering -- ``next`` numbers a batch
    (:meth:`issue`); the digest of each judgment file added is kept with the batch number it answered, so
    the same file added again for the same batch changes nothing, while the same answers to a later
    ``next`` count."""

    games: dict[str, Any]
    pools: dict[str, list[str]]
    index: dict[str, dict[str, int]]
    adds: list[list[list[Any]]]
    issued: int
    batches: list[str]
    ignored: int
    last_ignored: str

    def _empty(self) -> None:
        """No topics, no judgments, no batch issued yet: the state both sessions start from."""
        self.pools = {}
        self.index = {}
        self.games = {}
        self.adds = []
        self.batches = []
        self.ignored = 0
        self.issued = 0
        self.last_ignored = ""

    @property
    def comparisons(self) -> int:
        return sum(g.comparisons for g in self.games.values() if g is not None)

    def done(self) -> bool:
        return all(g is None or g.done() for g in self.games.values())

    def progress(self) -> int:
        """Changes whenever a batch moved the strategy (every accepted judgment counts)."""
        return self.comparisons

    def outstanding(self) -> list[tuple[str, str, str]]:
        out: list[tuple[str, str, str]] = []
        for topic, g in self.games.items():
            if g is None or g.done():
                continue
            docs = self.pools[topic]
            out.extend((topic, docs[a], docs[b]) for a, b in g.outstanding())
        return out

    def restore_counts(self, obj: dict) -> None:
        """The batch digests, the number of judgments ignored and of ``next`` calls, as a checked state has them."""
        self.batches = list(obj["batches"])
        self.ignored = obj["ignored"]
        self.issued = obj["issued"]

    def issue(self) -> None:
        """``next`` handed out the outstanding requests: a new batch number."""
        self.issued += 1

    def has_batch(self, digest: str) -> bool:
        return f"{self.issued}:{digest}" in self.batches

    def record_batch(self, digest: str) -> None:
        self.batches.append(f"{self.issued}:{digest}")

    def accept(self, topic: str, i: int, j: int, s: float, per_topic: dict[str, list[tuple[int, int, float]]],
               accepted: list[list[Any]]) -> None:
        """One judgment of a batch accepted: ``(i, j, s)`` for the topic's game, the row the state keeps."""
        per_topic.setdefault(topic, []).append((i, j, s))
        accepted.append([topic, self.pools[topic][i], self.pools[topic][j], s])

    def feed_games(self, per_topic: dict[str, list[tuple[int, int, float]]]) -> None:
        """Each topic's accepted judgments to its game, topics in the order they were first judged."""
        for topic, rows in per_topic.items():
            game = self.games[topic]
            if game is not None:
                game.add(rows)

    def close_batch(self, accepted: list[list[Any]], duplicate: int, unrequested: int) -> dict[str, int]:
        """The batch's accepted rows kept, its ignored judgments counted: ``add``'s counts."""
        if accepted:
            self.adds.append(accepted)
        self.ignored += duplicate + unrequested
        return {"used": len(accepted), "duplicate": duplicate, "unrequested": unrequested}


def state_json(text: str | dict, name: str) -> Any:
    """A state file's JSON (``text`` already parsed passes through); text that is not JSON (a state cut short by a
    full disk or a copy, edited by hand) raises :class:`InputError` naming ``name`` and the line of the fault."""
    import json

    if not isinstance(text, str):
        return text
    if not text.strip():
        raise InputError(name, 0, "not a zelo_pairs state file: the file is empty")
    from ..io.textfile import DuplicateKey, unique_keys

    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKey as err:  # which value was meant? (json keeps the last; the message of every JSON reader)
        raise InputError(name, 0, f"not a zelo_pairs state file ({err})") from None
    except json.JSONDecodeError as err:
        cut = "" if text.rstrip().endswith("}") else "; the file does not end with '}': cut short?"
        raise InputError(name, err.lineno, f"not a zelo_pairs state file (JSON: {err.msg}, column {err.colno}"
                         f"{cut})") from None
    except (ValueError, RecursionError) as err:
        raise InputError(name, 0, f"not a zelo_pairs state file ({err})") from None
