"""The judgment table shared by every zELO reader, and the ensemble-vote rule.

A *judgment* says, for one query and an ordered pair (A, B) of documents,
how strongly B beats A: ``score`` in [0, 1], 1 = B better, 0 = A better,
0.5 = a tie. This is zbench's orientation (its ``W[b, a] += s``).

Every reader in :mod:`pref_eval.io.judgments` returns a :class:`Judgments`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

TIE_RULES = ("half", "zbench")


class UnknownDocument(ValueError):
    """A judged document that the dataset does not list for its query."""


def vote_score(votes: Sequence[float | None], ties: str = "half") -> float:
    """Turn an ensemble's votes into one pair score in [0, 1].

    Each vote is in -1..1 (negative = A better, positive = B better) or
    ``None`` for a failed call. Only the sign counts (zELO research note,
    zbench ``step4``):

    * ``ties="half"`` (default, the research note's rule): a vote > 0 counts
      1, a vote < 0 counts 0, a vote of exactly 0 or a failed vote counts 1/2;
      the pair score is the mean.
    * ``ties="zbench"``: a 0 or failed vote counts for A (0), as zbench does;
      the score is accumulated as ``0.0 + 1/n + 1/n ...`` in vote order so
      that it equals zbench's floating-point value (1/3 + 1/3 + 1/3 == 1.0).
    """
    n = len(votes)
    if n == 0:
        raise ValueError("no votes")
    if ties == "zbench":
        s = 0.0
        for v in votes:
            if v is not None and v > 0:
                s += 1.0 / n
        return s
    if ties != "half":
        raise ValueError(f"unknown tie rule {ties!r}")
    pos = sum(1 for v in votes if v is not None and v > 0)
    zero = sum(1 for v in votes if v is None or v == 0)
    return (pos + 0.5 * zero) / n


def vote_values(votes: Sequence[float | None]) -> tuple[float, ...]:
    """Each vote on the pair-score scale: 0 (A better), 1/2 (tie), 1 (B better), NaN (failed call).

    Only the sign of a vote counts, as in :func:`vote_score`; a failed call is
    kept as NaN (not counted as a tie) so that agreement statistics can treat it
    as a missing vote (``zelo_agree``).
    """
    nan = float("nan")
    return tuple(nan if v is None else (1.0 if v > 0 else 0.0 if v < 0 else 0.5) for v in votes)


@dataclass
class Judgments:
    """Judgments for many queries, stored column-wise.

    ``queries`` lists query ids in order of first appearance;
    ``docs[q]`` lists the docnos of query ``q`` (dataset order when a dataset
    was given, else order of first appearance); ``q``, ``a``, ``b`` hold for
    each judgment the query index and the local indices of documents A and B;
    ``score`` (1 = B better) and ``weight`` (>= 0, default 1) are floats.
    ``closed`` holds the queries whose document lists are fixed (by a
    dataset): adding another document to one raises :class:`UnknownDocument`.
    ``at_line`` is the line the reader is on (for error messages).
    ``votes`` maps a judgment's index to its ensemble's individual votes
    (:func:`vote_values`) when the file carries them (jsonl ``votes``, zbench,
    xie); ``missing`` lists ``(q, a, b)`` of pairs the file names without a
    judgment (llmlog ``?``). Neither changes the fit; ``zelo_agree`` uses them.
    ``format`` is the format name of the last file read into the table.
    """

    queries: list[str] = field(default_factory=list)
    docs: dict[str, list[str]] = field(default_factory=dict)
    q: list[int] = field(default_factory=list)
    a: list[int] = field(default_factory=list)
    b: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    weight: list[float] = field(default_factory=list)
    votes: dict = field(default_factory=dict, repr=False)
    format: str = field(default="", repr=False)
    missing: list = field(default_factory=list, repr=False)
    closed: set = field(default_factory=set, repr=False)
    at_line: int = field(default=0, repr=False)
    _qindex: dict[str, int] = field(default_factory=dict, repr=False)
    _dindex: dict[str, dict[str, int]] = field(default_factory=dict, repr=False)

    def add_query(self, qid: str) -> int:
        """Index of ``qid``, registering it if new."""
        qi = self._qindex.get(qid)
        if qi is None:
            qi = len(self.queries)
            self._qindex[qid] = qi
            self.queries.append(qid)
            self.docs[qid] = []
            self._dindex[qid] = {}
        return qi

    def add_doc(self, qid: str, docno: str) -> int:
        """Local index of ``docno`` within ``qid``, registering both if new."""
        self.add_query(qid)
        idx = self._dindex[qid]
        di = idx.get(docno)
        if di is None:
            if qid in self.closed:
                raise UnknownDocument(f"document {docno!r} is not among the dataset's documents of query {qid!r}")
            di = len(self.docs[qid])
            idx[docno] = di
            self.docs[qid].append(docno)
        return di

    def add(self, qid: str, doc_a: str, doc_b: str, score: float, weight: float = 1.0,
            votes: tuple[float, ...] | None = None) -> None:
        """Append one judgment (``score`` 1 = ``doc_b`` better; ``votes`` its ensemble's votes)."""
        qi = self.add_query(qid)
        ai = self.add_doc(qid, doc_a)
        bi = self.add_doc(qid, doc_b)
        if votes is not None:
            self.votes[len(self.q)] = tuple(votes)
        self.q.append(qi)
        self.a.append(ai)
        self.b.append(bi)
        self.score.append(float(score))
        self.weight.append(float(weight))

    def add_missing(self, qid: str, doc_a: str, doc_b: str) -> None:
        """Register a pair named without a judgment (its documents are registered too)."""
        qi = self.add_query(qid)
        self.missing.append((qi, self.add_doc(qid, doc_a), self.add_doc(qid, doc_b)))

    def __len__(self) -> int:
        return len(self.q)

    def extend(self, other: "Judgments") -> None:
        """Append all judgments of ``other`` (documents are merged by id)."""
        for k in range(len(other)):
            qid = other.queries[other.q[k]]
            dl = other.docs[qid]
            self.add(qid, dl[other.a[k]], dl[other.b[k]], other.score[k], other.weight[k], other.votes.get(k))
        for qi, a, b in other.missing:
            qid = other.queries[qi]
            self.add_missing(qid, other.docs[qid][a], other.docs[qid][b])
        for qid in other.queries:
            for d in other.docs[qid]:
                self.add_doc(qid, d)

    def arrays(self):
        """``(q, a, b, score, weight)`` as numpy arrays (int64 / float64)."""
        import numpy as np

        return (
            np.asarray(self.q, dtype=np.int64),
            np.asarray(self.a, dtype=np.int64),
            np.asarray(self.b, dtype=np.int64),
            np.asarray(self.score, dtype=np.float64),
            np.asarray(self.weight, dtype=np.float64),
        )


def from_dataset(dataset: Iterable[tuple[str, list[str]]]) -> Judgments:
    """An empty :class:`Judgments` whose queries and documents come from a dataset.

    The dataset's queries are closed: a judgment naming another document of
    one of them raises :class:`UnknownDocument` (zbench raises KeyError).
    Queries absent from the dataset stay open.
    """
    j = Judgments()
    for qid, docnos in dataset:
        j.add_query(qid)
        for d in docnos:
            j.add_doc(qid, d)
        j.closed.add(qid)
    return j
