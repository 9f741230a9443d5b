"""The one shared per-query representation: qrels + runs → sorted arrays.

Built once per evaluation. Every measure reads a :class:`Ranked` (one run)
and never re-parses or re-sorts anything.

Decisions taken here, and only here (docs/ranking-and-topics.md):

* **Ids** are mapped to integers through a sort of the byte strings
  (``np.unique``), never hashed. ``doc`` ids are shared by the qrels and
  every run of one collection, so two runs can be compared doc by doc.
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
from .io.qrels import Qrels
from .io.runs import Run

NONPOOL = -1
UNJUDGED = -2
BOGUS_DOC = -1  # doc int of trec_eval's placeholder document for a topic missing under -c


@dataclass(frozen=True)
class QrelsIndex:
    """Qrels grouped by query, in strcmp order of query ids.

    ``qids`` sorted unique query ids (bytes); ``ptr`` offsets (len nq+1)
    into the flat per-judgment arrays ``doc`` (global doc ints, ascending
    within a query), ``grade`` (raw qrels grade, may be negative) and
    ``docno``.
    """

    qids: np.ndarray
    ptr: np.ndarray
    doc: np.ndarray
    grade: np.ndarray
    docno: np.ndarray

    @property
    def nq(self) -> int:
        return len(self.qids)


@dataclass(frozen=True)
class Ranked:
    """One run, evaluated on ``qids``: a slice of flat arrays per query.

    Retrieved side (flat, length = total retrieved, query-major, rank order):
    ``grade`` (see module doc), ``doc`` (global doc ints), ``score``,
    ``qidx`` (query index), ``pos`` (0-based rank).
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


def _doc_space(qrels: Qrels, runs: Sequence[Run]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Map every docno (qrels and runs) to an int; byte order is kept."""
    parts = [qrels.docno] + [r.docno for r in runs]
    allv = np.concatenate(parts) if parts else np.array([], dtype="S1")
    uni, inv = np.unique(allv, return_inverse=True)
    out: list[np.ndarray] = []
    start = 0
    for p in parts:
        out.append(inv[start:start + len(p)].astype(np.int64))
        start += len(p)
    return uni, out


def index_qrels(qrels: Qrels, doc: np.ndarray) -> QrelsIndex:
    qids, qinv = np.unique(qrels.qid, return_inverse=True)
    order = np.lexsort((doc, qinv))
    counts = np.bincount(qinv, minlength=len(qids))
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return QrelsIndex(qids=qids, ptr=ptr, doc=doc[order], grade=qrels.rel[order],
                      docno=qrels.docno[order])


def rank_run(
    run: Run,
    doc: np.ndarray,
    qi: QrelsIndex,
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_only: bool = False,
    trec9: bool = False,
    query_ids: np.ndarray | None = None,
) -> tuple[Ranked, np.ndarray]:
    """Sort, truncate and label one run. Returns (ranked, missing_qids).

    ``query_ids`` (sorted bytes) overrides the query set.
    """
    nqq = qi.nq
    # position of each run line's query in the qrels' query list (-1: absent)
    loc = np.searchsorted(qi.qids, run.qid)
    loc_c = np.minimum(loc, max(nqq - 1, 0))
    known = (loc < nqq) & (qi.qids[loc_c] == run.qid) if nqq else np.zeros(len(run.qid), bool)
    run_topics = np.unique(loc_c[known])
    present_mask = np.zeros(nqq, bool)
    present_mask[run_topics] = True
    missing = qi.qids[~present_mask]
    if query_ids is not None:
        eval_q = np.searchsorted(qi.qids, query_ids)
    elif complete:
        eval_q = np.arange(nqq)
    else:
        eval_q = run_topics
    # map qrels query index -> evaluated index
    eval_of = np.full(nqq + 1, -1, dtype=np.int64)
    eval_of[eval_q] = np.arange(len(eval_q))
    qpos = np.where(known, eval_of[np.where(known, loc_c, nqq)], -1)
    keep = qpos >= 0
    qpos = qpos[keep]
    rdoc = doc[keep]
    score = run.score[keep]
    lines = run.line[keep]
    nq = len(eval_q)
    if not trec9:
        # trec_eval 10 scores a topic missing from the run (-c) on a bogus
        # one-document ranking ("ceci_nest_pas_un_docno", sim 1.0, not in the
        # pool), before -M and -J; measures whose printed name trec_eval then
        # zeroes are marked ``zero_if_missing``.
        lack = np.flatnonzero(~present_mask[eval_q])
        if len(lack):
            qpos = np.concatenate([qpos, lack])
            rdoc = np.concatenate([rdoc, np.full(len(lack), BOGUS_DOC, dtype=rdoc.dtype)])
            score = np.concatenate([score, np.ones(len(lack))])
            lines = np.concatenate([lines, np.zeros(len(lack), dtype=lines.dtype)])
    skey = score.astype(np.float32) if trec9 else score
    order = np.lexsort((-rdoc, -skey, qpos))
    qpos, rdoc, score, lines = qpos[order], rdoc[order], score[order], lines[order]
    counts = np.bincount(qpos, minlength=nq)
    starts = np.concatenate([[0], np.cumsum(counts)])[:-1]
    pos = np.arange(len(qpos)) - starts[qpos]
    if depth is not None:
        sel = pos < depth
        qpos, rdoc, score, lines, pos = qpos[sel], rdoc[sel], score[sel], lines[sel], pos[sel]
    _check_run_duplicates(run, qpos, rdoc, lines)
    # label with qrels grades
    grade = np.full(len(rdoc), NONPOOL, dtype=np.int64)
    qq = eval_q[qpos] if len(qpos) else np.array([], dtype=np.int64)
    if len(qi.doc):
        key_j = np.repeat(np.arange(nqq, dtype=np.int64), np.diff(qi.ptr)) * (int(qi.doc.max()) + 2) + qi.doc
        key_r = qq * (int(qi.doc.max()) + 2) + np.minimum(rdoc, int(qi.doc.max()) + 1)
        hit = np.searchsorted(key_j, key_r)
        hitc = np.minimum(hit, len(key_j) - 1)
        found = (hit < len(key_j)) & (key_j[hitc] == key_r)
        g = qi.grade[hitc]
        grade = np.where(found, np.where(g < 0, UNJUDGED, g), NONPOOL)
    if judged_only:
        sel = grade >= 0
        qpos, rdoc, score, grade = qpos[sel], rdoc[sel], score[sel], grade[sel]
    counts = np.bincount(qpos, minlength=nq)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pos = np.arange(len(qpos)) - ptr[:-1][qpos]
    # judged side
    jcounts = np.diff(qi.ptr)[eval_q]
    jptr = np.concatenate([[0], np.cumsum(jcounts)]).astype(np.int64)
    jsel = np.concatenate([np.arange(qi.ptr[q], qi.ptr[q + 1]) for q in eval_q]) if nq else np.array([], np.int64)
    jg = qi.grade[jsel.astype(np.int64)] if len(jsel) else np.array([], np.int64)
    jq = np.repeat(np.arange(nq), jcounts)
    jorder = np.lexsort((-jg, jq))
    ranked = Ranked(
        name=run.name, tag=run.tag, qids=qi.qids[eval_q], ptr=ptr,
        grade=grade.astype(np.int64), doc=rdoc, score=score, qidx=qpos.astype(np.int64),
        pos=pos.astype(np.int64), jptr=jptr, jgrade=jg[jorder].astype(np.int64),
        present=present_mask[eval_q], source=run.source,
    )
    return ranked, missing


def _check_run_duplicates(run: Run, qpos: np.ndarray, rdoc: np.ndarray, lines: np.ndarray) -> None:
    if len(qpos) < 2:
        return
    o = np.lexsort((rdoc, qpos))
    same = (qpos[o][1:] == qpos[o][:-1]) & (rdoc[o][1:] == rdoc[o][:-1])
    if same.any():
        k = int(np.flatnonzero(same)[0])
        a, b = sorted((int(lines[o][k]), int(lines[o][k + 1])))
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
    _, docs = _doc_space(qrels, runs)
    qi = index_qrels(qrels, docs[0])
    ranked: list[Ranked] = []
    missing: list[np.ndarray] = []
    for run, d in zip(runs, docs[1:]):
        r, m = rank_run(run, d, qi, complete=complete, depth=depth,
                        judged_only=judged_only, trec9=trec9)
        ranked.append(r)
        missing.append(m)
    return Collection(qrels=qi, runs=tuple(ranked), missing=tuple(missing))
