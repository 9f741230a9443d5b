"""The one shared per-query representation: qrels + runs → sorted arrays.

Built once per evaluation. Every measure reads a :class:`Ranked` (one run)
and never re-parses or re-sorts anything.

Decisions taken here, and only here (docs/ranking-and-topics.md):

* **Ids**: query ids are mapped to integers through a sort of the distinct
  byte strings. A retrieved document's ``doc`` is the exact id of its docno
  among the distinct qrels docnos (shared by every run of one collection),
  ``-1`` when the qrels do not hold it; ``Ranked.docno`` keeps the bytes of
  every retrieved docno. Joins and duplicate checks use 64-bit keys of the
  docnos as a filter and confirm every match on the bytes
  (:mod:`pref_eval.io.keys`), so nothing depends on a hash being unique.
* **Order** inside a query: score descending, then docno descending in byte
  order (trec_eval's ``comp_sim_docno``). With ``trec9=True`` the scores are
  first rounded to float32, as trec_eval 9.x and pytrec_eval store them.
* **Depth** ``-M N``: the top N of that order are kept; duplicates of a
  docno are an error only among the kept documents (trec_eval checks after
  truncation).
* **Judged only** ``-J``: documents without a judgment (not in the qrels, or
  a negative grade) are removed after truncation, as trec_eval does.
* **Query set**: by default a run is evaluated on the topics present both in
  the qrels and in the run (``missing`` lists the qrels topics the run lacks);
  with ``complete=True`` (``-c``) on every qrels topic, missing ones being
  empty rankings. Run topics absent from the qrels are ignored.
* **Grades** of retrieved documents: the qrels grade (≥ 0), ``UNJUDGED``
  (-2) for a negative qrels grade ("pooled but unjudged"), ``NONPOOL`` (-1)
  for a document absent from the qrels, as trec_eval's ``RES_RELS``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .errors import EvaluationError, InputError
from .io.fastparse import release_memory
from .io.keys import factorize_bytes, group_keys, string_keys
from .io.qrels import Qrels
from .io.runs import Run

NONPOOL = -1
UNJUDGED = -2
BOGUS_DOC = -1  # doc int of trec_eval's placeholder document for a topic missing under -c


@dataclass(frozen=True)
class QrelsIndex:
    """Qrels grouped by query, in strcmp order of query ids.

    ``qids`` sorted unique query ids (bytes); ``ptr`` offsets (len nq+1)
    into the flat per-judgment arrays ``doc`` (exact int id of the docno
    among the distinct qrels docnos), ``grade`` (raw qrels grade, may be
    negative), ``docno`` and ``key`` (query index in the high bits, docno key
    below: sorted, what run lookups search). Inside a query the judgments
    are in ``key`` order. ``grade_desc`` holds the same grades sorted
    highest first inside each query.
    """

    qids: np.ndarray
    ptr: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    docno: np.ndarray
    key: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    grade_desc: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def nq(self) -> int:
        return len(self.qids)


@dataclass(frozen=True)
class Ranked:
    """One run, evaluated on ``qids``: a slice of flat arrays per query.

    Retrieved side (flat, length = total retrieved, query-major, rank order):
    ``grade`` (see module doc), ``doc`` (qrels doc id, -1 if not in the
    qrels), ``docno`` (bytes), ``score``, ``qidx`` (query index), ``pos``
    (0-based rank).
    ``ptr[i]:ptr[i+1]`` is query ``i``'s slice.

    Judged side (flat, query-major): ``jgrade`` every qrels grade of the
    query (negative ones included), sorted descending; ``jptr`` offsets.

    ``present[i]`` is False for a query the run lacks (only with ``-c``).
    """

    name: str
    tag: str
    qids: np.ndarray
    ptr: np.ndarray
    grade: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    qidx: np.ndarray
    pos: np.ndarray
    jptr: np.ndarray
    jgrade: np.ndarray
    present: np.ndarray
    source: str = ""
    docno: np.ndarray | None = None

    @property
    def nq(self) -> int:
        return len(self.qids)

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.ptr)

    def jqidx(self) -> np.ndarray:
        """Query index of every entry of ``jgrade``."""
        return np.repeat(np.arange(self.nq), np.diff(self.jptr))

    def count_judged(self, mask: np.ndarray) -> np.ndarray:
        """Per-query count of judged entries where ``mask`` (over jgrade) holds."""
        return np.bincount(self.jqidx(), weights=mask, minlength=self.nq)

    def num_rel(self, level: int) -> np.ndarray:
        """Per-query number of qrels documents with grade ≥ ``level``.

        Negative grades (pooled but unjudged) never count, even for a level
        ≤ 0 (trec_eval's ``rel_levels`` only holds grades ≥ 0).
        """
        return self.count_judged(self.jgrade >= max(int(level), 0)).astype(np.int64)

    def per_query_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum a flat retrieved-side array per query (float64, also when nothing is retrieved)."""
        return np.bincount(self.qidx, weights=values, minlength=self.nq).astype(np.float64, copy=False)

    def qid_strings(self) -> list[str]:
        return [q.decode("utf-8", errors="surrogateescape") for q in self.qids]


@dataclass(frozen=True)
class Collection:
    """Qrels index + ranked runs, sharing one doc-id space."""

    qrels: QrelsIndex
    runs: tuple[Ranked, ...]
    missing: tuple[np.ndarray, ...] = field(default=())  # per run: qrels qids the run lacks


def index_qrels(qrels: Qrels, doc: np.ndarray | None = None) -> QrelsIndex:
    """Group the judgments by query (strcmp order of qids).

    Inside a query the judgments are ordered by their 64-bit docno key
    (:mod:`pref_eval.io.keys`), which the run lookup searches; ``doc`` gives
    each judged document an exact integer id (index into the distinct qrels
    docnos, in byte order when ``doc`` is not given: ids from a sort of the
    distinct docnos).
    """
    qids, qinv = factorize_bytes(qrels.qid)
    nqq = len(qids)
    dkey = string_keys(qrels.docno)
    if doc is None:
        doc = _exact_ids(qrels.docno, dkey)
    ck = group_keys(qinv, dkey, max(nqq, 1))
    order = np.argsort(ck, kind="stable")
    counts = np.bincount(qinv, minlength=nqq)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    grade = qrels.rel[order].astype(np.int64, copy=False)
    # every query's grades, highest first (the ideal ranking side)
    gq = qinv[order]
    gorder = np.lexsort((-grade, gq))
    return QrelsIndex(qids=qids, ptr=ptr, doc=np.asarray(doc)[order].astype(np.int64, copy=False),
                      grade=grade, docno=qrels.docno[order], key=ck[order], grade_desc=grade[gorder])


def _exact_ids(docno: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Exact integer ids of ``docno`` (equal strings ⇔ equal ids)."""
    if len(docno) == 0:
        return np.zeros(0, dtype=np.int64)
    ukey, first, inv = np.unique(key, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    if np.array_equal(docno[first][inv], docno):
        return inv.astype(np.int64)
    _, inv = np.unique(docno, return_inverse=True)  # a key collision: exact but slower
    return inv.reshape(-1).astype(np.int64)


def _query_positions(run: Run, qi: QrelsIndex) -> np.ndarray:
    """For every run line, the index of its qid in ``qi.qids`` (-1: not in the qrels)."""
    uq, codes = factorize_bytes(run.qid)
    nqq = qi.nq
    if nqq == 0:
        return np.full(len(run.qid), -1, dtype=np.int64)
    loc = np.searchsorted(qi.qids, uq)
    locc = np.minimum(loc, nqq - 1)
    umap = np.where((loc < nqq) & (qi.qids[locc] == uq), locc, -1).astype(np.int64)
    return umap[codes]


def _rank_order(qpos: np.ndarray, skey: np.ndarray, docno: np.ndarray):
    """Permutation sorting by (qpos ascending, skey descending, docno descending bytes).

    Returns an index array, or ``(idx, src)`` when the input is already in
    order except inside groups of tied scores: then position ``idx[k]`` must
    take the element at ``src[k]`` (no full permutation is materialised).

    Linear when the file is already grouped by query and in score order (the
    usual case); sorts only what is out of order otherwise, and sorts docnos
    only inside groups of tied scores.
    """
    n = len(qpos)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # 1. group by query (stable)
    identity = False
    if bool((qpos[1:] >= qpos[:-1]).all()):
        order = np.arange(n, dtype=np.int64)
        identity = True
    else:
        heads = np.flatnonzero(np.concatenate([[True], qpos[1:] != qpos[:-1]]))
        hq = qpos[heads]
        if len(np.unique(hq)) == len(hq):  # every query in one contiguous block
            lengths = np.diff(np.append(heads, n))
            bo = np.argsort(hq, kind="stable")
            blen = lengths[bo]
            starts = np.concatenate([[0], np.cumsum(blen)[:-1]])
            order = np.arange(n, dtype=np.int64) + np.repeat(heads[bo] - starts, blen)
        else:
            order = np.argsort(qpos, kind="stable").astype(np.int64)
    q = qpos[order]
    s = skey[order]
    same_q = q[1:] == q[:-1]
    # 2. score descending inside each query
    if bool((same_q & (s[1:] > s[:-1])).any()):
        identity = False
        order = order[np.lexsort((-s, q))]
        q = qpos[order]
        s = skey[order]
        same_q = q[1:] == q[:-1]
    # 3. ties: docno descending
    tie = same_q & (s[1:] == s[:-1])
    if bool(tie.any()):
        in_tie = np.zeros(n, dtype=bool)
        in_tie[1:] |= tie
        in_tie[:-1] |= tie
        idx = np.flatnonzero(in_tie)
        # group id: a new group starts where the previous pair is not a tie
        newgrp = np.ones(len(idx), dtype=bool)
        newgrp[1:] = ~tie[idx[1:] - 1] | (idx[1:] != idx[:-1] + 1)
        gid = np.cumsum(newgrp) - 1
        sub = order[idx]
        o2 = np.lexsort((docno[sub], gid))  # docno ascending inside each group
        gstart = np.flatnonzero(newgrp)
        gend = np.append(gstart[1:], len(idx))
        glen = gend - gstart
        # reverse inside each group → descending
        rank_in = np.arange(len(idx)) - np.repeat(gstart, glen)
        dest = np.repeat(gstart + glen - 1, glen) - rank_in
        newsub = np.empty_like(sub)
        newsub[dest] = sub[o2]
        if identity:
            return idx, newsub
        order[idx] = newsub
    elif identity:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return order


def rank_run(
    run: Run,
    doc: np.ndarray | None,
    qi: QrelsIndex,
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
    trec9: bool = False,
    query_ids: np.ndarray | None = None,
) -> tuple[Ranked, np.ndarray]:
    """Sort, truncate and label one run. Returns (ranked, missing_qids).

    ``query_ids`` (sorted bytes) overrides the query set. ``doc`` is unused
    (kept for the old signature): ids come from the qrels index.
    """
    nqq = qi.nq
    loc = _query_positions(run, qi)
    known = loc >= 0
    present_mask = np.zeros(nqq, bool)
    present_mask[loc[known]] = True
    run_topics = np.flatnonzero(present_mask)
    missing = qi.qids[~present_mask]
    if query_ids is not None:
        eval_q = np.searchsorted(qi.qids, query_ids)
    elif complete:
        eval_q = np.arange(nqq)
    else:
        eval_q = run_topics
    nq = len(eval_q)
    eval_of = np.full(nqq + 1, -1, dtype=np.int64)
    eval_of[eval_q] = np.arange(nq)
    qpos = eval_of[loc]  # loc == -1 → eval_of[-1] == -1
    if bool((qpos >= 0).all()):
        rows = np.arange(len(qpos), dtype=np.int64)
        score = run.score
    else:
        rows = np.flatnonzero(qpos >= 0)
        qpos = qpos[rows]
        score = run.score[rows]
    docno = run.docno[rows] if len(rows) != len(run.docno) else run.docno
    if not trec9:
        # trec_eval 10 scores a topic missing from the run (-c) on a bogus
        # one-document ranking ("ceci_nest_pas_un_docno", sim 1.0, not in the
        # pool), before -M and -J; measures whose printed name trec_eval then
        # zeroes are marked ``zero_if_missing``.
        lack = np.flatnonzero(~present_mask[eval_q])
        if len(lack):
            qpos = np.concatenate([qpos, lack])
            rows = np.concatenate([rows, np.full(len(lack), -1, dtype=np.int64)])
            score = np.concatenate([score, np.ones(len(lack))])
            docno = np.concatenate([docno, np.full(len(lack), b"", dtype=docno.dtype)])
    skey = score.astype(np.float32) if trec9 else score
    order = _rank_order(qpos, skey, docno)
    if isinstance(order, tuple):  # already in order but for ties: permute inside tie groups only
        idx, sub = order
        rows = rows.copy()
        docno = docno.copy()
        rows[idx] = rows[sub]
        docno[idx] = docno[sub]
    else:
        qpos, rows, score, docno = qpos[order], rows[order], score[order], docno[order]
    counts = np.bincount(qpos, minlength=nq)
    starts = np.concatenate([[0], np.cumsum(counts)])[:-1]
    if depth is not None:
        pos = np.arange(len(qpos)) - starts[qpos]
        sel = np.flatnonzero(pos < depth)
        if len(sel) != len(qpos):
            qpos, rows, score, docno = qpos[sel], rows[sel], score[sel], docno[sel]
    real = rows >= 0
    qq = eval_q[qpos] if len(qpos) else np.zeros(0, dtype=np.int64)
    ck = group_keys(qq, string_keys(docno), max(nqq, 1))
    _check_run_duplicates(run, ck, docno, rows, real)
    # label with qrels grades
    grade = np.full(len(qpos), NONPOOL, dtype=np.int64)
    rdoc = np.full(len(qpos), BOGUS_DOC, dtype=np.int64)
    if len(qi.key) and len(ck):
        # prefilter: a 2^24-entry table of the qrels keys' low bits rules out
        # most unjudged rows before the binary search
        mask = np.uint64((1 << 24) - 1)
        table = np.zeros(1 << 24, dtype=bool)
        table[(qi.key & mask).astype(np.intp)] = True
        cand = np.flatnonzero(table[(ck & mask).astype(np.intp)] & real)
        hit = np.searchsorted(qi.key, ck[cand])
        hitc = np.minimum(hit, len(qi.key) - 1)
        ok = qi.key[hitc] == ck[cand]
        fi = cand[ok]
        h = hitc[ok]
        exact = (qi.docno[h] == docno[fi]) & (np.repeat(np.arange(nqq), np.diff(qi.ptr))[h] == qq[fi])
        if not bool(exact.all()) or _keys_collide(qi.key):
            fi, h = _lookup_exact(qi, qq, docno, real)
        g = qi.grade[h]
        grade[fi] = np.where(g < 0, UNJUDGED, g)
        rdoc[fi] = qi.doc[h]
    if judged_only:
        sel = grade >= 0
        qpos, rdoc, score, grade, docno = qpos[sel], rdoc[sel], score[sel], grade[sel], docno[sel]
    counts = np.bincount(qpos, minlength=nq)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pos = np.arange(len(qpos)) - ptr[:-1][qpos]
    # judged side: every qrels grade of the evaluated queries, highest first
    jcounts = np.diff(qi.ptr)[eval_q]
    jptr = np.concatenate([[0], np.cumsum(jcounts)]).astype(np.int64)
    jsel = np.arange(int(jptr[-1]), dtype=np.int64) + np.repeat(qi.ptr[eval_q] - jptr[:-1], jcounts)
    ranked = Ranked(
        name=run.name, tag=run.tag, qids=qi.qids[eval_q], ptr=ptr,
        grade=grade, doc=rdoc, score=score, qidx=qpos.astype(np.int64, copy=False),
        pos=pos.astype(np.int64, copy=False), jptr=jptr, jgrade=qi.grade_desc[jsel],
        present=present_mask[eval_q], source=run.source, docno=docno,
    )
    return ranked, missing


def _keys_collide(key: np.ndarray) -> bool:
    """Two judgments of one query with the same key (a collision: duplicates were refused)."""
    return bool(len(key) > 1 and (key[1:] == key[:-1]).any())


def _lookup_exact(qi: QrelsIndex, qq: np.ndarray, docno: np.ndarray, real: np.ndarray):
    """(rows found, judgment index) by exact byte comparison (fallback after a key collision)."""
    jq = np.repeat(np.arange(qi.nq), np.diff(qi.ptr))
    allv = np.concatenate([qi.docno, docno])
    _, inv = np.unique(allv, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    nd = int(inv.max()) + 1 if len(inv) else 1
    kj = jq * nd + inv[: len(jq)]
    kr = qq * nd + inv[len(jq):]
    oj = np.argsort(kj, kind="stable")
    skj = kj[oj]
    hit = np.searchsorted(skj, kr)
    hitc = np.minimum(hit, max(len(skj) - 1, 0))
    found = (hit < len(skj)) & (skj[hitc] == kr) & real
    fi = np.flatnonzero(found)
    return fi, oj[hitc[fi]]


def _check_run_duplicates(run: Run, ck: np.ndarray, docno: np.ndarray, rows: np.ndarray,
                          real: np.ndarray) -> None:
    """trec_eval refuses a docno twice in one query (after -M): find it exactly."""
    if len(ck) < 2:
        return
    sk = np.sort(ck)
    eq = np.flatnonzero(sk[1:] == sk[:-1])
    if not len(eq):
        return
    best: tuple[int, int] | None = None
    for v in np.unique(sk[eq]):
        idx = np.flatnonzero((ck == v) & real)
        if len(idx) < 2:
            continue
        d = docno[idx]
        o = np.argsort(d, kind="stable")
        same = np.flatnonzero(d[o][1:] == d[o][:-1])
        for k in same:
            a, b = sorted((int(run.line[rows[idx[o[k]]]]), int(run.line[rows[idx[o[k + 1]]]])))
            if best is None or b < best[1]:
                best = (a, b)
    if best is not None:
        a, b = best
        raise InputError(run.source, b, f"duplicate document {_docno_at(run, b)} for query "
                         f"{_qid_at(run, b)} (first at line {a}); trec_eval refuses duplicates")


def _docno_at(run: Run, line: int) -> str:
    i = int(np.searchsorted(run.line, line))
    return run.docno[i].decode("utf-8", errors="replace")


def _qid_at(run: Run, line: int) -> str:
    i = int(np.searchsorted(run.line, line))
    return run.qid[i].decode("utf-8", errors="replace")


def build_collection(
    qrels: Qrels,
    runs: Sequence[Run],
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
    trec9: bool = False,
) -> Collection:
    """Build the shared representation for ``runs`` against ``qrels``."""
    if depth is not None and depth < 0:
        raise EvaluationError("depth (-M) must be ≥ 0")
    qi = index_qrels(qrels)
    ranked: list[Ranked] = []
    missing: list[np.ndarray] = []
    for run in runs:
        r, m = rank_run(run, None, qi, complete=complete, depth=depth,
                        judged_only=judged_only, trec9=trec9)
        ranked.append(r)
        missing.append(m)
        release_memory()
    return Collection(qrels=qi, runs=tuple(ranked), missing=tuple(missing))
