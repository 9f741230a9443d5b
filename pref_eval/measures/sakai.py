"""Sakai's other blended-ratio measures in NTCIREVAL: O-measure, P-measure, P-plus and NCU.

All use Q-measure's blended ratio (:mod:`.qmeasure`)

BR(r) = (β·cg(r) + count(r)) / (β·cg*(r) + r)

at the ranks r of relevant documents (gain > 0; gains the grades or
``gains={grade: gain}``, β ≥ 0, default 1).

* **O-measure** = BR(r₁), r₁ the rank of the first relevant document: RR
  with graded relevance (β = 0 gives RR).
* **P-measure** = BR(r_p), r_p the "preferred rank": the rank of the first
  document of the highest grade the ranking holds (not the collection's).
* **P-plus** = (1/count(r_p)) Σ_{r ≤ r_p} I(r) BR(r): the blended ratio
  averaged over the relevant documents down to r_p.

All three are 0 for a ranking without a relevant document. Sakai, "On the
properties of evaluation metrics for finding one highly relevant document",
IPSJ TOD 48(SIG9), 2007 (IPSJ Digital Courier 3, 2007).

* **NCU** (normalised cumulative utility) = Σ_r P_S(r)·NU(r): the expected
  utility NU of the rank at which a user drawn from a stopping distribution
  P_S over the relevant documents stops. ``stop='gu'`` (graded-uniform, the
  default): P_S(r) = g(r) / Σ_{judged d} g(d), a user stops at a relevant
  document in proportion to its gain (NTCIREVAL's stop values are its gains
  unless ``-s`` is given; here ``stops={grade: value}``, unlisted grades
  keeping their gain). ``stop='rb'``
  (rank-biased): P_S(r) = γ^(count(r)−1) / Σ_{i=1}^{R} γ^(i−1), γ =
  ``gamma`` (default 0.95, NTCIREVAL's; ``gamma=`` alone means 'rb'). ``utility='BR'`` (default): NU(r)
  = BR(r); ``utility='P'``: NU(r) = count(r)/r (precision; NCU with 'gu' and
  binary relevance is then AP). NTCIREVAL prints the four as ``NCUgu,P``,
  ``NCUgu,BR``, ``NCUrb,P``, ``NCUrb,BR``. Sakai & Robertson, "Modelling a
  user population for designing information retrieval metrics", EVIA 2008.

A query without a judged document of positive gain gets 0 (NTCIREVAL skips
it, "no rel doc"). NTCIREVAL: http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .. import libm
from ..errors import UsageError
from .base import EvalContext, measure
from .ndcg import GAINS, _mapped_gains
from .params import JUDGED_ONLY, NOT_GIVEN, Param
from .qmeasure import BETA, ORDER_Q, Blended, blended

if TYPE_CHECKING:
    from ..collection import Ranked

ONE_DOC = ("Sakai, IPSJ TOD 48(SIG9), 2007 (On the properties of evaluation metrics for finding one highly "
           "relevant document); NTCIREVAL (http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html)")
NCU_CITE = ("Sakai & Robertson, EVIA 2008 (Modelling a user population for designing information retrieval "
            "metrics); NTCIREVAL (http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html)")
BR_BETA = replace(BETA, doc="patience β of the blended ratio (0: precision at the rank; NTCIREVAL's -beta)")
KEYWORDS = (BR_BETA, GAINS, JUDGED_ONLY)
STOP = Param("stop", str, NOT_GIVEN, "stopping distribution: 'gu' (graded-uniform: by gain; the default) or 'rb' "
             "(rank-biased: gamma^(count−1); the default when gamma is given)", choices=("gu", "rb"))
UTILITY = Param("utility", str, "BR", "utility at the stop: 'BR' (blended ratio) or 'P' (precision)",
                choices=("BR", "P"))
GAMMA = Param("gamma", float, NOT_GIVEN, "rank-biased stop's decay γ, 0.95 when not given (gamma= alone means "
              "stop='rb'; refused with stop='gu'; NTCIREVAL's -gamma)", low=0.0, high=1.0, low_open=True)
STOPS = Param("stops", dict, doc="grade → stop value of the graded-uniform stop, e.g. {1: 1, 2: 5} (≥ 0: 0 never "
              "stops there; unlisted grades stop with their gain; NTCIREVAL's -s, which takes positive values)")
NCU_BETA = replace(BETA, default=NOT_GIVEN, doc="patience β of the blended ratio, 1 when not given (utility='BR' "
                   "only; NTCIREVAL's -beta)")


def _first(b: Blended, mask: np.ndarray, nq: int) -> np.ndarray:
    """Per query, the flat index (into ``b``) of its first entry where ``mask`` holds; -1 where none does."""
    out = np.full(nq, -1, dtype=np.int64)
    at = np.flatnonzero(mask)
    qs, first = np.unique(b.q[at], return_index=True)
    out[qs] = at[first]
    return out


def _at(b: Blended, where: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.where(where >= 0, values[np.maximum(where, 0)] if len(values) else 0.0, 0.0)


def preferred(b: Blended, nq: int) -> np.ndarray:
    """Per query, the flat index of its preferred document: the first of the highest grade retrieved (-1: none)."""
    top = np.full(nq, np.iinfo(np.int64).min, dtype=np.int64)
    grade = b.grade.astype(np.int64)
    np.maximum.at(top, b.q, grade)
    return _first(b, grade == top[b.q], nq)


@measure("O_measure", ORDER_Q + 2, "O-measure (Sakai): the blended ratio at the first relevant document.",
         formula="BR(r₁),  BR(r) = (β·cg(r) + count(r)) / (β·cg*(r) + r)", citation=ONE_DOC, uses_level=False,
         irm="O_measure", keywords=KEYWORDS)
def o_measure(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    b = blended(r, ctx.opts)
    return _at(b, _first(b, np.ones(len(b.q), dtype=bool), r.nq), b.br).reshape(-1, 1)


@measure("P_measure", ORDER_Q + 3, "P-measure (Sakai): the blended ratio at the first document of the highest "
         "grade retrieved.", formula="BR(r_p), r_p the first rank of the highest grade in the ranking",
         citation=ONE_DOC, uses_level=False, irm="P_measure", keywords=KEYWORDS)
def p_measure(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    b = blended(r, ctx.opts)
    return _at(b, preferred(b, r.nq), b.br).reshape(-1, 1)


@measure("P_plus", ORDER_Q + 4, "P-plus (Sakai): the blended ratio averaged over the relevant documents down to "
         "the preferred rank.", formula="(1/count(r_p)) Σ_{r ≤ r_p} I(r)·BR(r)", citation=ONE_DOC, uses_level=False,
         irm="P_plus", keywords=KEYWORDS)
def p_plus(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    b = blended(r, ctx.opts)
    rp = preferred(b, r.nq)
    last = _at(b, rp, b.pos.astype(np.float64))
    keep = (rp[b.q] >= 0) & (b.pos <= last[b.q])
    s = np.bincount(b.q[keep], weights=b.br[keep], minlength=r.nq)
    n = _at(b, rp, b.count)
    return np.divide(s, n, out=np.zeros(r.nq), where=n > 0).reshape(-1, 1)


def _ncu_options(text: str, options: dict) -> None:
    if options.get("stop") == "gu" and "gamma" in options:
        raise UsageError(f"measure {text!r}: gamma is the rank-biased stop's decay: give it with stop='rb'")
    if "stops" in options and _stop(options) == "rb":
        raise UsageError(f"measure {text!r}: stops are the graded-uniform stop's values: not with stop='rb'")
    if any(v < 0 for _, v in options.get("stops", ())):
        raise UsageError(f"measure {text!r}: stops values must be ≥ 0 (a stop value weighs a stopping probability)")
    if options.get("utility", "BR") == "P" and "beta" in options:
        raise UsageError(f"measure {text!r}: beta is the blended ratio's: it has no effect with utility='P'")


def _stop(opts: dict) -> str:
    """The stop distribution: ``stop`` as given, else 'rb' when ``gamma`` is given, else 'gu'."""
    return str(opts.get("stop", "rb" if "gamma" in opts else "gu"))


def _stop_values(grade: np.ndarray, gain: np.ndarray, stops: tuple | None) -> np.ndarray:
    """A relevant document's stop value: ``stops[grade]`` where listed, else its gain (NTCIREVAL's default)."""
    if not stops:
        return gain
    keys = np.array([k for k, _ in stops], dtype=np.float64)
    vals = np.array([v for _, v in stops], dtype=np.float64)
    g = np.asarray(grade, dtype=np.float64)
    at = np.minimum(np.searchsorted(keys, g), len(keys) - 1)
    return np.where(keys[at] == g, vals[at], gain)


def ncu_values(r: Ranked, opts: dict) -> np.ndarray:
    """Per-query NCU with ``opts``' stop ('gu'/'rb'), utility ('BR'/'P'), gamma, beta, gains."""
    b = blended(r, opts)
    nu = b.br if opts.get("utility", "BR") == "BR" else b.count / (b.pos + 1.0)
    if _stop(opts) == "gu":
        stops = opts.get("stops")
        num = np.bincount(b.q, weights=nu * _stop_values(b.grade, b.gain, stops), minlength=r.nq)
        if stops:
            jgain = _mapped_gains(r.jgrade, opts)
            den = np.bincount(r.jqidx(), weights=np.where(jgain > 0, _stop_values(r.jgrade, jgain, stops), 0.0),
                              minlength=r.nq)
        else:
            den = b.total
    else:
        gamma = float(opts.get("gamma", 0.95))
        top = int(max(b.R.max(initial=0), 1))
        powers = libm.power(gamma, np.arange(top, dtype=np.int64))
        num = np.bincount(b.q, weights=nu * powers[b.count.astype(np.int64) - 1], minlength=r.nq)
        den = np.concatenate([[0.0], np.cumsum(powers)])[b.R]  # Σ_{i=1}^{R} γ^(i−1), summed in rank order
    return np.divide(num, den, out=np.zeros(r.nq), where=den > 0).reshape(-1, 1)


@measure("NCU", ORDER_Q + 5, "Normalised cumulative utility (Sakai & Robertson): expected utility at a stop drawn "
         "over the relevant documents.", formula="Σ_r I(r)·P_S(r)·NU(r); gu: P_S = g(r)/Σ g*, rb: P_S = "
         "γ^(count(r)−1)/Σ_{i≤R} γ^(i−1); NU = BR(r) or count(r)/r", citation=NCU_CITE, uses_level=False,
         irm="NCU", keywords=(STOP, UTILITY, GAMMA, STOPS, NCU_BETA, GAINS, JUDGED_ONLY), validate=_ncu_options)
def ncu(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return ncu_values(r, ctx.opts)
