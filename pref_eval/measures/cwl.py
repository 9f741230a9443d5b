"""The C/W/L family: BPM, SDCG@k, INST, INSQ, NERR8@k, NERR9@k, NERR10, NERR11 (cwl_eval's definitions).

C/W/L framework (Moffat et al., TOIS 2017; Azzopardi, Thomas & Moffat,
SIGIR 2019): a user examines rank i and continues to rank i+1 with
probability C(i); the weight of rank i is

    W(i) = Π_{j<i} C(j) / Σ_{k=1}^{n} Π_{j<k} C(j)

over n = 1000 ranks (cwl_eval's depth: the ranking is cut at 1000 and padded
with gain 0), and the measure is the expected utility per item
EU = Σ_{i≤n} W(i) g_i. Gains are the qrels grades mapped to [0, 1]:
g = (min(max(rel, min_rel), max_rel) − min_rel) / (max_rel − min_rel), with
negative grades, unjudged and unpooled documents at 0 (ir-measures' cwl_eval
provider; ``max_rel`` has no default, ``min_rel`` defaults to 0).
G(i) = Σ_{j≤i} g_j. C(i) per measure:

* BPM(T, K=cutoff): 1 while G(i) < T and i < K, else 0 (static Bejewelled
  Player Model; Zhang et al., SIGIR 2017);
* SDCG@k: log2(i+1)/log2(i+2) for i < k, else 0 (scaled DCG; Järvelin &
  Kekäläinen, TOIS 2002, in C/W/L form);
* INST(T): ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − G(i) (Bailey,
  Moffat, Scholer & Thomas, SIGIR 2015);
* INSQ(T): ((i + 2T − 1)/(i + 2T))² (Moffat, Scholer & Thomas, ADCS 2012);
* NERR8@k: 1 − g_i for i < k, else 0; NERR9@k: (i/(i+1))(1 − g_i) for
  i < k, else 0; NERR10(p): p(1 − g_i); NERR11(T): INSQ's C(i)·(1 − g_i)
  (Azzopardi, Mackenzie & Moffat, ICTIR 2021).

T defaults to 1, p to 0.9. T = 0 is allowed for BPM, INSQ and NERR11
(C(1) = 0: the user stops at rank 1, EU = g_1, as cwl_eval); INST needs T > 0
(at T = 0 its C(1) = ((−g_1)/(1 − g_1))² exceeds 1, or is 1/0 when g_1 = 1).
The ranking is pref_eval's (score descending, ties by docno descending); cwl_eval keeps the order of its input for ties.
Computed on a dense (queries × 1000) array, in blocks of queries.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .. import libm

from ..errors import UsageError
from .base import EvalContext, measure
from .params import NOT_GIVEN, Param

if TYPE_CHECKING:
    from ..collection import Ranked

DEPTH = 1000
BLOCK = 2048
ORDER_CWL = 1200
ATM2019 = "Azzopardi, Thomas & Moffat, cwl_eval, SIGIR 2019"

MAX_REL = Param("max_rel", int, NOT_GIVEN, "highest grade (gain 1); required", low=1)
MIN_REL = Param("min_rel", int, 0, "grade with gain 0 (lower grades too)", low=0)
#: T ≤ 10³⁰⁰: INST's i + T + T_i and INSQ's i + 2T overflow near the float maximum (cwl_eval and this code then
#: give NaN: inf/inf); long before that C(i) = 1 to the last bit (the weights of a user who never stops)
T_MAX = 1e300
T_P = Param("T", float, 1.0, "desired total gain (in [0,1] gain units; 0: the user stops at rank 1)", low=0.0,
            high=T_MAX)
T_INST = Param("T", float, 1.0, "desired total gain (in [0,1] gain units; > 0: at 0, C(i) divides by zero "
               "when the first i gains are 1)", low=0.0, low_open=True, high=T_MAX)
P_P = Param("p", float, 0.9, "continuation factor φ", low=0.0, high=1.0)
DCG_P = Param("dcg", str, "log2", "DCG discount (cwl_eval has only log2)", choices=("log2",))
CUT_REQ = Param("cutoff", int, NOT_GIVEN, "rank cutoff k (also written @k); required", low=1, role="cutoff")


def _validate(text: str, options: dict) -> None:
    if "max_rel" not in options:
        raise UsageError(f"measure {text!r}: needs max_rel, the highest grade (e.g. max_rel=3), as in ir-measures")
    if options.get("min_rel", 0) >= options["max_rel"]:
        raise UsageError(f"measure {text!r}: min_rel must be below max_rel")


def _opts(ctx: EvalContext, name: str):
    opts = getattr(ctx, "opts", None) or {}
    if "max_rel" not in opts:
        raise UsageError(f"{name} needs max_rel, the highest grade: use the ir-measures syntax, "
                         f"e.g. {name}(max_rel=3)")
    return opts


def _gains(r, min_rel: int, max_rel: int) -> np.ndarray:
    g = np.clip(np.maximum(np.asarray(r.grade, dtype=np.float64), 0.0), min_rel, max_rel)
    return (g - min_rel) / float(max_rel - min_rel)


def _opts_gains(r: Ranked, ctx: EvalContext, name: str) -> tuple[dict, np.ndarray]:
    """The measure's options (``max_rel`` required) and the gains (g - min_rel) / (max_rel - min_rel) of ``r``."""
    o = _opts(ctx, name)
    return o, _gains(r, o.get("min_rel", 0), o["max_rel"])


def expected_utility(r: Ranked, gain: np.ndarray, cfun: Callable[..., np.ndarray]) -> np.ndarray:
    """EU per query for the continuation function ``cfun(G_block, cumG_block, ranks) -> C``.

    ``gain`` flat per retrieved document; ranks ≥ DEPTH are dropped.
    """
    nq = r.nq
    out = np.zeros(nq)
    keep = r.pos < DEPTH
    qi, pos, g = r.qidx[keep], r.pos[keep], gain[keep]
    ranks = np.arange(1, DEPTH + 1, dtype=np.float64)
    for b0 in range(0, nq, BLOCK):
        b1 = min(nq, b0 + BLOCK)
        sel = (qi >= b0) & (qi < b1)
        G = np.zeros((b1 - b0, DEPTH))
        G[qi[sel] - b0, pos[sel]] = g[sel]
        C = cfun(G, np.cumsum(G, axis=1), ranks)
        reach = np.ones_like(C)
        reach[:, 1:] = np.cumprod(C[:, :-1], axis=1)
        W = reach / reach.sum(axis=1, keepdims=True)
        out[b0:b1] = (W * G).sum(axis=1)
    return out


def _family(name: str, k: int, text: str, **kw):
    return measure(name, ORDER_CWL + k, text, citation=kw.pop("citation", ATM2019), uses_level=False,
                   validate=_validate, **kw)


_GAIN_KW = (MIN_REL, MAX_REL)


@_family("BPM", 0, "Bejewelled Player Model (static): mean gain over the ranks examined before T gain or K docs.",
         formula="C(i) = [G(i) < T and i < K]; EU = Σ W(i) g_i", param_kind="cutoffs", defaults=(10,),
         irm="BPM@", keywords=(CUT_REQ, T_P, *_GAIN_KW),
         citation="Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017 (cwl_eval)")
def bpm(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "BPM")
    T = float(o.get("T", 1.0))
    return np.column_stack([expected_utility(r, g, lambda G, cg, ranks, k=int(k): (cg < T) & (ranks < k))
                            for k in params])


@_family("SDCG", 1, "Scaled DCG@k: DCG's discount as a C/W/L weight (sums to 1 over the top k).",
         formula="C(i) = log2(i+1)/log2(i+2) for i < k; EU = Σ_{i≤k} g_i/log2(i+1) / Σ_{i≤k} 1/log2(i+1)",
         param_kind="cutoffs", defaults=(10,), irm="SDCG@", keywords=(CUT_REQ, DCG_P, *_GAIN_KW),
         citation="Järvelin & Kekäläinen, TOIS 2002; cwl_eval's NDCG-k")
def sdcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "SDCG")

    def cf(G, cg, ranks, k):
        return np.where(ranks < k, libm.log2(ranks + 1.0) / libm.log2(ranks + 2.0), 0.0)[None, :] * np.ones_like(G)

    return np.column_stack([expected_utility(r, g, lambda G, cg, ranks, k=int(k): cf(G, cg, ranks, k))
                            for k in params])


@_family("INST", 2, "INST: adaptive patience; the user wants T gain (Bailey et al., SIGIR 2015).",
         formula="C(i) = ((i+T+T_i−1)/(i+T+T_i))², T_i = T − G(i)", irm="INST", keywords=(T_INST, *_GAIN_KW),
         citation="Bailey, Moffat, Scholer & Thomas, SIGIR 2015 (cwl_eval)")
def inst(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "INST")
    T = float(o.get("T", 1.0))

    def cf(G, cg, ranks):
        Ti = T - cg
        return ((ranks + T + Ti - 1.0) / (ranks + T + Ti)) ** 2.0

    return expected_utility(r, g, cf).reshape(-1, 1)


@_family("INSQ", 3, "INSQ: INST's patience without the gain feedback (Moffat et al., ADCS 2012).",
         formula="C(i) = ((i+2T−1)/(i+2T))²", irm="INSQ", keywords=(T_P, *_GAIN_KW),
         citation="Moffat, Scholer & Thomas, ADCS 2012 (cwl_eval)")
def insq(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "INSQ")
    T = float(o.get("T", 1.0))
    return expected_utility(r, g, lambda G, cg, ranks: np.broadcast_to(
        ((ranks + 2.0 * T - 1.0) / (ranks + 2.0 * T)) ** 2.0, G.shape)).reshape(-1, 1)


NERR_CITE = "Azzopardi, Mackenzie & Moffat, ICTIR 2021 (cwl_eval)"


@_family("NERR8", 4, "Not-but-nearly ERR, eq. 8: stop at a relevant document, cut at k.",
         formula="C(i) = 1 − g_i for i < k, else 0", param_kind="cutoffs", defaults=(10,), irm="NERR8@",
         keywords=(CUT_REQ, *_GAIN_KW), citation=NERR_CITE)
def nerr8(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "NERR8")
    return np.column_stack([expected_utility(r, g, lambda G, cg, ranks, k=int(k): np.where(ranks < k, 1.0 - G, 0.0))
                            for k in params])


@_family("NERR9", 5, "Not-but-nearly ERR, eq. 9: reciprocal-rank patience times (1 − g), cut at k.",
         formula="C(i) = (i/(i+1))(1 − g_i) for i < k, else 0", param_kind="cutoffs", defaults=(10,),
         irm="NERR9@", keywords=(CUT_REQ, *_GAIN_KW), citation=NERR_CITE)
def nerr9(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "NERR9")

    def cf(G, cg, ranks, k):
        return np.where(ranks < k, (ranks / (ranks + 1.0)) * (1.0 - G), 0.0)

    return np.column_stack([expected_utility(r, g, lambda G, cg, ranks, k=int(k): cf(G, cg, ranks, k))
                            for k in params])


@_family("NERR10", 6, "Not-but-nearly ERR, eq. 10: RBP-like patience p times (1 − g).",
         formula="C(i) = p(1 − g_i)", irm="NERR10", keywords=(P_P, *_GAIN_KW), citation=NERR_CITE)
def nerr10(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "NERR10")
    p = float(o.get("p", 0.9))
    return expected_utility(r, g, lambda G, cg, ranks: p * (1.0 - G)).reshape(-1, 1)


@_family("NERR11", 7, "Not-but-nearly ERR, eq. 11: INSQ-like patience times (1 − g).",
         formula="C(i) = ((i+2T−1)/(i+2T))² (1 − g_i)", irm="NERR11", keywords=(T_P, *_GAIN_KW),
         citation=NERR_CITE)
def nerr11(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    o, g = _opts_gains(r, ctx, "NERR11")
    T = float(o.get("T", 1.0))
    return expected_utility(r, g, lambda G, cg, ranks: ((ranks + 2.0 * T - 1.0) / (ranks + 2.0 * T)) ** 2.0
                            * (1.0 - G)).reshape(-1, 1)
