"""trec_eval's preference measures (``-R prefs`` / ``-R qrels_prefs``).

Per query, with the per-judgment-group (JG) counts of
:mod:`pref_eval.measures.prefs_counts` (F = fulfilled, P = possible, each
"ret" = both documents retrieved, "imp" = exactly one retrieved, "no" =
neither; P counts the fulfilled ones too):

* ``prefs_num_prefs_poss`` = Σ_JG (P_ret + P_imp + P_no);
  ``prefs_num_prefs_ful`` = Σ_JG (F_ret + F_imp);
  ``prefs_num_prefs_ful_ret`` = Σ_JG F_ret (summaries are sums).
* ``prefs_simp`` = Σ(F_ret+F_imp) / Σ(P_ret+P_imp+P_no); ``_ret``:
  ΣF_ret / ΣP_ret; ``_imp``: Σ(F_ret+F_imp) / Σ(P_ret+P_imp) (0 when the
  denominator is 0).
* ``prefs_avgjg`` (and ``_ret``, ``_imp``): the same ratio per JG (JGs with
  no possible preference add 0), averaged over the query's JGs; 0 when the
  sum is not > 0.
* ``prefs_pair`` (and ``_ret``, ``_imp``): per judged document pair, the
  fraction of the stated preferences (over all JGs, with multiplicity) that
  agree with the ranking, averaged over the pairs; a pair with neither
  document retrieved scores 0 (``prefs_pair``), is ignored (``_imp``);
  ``_ret`` uses pairs with both retrieved.
* ``prefs_avgjg_Rnonrel`` (``_ret``): as ``prefs_avgjg`` but the number of
  non-relevant (rel_level 0) documents of each JG is set to R, its number of
  relevant ones: with N ≤ R non-relevant, R−N always-fulfilled non-relevant
  documents are added below each relevant one; with N > R only the first R
  non-relevant documents (internal-rank order) are kept. A JG whose ratio is
  0/0 makes the query's value 0 (C's NaN comparison), as trec_eval does.

Buckley & Voorhees / trec_eval 9+ ``-R prefs`` documentation (get_prefs.c
header): "preferences ... within a judgment group"; measures described in
``trec_eval -h -m all_prefs``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import EvalContext, measure
from .nicknames import trec_order

if TYPE_CHECKING:
    from ..collection import Ranked

_SETS_ALL = frozenset({"all_prefs"})
_SETS_BOTH = frozenset({"all_prefs", "prefs"})
_CITE = "trec_eval 10, -R prefs (C. Buckley)"


def _pc(ctx: EvalContext):
    return ctx.required("prefs", "preference measures (prefs_*) need -R prefs or -R qrels_prefs")


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(len(den)), where=den != 0)


def _avg_over_jg(pc, per_jg: np.ndarray) -> np.ndarray:
    s = pc.per_query(per_jg)
    with np.errstate(invalid="ignore"):
        ok = s > 0.0  # False for NaN, as C's `sum > 0.0`
    return np.where(ok, s / np.maximum(pc.njg, 1), 0.0)


def _col(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float64).reshape(-1, 1)


def _count(name: str, text: str, formula: str, sets=_SETS_BOTH):
    return measure(name, trec_order(name), text, formula=formula, aggregate="sum", value_type="int",
                   uses_level=False, nicknames=sets, citation=_CITE)


def _mean(name: str, text: str, formula: str, sets=_SETS_ALL):
    return measure(name, trec_order(name), text, formula=formula, uses_level=False,
                   nicknames=sets, citation=_CITE)


@_count("prefs_num_prefs_poss", "Number of possible preferences, retrieved or not.", "Σ_JG (P_ret + P_imp + P_no)")
def num_prefs_poss(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(pc.per_query(pc.poss_ret + pc.poss_imp + pc.notoccur))


@_count("prefs_num_prefs_ful", "Number of preferences fulfilled (including implied ones).", "Σ_JG (F_ret + F_imp)")
def num_prefs_ful(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(pc.per_query(pc.ful_ret + pc.ful_imp))


@_count("prefs_num_prefs_ful_ret", "Number of preferences fulfilled with both documents retrieved.",
        "Σ_JG F_ret")
def num_prefs_ful_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(pc.per_query(pc.ful_ret))


@_mean("prefs_simp", "Preferences fulfilled / preferences possible.",
       "Σ(F_ret+F_imp) / Σ(P_ret+P_imp+P_no)", _SETS_BOTH)
def prefs_simp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_ratio(pc.per_query(pc.ful_ret + pc.ful_imp),
                       pc.per_query(pc.poss_ret + pc.poss_imp + pc.notoccur)))


@_mean("prefs_simp_ret", "prefs_simp among pairs with both documents retrieved.", "ΣF_ret / ΣP_ret")
def prefs_simp_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_ratio(pc.per_query(pc.ful_ret), pc.per_query(pc.poss_ret)))


@_mean("prefs_simp_imp", "prefs_simp ignoring pairs with neither document retrieved.",
       "Σ(F_ret+F_imp) / Σ(P_ret+P_imp)")
def prefs_simp_imp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_ratio(pc.per_query(pc.ful_ret + pc.ful_imp), pc.per_query(pc.poss_ret + pc.poss_imp)))


@_mean("prefs_pair", "Per document pair, fraction of its preferences fulfilled; mean over pairs.",
       "mean over judged pairs of agree/(agree+disagree); 0 if neither retrieved", _SETS_BOTH)
def prefs_pair(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_ratio(pc.pair_sum_imp, pc.pair_n_all))


@_mean("prefs_pair_ret", "prefs_pair over pairs with both documents retrieved.",
       "mean over retrieved pairs of agree/(agree+disagree)")
def prefs_pair_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_ratio(pc.pair_sum_ret, pc.pair_n_ret))


@_mean("prefs_pair_imp", "prefs_pair ignoring pairs with neither document retrieved.",
       "mean over pairs with ≥1 retrieved of agree/(agree+disagree)")
def prefs_pair_imp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_ratio(pc.pair_sum_imp, pc.pair_n_imp))


@_mean("prefs_avgjg", "prefs_simp per judgment group, averaged over the groups.",
       "mean_JG (F_ret+F_imp)/(P_ret+P_imp+P_no)", _SETS_BOTH)
def prefs_avgjg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_avg_over_jg(pc, _ratio(pc.ful_ret + pc.ful_imp, pc.poss_ret + pc.poss_imp + pc.notoccur)))


@_mean("prefs_avgjg_ret", "prefs_simp_ret per judgment group, averaged over the groups.",
       "mean_JG F_ret/P_ret")
def prefs_avgjg_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_avg_over_jg(pc, _ratio(pc.ful_ret, pc.poss_ret)))


@_mean("prefs_avgjg_imp", "prefs_simp_imp per judgment group, averaged over the groups.",
       "mean_JG (F_ret+F_imp)/(P_ret+P_imp)")
def prefs_avgjg_imp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_avg_over_jg(pc, _ratio(pc.ful_ret + pc.ful_imp, pc.poss_ret + pc.poss_imp)))


@_mean("prefs_avgjg_Rnonrel", "prefs_avgjg with the non-relevant documents of each group set to R.",
       "mean_JG F'/P' with N non-relevant replaced by R")
def prefs_avgjg_rnonrel(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_avg_over_jg(pc, pc.rnonrel))


@_mean("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel among retrieved documents.",
       "mean_JG F'_ret/P'_ret with N_ret non-relevant replaced by R_ret")
def prefs_avgjg_rnonrel_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pc = _pc(ctx)
    return _col(_avg_over_jg(pc, pc.rnonrel_ret))
