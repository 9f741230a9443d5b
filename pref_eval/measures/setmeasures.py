"""Set (unranked) measures: set_P, set_relative_P, set_recall, set_map, set_F, utility.

With Ret the retrieved set (after ``-M``/``-J``), Rel = {d : rel(d) ≥ l}:

* ``set_P`` = |Rel ∩ Ret| / |Ret|;
* ``set_relative_P`` = |Rel ∩ Ret| / min(|Ret|, |Rel|);
* ``set_recall`` = |Rel ∩ Ret| / |Rel|;
* ``set_map`` = |Rel ∩ Ret|² / (|Ret| · |Rel|) (precision × recall);
* ``set_F.x`` = (x+1)·P·R / (x·P + R), x = 1 by default (van Rijsbergen,
  *Information Retrieval*, Butterworths 1979, the E measure); x = 0 is set_P
  (``SetF(beta=0)``, as pytrec_eval);
* ``utility.a,b,c,d`` = a·|Rel∩Ret| + b·|Ret∖Rel| + c·|Rel∖Ret| +
  d·(N − |Ret ∪ Rel|), N = ``-N``; default 1,−1,0,0 (TREC filtering track,
  Hull & Robertson 2000). Summary = mean.

Each is 0 when its denominator is 0. Under ``-c`` trec_eval scores a topic
the run lacks on a one-document dummy ranking (an unjudged document, so
empty under ``-J`` or ``-M 0``) and zeroes ``utility`` only when no
parameters were given; we do the same (``--trec-eval-9``: 0).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dataclasses import replace

from ..errors import EvaluationError
from .params import JUDGED_ONLY, REL, Param

from .base import EvalContext, measure
from .nicknames import trec_order

if TYPE_CHECKING:
    from ..collection import Ranked

RELATIVE = Param("relative", bool, False, "divide by min(|Ret|, |Rel|) instead of |Ret| (set_relative_P)")
BETA = Param("beta", float, 1.0, "weight of recall against precision (0: set precision)", low=0.0)

TREC = "trec_eval (Buckley & Voorhees 2005)"


def _counts(r, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ret = r.num_ret.astype(np.float64)
    rel = r.num_rel(level).astype(np.float64)
    relret = r.num_rel_ret(level)
    return ret, rel, relret


def _div(a: np.ndarray, b: np.ndarray, ok: np.ndarray) -> np.ndarray:
    return np.divide(a, b, out=np.zeros(len(a)), where=ok)


@measure("set_P", trec_order("set_P"), "Precision of the retrieved set.",
         formula="|Rel∩Ret| / |Ret|", citation=TREC, irm="SetP",
         keywords=(REL, RELATIVE, JUDGED_ONLY))
def set_p(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    if ctx.opts.get("relative"):
        return set_relative_p(r, params, ctx)
    ret, rel, rr = _counts(r, ctx.level)
    return _div(rr, ret, ret > 0).reshape(-1, 1)


@measure("set_relative_P", trec_order("set_relative_P"), "Set precision relative to the best possible.",
         formula="|Rel∩Ret| / min(|Ret|, |Rel|)", citation=TREC)
def set_relative_p(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    ret, rel, rr = _counts(r, ctx.level)
    return _div(rr, np.minimum(ret, rel), (ret > 0) & (rel > 0)).reshape(-1, 1)


@measure("set_recall", trec_order("set_recall"), "Recall of the retrieved set.",
         formula="|Rel∩Ret| / |Rel|", citation=TREC, irm="SetR", keywords=(REL,))
def set_recall(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    ret, rel, rr = _counts(r, ctx.level)
    return _div(rr, rel, rel > 0).reshape(-1, 1)


@measure("set_map", trec_order("set_map"), "Unranked AP: set precision × set recall.",
         formula="|Rel∩Ret|² / (|Ret|·|Rel|)", citation=TREC, irm="SetAP", keywords=(REL, JUDGED_ONLY))
def set_map(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    ret, rel, rr = _counts(r, ctx.level)
    return _div(rr * rr, ret * rel, (ret > 0) & (rel > 0)).reshape(-1, 1)


@measure("set_F", trec_order("set_F"), "F measure of the retrieved set (x weighs recall).",
         formula="(x+1)·P·R / (x·P + R)", citation="van Rijsbergen 1979", param_kind="raw",
         defaults=(1.0,), irm="SetF", keywords=(REL, BETA, JUDGED_ONLY), trec_params=(replace(BETA, count=(1, 1)),))
def set_f(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    x = float(ctx.opts.get("beta", params[0] if params else 1.0))
    ret, rel, rr = _counts(r, ctx.level)
    ok = rr > 0
    P = _div(rr, ret, ok)
    R = _div(rr, rel, ok)
    return _div((x + 1.0) * P * R, x * P + R, ok).reshape(-1, 1)


@measure("utility", trec_order("utility"), "Linear utility of the retrieved set.",
         formula="a·|Rel∩Ret| + b·|Ret∖Rel| + c·|Rel∖Ret| + d·(N − |Ret∪Rel|)",
         citation="Hull & Robertson, TREC-8 filtering track, 2000", param_kind="raw", bounds=None,
         trec_params=(Param("coefficients", float, doc="a, b, c, d (default 1,-1,0,0)", count=(4, 4)),))
def utility(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    coef = params if params else (1.0, -1.0, 0.0, 0.0)
    if len(coef) != 4:
        raise EvaluationError(f"utility needs exactly 4 coefficients (got {len(coef)}); "
                              "trec_eval: improper number of coefficients")
    a, b, c, d = (float(v) for v in coef)
    ret = r.num_ret.astype(np.int64)
    rel = r.num_rel(ctx.level).astype(np.int64)
    rr = r.num_rel_ret(ctx.level).astype(np.int64)
    missing = ~r.present
    # a missing topic under -c is scored on trec_eval's placeholder ranking, which is one
    # unjudged document (none under -J or -M 0): r's counts already hold it
    bogus = missing & bool(params) & (not ctx.trec9)
    rest = ctx.num_docs_in_coll + rr - ret - rel
    val = a * rr + b * (ret - rr) + c * (rel - rr) + d * rest
    return np.where(missing & ~bogus, 0.0, val).reshape(-1, 1)
