"""Match the judgments of several judges on (query, unordered document pair).

Every judge's file is read by the readers ``zelo_fit`` uses
(:func:`pref_eval.io.judgments.read_judgments`) into a :class:`JudgeVotes`:
one row per *vote* (an ensemble's members or a pair judged several times give
several rows; an llmlog ``?`` line or a failed call gives a missing vote).

Orientation: a pair is stored canonically as (lo, hi) -- its two documents in
the order of their document ids (as strings), whatever order any file wrote
them in -- and every vote value is turned to that
orientation (value 1 = hi better, 0 = lo better, 1/2 = tie), so that a file that
writes the pair (B, A) matches one that writes (A, B).

:func:`match` unites the pairs of all judges (sorted keys) and gives, per judge
and pair, the number of votes, of valid votes, the counts per category
(lo better / tie / hi better), and the judge's pair score mu (the mean of its
valid judgments' scores, in the canonical orientation, rounded to 12 decimals so
that 2/3 and 1 - 1/3 are one value). The judge's *label* of
a pair is the category of mu: lo (< 1/2), tie (= 1/2), hi (> 1/2).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..zelo.judgments import Judgments

LO, TIE, HI = 0, 1, 2
MISSING = -1


@dataclass
class Vocabulary:
    """Global query and document ids shared by all judges.

    ``qdocs[q]`` maps a docno of query ``q`` to its global id; ``doc_q`` and
    ``doc_name`` give each global document's query and docno.
    """

    queries: list[str] = field(default_factory=list)
    qindex: dict[str, int] = field(default_factory=dict)
    qdocs: list[dict[str, int]] = field(default_factory=list)
    doc_q: list[int] = field(default_factory=list)
    doc_name: list[str] = field(default_factory=list)

    def query(self, qid: str) -> int:
        qi = self.qindex.get(qid)
        if qi is None:
            qi = self.qindex[qid] = len(self.queries)
            self.queries.append(qid)
            self.qdocs.append({})
        return qi

    def docs(self, qid: str, docnos: list[str]) -> np.ndarray:
        """Global ids of ``docnos`` of query ``qid``, registering new ones (C-level dict work, no per-doc
        Python statements)."""
        qi = self.query(qid)
        index = self.qdocs[qi]
        ids = list(map(index.get, docnos))
        if None in ids:
            new = [d for d, i in zip(docnos, ids, strict=True) if i is None]
            start = len(self.doc_name)
            index.update(zip(new, range(start, start + len(new)), strict=True))
            self.doc_name.extend(new)
            self.doc_q.extend([qi] * len(new))
            ids = list(map(index.__getitem__, docnos))
        return np.array(ids, dtype=np.int64)


@dataclass
class JudgeVotes:
    """One judge's votes, one row per vote, on global ids.

    ``key`` = lo * n_docs + hi (canonical unordered pair), ``q`` global query,
    ``flip`` True when the file showed hi first (as document A), ``value``
    the vote in the canonical orientation (NaN = missing/failed), ``member``
    the vote's position in its judgment's ensemble, ``judgment`` the index of
    the judgment row (-1 for a pair named without a judgment), ``score`` that
    judgment's pair score in the canonical orientation (NaN when none).
    ``table`` is the judgment table as read (used for the zELO fit).
    ``swapped`` is True for a vote asked with the line's ``doc_b`` shown first
    (jsonl ``orders`` ``"BA"``, zelo_judge's ``--both-orders`` or a pair served
    in the other orientation): its presentation order is not the line's.
    """

    name: str
    key: np.ndarray
    q: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    flip: np.ndarray
    value: np.ndarray
    member: np.ndarray
    judgment: np.ndarray
    score: np.ndarray
    table: Judgments
    swapped: np.ndarray | None = None


def categories(value: np.ndarray) -> np.ndarray:
    """LO (< 1/2), TIE (= 1/2), HI (> 1/2), MISSING (NaN) for values on the pair-score scale."""
    out = (value >= 0.5).astype(np.int8)
    out += value > 0.5
    out[np.isnan(value)] = MISSING
    return out


def judge_votes(name: str, table: Judgments, vocab: Vocabulary) -> JudgeVotes:
    """Flatten a judgment table into per-vote rows on the shared vocabulary.

    The loops run once per query and per document (to map ids) and once per
    judgment only for judgments that carry an ensemble's votes.
    """
    gdoc = []  # per local query: array local doc -> global doc
    for qid in table.queries:
        gdoc.append(vocab.docs(qid, table.docs[qid]))
    qmap = np.array([vocab.query(qid) for qid in table.queries], dtype=np.int64)
    offs = np.zeros(len(gdoc) + 1, dtype=np.int64)
    np.cumsum([len(g) for g in gdoc], out=offs[1:])
    flat = np.concatenate(gdoc) if gdoc else np.zeros(0, dtype=np.int64)
    qj, aj, bj, sj, _ = table.arrays()
    nj = len(qj)
    if table.missing:
        mq, ma, mb = (np.array(c, dtype=np.int64) for c in zip(*table.missing, strict=True))
    else:
        mq = ma = mb = np.zeros(0, dtype=np.int64)
    # votes per judgment: 1 (the score) unless the file carried an ensemble
    nvotes = np.ones(nj, dtype=np.int64)
    if table.votes:
        idx = np.fromiter(table.votes.keys(), dtype=np.int64, count=len(table.votes))
        nvotes[idx] = [len(v) for v in table.votes.values()]
    row_j = np.repeat(np.arange(nj), nvotes)
    member = np.arange(len(row_j)) - np.repeat(np.cumsum(nvotes) - nvotes, nvotes)
    value = sj[row_j].copy()
    if table.votes:
        starts = np.cumsum(nvotes) - nvotes
        pos = np.concatenate([starts[k] + np.arange(len(v)) for k, v in zip(idx, table.votes.values(), strict=True)])
        vals = np.fromiter((x for v in table.votes.values() for x in v), dtype=np.float64, count=len(pos))
        value[pos] = vals
    # append missing pairs as one missing vote each
    rq = np.concatenate([qj[row_j], mq])
    ra = np.concatenate([aj[row_j], ma])
    rb = np.concatenate([bj[row_j], mb])
    swapped = np.zeros(len(value) + len(mq), dtype=bool)
    if table.shown_b_first:
        starts = np.cumsum(nvotes) - nvotes
        for k, ba in table.shown_b_first.items():
            swapped[starts[k]:starts[k] + len(ba)] = ba
    value = np.concatenate([value, np.full(len(mq), np.nan)])
    member = np.concatenate([member, np.zeros(len(mq), dtype=np.int64)])
    judgment = np.concatenate([row_j, np.full(len(mq), -1, dtype=np.int64)])
    score = np.concatenate([sj[row_j], np.full(len(mq), np.nan)])
    ga = flat[offs[rq] + ra] if len(rq) else np.zeros(0, dtype=np.int64)
    gb = flat[offs[rq] + rb] if len(rq) else np.zeros(0, dtype=np.int64)
    q = qmap[rq] if len(rq) else np.zeros(0, dtype=np.int64)
    # canonical orientation is set by orient() once every judge is read
    return JudgeVotes(name, np.zeros(0, dtype=np.int64), q, ga, gb, np.zeros(len(ga), dtype=bool), value, member,
                      judgment, score, table, swapped)


def orient(j: JudgeVotes, rank: np.ndarray) -> None:
    """Put ``j``'s votes (as read: ``lo``/``hi`` hold the file's first/second document) in the canonical
    orientation: lo = the document whose (qid, docno) sorts first."""
    first, second = j.lo, j.hi
    j.flip = rank[first] > rank[second]
    j.lo = np.where(j.flip, second, first)
    j.hi = np.where(j.flip, first, second)
    j.value = np.where(j.flip, 1.0 - j.value, j.value)
    j.score = np.where(j.flip, 1.0 - j.score, j.score)


@dataclass
class Matched:
    """All judges' pairs united (``keys`` sorted) with per-judge per-pair summaries.

    Arrays indexed ``[judge, pair]``: ``present`` (the judge names the pair),
    ``n_votes``, ``n_valid`` (non-missing votes), ``counts[judge, pair, c]``
    (valid votes per category LO/TIE/HI), ``mu`` (mean of the valid judgments'
    scores, canonical orientation; NaN if none) and ``label`` (category of
    ``mu``, MISSING if none). ``q`` is the pair's global query.
    """

    names: list[str]
    queries: list[str]
    keys: np.ndarray
    q: np.ndarray
    present: np.ndarray
    n_votes: np.ndarray
    n_valid: np.ndarray
    counts: np.ndarray
    mu: np.ndarray
    label: np.ndarray
    votes: list[JudgeVotes]
    pair_index: list[np.ndarray]


def match(judges: list[JudgeVotes], vocab: Vocabulary) -> Matched:
    """Unite the judges' pairs and summarise every judge on every pair (vectorised)."""
    nd = max(len(vocab.doc_name), 1)
    # only documents of one query are ever compared, so the docno order alone orients every pair
    names = np.array(vocab.doc_name, dtype=str)
    rank = np.empty(len(names), dtype=np.int64)
    rank[np.argsort(names, kind="stable")] = np.arange(len(names))
    for j in judges:
        orient(j, rank)
        j.key = j.lo * nd + j.hi
    allkeys = np.concatenate([j.key for j in judges]) if judges else np.zeros(0, dtype=np.int64)
    # one argsort gives the united pairs and every vote's pair index (no searchsorted)
    order = np.argsort(allkeys, kind="stable")
    sk = allkeys[order]
    first = np.r_[True, sk[1:] != sk[:-1]] if len(sk) else np.zeros(0, dtype=bool)
    keys = sk[first]
    inverse = np.empty(len(allkeys), dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    bounds = np.cumsum([0] + [len(j.key) for j in judges])
    P, J = len(keys), len(judges)
    qdoc = np.asarray(vocab.doc_q, dtype=np.int64)
    q = qdoc[keys // nd] if P else np.zeros(0, dtype=np.int64)
    present = np.zeros((J, P), dtype=bool)
    n_votes = np.zeros((J, P), dtype=np.int64)
    n_valid = np.zeros((J, P), dtype=np.int64)
    counts = np.zeros((J, P, 3), dtype=np.int64)
    mu = np.full((J, P), np.nan)
    pair_index = []
    for k, j in enumerate(judges):
        pi = inverse[bounds[k]:bounds[k + 1]]
        pair_index.append(pi)
        n_votes[k] = np.bincount(pi, minlength=P)
        present[k] = n_votes[k] > 0
        cat = categories(j.value)
        ok = cat >= 0
        counts[k] = np.bincount(pi[ok] * 3 + cat[ok], minlength=3 * P).reshape(P, 3)
        n_valid[k] = counts[k].sum(-1)
        # one score per judgment: the first vote row of each judgment with a valid vote
        first = (j.member == 0) & (j.judgment >= 0)
        nj = len(j.table.q)
        jslot = np.where(j.judgment >= 0, j.judgment, nj)
        jv = np.bincount(jslot[ok], minlength=nj + 1) > 0
        use = first & jv[jslot]
        s = np.bincount(pi[use], j.score[use], minlength=P)
        c = np.bincount(pi[use], minlength=P)
        with np.errstate(invalid="ignore", divide="ignore"):
            # rounded to 12 decimals: 1 - 1/3 and 2/3 (a pair written in either order) are one value
            mu[k] = np.round(np.where(c > 0, s / np.maximum(c, 1), np.nan), 12)
    label = categories(mu)
    return Matched([j.name for j in judges], list(vocab.queries), keys, q, present, n_votes, n_valid, counts,
                   mu, label, judges, pair_index)


def read_judges(paths: list[str], names: list[str], fmt: str | None = None, ties: str = "half",
                formats: list[str | None] | None = None) -> tuple[list[JudgeVotes], Vocabulary]:
    """Read every judge's file (formats as ``zelo_fit``) onto one vocabulary."""
    from ..io.judgments import read_judgments

    vocab = Vocabulary()
    out = []
    for k, (path, name) in enumerate(zip(paths, names, strict=True)):
        f = formats[k] if formats is not None else fmt
        out.append(judge_votes(name, read_judgments(path, f, ties=ties), vocab))
    return out, canonical_ids(out, vocab)


def canonical_ids(judges: list[JudgeVotes], vocab: Vocabulary) -> Vocabulary:
    """Renumber queries by id and documents by (query, docno) -- not in the order the files name them -- so
    that nothing (the bootstrap's queries, the order of sums) depends on the order of the judgment lines.
    ``judges``' query and document arrays are remapped in place; returns the renumbered vocabulary."""
    nq, nd = len(vocab.queries), len(vocab.doc_name)
    qorder = np.argsort(np.array(vocab.queries, dtype=str), kind="stable") if nq else np.zeros(0, dtype=np.int64)
    qnew = np.empty(nq, dtype=np.int64)
    qnew[qorder] = np.arange(nq)
    doc_q = qnew[np.asarray(vocab.doc_q, dtype=np.int64)] if nd else np.zeros(0, dtype=np.int64)
    dorder = np.lexsort((np.array(vocab.doc_name, dtype=str), doc_q)) if nd else np.zeros(0, dtype=np.int64)
    dnew = np.empty(nd, dtype=np.int64)
    dnew[dorder] = np.arange(nd)
    for j in judges:
        j.q = qnew[j.q]
        j.lo = dnew[j.lo]
        j.hi = dnew[j.hi]
    out = Vocabulary()
    out.queries = [vocab.queries[i] for i in qorder.tolist()]
    out.qindex = {q: i for i, q in enumerate(out.queries)}
    out.doc_name = [vocab.doc_name[i] for i in dorder.tolist()]
    out.doc_q = doc_q[dorder].tolist()
    bounds = np.searchsorted(doc_q[dorder], np.arange(nq + 1)).tolist()  # documents are grouped by query now
    out.qdocs = [dict(zip(out.doc_name[b0:b1], range(b0, b1), strict=True))
                 for b0, b1 in zip(bounds[:-1], bounds[1:], strict=True)]
    return out
