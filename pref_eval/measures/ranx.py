"""ranx's metrics under ranx's names: ``ndcg@10``, ``map@100``, ``mrr``, ``hit_rate@5``, ``bpref-l2`` ...

ranx (Bassani, ECIR 2022, https://github.com/AmenRa/ranx) names a metric
``name[@k][-lN]``: ``@k`` evaluates the top k (none: the whole ranking),
``-lN`` sets the relevance level (a document is relevant when its grade is
≥ N; default 1, here the ``-l`` option, itself 1 by default). RBP takes its
persistence instead of a cutoff: ``rbp.95`` (p = 0.95; also ``rbp@95``).

Definitions, per query, as ranx's documentation gives them, with Rel =
{d in the qrels : grade(d) ≥ l}, R = |Rel|, n = |Ret|, k' = min(k, n) (k'
= n without ``@k``), hits@k = |Rel ∩ Ret[:k']|. Every value is 0 when R = 0.

* ``hits@k`` = hits@k;  ``hit_rate@k`` = [hits@k > 0];
* ``precision@k`` = hits@k / k (the k asked for, also when fewer were
  retrieved; without ``@k``: hits / n, 0 when nothing was retrieved);
* ``recall@k`` = hits@k / R;  ``f1@k`` = 2·P·Rc / (P + Rc) of those two
  (0 when P + Rc = 0);  ``r-precision`` = hits@R / R;
* ``mrr@k`` = 1 / rank of the first relevant document in Ret[:k'];
* ``map@k`` = (1/R) Σ_{i ≤ k', d_i ∈ Rel} P@i;
* ``dcg@k`` = Σ_{i ≤ k'} g(d_i) / log2(i + 1), g = grade for d ∈ Rel, else 0
  (Järvelin & Kekäläinen, ACM TOIS 20(4), 2002); ``dcg_burges@k`` the same
  with g = 2^grade − 1 (Burges et al., ICML 2005);
* ``ndcg@k`` = dcg@k / idcg@k, the ideal ranking being Rel by grade
  descending, also cut at k (``ndcg_burges@k`` with Burges' gain);
* ``bpref`` = (1/R) Σ_{retrieved d ∈ Rel} (1 − min(n_d, R) / min(R, N)) over
  the ranking without the documents absent from the qrels, N = |{d in the
  qrels : grade(d) < l}| (negative grades included), n_d the number of those
  ranked above d (Buckley & Voorhees, SIGIR 2004). ranx's value when N = 0
  and a relevant document is retrieved is 0/0 = NaN, and NaN is what we give;
* ``rbp.p`` = (1 − p) Σ_i g(d_i) p^(i−1) over the whole ranking, g = grade
  for d ∈ Rel, else 0 (the grade itself, not rescaled: Moffat & Zobel, ACM
  TOIS 27(1), 2008, with ranx's gains).

Documents tied on score are ranked as everywhere in pref_eval (trec_eval's
order: docno descending); ranx's order of ties depends on its input type and
on its sort (docs/measures.md, "Coming from ranx"). Vectorised over the flat
:class:`~pref_eval.collection.Ranked` arrays: no loop per query or document.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import re

import numpy as np

from .. import libm

from ..errors import UsageError, option_name
from .base import EvalContext, MeasureRequest, MeasureSpec
from .rankutil import cum_within, first_pos

if TYPE_CHECKING:
    from ..collection import Ranked

RANX = "ranx (Bassani, ECIR 2022; github.com/AmenRa/ranx)"
JK = "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002"
BURGES = "Burges et al., ICML 2005"
PREFIX = "ranx:"


def _level(ctx: EvalContext) -> int:
    if ctx.level < 0:
        raise UsageError(f"ranx metrics take a relevance level ≥ 0 ({option_name('level', '-l')}; got {ctx.level})")
    return int(ctx.level)


def _cut(r, k: int) -> np.ndarray:
    """Mask of the retrieved documents in the top k (every document for k = 0)."""
    return np.ones(len(r.pos), dtype=bool) if k == 0 else r.pos < k


def _hits(r, k: int, level: int) -> np.ndarray:
    return r.per_query_sum((r.grade >= level) & _cut(r, k))


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


def _gain(grade: np.ndarray, level: int, burges: bool) -> np.ndarray:
    g = grade.astype(np.float64)
    g = libm.exp2(grade) - 1.0 if burges else g
    return np.where(grade >= level, g, 0.0)


def _dcg(r, k: int, level: int, burges: bool) -> np.ndarray:
    m = _cut(r, k) & (r.grade >= level)
    disc = libm.log2(r.pos[m] + 2)
    return np.bincount(r.qidx[m], weights=_gain(r.grade[m], level, burges) / disc, minlength=r.nq)


def _idcg(r, k: int, level: int, burges: bool) -> np.ndarray:
    jq = r.jqidx()
    jpos = np.arange(len(r.jgrade)) - r.jptr[:-1][jq]  # rank in the ideal ranking (grades descending)
    m = (r.jgrade >= level) & ((jpos < k) if k else True)
    disc = libm.log2(jpos[m] + 2)
    return np.bincount(jq[m], weights=_gain(r.jgrade[m], level, burges) / disc, minlength=r.nq)


def hits(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _hits(r, params[0], _level(ctx))


def hit_rate(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return (_hits(r, params[0], _level(ctx)) > 0).astype(np.float64)


def precision(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    k = params[0]
    h = _hits(r, k, _level(ctx))
    return h / k if k else _div(h, r.num_ret)


def recall(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    level = _level(ctx)
    return _div(_hits(r, params[0], level), r.num_rel(level))


def f1(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    level, k = _level(ctx), params[0]
    h = _hits(r, k, level)
    p = h / k if k else _div(h, r.num_ret)
    rc = _div(h, r.num_rel(level))
    return _div(2.0 * (p * rc), p + rc)


def r_precision(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    level = _level(ctx)
    R = r.num_rel(level)
    return _div(r.per_query_sum((r.grade >= level) & (r.pos < R[r.qidx])), R)


def mrr(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    f = first_pos(r, (r.grade >= _level(ctx)) & _cut(r, params[0]))
    return np.divide(1.0, f + 1.0, out=np.zeros(r.nq), where=f >= 0)


def average_precision(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    from .ap import ap_values  # (importing registers trec_eval's AP family: only when needed)

    return ap_values(r, _level(ctx), params[0] or None)


def dcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _dcg(r, params[0], _level(ctx), False)


def dcg_burges(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _dcg(r, params[0], _level(ctx), True)


def _ndcg(r, k: int, level: int, burges: bool) -> np.ndarray:
    return _div(_dcg(r, k, level, burges), _idcg(r, k, level, burges))


def ndcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _ndcg(r, params[0], _level(ctx), False)


def ndcg_burges(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _ndcg(r, params[0], _level(ctx), True)


def bpref(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    level = _level(ctx)
    from ..collection import NONPOOL

    rel = r.grade >= level
    nonrel = (r.grade != NONPOOL) & ~rel  # judged below the level, negative grades included
    idx = np.flatnonzero(rel)
    above = cum_within(r, nonrel, at=idx)
    R = r.num_rel(level)
    N = r.count_judged(r.jgrade < level).astype(np.int64)
    q = r.qidx[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = 1.0 - np.minimum(above, R[q]) / np.minimum(R[q], N[q]).astype(np.float64)
    s = np.bincount(q, weights=contrib, minlength=r.nq)
    return _div(s, R)


def rbp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    level, p = _level(ctx), params[0]
    m = r.grade >= level
    w = _gain(r.grade[m], level, False) * libm.power(p, r.pos[m])
    return (1.0 - p) * np.bincount(r.qidx[m], weights=w, minlength=r.nq)


# name → (compute, description, formula, takes @k, bounds, citation)
_TABLE: dict[str, tuple] = {
    "hits": (hits, "Relevant documents in the top k.", "|Rel ∩ Ret[:k]|", True, None, RANX),
    "hit_rate": (hit_rate, "Whether a relevant document is in the top k.", "[|Rel ∩ Ret[:k]| > 0]", True,
                 (0.0, 1.0), RANX),
    "precision": (precision, "Precision at k (ranx).", "|Rel ∩ Ret[:k]| / k  (no @k: / |Ret|)", True, (0.0, 1.0),
                  "van Rijsbergen 1979; " + RANX),
    "recall": (recall, "Recall at k (ranx).", "|Rel ∩ Ret[:k]| / R", True, (0.0, 1.0), "van Rijsbergen 1979; " + RANX),
    "f1": (f1, "F1 of precision@k and recall@k (ranx).", "2·P@k·R@k / (P@k + R@k)", True, (0.0, 1.0),
           "van Rijsbergen 1979; " + RANX),
    "r-precision": (r_precision, "Precision at R (ranx).", "|Rel ∩ Ret[:R]| / R", False, (0.0, 1.0),
                    "Buckley & Voorhees, SIGIR 2000; " + RANX),
    "mrr": (mrr, "Reciprocal rank of the first relevant document in the top k (ranx).",
            "1 / rank(first d ∈ Rel in Ret[:k])", True, (0.0, 1.0), "Voorhees, TREC-8 QA 1999; " + RANX),
    "map": (average_precision, "Average precision over the top k (ranx).", "(1/R) Σ_{i≤k: d_i ∈ Rel} P@i", True,
            (0.0, 1.0), "Buckley & Voorhees 2005; " + RANX),
    "dcg": (dcg, "DCG at k, linear gain (ranx).", "Σ_{i≤k} g(d_i)/log2(i+1), g = grade if ≥ l else 0", True, None,
            JK + "; " + RANX),
    "dcg_burges": (dcg_burges, "DCG at k, exponential gain (ranx).",
                   "Σ_{i≤k} (2^g(d_i) − 1)/log2(i+1), g = grade if ≥ l else 0", True, None, BURGES + "; " + RANX),
    "ndcg": (ndcg, "nDCG at k, linear gain, ideal of Rel cut at k (ranx).", "dcg@k / idcg@k", True, (0.0, 1.0),
             JK + "; " + RANX),
    "ndcg_burges": (ndcg_burges, "nDCG at k, exponential gain (ranx).", "dcg_burges@k / idcg_burges@k", True,
                    (0.0, 1.0), BURGES + "; " + RANX),
    "bpref": (bpref, "bpref with ranx's judged set (negative grades count as judged non-relevant).",
              "(1/R) Σ_{rel d} (1 − min(n_d, R)/min(R, N)), N = |{grade < l}|", False, (0.0, 1.0),
              "Buckley & Voorhees, SIGIR 2004; " + RANX),
    "rbp": (rbp, "Rank-biased precision with the grade as gain (ranx).", "(1−p) Σ_i g(d_i) p^(i−1)", False, None,
            "Moffat & Zobel, ACM TOIS 27(1), 2008; " + RANX),
}

#: The measure of trec_eval / ir-measures with the same per-query value (tests/test_ranx_names.py,
#: test_equal_to_trec_eval_measures, checks each claim), or why there is none.
SAME_AS: dict[str, str] = {
    "hits": "—",
    "hit_rate": "`success.k` (`Success@k`), at the same level",
    "precision": "`P.k` (`P@k`); without @k `set_P` (`SetP`); at the same level",
    "recall": "`recall.k` (`R@k`); without @k `set_recall` (`SetR`); at the same level",
    "f1": "without @k `set_F` (`SetF`); with @k none",
    "r-precision": "`Rprec`, at the same level",
    "mrr": "without @k `recip_rank` (`RR`), at the same level; with @k none (ir-measures' `RR@k` orders "
           "tied documents by docno ascending)",
    "map": "`map_cut.k` (`AP@k`); without @k `map` (`AP`); at the same level",
    "dcg": "without @k, at level 1: `dcg`",
    "dcg_burges": "—",
    "ndcg": "at level 1: `ndcg_cut.k` (`nDCG@k`), without @k `ndcg`; at other levels none (ranx gives the "
            "grades below the level gain 0 and leaves them out of the ideal ranking; trec_eval's nDCG "
            "ignores -l)",
    "ndcg_burges": "at level 1: `nDCG(dcg='exp-log2')@k`",
    "bpref": "none: trec_eval's `bpref` skips negative grades (ranx counts them judged non-relevant) and "
             "counts 1 for a relevant document when no judged non-relevant one exists (ranx: 0/0 = NaN)",
    "rbp": "none: ranx 0.3.21 weighs a document by its grade (above 1 with grades > 1) although its docstring "
           "says 0 or 1; that is the value given. Binary RBP: `RBP(p=0.95, rel=1)`; trec_eval's `rbp` "
           "rescales the grades to [0, 1]",
}

#: ranx's metric names accepted (docs/measures.md "Coming from ranx").
NAMES: tuple[str, ...] = tuple(_TABLE)
#: bare ranx names that are also trec_eval names: bare, they keep trec_eval's meaning.
TREC_NAMES = ("map", "recall", "ndcg", "bpref", "dcg")

SPECS: dict[str, MeasureSpec] = {
    name: MeasureSpec(name=f"ranx:{name}", order=10_000 + i, compute=fn, description=desc, formula=formula,
                      citation=cite, bounds=bounds, empty_value=0.0)
    for i, (name, (fn, desc, formula, _, bounds, cite)) in enumerate(_TABLE.items())
}


def takes_cutoff(name: str) -> bool:
    """Whether ranx's metric ``name`` takes ``@k``."""
    return bool(_TABLE[name][3])


_NAME = r"(?s)(?P<name>[a-z0-9_]+(?:-precision)?)(?P<rest>.*)"  # compiled on use (re's cache)
_REST = r"(?:(?P<sep>[@.])(?P<arg>[^@.]*?))?(?:-l(?P<level>[^@.]*))?"


def parse_ranx(text: str) -> MeasureRequest | None:
    """A ranx metric name → request; None when ``text`` is not one (see the module docstring).

    ``ranx:NAME`` always means ranx's metric (also for the bare names trec_eval
    has too: ``ranx:bpref``); without the prefix, a name is ranx's when its
    head is one of :data:`NAMES`. A malformed one raises a one-line UsageError.
    """
    label = text.strip()
    explicit = label.startswith(PREFIX)
    body = label[len(PREFIX):] if explicit else label
    m = re.fullmatch(_NAME, body)
    if m is None or m.group("name") not in _TABLE:
        if explicit:
            raise UsageError(f"unknown ranx metric {body!r} (ranx names: {', '.join(NAMES)})")
        return None
    name, rest = m.group("name"), m.group("rest")
    takes_k = _TABLE[name][3]
    parts = re.fullmatch(_REST, rest)
    if parts is None:
        raise UsageError(f"measure {label!r}: expected ranx's {name}[@k][-lN]" if name != "rbp" else
                         f"measure {label!r}: expected ranx's rbp.P[-lN] (P the digits of the persistence, rbp.95)")
    sep, arg, lv = parts.group("sep"), parts.group("arg"), parts.group("level")
    level = None
    if lv is not None:
        if not re.fullmatch(r"\d+", lv):
            raise UsageError(f"measure {label!r}: relevance level -l{lv} must be an integer ≥ 0")
        level = int(lv)
    if name == "rbp":
        if sep is None or not re.fullmatch(r"\d+", arg or ""):
            raise UsageError(f"measure {label!r}: ranx's rbp needs its persistence, e.g. rbp.95 (p = 0.95)")
        p = float("0." + arg)
        if p == 0.0:
            raise UsageError(f"measure {label!r}: persistence must be > 0")
        if p == 1.0:  # 0.99…9 with 17 or more nines is the double 1.0: (1 − p)·Σ = 0 for every ranking
            raise UsageError(f"measure {label!r}: persistence 0.{arg} is 1 as a double; it must be < 1")
        params: tuple = (p,)
    elif sep is not None:
        if sep == "." or not takes_k:
            raise UsageError(f"measure {label!r}: ranx's {name} takes " +
                             ("no cutoff" if not takes_k else f"its cutoff as @k, e.g. {name}@10"))
        if re.fullmatch(r"\d+(,\d+)+", arg):  # ndcg@5,10: one name per cutoff, as in ranx
            each = " ".join(label.replace(f"@{arg}", f"@{k}") for k in arg.split(","))
            raise UsageError(f"measure {label!r}: a ranx name takes one cutoff; names are separated by spaces "
                             f"(or given as a list): {each!r}")
        if not re.fullmatch(r"\d+", arg) or int(arg) < 1:
            raise UsageError(f"measure {label!r}: cutoff @{arg} must be an integer ≥ 1 (no @k: the whole ranking)")
        params = (int(arg),)
    else:
        if not explicit and lv is None and name in TREC_NAMES:
            return None  # bare trec_eval name: trec_eval's meaning (parsed before this is reached)
        params = (0,)
    return MeasureRequest(SPECS[name], params, None, level=level, label=label)
