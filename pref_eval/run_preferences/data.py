"""Qrels + runs → the arrays every preference measure reads.

pref_eval.py's conventions (docs/differences-pref_eval.md lists where we differ):

* ``-b B``: grade := 1 if grade ≥ B else 0; then ``-f F``: grade := 0 if grade < F.
* Only judgments with grade > 0 are kept; a query without one does not exist.
  Queries are evaluated in the order of their first kept line in the qrels.
* A document judged several times gets the **max** of its grades. The grade
  thresholds ``G_q`` of a query (graded RPP, Diaz & Ferraro 2022 §4) are the
  distinct max grades plus the grades of lines whose subtopic column is not
  ``0``/``Q0`` (pref_eval.py keeps those per subtopic).
* Runs are ranked by score descending, docno descending (the collection's
  order, identical to pref_eval.py's); ``--topk`` keeps the first K.
* A query missing from a run has every relevant document unretrieved.

The **relevance vector** of (run, query) (§2 of the spec) is stored as a row of
``ranks``: the 1-based ranks of the retrieved relevant documents ascending,
then ``BIG`` for each unretrieved one; the query's ``m_q`` slots are
``slot_ptr[q]:slot_ptr[q+1]``. ``granks`` holds the same per grade threshold
group (``gptr``), for graded RPP.
"""
from __future__ import annotations


import numpy as np

from ..records import record
from ..io.keys import distinct

from ..io.qrels import Qrels

BIG = np.int64(1) << 40  # rank of an unretrieved relevant document


@record(frozen=True)
class PrefQrels:
    """Judgments after -b/-f, one row per (query, doc) with the max grade.

    ``qorder`` the evaluated query ids (bytes) in evaluation order; ``qrels``
    the kept (grade > 0) judgments; ``full`` every judgment (grade-0 ones
    too) for registry measures; ``thr``/``tptr`` per evaluated query its
    sorted grade thresholds.
    """

    qorder: np.ndarray
    qrels: Qrels
    full: Qrels
    thr: np.ndarray
    tptr: np.ndarray


def _subtopic(iter_tok: np.ndarray) -> np.ndarray:
    """Subtopic column → int (``Q0`` and anything non-numeric → 0)."""
    out = np.zeros(len(iter_tok), dtype=np.int64)
    for i, t in enumerate(iter_tok):
        if t != b"Q0" and t != b"0":
            try:
                out[i] = int(t)
            except ValueError:
                out[i] = 0
    return out


def _collapse(qid, docno, rel, line, source) -> Qrels:
    """One row per (qid, docno), grade = max."""
    if len(qid) == 0:
        e = np.array([], dtype="S1")
        return Qrels(qid=e, iter=e, docno=e, rel=np.array([], np.int64), line=np.array([], np.int64), source=source)
    o = np.lexsort((rel, docno, qid))
    q, d, r, ln = qid[o], docno[o], rel[o], line[o]
    last = np.ones(len(q), bool)
    last[:-1] = (q[1:] != q[:-1]) | (d[1:] != d[:-1])
    return Qrels(qid=q[last], iter=np.full(int(last.sum()), b"0", dtype="S1"), docno=d[last],
                 rel=r[last].astype(np.int64), line=ln[last], source=source)


def prepare_qrels(q: Qrels, binary: float | None = None, floor: float | None = None,
                  order: np.ndarray | None = None) -> PrefQrels:
    """Apply ``-b``/``-f``, keep grade > 0, collapse duplicates (see module doc).

    ``order``: the evaluation order of an earlier ``prepare_qrels`` on a superset of ``q`` (the
    queries left keep it; by default the order of each query's first kept line). pref_eval.py
    samples labels by deleting them from its qrels dict, which keeps the queries in place even
    when a query's first relevant line is the one dropped.
    """
    rel = q.rel.astype(np.float64)
    if binary is not None:
        rel = (rel >= binary).astype(np.float64)
    if floor is not None:
        rel = np.where(rel < floor, 0.0, rel)
    irel = rel.astype(np.int64)
    keep = rel > 0
    full = _collapse(q.qid, q.docno, np.maximum(irel, 0), q.line, q.source)
    kq = q.qid[keep]
    # evaluation order: first kept line of each query
    uq, first = np.unique(kq, return_index=True)
    qorder = uq[np.argsort(first, kind="stable")] if order is None else order[np.isin(order, uq)]
    kept = _collapse(kq, q.docno[keep], irel[keep], q.line[keep], q.source)
    # thresholds: distinct max grades ∪ grades of subtopic (≠0) lines, last line per (doc, st)
    st = _subtopic(q.iter[keep])
    sub = st != 0
    tq = [kept.qid, kq[sub]]
    tg = [kept.rel, irel[keep][sub]]
    if sub.any():
        # last line wins per (qid, doc, st)
        sq, sd, ss, sg = kq[sub], q.docno[keep][sub], st[sub], irel[keep][sub]
        idx = np.arange(len(sq))
        o = np.lexsort((idx, ss, sd, sq))
        lastm = np.ones(len(o), bool)
        lastm[:-1] = (sq[o][1:] != sq[o][:-1]) | (sd[o][1:] != sd[o][:-1]) | (ss[o][1:] != ss[o][:-1])
        tq[1], tg[1] = sq[o][lastm], sg[o][lastm]
    allq = np.concatenate(tq)
    allg = np.concatenate(tg)
    qe = np.searchsorted(uq, allq)
    # map sorted-query index -> evaluation index
    ev_of_sorted = np.empty(len(uq), dtype=np.int64)
    ev_of_sorted[np.searchsorted(uq, qorder)] = np.arange(len(qorder))
    qe = ev_of_sorted[qe]
    # distinct (query, grade) rows in lexicographic order (np.unique(axis=0) without its import of numpy.ma)
    o = np.lexsort((allg, qe))
    sq_, sg_ = qe[o], allg[o]
    first = np.concatenate([[True], (sq_[1:] != sq_[:-1]) | (sg_[1:] != sg_[:-1])]) if len(o) else np.zeros(0, bool)
    pairs = np.stack([sq_[first], sg_[first]], axis=1) if len(qe) else np.zeros((0, 2), np.int64)
    counts = np.bincount(pairs[:, 0], minlength=len(qorder)) if len(pairs) else np.zeros(len(qorder), np.int64)
    tptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return PrefQrels(qorder=qorder, qrels=kept, full=full, thr=pairs[:, 1].astype(np.int64), tptr=tptr)


@record(frozen=True)
class RelVectors:
    """Relevance vectors of every run (rows) for every evaluated query.

    ``m`` (nq,) relevant documents per query; ``slot_ptr`` (nq+1,);
    ``ranks`` (R, T) int64 ranks (``BIG`` = unretrieved); ``gains`` (R, T)
    the grade of the document in each slot (0 when unretrieved);
    ``ideal`` (T,) the query's grades sorted descending (ideal DCG);
    ``gq``/``gm``/``gptr`` per threshold group its query, size m_g, slots;
    ``granks`` (R, TG); ``qgptr`` (nq+1,) groups of each query;
    ``gfirst`` (R, NG) the best rank at which run r retrieved a document whose
    grade is exactly the group's threshold (``BIG`` if none): pref_eval.py
    sums the graded RPP terms in that order, which fixes the last bits.
    """

    qids: list[str]
    runs: list[str]
    m: np.ndarray
    slot_ptr: np.ndarray
    ranks: np.ndarray
    gains: np.ndarray
    ideal: np.ndarray
    gq: np.ndarray
    gm: np.ndarray
    gptr: np.ndarray
    qgptr: np.ndarray
    granks: np.ndarray
    gfirst: np.ndarray

    @property
    def nq(self) -> int:
        return len(self.m)

    @property
    def nruns(self) -> int:
        return self.ranks.shape[0]

    def slot_query(self) -> np.ndarray:
        return np.repeat(np.arange(self.nq), self.m)

    def slot_index(self) -> np.ndarray:
        """0-based index of each slot inside its query."""
        return np.arange(self.slot_ptr[-1]) - np.repeat(self.slot_ptr[:-1], self.m)


def seg_sum(A: np.ndarray, seg: np.ndarray, nseg: int) -> np.ndarray:
    """Row-wise segment sums of ``A`` (n, T) over column segments ``seg`` (T,).

    Accumulated **sequentially** in column order (``np.bincount`` adds its
    weights in input order), as pref_eval.py's Python loops do, so the floats
    agree bit for bit; ``np.add.reduceat`` would sum pairwise.
    """
    n = A.shape[0]
    if n == 0 or nseg == 0:
        return np.zeros((n, nseg))
    ids = (np.arange(n, dtype=np.int64)[:, None] * nseg + seg[None, :]).ravel()
    return np.bincount(ids, weights=np.ascontiguousarray(A, dtype=np.float64).ravel(),
                       minlength=n * nseg).reshape(n, nseg)


def cumcount(keys_sorted: np.ndarray) -> np.ndarray:
    """Position of each element within its run of equal (sorted) keys."""
    n = len(keys_sorted)
    if n == 0:
        return np.zeros(0, np.int64)
    start = np.ones(n, bool)
    start[1:] = keys_sorted[1:] != keys_sorted[:-1]
    idx = np.arange(n)
    return idx - np.maximum.accumulate(np.where(start, idx, 0))


def relevance_vectors(pq: PrefQrels, ranked: list, names: list[str]) -> RelVectors:
    """Build :class:`RelVectors` from the collection's ranked runs.

    ``ranked`` are :class:`~pref_eval.collection.Ranked` built on
    ``pq.qrels`` with ``complete=True`` (query index = sorted qid order).
    """
    nq = len(pq.qorder)
    kept = pq.qrels
    uq = distinct(kept.qid)
    ev_of_sorted = np.empty(len(uq), dtype=np.int64)
    ev_of_sorted[np.searchsorted(uq, pq.qorder)] = np.arange(nq)
    # per query: docs' grades
    dq = ev_of_sorted[np.searchsorted(uq, kept.qid)]
    m = np.bincount(dq, minlength=nq).astype(np.int64)
    slot_ptr = np.concatenate([[0], np.cumsum(m)]).astype(np.int64)
    T = int(slot_ptr[-1])
    o = np.lexsort((-kept.rel, dq))
    ideal = kept.rel[o].astype(np.float64)
    # threshold groups
    thr, tptr = pq.thr, pq.tptr
    ngq = np.diff(tptr)
    gq = np.repeat(np.arange(nq), ngq)
    # m_g = #docs of the query with grade >= thr
    S = int(max(thr.max() if len(thr) else 1, kept.rel.max() if len(kept.rel) else 1)) + 1
    dkey = np.sort(dq * S + kept.rel)
    gkey = gq * S + thr
    gm = (np.searchsorted(dkey, gq * S + S, side="left") - np.searchsorted(dkey, gkey, side="left")).astype(np.int64)
    gptr = np.concatenate([[0], np.cumsum(gm)]).astype(np.int64)
    qgptr = tptr
    TG = int(gptr[-1])
    R = len(ranked)
    ranks = np.full((R, T), BIG, dtype=np.int64)
    gains = np.zeros((R, T), dtype=np.float64)
    granks = np.full((R, TG), BIG, dtype=np.int64)
    gfirst = np.full((R, len(gq)), BIG, dtype=np.int64)
    for r, rk in enumerate(ranked):
        rel = rk.grade > 0
        qe = ev_of_sorted[np.searchsorted(uq, rk.qids[rk.qidx[rel]])] if rel.any() else np.zeros(0, np.int64)
        rank = rk.pos[rel] + 1
        g = rk.grade[rel]
        oo = np.lexsort((rank, qe))
        qe, rank, g = qe[oo], rank[oo], g[oo]
        k = cumcount(qe)
        ranks[r, slot_ptr[qe] + k] = rank
        exact = np.searchsorted(gkey, qe * S + g, side="left")
        np.minimum.at(gfirst[r], exact, rank)
        gains[r, slot_ptr[qe] + k] = g
        # graded: doc belongs to the first c thresholds of its query
        c = np.searchsorted(gkey, qe * S + g, side="right") - tptr[qe]
        rep = np.repeat(np.arange(len(qe)), c)
        within = np.arange(len(rep)) - np.repeat(np.cumsum(c) - c, c)
        gid = tptr[qe][rep] + within
        o2 = np.lexsort((rank[rep], gid))
        gid_s = gid[o2]
        kk = cumcount(gid_s)
        granks[r, gptr[gid_s] + kk] = rank[rep][o2]
    return RelVectors(qids=[q.decode("utf-8", errors="surrogateescape") for q in pq.qorder], runs=list(names),
                      m=m, slot_ptr=slot_ptr, ranks=ranks, gains=gains, ideal=ideal, gq=gq, gm=gm,
                      gptr=gptr, qgptr=qgptr, granks=granks, gfirst=gfirst)


def head_binary(pq: PrefQrels) -> PrefQrels:
    """``pq`` with every kept judgment at grade 1 (one threshold per query): graded RPP on it equals
    diazf/pref_eval HEAD's numbers (``zelo_eval --pref-eval-head``).

    HEAD (since its 2024 relevance-vector cache) computes Σ_g m_g·rpp_g / Σ_g m_g with every
    ``vector(g)`` answered from the cache that ``compute_preference``'s first ``vector()`` call (at
    the smallest grade) filled: each term is the binary RPP over all relevant documents, so the
    grades are ignored (docs/differences-pref_eval.md).
    """
    import dataclasses

    kept = dataclasses.replace(pq.qrels, rel=np.ones(len(pq.qrels.rel), dtype=np.int64))
    nq = len(pq.tptr) - 1
    return dataclasses.replace(pq, qrels=kept, thr=np.ones(nq, dtype=np.int64),
                               tptr=np.arange(nq + 1, dtype=np.int64))


def head_sum(r: np.ndarray, pq: PrefQrels) -> np.ndarray:
    """HEAD's graded sum of the binary RPP values ``r`` (pairs x queries, :func:`head_binary`), rounded as it
    rounds: ``Σ_g m·r / Σ_g m`` over the query's G grades (``pq.tptr``), each term the same ``m·r`` (m: the
    query's relevant documents), added one at a time, then divided by G·m; so the last bit is HEAD's, not r's
    (diazf/pref_eval ``measures/rpp.py`` ``recall_paired_preference``)."""
    g = np.diff(pq.tptr)
    uq, cnt = np.unique(pq.qrels.qid, return_counts=True)
    at = np.searchsorted(uq, pq.qorder)
    ok = at < len(uq)
    m = np.zeros(len(pq.qorder), dtype=np.int64)
    m[ok] = np.where(uq[at[ok]] == pq.qorder[ok], cnt[at[ok]], 0)
    term = r * m.astype(np.float64)
    acc = np.zeros_like(term)
    for k in range(int(g.max(initial=0))):  # G is a handful of grades: a step per grade, every query at once
        acc = np.where(k < g, acc + term, acc)
    total = (g * m).astype(np.float64)
    out = np.array(r, dtype=np.float64, copy=True)
    np.divide(acc, total, out=out, where=np.broadcast_to(total > 0, out.shape))
    return out
