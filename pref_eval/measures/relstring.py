"""Relevance string (trec_eval ``m_relstring.c``), per query only.

``relstring.N`` shows the grades of the top min(N, |Ret|) documents, one
character each: ``0``–``9`` the qrels grade, ``>`` a grade above 9, ``-`` a
document not in the qrels, ``.`` pooled but unjudged (negative grade).
Default N = 10; printed as ``relstring`` (or ``relstring_N`` with a
parameter) followed by the string in single quotes. ``-l`` has no effect.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import EvalContext, measure
from .params import Param
from .nicknames import trec_order

if TYPE_CHECKING:
    from ..collection import Ranked


def relstrings(r: Ranked, n: int) -> list[str]:
    """The relevance string of every query (see the module docstring)."""
    from ..collection import NONPOOL, UNJUDGED

    keep = r.pos < n
    g = r.grade[keep]
    codes = np.where(g > 9, ord(">"),
                     np.where(g >= 0, ord("0") + np.clip(g, 0, 9),
                              np.where(g == NONPOOL, ord("-"),
                                       np.where(g == UNJUDGED, ord("."), ord("<")))))
    text = codes.astype(np.uint8).tobytes().decode("ascii")
    counts = np.bincount(r.qidx[keep], minlength=r.nq)
    bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
    return [text[bounds[i]:bounds[i + 1]] for i in range(r.nq)]


@measure("relstring", trec_order("relstring"), "Relevance grades of the top N documents as a string.",
         formula="one char per rank: 0-9 grade, > above 9, - not in pool, . pooled unjudged",
         param_kind="raw", defaults=(10.0,), aggregate="none", value_type="str",
         per_query_only=True, zero_if_missing=True, uses_level=False, citation="trec_eval 10 (NIST; Buckley)",
         trec_params=(Param("length", int, 10, "characters shown (the top N documents; a decimal is truncated, as "
                            "trec_eval)", low=1, count=(1, 1)),))
def relstring(r: Ranked, params: tuple, ctx: EvalContext) -> list[str]:
    n = int(float(params[0])) if params else 10
    return relstrings(r, max(n, 0))
