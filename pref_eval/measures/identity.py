"""Which names spell one measure: the keys of :class:`pref_eval.api.measures.MeasureResults` looked up by an
ir-measures object that prints another spelling of the measure asked for (``ir_measures.MAP`` prints as ``AP``,
``NumRelRet`` as ``NumRet(rel=1)``; after ``calc_aggregate(["MAP"], ...)`` it found no key before session 29)."""
from __future__ import annotations

from collections.abc import Sequence


def measure_identity(name: str) -> tuple | None:
    """What a measure name computes (its measure, parameters, options, level), the same for two spellings of one
    measure (``MAP`` and ``AP``; ``nDCG(gains={0:0,1:1,2:3})@10`` and ir-measures' ``nDCG(gains={2:3})@10``: a
    grade mapped to itself is a grade not listed); None for a name that is not one measure."""
    from ..errors import PrefEvalError
    from . import parse_measures

    try:
        reqs = parse_measures([name])
    except PrefEvalError:
        return None
    if len(reqs) != 1:
        return None
    r = reqs[0]
    defaults = {p.name: p.default for p in r.spec.keywords}  # nDCG@10's dcg='log2' is ndcg_cut.10's default
    opts = tuple((k, tuple((g, v) for g, v in val if g != v) if k == "gains" else val) for k, val in r.options
                 if not (k in defaults and defaults[k] == val))
    return r.spec.name, tuple(r.params), opts, r.level


def same_measure_key(text: str, keys: Sequence[str]) -> str:
    """The one key of ``keys`` naming the measure ``text`` names, else ``text`` (no key: the caller's KeyError)."""
    ident = measure_identity(text)
    same = [k for k in keys if ident is not None and measure_identity(k) == ident]
    return same[0] if len(same) == 1 else text
