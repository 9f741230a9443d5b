"""Measure names of ``zelo_eval``'s preference mode (``pref_eval.py`` syntax).

Three kinds of names, resolved in this order:

* **preference measures** (one value per pair of runs): ``rpp``, ``invrpp``,
  ``dcgrpp``, ``lexirecall`` (aliases ``LR``, ``sgnLR``), ``lexiprecision``
  (``sgnLP``), ``rrlexiprecision`` (``rrLP``);
* **pref_eval's metrics** (one value per run, differences in preference
  lines): ``ap``, ``ap@K``, ``rbp``, ``rbp@γ``, ``rbp@γ,K``, ``rr``, ``rr@K``,
  ``ndcg``, ``ndcg@K``, ``rp``, ``p@K``, ``r@K``;
* any measure of the registry, in trec_eval or ir-measures syntax
  (``ndcg_cut.10``, ``nDCG@10``); it must give a single column.

Unlike pref_eval.py, an unknown name is an error (it silently gave 0.0 there),
and so is a malformed parameter (``p@0``, ``p@x``, ``rp@5``).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..errors import UsageError

PREFERENCES = {
    "rpp": "rpp", "invrpp": "invrpp", "dcgrpp": "dcgrpp",
    "lexirecall": "lexirecall", "LR": "lexirecall", "sgnLR": "lexirecall",
    "lexiprecision": "lexiprecision", "sgnLP": "lexiprecision",
    "rrlexiprecision": "rrlexiprecision", "rrLP": "rrlexiprecision",
}
PREFERENCE_SET = ("rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision")
ALL_SET = PREFERENCE_SET + ("ap", "rbp", "rr", "ndcg", "rp", "p@1", "p@10", "r@1", "r@10")
METRIC_PREFIXES = ("ap", "rbp", "rr", "ndcg", "rp", "p", "r")


@dataclass(frozen=True)
class PrefMeasure:
    """One requested measure.

    ``key`` is the name as typed (the JSON key); ``kind`` is ``pref`` (a
    preference measure, ``base`` its canonical name), ``metric`` (one of
    pref_eval's metrics: ``base`` in ap/rbp/rr/ndcg/rp/p/r with ``k`` the
    cut-off, 0 = none, and ``gamma`` for rbp) or ``registry`` (``request``
    a :class:`~pref_eval.measures.MeasureRequest`, ``column`` its column).
    """

    key: str
    kind: str
    base: str
    k: int = 0
    gamma: float = 0.5
    request: object = None
    column: int = 0

    @property
    def is_metric(self) -> bool:
        return self.kind != "pref"


def _positive_int(text: str, name: str) -> int:
    if not re.fullmatch(r"\+?\d+", text) or int(text) <= 0:
        raise UsageError(f"measure {name!r}: the cut-off must be a positive integer (got {text!r})")
    return int(text)


def parse_pref_measure(name: str) -> list[PrefMeasure]:
    """Resolve one ``-m`` name (see the module docstring)."""
    if name in PREFERENCES:
        return [PrefMeasure(name, "pref", PREFERENCES[name])]
    if name in ("ap", "rbp", "rr", "ndcg", "rp"):
        return [PrefMeasure(name, "metric", name)]
    head, at, tail = name.partition("@")
    if at and head in ("ap", "rr", "ndcg", "p", "r"):
        return [PrefMeasure(name, "metric", head, k=_positive_int(tail, name))]
    if at and head == "rbp":
        parts = tail.split(",")
        if len(parts) > 2:
            raise UsageError(f"measure {name!r}: expected rbp@GAMMA or rbp@GAMMA,K")
        try:
            gamma = float(parts[0])
        except ValueError:
            raise UsageError(f"measure {name!r}: persistence {parts[0]!r} is not a number") from None
        if not 0.0 < gamma < 1.0:
            raise UsageError(f"measure {name!r}: persistence must be in (0, 1)")
        k = _positive_int(parts[1], name) if len(parts) == 2 else 0
        return [PrefMeasure(name, "metric", "rbp", k=k, gamma=gamma)]
    if at and head in METRIC_PREFIXES:
        raise UsageError(f"measure {name!r}: {head} takes no cut-off here")
    if name in ("p", "r"):
        raise UsageError(f"measure {name!r}: needs a cut-off, e.g. {name}@10")
    return _registry_measure(name)


def _registry_measure(name: str) -> list[PrefMeasure]:
    from ..measures import parse_measure

    try:
        reqs = parse_measure(name)
    except UsageError as err:
        close = difflib.get_close_matches(name, list(PREFERENCES) + list(ALL_SET), n=3, cutoff=0.6)
        if close:
            raise UsageError(f"unknown measure {name!r}; did you mean {', '.join(close)}?") from None
        raise err
    out: list[PrefMeasure] = []
    for req in reqs:
        cols = req.columns()
        if req.spec.value_type == "str":
            continue  # runid / relstring have no numeric value
        for c, col in enumerate(cols):
            key = name if (len(reqs) == 1 and len(cols) == 1) else col
            out.append(PrefMeasure(key, "registry", req.spec.name, request=req, column=c))
    if not out:
        raise UsageError(f"measure {name!r} has no numeric value to compare")
    return out


def resolve(measures: list[str], measure_set: str | None) -> list[PrefMeasure]:
    """pref_eval.py's selection: any ``-m`` wins, else the ``-M`` set.

    ``measure_set``: ``preferences``, ``all`` (also ``none``, pref_eval.py's
    default, which means all), or a trec_eval nickname (``official``...).
    Duplicated keys are an error.
    """
    names = list(measures)
    if not names:
        ms = "all" if measure_set in (None, "none", "all") else measure_set
        if ms == "preferences":
            names = list(PREFERENCE_SET)
        elif ms == "all":
            names = list(ALL_SET)
        else:
            from ..measures.nicknames import NICKNAMES

            if ms not in NICKNAMES:
                raise UsageError(f"unknown measure set {measure_set!r}; expected preferences, all, none, "
                                 f"a trec_eval nickname ({', '.join(NICKNAMES)}) or a depth")
            names = [ms]
    out: list[PrefMeasure] = []
    for n in names:
        out.extend(parse_pref_measure(n))
    keys = [m.key for m in out]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise UsageError(f"measure(s) requested twice: {', '.join(dup)}")
    return out
