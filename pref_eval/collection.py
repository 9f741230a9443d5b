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

from dataclasses import field
from collections.abc import Sequence

import numpy as np

from .records import record
from .io.keys import distinct

from .errors import EvaluationError, InputError, command_running, shown
from .io.fastparse import release_memory
from .io.keys import string_keys
from .io.qrels import Qrels, grouping_of
from .io.runs import Run

NONPOOL = -1
UNJUDGED = -2
BOGUS_DOC = -1  # doc int of trec_eval's placeholder document for a topic missing under -c


@record(frozen=True)
class QrelsIndex:
    """Qrels grouped by query, in strcmp order of query ids.

    ``qids`` sorted unique query ids (bytes); ``ptr`` offsets (len nq+1)
    into the flat per-judgment arrays ``grade`` (raw qrels grade, may be
    negative), ``docno`` and ``key`` (query index in the high bits, docno key
    below: sorted, what run lookups search). Inside a query the judgments
    are in ``key`` order. ``grade_desc`` holds the same grades sorted
    highest first inside each query. ``doc`` (computed on demand) is the
    exact int id of each docno among the distinct qrels docnos (byte order).
    """

    qids: np.ndarray
    ptr: np.ndarray
    grade: np.ndarray
    docno: np.ndarray
    key: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    grade_desc: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    subtopics: Qrels | None = field(default=None, repr=False)  # every row of subtopic qrels
    row: np.ndarray | None = field(default=None, repr=False)  # row in the source Qrels of each judgment
    source_line: np.ndarray | None = field(default=None, repr=False)  # the source Qrels' line numbers

    @property
    def line(self) -> np.ndarray:
        """Line number in the qrels file of every judgment (0 when unknown), on demand."""
        if self.row is None or self.source_line is None:
            return np.zeros(len(self.grade), dtype=np.int64)
        return np.asarray(self.source_line)[self.row]

    @property
    def nq(self) -> int:
        return len(self.qids)

    @property
    def doc(self) -> np.ndarray:
        if len(self.docno) == 0:
            return np.zeros(0, dtype=np.int64)
        return np.unique(self.docno, return_inverse=True)[1].reshape(-1).astype(np.int64)


@record(frozen=True)
class Ranked:
    """One run, evaluated on ``qids``: a slice of flat arrays per query.

    Retrieved side (flat, length = total retrieved, query-major, rank order):
    ``grade`` (see module doc), ``score``, ``qidx`` (query index), ``pos`` (0-based rank),
    ``rows`` (index of the line in the run's arrays, -1 for trec_eval's
    placeholder of a missing topic); ``docno`` (bytes) and ``score`` are
    gathered from the run and ``doc`` (exact qrels doc id, -1 if not in the qrels) looked up on
    demand. ``pos`` is int16 when no query has more than 16,384 entries and
    ``qidx`` int16 when there are at most 16,384 queries; other integer arrays
    are int32 when the sizes allow (int64 otherwise). NumPy 2 (NEP 50) does
    *not* widen an int16 array combined with a Python int (``pos + 2`` stays
    int16 and would wrap past 32,767), so measures add only small constants
    (the bound leaves room for ``+ 2``), or compute in float (``pos + 1.0``)
    or against int64 arrays (which do widen); comparisons with any Python int
    (``pos < cutoff``) are exact. ``tests/test_collection_order.py`` checks
    these facts on the installed NumPy, ``tests/test_narrow_ranks.py`` that
    every measure gives the same values on int16 and int64 ranks at the bound.
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
    qidx: np.ndarray
    pos: np.ndarray
    jptr: np.ndarray
    jgrade: np.ndarray
    present: np.ndarray
    source: str = ""
    rows: np.ndarray | None = None
    run_docno: np.ndarray | None = None
    run_score: np.ndarray | None = None
    judgments: QrelsIndex | None = field(default=None, repr=False)
    tags: tuple[tuple[str, int], ...] | None = None  # the run's distinct tags (Run.tags)

    @property
    def score(self) -> np.ndarray:
        """Score of every retrieved document (rank order; 1.0 for a placeholder), gathered on demand."""
        if self.run_score is None or self.rows is None:
            return np.zeros(len(self.qidx))
        out = self.run_score[np.maximum(self.rows, 0)] if len(self.run_score) else np.ones(len(self.rows))
        out[self.rows < 0] = 1.0
        return out

    @property
    def doc(self) -> np.ndarray:
        """Exact qrels doc id of every retrieved document (-1: not in the qrels), computed on demand."""
        out = np.full(len(self.qidx), BOGUS_DOC, dtype=np.int64)
        qi = self.judgments
        if qi is None or self.rows is None or self.run_docno is None or not len(out) or not qi.nq:
            return out
        qq = np.searchsorted(qi.qids, self.qids)[self.qidx]
        fi, h = _lookup_exact(qi, qq, _gather_docno(self.run_docno, self.rows), self.rows >= 0)  # = self.docno
        out[fi] = qi.doc[h]  # property: computed once here
        return out

    @property
    def docno(self) -> np.ndarray | None:
        """Bytes of every retrieved docno (rank order), gathered on demand from the run."""
        if self.run_docno is None or self.rows is None:
            return None
        return _gather_docno(self.run_docno, self.rows)

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

    def num_rel_ret(self, level: int) -> np.ndarray:
        """Per-query number of retrieved judged documents with grade ≥ ``level``
        (trec_eval's ``num_rel_ret``).

        Only judged documents count, so for a level ≤ -1 it is the count of
        grades ≥ 0, while trec_eval's rank walks (``results_rel_list[i] >= level``)
        also take the unjudged ones (-1, -2) as relevant; :meth:`rel_offset` is the
        difference.
        """
        return self.per_query_sum(self.grade >= max(int(level), 0))

    def rel_offset(self, level: int) -> np.ndarray:
        """Per query, |{retrieved d : level ≤ grade(d) < 0}|: the unjudged documents a
        negative ``-l`` makes relevant in trec_eval's rank walks but not in ``num_rel_ret``
        (0 for every level ≥ 0)."""
        if int(level) >= 0:
            return np.zeros(self.nq)
        return self.per_query_sum((self.grade >= int(level)) & (self.grade < 0))

    def per_query_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum a flat retrieved-side array per query (float64, also when nothing is retrieved)."""
        return np.bincount(self.qidx, weights=values, minlength=self.nq).astype(np.float64, copy=False)

    def qid_strings(self) -> list[str]:
        return [q.decode("utf-8", errors="surrogateescape") for q in self.qids]


@record(frozen=True)
class Collection:
    """Qrels index + ranked runs, sharing one doc-id space."""

    qrels: QrelsIndex
    runs: tuple[Ranked, ...]
    missing: tuple[np.ndarray, ...] = field(default=())  # per run: qrels qids the run lacks


def index_qrels(qrels: Qrels) -> QrelsIndex:
    """Group the judgments by query (strcmp order of qids).

    Inside a query the judgments are ordered by their 64-bit docno key
    (:mod:`pref_eval.io.keys`), which the run lookup searches (exact doc ids
    are computed on demand, ``QrelsIndex.doc``).
    """
    qids, counts, key, order = grouping_of(qrels)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    grade = qrels.rel[order].astype(np.int64, copy=False)
    grade_desc = _grades_desc(grade, counts)
    return QrelsIndex(qids=qids, ptr=ptr, grade=grade, docno=qrels.docno[order], key=key, grade_desc=grade_desc,
                      subtopics=qrels.subtopics, row=order, source_line=qrels.line)


def _grades_desc(grade: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``grade`` (query-major, ``counts`` per query) sorted highest first inside each query."""
    n = len(grade)
    if n == 0:
        return grade.copy()
    lo, hi = int(grade.min()), int(grade.max())
    span = hi - lo + 1
    gq = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    if span < 2**62 // max(len(counts), 1):
        key = gq * span + (hi - grade)
        key.sort()
        return hi - key % span
    return grade[np.lexsort((-grade, gq))]


def _gather_docno(docno: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``docno[rows]`` with ``b""`` where ``rows`` is -1 (a placeholder document)."""
    out = docno[np.maximum(rows, 0)] if len(docno) else np.zeros(len(rows), dtype="S1")
    bogus = rows < 0
    if bool(bogus.any()):
        out[bogus] = b""
    return out


def _query_codes(run: Run, qi: QrelsIndex) -> tuple[np.ndarray, np.ndarray]:
    """``(umap, bcodes)``: ``umap[bcodes[b]]`` is the index in ``qi.qids`` of the
    qid of the run's block ``b`` of lines (-1: not in the qrels)."""
    uq, bcodes = np.unique(run.qid_values, return_inverse=True)
    bcodes = bcodes.reshape(-1)
    nqq = qi.nq
    if nqq == 0:
        return np.full(len(uq), -1, dtype=np.int64), bcodes
    loc = np.searchsorted(qi.qids, uq)
    locc = np.minimum(loc, nqq - 1)
    umap = np.where((loc < nqq) & (qi.qids[locc] == uq), locc, -1).astype(np.int64)
    return umap, bcodes


def _rank_order(qpos: np.ndarray, skey: np.ndarray, docno_at):
    """Sort by (qpos ascending, skey descending, docno descending bytes).

    Returns ``(perm, idx, sub)``: first position ``idx[k]`` takes the element
    at ``sub[k]`` (ties fixed in place), then the result is reordered by
    ``perm`` (``None``: already in order). ``docno_at(i)`` gives the docno
    bytes of elements ``i`` (only called for elements in groups of tied
    scores).

    Linear when every query is one contiguous block in score order (the
    usual case, whatever the order of the blocks): ties are fixed inside the
    blocks and the blocks are moved as a whole. Anything else gets one
    stable sort.
    """
    n = len(qpos)
    empty = np.zeros(0, dtype=np.int64)
    if n == 0:
        return None, empty, empty
    perm = None
    if not bool((qpos[1:] >= qpos[:-1]).all()):
        heads = np.flatnonzero(np.concatenate([[True], qpos[1:] != qpos[:-1]]))
        hq = qpos[heads]
        if len(distinct(hq)) != len(hq):
            return _full_order(qpos, skey, docno_at), empty, empty
        # every query in one contiguous block: the block order
        lengths = np.diff(np.append(heads, n))
        bo = np.argsort(hq, kind="stable")
        blen = lengths[bo]
        starts = np.concatenate([[0], np.cumsum(blen)[:-1]])
        itype = np.int32 if n < 2**31 else np.int64
        perm = np.arange(n, dtype=itype) + np.repeat((heads[bo] - starts).astype(itype), blen)
    same_q = qpos[1:] == qpos[:-1]
    if bool((same_q & (skey[1:] > skey[:-1])).any()):
        return _full_order(qpos, skey, docno_at), empty, empty
    idx, sub = _fix_ties(same_q, skey, docno_at)
    return perm, idx, sub


def _full_order(qpos: np.ndarray, skey: np.ndarray, docno_at) -> np.ndarray:
    order = np.lexsort((-skey, qpos))
    q = qpos[order]
    s = skey[order]
    idx, sub = _fix_ties(q[1:] == q[:-1], s, lambda i: docno_at(order[i]))
    if len(idx):
        order[idx] = order[sub]
    return order


def _fix_ties(same_q: np.ndarray, s: np.ndarray, docno_at) -> tuple[np.ndarray, np.ndarray]:
    """In an array sorted by (query, score desc): ``(idx, sub)`` putting every
    group of tied scores in docno-descending order (position ``idx[k]`` takes ``sub[k]``)."""
    tie = same_q & (s[1:] == s[:-1])
    if not bool(tie.any()):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    n = len(s)
    in_tie = np.zeros(n, dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    idx = np.flatnonzero(in_tie)
    # group id: a new group starts where the previous pair is not a tie
    newgrp = np.ones(len(idx), dtype=bool)
    newgrp[1:] = ~tie[idx[1:] - 1] | (idx[1:] != idx[:-1] + 1)
    gid = np.cumsum(newgrp) - 1
    o2 = np.lexsort((docno_at(idx), gid))  # docno ascending inside each group
    gstart = np.flatnonzero(newgrp)
    gend = np.append(gstart[1:], len(idx))
    glen = gend - gstart
    # reverse inside each group → descending
    rank_in = np.arange(len(idx)) - np.repeat(gstart, glen)
    dest = np.repeat(gstart + glen - 1, glen) - rank_in
    newsub = np.empty_like(idx)
    newsub[dest] = idx[o2]
    return idx, newsub


TRIM_ROWS = 1 << 18  # give freed memory back to the OS after ranking runs of this many rows or more
PREFILTER_MIN = 1 << 16  # runs with fewer rows skip the hash prefilter of the qrels lookup


def rank_run(
    run: Run,
    qi: QrelsIndex,
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
    trec9: bool = False,
) -> tuple[Ranked, np.ndarray]:
    """Sort, truncate and label one run. Returns (ranked, missing_qids).

    Document ids come from the qrels index. The steps, in trec_eval's order: choose the
    evaluated queries (:func:`_query_set`), keep their lines
    (:func:`_evaluated_rows`), add trec_eval 10's placeholder of a missing
    topic (:func:`_add_placeholders`), sort (:func:`_sort_rows`), cut at
    ``depth`` (:func:`_truncate`), refuse duplicates, label with the qrels
    grades (:func:`_label_grades`), drop unjudged documents under
    ``judged_only``, number the ranks (:func:`_number_ranks`) and gather the
    judged side (:func:`_judged_side`).
    """
    nqq = qi.nq
    itype = np.int32 if len(run.docno) + nqq + 1 < 2**31 else np.int64
    present_mask, eval_q, eval_of = _query_set(run, qi, complete, itype)
    nq = len(eval_q)
    qpos, rows, score = _evaluated_rows(run, eval_of, itype)
    if not trec9:
        qpos, rows, score = _add_placeholders(qpos, rows, score, present_mask, eval_q, itype)
    qpos, rows, counts = _sort_rows(run, qpos, rows, score.astype(np.float32) if trec9 else score, nq, itype)
    del score
    starts = _starts(counts, itype)
    if depth is not None:
        qpos, rows, counts, starts = _truncate(qpos, rows, counts, starts, depth, nq, itype)
    dkey = _row_keys(run.docno, rows)  # after the sort and the cut: the keys of the rows kept, once
    _check_run_duplicates(run, qpos, dkey, rows, counts, starts)
    grade = _label_grades(run, qi, qpos, rows, dkey, eval_q, itype)  # consumes dkey's buffer
    del dkey
    if judged_only:
        sel = grade >= 0
        qpos, grade, rows = qpos[sel], grade[sel], rows[sel]
        counts = np.bincount(qpos, minlength=nq)
    ptr, pos, qpos = _number_ranks(qpos, counts, nq, itype)
    jptr, jgrade = _judged_side(qi, eval_q)
    ranked = Ranked(
        name=run.name, tag=run.tag, qids=qi.qids[eval_q], ptr=ptr,
        grade=grade, qidx=qpos,
        pos=pos, jptr=jptr, jgrade=jgrade,
        present=present_mask[eval_q], source=run.source, rows=rows, run_docno=run.docno,
        run_score=run.score, judgments=qi, tags=run.tags,
    )
    return ranked, qi.qids[~(present_mask | _empty_topic_mask(run, qi))]


def trec_order(run: Run, *, depth: int | None = None, trec9: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every topic of ``run`` ranked in trec_eval's order, without qrels (a pool: ``zelo_pairs pool``).

    Returns ``(qids, counts, rows)``: the run's query ids in byte order (``strcmp``), the number of
    rows kept per query (its top ``depth`` with ``depth``), and the run's row indices query after query,
    each query's by score descending then docno descending (docs/ranking-and-topics.md; ``trec9``: the
    scores first rounded to float32). A docno twice in the kept part of a query is refused
    (:class:`~pref_eval.errors.InputError` naming the line), as :func:`rank_run` refuses it.
    """
    n = len(run.docno)
    itype = np.int32 if n + 1 < 2**31 else np.int64
    uq, bcodes = np.unique(run.qid_values, return_inverse=True)
    nq = len(uq)
    qpos = np.repeat(bcodes.reshape(-1).astype(itype), run.qid_lengths)
    rows = np.arange(n, dtype=itype)
    qpos, rows, counts = _sort_rows(run, qpos, rows, run.score.astype(np.float32) if trec9 else run.score, nq, itype)
    starts = _starts(counts, itype)
    if depth is not None:
        qpos, rows, counts, starts = _truncate(qpos, rows, counts, starts, depth, nq, itype)
    _check_run_duplicates(run, qpos, _row_keys(run.docno, rows), rows, counts, starts)
    return uq, counts, rows


def _query_set(run: Run, qi: QrelsIndex, complete: bool, itype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(present_mask, eval_q, block_eval)``: which qrels queries the run holds (mask over
    ``qi.qids``), the evaluated queries (indices into ``qi.qids``, in evaluation order) and,
    for each block ``b`` of the run's lines (one query each), the evaluated position of its
    query (-1: not evaluated, or not in the qrels).
    """
    nqq = qi.nq
    umap, bcodes = _query_codes(run, qi)
    present_mask = np.zeros(nqq, bool)
    present_mask[umap[umap >= 0]] = True
    eval_q = np.arange(nqq) if complete else np.flatnonzero(present_mask | _empty_topic_mask(run, qi))
    eval_of = np.full(nqq + 1, -1, dtype=itype)
    eval_of[eval_q] = np.arange(len(eval_q))
    return present_mask, eval_q, eval_of[umap][bcodes]  # umap == -1 → eval_of[-1] == -1


def _empty_topic_mask(run: Run, qi: QrelsIndex) -> np.ndarray:
    """Over ``qi.qids``: the qrels topics the run holds with no document (``Run.empty_topics``, a dict's
    ``{qid: {}}``): evaluated as under ``complete`` (retrieved nothing), though the run has no line of them."""
    mask = np.zeros(qi.nq, bool)
    if run.empty_topics and qi.nq:
        e = np.array(run.empty_topics, dtype="S")
        loc = np.minimum(np.searchsorted(qi.qids, e), qi.nq - 1)
        mask[loc[qi.qids[loc] == e]] = True
    return mask


def _evaluated_rows(run: Run, block_eval: np.ndarray, itype):
    """``(qpos, rows, score)`` of the run's lines whose query is evaluated.

    ``qpos`` evaluated query position, ``rows`` line index in the run's
    arrays, ``score``.
    """
    qpos = np.repeat(block_eval, run.qid_lengths)
    if bool((qpos >= 0).all()):
        return qpos, np.arange(len(run.docno), dtype=itype), run.score
    rows = np.flatnonzero(qpos >= 0).astype(itype)
    return qpos[rows], rows, run.score[rows]


KEY_BLOCK = 1 << 16  # rows whose docnos are gathered at a time for their keys (a few MB of temporaries)


def _row_keys(docno: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The 64-bit key (:mod:`pref_eval.io.keys`) of every row's docno (``b""`` for a placeholder, row -1),
    ``string_keys(docno)[rows]`` without a key per line of the run: the docnos are gathered a block at a
    time."""
    out = np.empty(len(rows), dtype=np.uint64)
    for a in range(0, len(rows), KEY_BLOCK):
        out[a: a + KEY_BLOCK] = string_keys(_gather_docno(docno, rows[a: a + KEY_BLOCK]))
    return out


def _add_placeholders(qpos, rows, score, present_mask: np.ndarray, eval_q: np.ndarray, itype):
    """trec_eval 10 scores a topic missing from the run (-c) on a bogus one-document
    ranking ("ceci_nest_pas_un_docno", sim 1.0, not in the pool), before -M and -J;
    measures whose printed name trec_eval then zeroes are marked ``zero_if_missing``.
    The placeholder is a row -1 with an empty docno."""
    lack = np.flatnonzero(~present_mask[eval_q])
    if not len(lack):
        return qpos, rows, score
    return (np.concatenate([qpos, lack.astype(itype)]),
            np.concatenate([rows, np.full(len(lack), -1, dtype=itype)]),
            np.concatenate([score, np.ones(len(lack))]))


def _sort_rows(run: Run, qpos, rows, skey, nq: int, itype):
    """Rows in trec_eval's order (query, score descending, docno descending):
    ``(qpos, rows, counts)`` with ``counts`` the rows per evaluated query."""
    perm, idx, sub = _rank_order(qpos, skey, lambda i: _gather_docno(run.docno, rows[i]))
    if len(idx):  # ties: permute inside tie groups only
        rows[idx] = rows[sub]
    del idx, sub
    counts = np.bincount(qpos, minlength=nq)
    if perm is not None:  # sorted by query: qpos is a repeat of the query indices
        del qpos
        rows = rows[perm]
        del perm
        qpos = np.repeat(np.arange(nq, dtype=itype), counts)
    return qpos, rows, counts


def _starts(counts: np.ndarray, itype) -> np.ndarray:
    """First row of each query (``counts`` rows per query, query-major)."""
    return np.concatenate([[0], np.cumsum(counts)])[:-1].astype(itype)


def _truncate(qpos, rows, counts, starts, depth: int, nq: int, itype):
    """The top ``depth`` rows of every query (``-M``): ``(qpos, rows, counts, starts)``."""
    pos = np.arange(len(qpos), dtype=itype) - starts[qpos]
    sel = np.flatnonzero(pos < depth)
    if len(sel) == len(qpos):
        return qpos, rows, counts, starts
    del pos
    qpos, rows = qpos[sel], rows[sel]
    counts = np.bincount(qpos, minlength=nq)
    return qpos, rows, counts, _starts(counts, itype)


def _grade_dtype(qi: QrelsIndex):
    """int8 for usual grades (measures add small constants at most), wider otherwise."""
    glo = int(qi.grade.min()) if len(qi.grade) else 0
    ghi = int(qi.grade.max()) if len(qi.grade) else 0
    return np.int8 if glo >= -2 and ghi <= 100 else np.int32 if glo > -2**31 and ghi < 2**31 else np.int64


def _label_grades(run: Run, qi: QrelsIndex, qpos, rows, dkey, eval_q, itype) -> np.ndarray:
    """The grade of every row: the qrels grade (≥ 0), ``UNJUDGED`` for a negative one,
    ``NONPOOL`` for a document the qrels lack. ``dkey``'s buffer is reused (overwritten)."""
    nqq = qi.nq
    eq = eval_q.astype(itype)  # the qrels query of each evaluated position, gathered per block below
    # ck = (qrels query index, docno key), built in dkey's buffer
    bits = max(int(max(nqq, 1) - 1).bit_length(), 1)
    ck = dkey
    ck >>= np.uint64(bits)
    for a in range(0, len(ck), KEY_BLOCK):  # a block at a time: no temporary per row
        hi = eq[qpos[a: a + KEY_BLOCK]].astype(np.uint64)
        hi <<= np.uint64(64 - bits)
        ck[a: a + KEY_BLOCK] |= hi
    grade = np.full(len(qpos), NONPOOL, dtype=_grade_dtype(qi))
    if not (len(qi.key) and len(ck)):
        return grade
    cand = np.flatnonzero(_prefilter(qi.key, ck)) if len(ck) >= PREFILTER_MIN else np.arange(len(ck))
    cand = cand[rows[cand] >= 0]  # not a placeholder
    hit = np.searchsorted(qi.key, ck[cand])
    hitc = np.minimum(hit, len(qi.key) - 1)
    ok = qi.key[hitc] == ck[cand]
    fi = cand[ok]
    h = hitc[ok]
    del cand, hit, hitc, ok, ck
    exact = (qi.docno[h] == run.docno[rows[fi]]) & (np.repeat(np.arange(nqq), np.diff(qi.ptr))[h] == eq[qpos[fi]])
    if not bool(exact.all()) or _keys_collide(qi.key):
        fi, h = _lookup_exact(qi, eq[qpos], _gather_docno(run.docno, rows), rows >= 0)
    g = qi.grade[h]
    grade[fi] = np.where(g < 0, UNJUDGED, g)
    return grade


def _prefilter(qkey: np.ndarray, ck: np.ndarray) -> np.ndarray:
    """Rows whose key may be judged: a 2^24-entry table of the qrels keys' low bits rules
    out most unjudged rows before the binary search.

    A multiplicative hash mixes the query bits in, as one docno is judged for
    many queries. Only for large runs (``PREFILTER_MIN``): building the 16 MB
    table costs ~0.5 ms per run, more than the binary search of a small run's rows.
    """
    mix, shift = np.uint64(0x9E3779B97F4A7C15), np.uint64(40)
    table = np.zeros(1 << 24, dtype=bool)
    table[(qkey * mix) >> shift] = True
    cand = np.empty(len(ck), dtype=bool)
    for a in range(0, len(ck), KEY_BLOCK):
        x = ck[a: a + KEY_BLOCK] * mix
        x >>= shift
        cand[a: a + KEY_BLOCK] = table[x]
    return cand


def _number_ranks(qpos, counts, nq: int, itype):
    """``(ptr, pos, qidx)``: query offsets, 0-based ranks, query index per row.

    Ranks and query indices are int16 when small enough that measures'
    ``+ 1``, ``+ 2`` cannot overflow (NumPy 2 keeps int16 + Python int in
    int16: see the :class:`Ranked` docstring).
    """
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pos = np.arange(len(qpos), dtype=itype) - ptr[:-1].astype(itype)[qpos]
    if len(counts) and int(counts.max()) <= NARROW_MAX:
        pos = pos.astype(np.int16)
    if nq <= NARROW_MAX:
        qpos = qpos.astype(np.int16)
    return ptr, pos, qpos


NARROW_MAX = 16384  # at most this many rows per query (queries per run): int16 ranks (query indices)


def _judged_side(qi: QrelsIndex, eval_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(jptr, jgrade)``: every qrels grade of the evaluated queries, highest first."""
    jcounts = np.diff(qi.ptr)[eval_q]
    jptr = np.concatenate([[0], np.cumsum(jcounts)]).astype(np.int64)
    jsel = np.arange(int(jptr[-1]), dtype=np.int64) + np.repeat(qi.ptr[eval_q] - jptr[:-1], jcounts)
    return jptr, qi.grade_desc[jsel]


def _keys_collide(key: np.ndarray) -> bool:
    """Two judgments of one query with the same key (a collision: duplicates were refused)."""
    return bool(len(key) > 1 and (key[1:] == key[:-1]).any())


def _lookup_exact(qi: QrelsIndex, qq: np.ndarray, docno: np.ndarray, real: np.ndarray):
    """(rows found, judgment index) by exact byte comparison (fallback after a key collision)."""
    from .io.keys import exact_pair_keys, lookup_sorted

    jq = np.repeat(np.arange(qi.nq), np.diff(qi.ptr))
    kj, kr = exact_pair_keys(jq, qi.docno, qq, docno)
    oj = np.argsort(kj, kind="stable")
    found, hitc = lookup_sorted(kj[oj], kr)
    fi = np.flatnonzero(found & real)
    return fi, oj[hitc[fi]]


def _check_run_duplicates(run: Run, qpos: np.ndarray, dkey: np.ndarray, rows: np.ndarray,
                          counts: np.ndarray, starts: np.ndarray) -> None:
    """trec_eval refuses a docno twice in one query (after -M): find it exactly.

    Candidates come from equal 32-bit docno keys inside a query (one small
    sort per query: the queries are laid out as the rows of a padded grid
    when their lengths allow, else one sort of (query, key)); every candidate
    is confirmed on the bytes.
    """
    n = len(qpos)
    if n < 2:
        return
    nq = len(counts)
    maxlen = int(counts.max()) if nq else 0
    cands: list[tuple[int, int]] = []  # (query, 32-bit key)
    def key32(k: np.ndarray) -> np.ndarray:  # the low 32 bits (integer casts wrap), 0xFFFFFFFF kept for padding
        out = k.astype(np.uint32)
        return np.minimum(out, np.uint32(0xFFFFFFFE), out=out)

    k32 = key32(dkey)
    if maxlen > 1 and nq * maxlen == n:  # every query the same length: the grid is a reshape, sorted in place
        grid = k32.reshape(nq, maxlen)
        grid.sort(axis=1)
    elif maxlen > 1 and nq * maxlen <= n + n // 4 + 4096:
        grid = np.full((nq, maxlen), 0xFFFFFFFF, dtype=np.uint32)
        col = np.arange(n, dtype=starts.dtype) - starts[qpos]
        grid[qpos, col] = k32
        del col
        grid.sort(axis=1)
    if maxlen > 1 and nq * maxlen <= n + n // 4 + 4096:
        del k32
        eq = grid[:, 1:] == grid[:, :-1]
        eq &= grid[:, 1:] != np.uint32(0xFFFFFFFF)
        qs, cs = np.nonzero(eq)
        cands = sorted(set(zip(qs.tolist(), grid[qs, cs + 1].tolist(), strict=False)))
    elif maxlen > 1:
        ck = np.sort(qpos.astype(np.uint64) << np.uint64(32) | k32.astype(np.uint64))
        eq = np.flatnonzero(ck[1:] == ck[:-1])
        cands = sorted({(int(v >> 32), int(v & 0xFFFFFFFF)) for v in distinct(ck[eq]).tolist()})
    best: tuple[int, int] | None = None
    for q, v in cands:
        st = int(starts[q])
        idx = st + np.flatnonzero(key32(dkey[st: st + int(counts[q])]) == v)
        idx = idx[rows[idx] >= 0]
        if len(idx) < 2:
            continue
        d = run.docno[rows[idx]]
        o = np.argsort(d, kind="stable")
        same = np.flatnonzero(d[o][1:] == d[o][:-1])
        for k in same:
            a, b = sorted((run.line_of(int(rows[idx[o[k]]])), run.line_of(int(rows[idx[o[k + 1]]]))))
            if best is None or b < best[1]:
                best = (a, b)
    if best is not None:
        a, b = best
        raise InputError(run.source, b, f"duplicate document {_docno_at(run, b)} for query "
                         f"{_qid_at(run, b)} (first at line {a}); trec_eval refuses duplicates")


def _docno_at(run: Run, line: int) -> str:
    return shown(run.docno[run.row_of_line(line)])[1:-1]  # unquoted; a byte that is not UTF-8 as \\xNN


def _qid_at(run: Run, line: int) -> str:
    return shown(run.qid[run.row_of_line(line)])[1:-1]


def build_collection(
    qrels: Qrels | QrelsIndex,
    runs: Sequence[Run],
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
    trec9: bool = False,
) -> Collection:
    """Build the shared representation for ``runs`` against ``qrels`` (or its :func:`index_qrels`)."""
    if depth is not None and depth < 0:
        raise EvaluationError(f"depth{' (-M)' if command_running() else ''} must be ≥ 0")
    qi = qrels if isinstance(qrels, QrelsIndex) else index_qrels(qrels)
    release_memory()
    ranked: list[Ranked] = []
    missing: list[np.ndarray] = []
    for run in runs:
        r, m = rank_run(run, qi, complete=complete, depth=depth,
                        judged_only=judged_only, trec9=trec9)
        ranked.append(r)
        missing.append(m)
        if len(run.docno) >= TRIM_ROWS:  # small runs free too little to pay for malloc_trim
            release_memory()
    return Collection(qrels=qi, runs=tuple(ranked), missing=tuple(missing))


def subset_ranked(r: Ranked, keep: np.ndarray) -> Ranked:
    """``r`` keeping only the retrieved documents where ``keep`` holds (ranks renumbered).

    Used for a measure's own ``judged_only=True`` (keep grade ≥ 0, as ``-J``)
    and for a cutoff applied by truncation (keep pos < k). The judged side is
    unchanged.
    """
    from dataclasses import replace

    keep = np.asarray(keep, dtype=bool)
    if bool(keep.all()):
        return r
    qidx = r.qidx[keep]
    counts = np.bincount(qidx, minlength=r.nq)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pos = (np.arange(len(qidx), dtype=np.int64) - ptr[:-1][qidx]).astype(r.pos.dtype)
    rows = r.rows[keep] if r.rows is not None else None
    return replace(r, ptr=ptr, grade=r.grade[keep], qidx=qidx, pos=pos, rows=rows)


def docno_ascending_ties(r: Ranked) -> Ranked:
    """``r`` with every group of tied scores in docno *ascending* order.

    trec_eval breaks ties by docno descending; ir-measures' own providers
    (Judged) and MS MARCO's evaluation script (RR@k) sort by ``(-score,
    docno)``. Our order inside a tie group is docno descending, so reversing
    each group gives theirs (with equal docnos impossible: duplicates are
    errors). Scores compare in float64, as those tools compare them.
    """
    from dataclasses import replace

    n = len(r.qidx)
    if n < 2 or r.run_score is None or r.rows is None:
        return r
    score = r.score
    new = np.ones(n, dtype=bool)
    new[1:] = (r.qidx[1:] != r.qidx[:-1]) | (score[1:] != score[:-1])
    if bool(new.all()):
        return r
    start = np.flatnonzero(new)
    end = np.append(start[1:], n)
    gid = np.cumsum(new) - 1
    idx = np.arange(n)
    perm = start[gid] + end[gid] - 1 - idx
    rows = r.rows[perm]
    return replace(r, grade=r.grade[perm], rows=rows)


def _shown_topics(qids: np.ndarray | Sequence[bytes]) -> tuple[int, str]:
    """The number of distinct topics and the first three, strcmp order (``'a', 'b', 'c', ...``)."""
    u = np.unique(np.asarray(qids))
    text = ", ".join(shown(q if isinstance(q, bytes) else str(q)) for q in u[:3])
    return len(u), text + (", ..." if len(u) > 3 else "")


def some_topics(qids: np.ndarray | Sequence[bytes]) -> str:
    """``N topic(s): 'a', 'b', 'c', ...`` for a message."""
    n, shown = _shown_topics(qids)
    return f"{n} topic{'s' if n != 1 else ''}" + (f": {shown}" if n else "")


def unknown_topics(run_qids: np.ndarray, qrels_qids: np.ndarray) -> tuple[bytes, ...]:
    """The run's topics that are not in the qrels: no command evaluates them, with or without ``-c``
    (trec_eval 10 -c drops them silently, without -c it stops)."""
    known = set(np.asarray(qrels_qids).tolist())  # sets, not np.isin / np.unique: they import numpy.ma (~10 ms)
    return tuple(sorted({q for q in np.asarray(run_qids).tolist() if q not in known}))


def unknown_topics_warning(run: str, qrels: str, topics: Sequence[bytes]) -> str:
    """One line for a run with topics the qrels lack (a typo'd topic id, another numbering, unjudged topics)."""
    n, shown = _shown_topics(topics)
    return f"{run}: {n} run topic{'s' if n != 1 else ''} not in {qrels}, not evaluated: {shown}"


def unknown_topics_warnings(qrels: str, runs: Sequence[str], unknown: Sequence[Sequence[bytes]]) -> list[str]:
    """The lines for the runs' topics not in the qrels (``unknown``: per run): those of every run of several (the
    unjudged topics of a track) in one line first, then a run's own (a typo'd topic id) in its line."""
    shared = set.intersection(*(set(u) for u in unknown)) if len(unknown) > 1 else set()
    lines = [unknown_topics_warning(f"all {len(runs)} runs", qrels, sorted(shared))] if shared else []
    for path, u in zip(runs, unknown, strict=True):
        if own := [t for t in u if t not in shared]:
            lines.append(unknown_topics_warning(path, qrels, own))
    return lines


def no_common_topics(run: str, run_qids: np.ndarray, qrels: str, qrels_qids: np.ndarray) -> EvaluationError:
    """The error for a run sharing no topic with the qrels (trec_eval: "No queries with both results and relevance
    info", exit 4 in trec_eval 10): one line naming both files and a few topics of each, so that a qrels of another
    collection (or another topic numbering) shows at once. Raised instead of the missing-topics warning, whose
    advice (``-c``) would not be the fix."""

    some = some_topics

    return EvaluationError(f"{run}: no queries with both results and relevance info: none of the run's topics is "
                           f"in {qrels} (run {some(run_qids)}; qrels {some(qrels_qids)})")


def no_common_warning(run: str, qrels: str, qids: Sequence[str], sample: int | None) -> str:
    """The warning of preference mode for a run holding none of the evaluated qrels queries: pref_eval.py's
    answer (the run retrieved nothing on every query: its values are those of an empty run) is kept, as
    stdout must be pref_eval.py's, but a qrels of another collection should not pass unnoticed."""
    shown = ", ".join(repr(x) for x in list(qids)[:3]) + (", ..." if len(qids) > 3 else "")
    where = f"the {len(qids)} quer{'y' if len(qids) == 1 else 'ies'} of sample {sample}" if sample is not None else \
        f"{qrels} ({len(qids)} quer{'y' if len(qids) == 1 else 'ies'} evaluated: {shown})"
    return (f"{run}: none of the run's topics is in {where}; preference mode scores it as retrieving nothing on "
            "every query (as pref_eval.py): check the run and the qrels are of the same collection")
