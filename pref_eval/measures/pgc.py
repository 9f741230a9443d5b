"""Preference-graph compatibility (PGC) from pairwise judgments (``-P judgments``).

Luo, Clarke & Smucker, "Evaluation measures based on preference graphs",
SIGIR 2021 (the greedy variant; the measure Yan et al., SIGIR 2022, use in
section 5.4). Per query, the judgments form a directed multigraph with an
edge winner → loser per judgment (score > 1/2: the second document wins;
< 1/2: the first; exactly 1/2, a tie: no edge; self-pairs are ignored). An
ideal ranking is read off the graph with Eades, Lin & Smyth's greedy
feedback-arc-set heuristic, ties broken by the run being evaluated:

1. while the graph has sinks (out-degree 0): remove one — the one the run
   ranks lowest, a document the run did not retrieve first — and put it in
   front of the tail list s2;
2. while it has sources (in-degree 0): remove one — the one the run ranks
   highest — and append it to the head list s1;
3. remove the node with the largest out-degree − in-degree (ties: the one
   the run ranks highest), append it to s1; repeat from 1 until empty.

The ideal is s1 + s2. Documents the run did not retrieve are ordered among
themselves by docno (the reference code leaves that order to Python's set
iteration). PGC is the rank-biased overlap of the run R with the ideal I at
depth 1000 (the reference's DEPTH), persistence p (default 0.8):

    PGC = Σ_{i=1}^{1000} p^{i−1} |R[:i] ∩ I[:i]| / i  /  Σ_{i=1}^{1000} p^{i−1}

A query without judgments scores 0. The greedy removal runs for all queries
at once, one vectorised step per removed node.
"""
from __future__ import annotations

from typing import TYPE_CHECKING


import numpy as np

from .. import libm

from ..records import record
from ..io.keys import exact_pair_keys, lookup_sorted
from .base import EvalContext, measure
from .params import Param

if TYPE_CHECKING:
    from ..collection import Ranked
    from ..zelo.judgments import Judgments

DEPTH = 1000
ORDER_PGC = 1400
CITE = "Luo, Clarke & Smucker, SIGIR 2021 (greedy PGC); Eades, Lin & Smyth, IPL 47(6) 1993"
P_PGC = Param("p", float, 0.8, "persistence of the rank-biased overlap", low=0.0, high=1.0,
              low_open=True, high_open=True)


@record(frozen=True)
class PreferenceGraph:
    """Judgment graphs of the evaluated queries (flat, query-major nodes)."""

    node_q: np.ndarray  # query (index in the ranked run) of each node
    docno: np.ndarray  # bytes
    src: np.ndarray  # edges winner → loser (node ids)
    dst: np.ndarray


def preference_graph(r: Ranked, judgments: Judgments) -> PreferenceGraph:
    """The judgment graph of every query of ``r`` (a :class:`~pref_eval.collection.Ranked`)."""
    q, a, b, score, _ = judgments.arrays()
    # an id read as its bytes (a Latin-1 docno: surrogate escapes) is those bytes again, as the run's
    qids = np.array([s.encode("utf-8", "surrogateescape") for s in judgments.queries], dtype="S") \
        if judgments.queries else np.zeros(0, "S1")
    # map judgment queries to the run's query index
    loc = np.minimum(np.searchsorted(r.qids, qids), max(r.nq - 1, 0))
    jmap = np.where((r.qids[loc] == qids) if r.nq else np.zeros(len(qids), bool), loc, -1)
    keep = (score != 0.5) & (a != b) & (jmap[q] >= 0) if len(q) else np.zeros(0, bool)
    q, a, b, score = q[keep], a[keep], b[keep], score[keep]
    win = np.where(score > 0.5, b, a)
    lose = np.where(score > 0.5, a, b)
    # nodes: distinct (query, local doc) among the edges
    width = max((len(d) for d in judgments.docs.values()), default=1)
    ew = q * width + win
    el = q * width + lose
    nodes, inv = np.unique(np.concatenate([ew, el]), return_inverse=True)
    inv = inv.reshape(-1)
    nq_j = nodes // width
    nd = nodes % width
    # every document of the table once (the Judgments lists), then gathered by (query, local index)
    per_q = [judgments.docs[qid] for qid in judgments.queries]
    off = np.concatenate([[0], np.cumsum([len(d) for d in per_q])]).astype(np.int64)
    flat = np.array([d.encode("utf-8", "surrogateescape") for docs in per_q for d in docs], dtype="S") \
        if off[-1] else np.zeros(0, "S1")
    docno = flat[off[nq_j] + nd] if len(nodes) else np.zeros(0, "S1")
    node_q = jmap[nq_j]
    # nodes in run-query order (stable), edges renumbered
    o = np.argsort(node_q, kind="stable")
    ren = np.empty(len(o), dtype=np.int64)
    ren[o] = np.arange(len(o))
    return PreferenceGraph(node_q=node_q[o], docno=docno[o], src=ren[inv[: len(ew)]], dst=ren[inv[len(ew):]])


def _priority(r, g: PreferenceGraph) -> np.ndarray:
    """Per node: 0-based run rank if retrieved, else after every retrieved one in docno order (unique per query)."""
    n = len(g.node_q)
    rdoc = r.docno if r.docno is not None else np.zeros(0, dtype="S1")
    nk, ek = exact_pair_keys(g.node_q, g.docno, r.qidx, rdoc)
    eo = np.argsort(ek, kind="stable")
    found, h = lookup_sorted(ek[eo], nk)
    pos = np.where(found, r.pos[eo[h]] if len(eo) else 0, -1).astype(np.int64)
    big = int(r.num_ret.max()) + 1 if r.nq else 1
    unret = pos < 0
    # unretrieved: docno order inside the query
    o = np.lexsort((g.docno, g.node_q))
    rank_in = np.empty(n, dtype=np.int64)
    rank_in[o] = np.arange(n)
    return np.where(unret, big + rank_in, pos)


def ideal_ranking(r: Ranked, g: PreferenceGraph) -> tuple[np.ndarray, np.ndarray]:
    """``(node_q, order)``: the greedy ideal ranking's nodes per query, flat and query-major."""
    n = len(g.node_q)
    nq = r.nq
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    prio = _priority(r, g).astype(np.float64)
    outdeg = np.bincount(g.src, minlength=n).astype(np.int64)
    indeg = np.bincount(g.dst, minlength=n).astype(np.int64)
    alive = np.ones(n, dtype=bool)
    ealive = np.ones(len(g.src), dtype=bool)
    phase_p = np.zeros(nq, dtype=bool)  # False: removing sinks; True: removing sources
    step = np.full(n, -1, dtype=np.int64)
    tail = np.zeros(n, dtype=bool)
    big = float(prio.max()) + 1.0
    t = 0
    nq_nodes = np.bincount(g.node_q, minlength=nq)
    for t in range(int(nq_nodes.max())):
        sink = alive & (outdeg == 0)
        source = alive & (indeg == 0)
        has_sink = np.bincount(g.node_q, weights=sink, minlength=nq) > 0
        has_source = np.bincount(g.node_q, weights=source, minlength=nq) > 0
        active = np.bincount(g.node_q, weights=alive, minlength=nq) > 0
        cat_s = active & ~phase_p & has_sink
        cat_p = active & ~cat_s & has_source
        cat_d = active & ~cat_s & ~cat_p
        nqq = g.node_q
        key = np.full(n, np.inf)
        m = alive & cat_s[nqq] & sink
        key[m] = -prio[m]                      # sinks: the lowest-ranked first
        m = alive & cat_p[nqq] & source
        key[m] = prio[m]                       # sources: the highest-ranked first
        m = alive & cat_d[nqq]
        key[m] = -(outdeg[m] - indeg[m]) * big + prio[m]
        best = np.full(nq, np.inf)
        np.minimum.at(best, nqq, key)
        pick = np.flatnonzero(alive & (key == best[nqq]) & np.isfinite(key))
        step[pick] = t
        tail[pick] = cat_s[nqq[pick]]
        alive[pick] = False
        phase_p = np.where(cat_s, False, np.where(cat_p, True, np.where(cat_d, False, phase_p)))
        gone = np.zeros(n, dtype=bool)
        gone[pick] = True
        dead = ealive & (gone[g.src] | gone[g.dst])
        ealive &= ~dead
        outdeg -= np.bincount(g.src[dead], minlength=n)
        indeg -= np.bincount(g.dst[dead], minlength=n)
    # s1 in removal order, then s2 in reverse removal order
    order = np.lexsort((np.where(tail, -step, step), tail, g.node_q))
    return g.node_q[order], order


def pgc_values(r: Ranked, judgments: Judgments, p: float) -> np.ndarray:
    """Per-query PGC of run ``r`` against ``judgments`` (module doc)."""
    g = preference_graph(r, judgments)
    iq, order = ideal_ranking(r, g)
    nq = r.nq
    cnt = np.bincount(iq, minlength=nq)
    ipos = np.arange(len(iq)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    w = libm.power(p, np.arange(DEPTH))
    S = np.concatenate([[0.0], np.cumsum(w / np.arange(1, DEPTH + 1))])
    rdoc = r.docno if r.docno is not None else np.zeros(0, dtype="S1")
    nk, ek = exact_pair_keys(iq, g.docno[order], r.qidx, rdoc)
    eo = np.argsort(ek, kind="stable")
    found, h = lookup_sorted(ek[eo], nk)
    rpos = np.where(found, r.pos[eo[h]] if len(eo) else 0, -1)
    m = np.maximum(ipos, rpos)
    ok = found & (m < DEPTH)
    num = np.bincount(iq[ok], weights=S[DEPTH] - S[m[ok]], minlength=nq)
    return num / float(w.sum())


def _judgments(ctx: EvalContext):
    return ctx.required("judgments", "PGC needs pairwise judgments: zelo_eval -P JUDGMENTS (any format zelo_fit "
                        "reads), or pref_eval.evaluate(..., judgments=...)")


@measure("PGC", ORDER_PGC, "Preference-graph compatibility: RBO with the greedy ideal of the judgment graph."
         " Not an ir-measures measure: the name only uses its syntax.",
         formula="Σ_{i≤1000} p^(i−1)|R[:i] ∩ I[:i]|/i / Σ_{i≤1000} p^(i−1), I = greedy FAS order of the -P graph",
         citation=CITE, uses_level=False, irm="PGC", keywords=(P_PGC,), needs=frozenset({"judgments"}))
def pgc(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    opts = getattr(ctx, "opts", None) or {}
    return pgc_values(r, _judgments(ctx), float(opts.get("p", 0.8))).reshape(-1, 1)
