"""The judgment table shared by every zELO reader, and the ensemble-vote rule.

A *judgment* says, for one query and an ordered pair (A, B) of documents,
how strongly B beats A: ``score`` in [0, 1], 1 = B better, 0 = A better,
0.5 = a tie. This is zbench's orientation (its ``W[b, a] += s``).

Every reader in :mod:`pref_eval.io.judgments` returns a :class:`Judgments`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

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


class Judgments:
    """Judgments for many queries, stored column-wise.

    ``queries`` lists query ids in order of first appearance;
    ``docs[q]`` lists the docnos of query ``q`` (dataset order when a dataset
    was given, else order of first appearance); ``q``, ``a``, ``b`` hold for
    each judgment the query index and the local indices of documents A and B;
    ``score`` (1 = B better) and ``weight`` (>= 0, default 1) are floats
    (lists; :meth:`arrays` gives them as numpy arrays).
    ``closed`` holds the queries whose document lists are fixed (by a
    dataset): adding another document to one raises :class:`UnknownDocument`.
    ``at_line`` is the line the reader is on (for error messages).

    ``votes`` maps a judgment's index to its ensemble's individual votes
    (:func:`vote_values`) when the file carries them (jsonl ``votes``, zbench,
    xie); ``missing`` lists ``(q, a, b)`` of pairs the file names without a
    judgment (llmlog ``?``); ``shown_b_first`` maps a judgment's index to, per
    vote, whether ``doc_b`` was shown first (jsonl ``orders`` holding ``"BA"``,
    as ``zelo_judge`` writes them; absent: every vote shown in the line's
    order). None of them changes the fit; ``zelo_agree`` uses them.
    ``format`` is the format name of the last file read into the table.

    Readers add judgments one at a time (:meth:`add`) or, on their fast
    paths, a whole file at once (:meth:`add_columns`, vectorised); both give
    the same table.
    """

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.docs: dict[str, list[str]] = {}
        self.closed: set = set()
        self._votes: dict = {}
        self._vote_chunks: list = []  # (first judgment index, rows x votes array) not yet in _votes
        self.shown_b_first: dict = {}  # judgment index -> per vote, True where doc_b was shown first (jsonl "orders")
        self.format = ""
        self.missing: list = []
        self.at_line = 0
        self._qindex: dict[str, int] = {}
        self._dindex: dict[str, dict[str, int]] = {}  # built on demand per query
        self._cols: list | None = None  # q, a, b (int32 while they fit), score, weight: buffers with spare room
        self._n = 0  # rows of self._cols in use
        self._room = 0  # rows to reserve at the next allocation (:meth:`reserve`)
        self._rows: tuple[list, list, list, list, list] = ([], [], [], [], [])
        self._score_values: Any = None  # the distinct scores, by code, while the scores are stored as codes
        self._score_bits: Any = None  # their bits sorted, and the code of each (:meth:`_score_codes`)

    def __repr__(self) -> str:
        return f"Judgments({len(self.queries)} queries, {len(self)} judgments)"

    @property
    def votes(self) -> dict:
        """Judgment index -> its ensemble's votes (tuple of floats, :func:`vote_values`).

        Votes added column-wise (:meth:`add_columns`) are turned into tuples
        here, on first use (only ``zelo_agree`` needs them), in judgment order.
        """
        if self._vote_chunks:
            for base, arr in self._vote_chunks:
                self._votes.update(zip(range(base, base + len(arr)), map(tuple, arr.tolist()), strict=True))
            self._vote_chunks = []
        return self._votes

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

    def _doc_index(self, qid: str) -> dict[str, int]:
        idx = self._dindex.get(qid)
        if idx is None:
            idx = {d: i for i, d in enumerate(self.docs[qid])}
            self._dindex[qid] = idx
        return idx

    def add_doc(self, qid: str, docno: str) -> int:
        """Local index of ``docno`` within ``qid``, registering both if new."""
        self.add_query(qid)
        idx = self._doc_index(qid)
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
            self.votes[len(self)] = tuple(votes)
        rq, ra, rb, rs, rw = self._rows
        rq.append(qi)
        ra.append(ai)
        rb.append(bi)
        rs.append(float(score))
        rw.append(float(weight))

    def add_missing(self, qid: str, doc_a: str, doc_b: str) -> None:
        """Register a pair named without a judgment (its documents are registered too)."""
        qi = self.add_query(qid)
        self.missing.append((qi, self.add_doc(qid, doc_a), self.add_doc(qid, doc_b)))

    def add_columns(self, names: Sequence[str], qc: np.ndarray, ac: np.ndarray, bc: np.ndarray, score: np.ndarray,
                    weight: np.ndarray | None = None, lines: np.ndarray | None = None, keep: np.ndarray | None = None,
                    missing: np.ndarray | None = None, votes: np.ndarray | None = None) -> None:
        """Append many judgments at once (vectorised; same table as calling :meth:`add` row by row).

        ``names`` is a string table; ``qc``, ``ac``, ``bc`` integer codes into
        it (query, document A, document B) per row; ``score``, ``weight``
        (default 1) floats; ``lines`` the row's line in its file (for
        :class:`UnknownDocument`, stored in :attr:`at_line`); rows where
        ``keep`` is False only register their documents (A then B), as
        :meth:`add_doc` does. Query and document indices follow first
        appearance, A before B within a row. Rows where ``missing`` is True
        (not kept) are pairs named without a judgment (:meth:`add_missing`).
        ``votes`` (rows x votes, floats as :func:`vote_values` gives them) are
        the kept rows' ensemble votes, stored in :attr:`votes`.
        """
        import numpy as np

        qc = np.asarray(qc)
        n = len(qc)
        if n == 0:
            return
        ac = np.asarray(ac)
        bc = np.asarray(bc)
        # queries, in order of first appearance
        uq, first, qinv = unique_first(qc)
        qmap = np.empty(len(uq), dtype=np.int64)
        for k in np.argsort(first, kind="stable").tolist():
            qmap[k] = self.add_query(names[int(uq[k])])
        qi = qmap[qinv]
        # (query, document) events A0 B0 A1 B1 ..., and their first appearances
        nn = max(int(max(ac.max(), bc.max())) + 1, 1)
        key = np.empty(2 * n, dtype=np.int64)  # (query, document) events A0 B0 A1 B1 ...
        key[0::2] = ac
        key[1::2] = bc
        key += np.repeat(qi * nn, 2)
        ukey, efirst, einv = unique_first(key)
        del key
        order = np.argsort(efirst, kind="stable")  # unique pairs in order of first appearance
        pq = (ukey // nn)[order]
        pd = (ukey % nn)[order]
        local = np.empty(len(ukey), dtype=np.int64)
        # queries that already hold documents (a dataset, an earlier file) are looked up by name
        had = np.zeros(len(self.queries), dtype=bool)  # looked up for this part's queries only
        had[qmap] = [len(self.docs[self.queries[k]]) > 0 or self.queries[k] in self.closed for k in qmap.tolist()]
        old = had[pq]
        if old.any():
            where = np.flatnonzero(old)
            row_of = efirst[order[where]] // 2
            at = np.asarray(lines)[row_of].tolist() if lines is not None else [self.at_line] * len(where)
            for j, qk, dk, line in zip(where.tolist(), pq[where].tolist(), pd[where].tolist(), at, strict=False):
                self.at_line = int(line)
                local[order[j]] = self.add_doc(self.queries[qk], names[dk])
        new = np.flatnonzero(~old)
        if len(new):
            nq_, nd_ = pq[new], pd[new]
            srt = np.argsort(nq_, kind="stable")  # grouped by query, first appearance inside
            gq = nq_[srt]
            bounds = np.flatnonzero(np.r_[True, gq[1:] != gq[:-1], True])
            rank = np.arange(len(srt)) - np.repeat(bounds[:-1], np.diff(bounds))
            local[order[new[srt]]] = rank
            docnames = list(map(names.__getitem__, nd_[srt].tolist()))
            for s0, s1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=False):
                qid = self.queries[int(gq[s0])]
                self.docs[qid] = docnames[s0:s1]
                self._dindex.pop(qid, None)
        ev_local = local[einv].reshape(n, 2)
        s = np.asarray(score, dtype=np.float64)
        w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
        if missing is not None:
            miss = np.flatnonzero(np.asarray(missing, dtype=bool))
            self.missing.extend(zip(qi[miss].tolist(), ev_local[miss, 0].tolist(), ev_local[miss, 1].tolist(),
                                    strict=True))
        if keep is not None:
            keep = np.asarray(keep, dtype=bool)
            qi, ev_local, s, w = qi[keep], ev_local[keep], s[keep], w[keep]
        if votes is not None:
            self._vote_chunks.append((len(self), np.asarray(votes, dtype=np.float64)))
        self._flush_rows()
        self._append(qi, ev_local[:, 0], ev_local[:, 1], s, w)
        if lines is not None and len(lines):
            self.at_line = int(np.asarray(lines)[-1])

    def _flush_rows(self) -> None:
        rq, ra, rb, rs, rw = self._rows
        if rq:
            import numpy as np

            self._rows = ([], [], [], [], [])
            self._append(np.asarray(rq, dtype=np.int64), np.asarray(ra, dtype=np.int64),
                         np.asarray(rb, dtype=np.int64), np.asarray(rs, dtype=np.float64),
                         np.asarray(rw, dtype=np.float64))

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` judgments in all (a hint from a reader that knows roughly how many come:
        the columns are then allocated once, not grown and copied)."""
        self._room = max(self._room, int(rows))

    def _append(self, *cols) -> None:
        """Copy the rows ``q, a, b, score, weight`` into the column buffers (grown when full: by half,
        or to :meth:`reserve`'s room; column by column, so that one column is copied at a time).

        Storage (4 + 2 + 2 + 1 bytes a judgment on a large file with few distinct scores): ``q`` int32,
        ``a``/``b`` int16, each widened (int32, int64) when a value does not fit; the scores as uint8
        codes into :attr:`_score_values` while the file has at most 256 distinct scores (told apart by
        their bits: exact), else float64; no weights while every weight is 1.
        """
        import numpy as np

        n = len(cols[0])
        if n == 0:  # nothing to store: no buffer (its score codes would have no values yet)
            return
        need = self._n + n
        if self._cols is None or need > len(self._cols[0]):
            cap = max(need, self._room, 0 if self._cols is None else len(self._cols[0]) * 3 // 2)
            old = self._cols or [np.zeros(0, dtype=t) for t in (np.int32, np.int16, np.int16, np.uint8)] + [None]
            self._cols = []
            for k in range(5):
                if old[k] is None:  # weights all 1 so far: no column
                    self._cols.append(None)
                    continue
                grown = np.empty(cap, dtype=old[k].dtype)
                grown[:self._n] = old[k][:self._n]
                old[k] = None
                self._cols.append(grown)
        w = np.asarray(cols[4])
        if self._cols[4] is None and n and not bool(np.all(w == 1.0)):  # the first weight other than 1
            self._cols[4] = np.ones(len(self._cols[0]))
        for k in range(3):  # indices: widened once a value does not fit
            x = np.asarray(cols[k])
            if self._cols[k].dtype != np.int64 and n:
                lo, hi = int(x.min()), int(x.max())
                if lo < np.iinfo(self._cols[k].dtype).min or hi > np.iinfo(self._cols[k].dtype).max:
                    self._cols[k] = self._cols[k].astype(np.int32 if lo >= -(1 << 31) and hi < (1 << 31)
                                                         else np.int64)
        scores = cols[3]
        if self._cols[3].dtype == np.uint8 and n:
            scores = self._score_codes(np.asarray(cols[3], dtype=np.float64))
            if scores is None:  # more than 256 distinct scores: float64 from here on
                grown = np.empty(len(self._cols[3]), dtype=np.float64)
                grown[:self._n] = self._score_values[self._cols[3][:self._n]]
                self._cols[3] = grown
                scores = cols[3]
        for k in range(5):
            if self._cols[k] is not None:
                self._cols[k][self._n:need] = scores if k == 3 else cols[k]
        self._n = need

    def _score_codes(self, x):
        """The uint8 codes of the scores ``x`` (new distinct values added to :attr:`_score_values`), or None
        when the table would then hold more than 256 distinct scores. A value is its bits (-0.0 is not 0.0)."""
        import numpy as np

        from ..io.keys import distinct

        bits = np.ascontiguousarray(x).view(np.uint64)
        if self._score_bits is None:
            self._score_values = np.zeros(0)
            self._score_bits = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint8))
        known, code = self._score_bits
        pos = np.searchsorted(known, bits)
        np.minimum(pos, max(len(known) - 1, 0), out=pos)
        hit = known[pos] == bits if len(known) else np.zeros(len(bits), dtype=bool)
        if not hit.all():
            new = distinct(bits[~hit])  # np.unique imports numpy.ma (start-up: tests/test_startup_imports.py)
            if len(known) + len(new) > 256:
                return None
            self._score_values = np.concatenate([self._score_values, new.view(np.float64)])
            allbits = self._score_values.view(np.uint64)
            srt = np.argsort(allbits, kind="stable")
            known, code = allbits[srt], srt.astype(np.uint8)
            self._score_bits = (known, code)
            pos = np.searchsorted(known, bits)
        return code[pos]

    def __len__(self) -> int:
        return self._n + len(self._rows[0])

    def extend(self, other: Judgments) -> None:
        """Append all judgments of ``other`` (documents are merged by id)."""
        q, a, b, s, w = other.arrays()
        for k in range(len(q)):
            qid = other.queries[q[k]]
            dl = other.docs[qid]
            if k in other.shown_b_first:
                self.shown_b_first[len(self)] = other.shown_b_first[k]
            self.add(qid, dl[a[k]], dl[b[k]], float(s[k]), float(w[k]), other.votes.get(k))
        for qi, a_, b_ in other.missing:
            qid = other.queries[qi]
            self.add_missing(qid, other.docs[qid][a_], other.docs[qid][b_])
        for qid in other.queries:
            for d in other.docs[qid]:
                self.add_doc(qid, d)

    def flush(self) -> None:
        """Turn the judgments added one at a time (:meth:`add`) into a compact block of arrays (a reader
        streaming a large file calls it after each part, so that no Python object per judgment stays)."""
        self._flush_rows()

    def arrays(self, compact: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any, Any]:
        """``(q, a, b, score, weight)`` as numpy arrays (int64 / float64).

        The table stores the indices as int32 (``a``, ``b`` int16) while they fit, the scores as codes
        while there are at most 256 distinct ones, and no weights while every weight is 1 (:meth:`_append`);
        ``compact=True`` returns views of the stored columns (no copy: narrow indices, the scores as a
        :class:`CodedColumn` when coded, weight None when every weight is 1), else the indices are int64
        copies, the scores float64 and the weights an array.
        """
        import numpy as np

        self._flush_rows()
        if self._cols is None:
            e = np.zeros(0, dtype=np.int64)
            return e, e.copy(), e.copy(), np.zeros(0), np.zeros(0)
        q, a, b, s = (c[:self._n] for c in self._cols[:4])
        w = None if self._cols[4] is None else self._cols[4][:self._n]  # only the weights may be absent
        if s.dtype == np.uint8:
            s = CodedColumn(s, self._score_values)
        if compact:
            return q, a, b, s, w
        return (q.astype(np.int64), a.astype(np.int64), b.astype(np.int64), np.asarray(s, dtype=np.float64),
                np.ones(self._n) if w is None else w)

    def drop_columns(self) -> None:
        """Forget the judgments (their columns, votes and missing pairs); the queries and documents stay.
        For a caller done with the judgments' arrays (``zelo_fit`` once fitted: the table is most of its memory)."""
        self._cols, self._n, self._rows = None, 0, ([], [], [], [], [])
        self._score_values = self._score_bits = None
        self._votes, self._vote_chunks, self.missing, self.shown_b_first = {}, [], [], {}

    @property
    def q(self) -> list:
        """Column ``q`` as a list (a copy; use :meth:`arrays` for numpy arrays)."""
        return self.arrays()[0].tolist()

    @property
    def a(self) -> list:
        """Column ``a`` as a list (a copy; use :meth:`arrays` for numpy arrays)."""
        return self.arrays()[1].tolist()

    @property
    def b(self) -> list:
        """Column ``b`` as a list (a copy; use :meth:`arrays` for numpy arrays)."""
        return self.arrays()[2].tolist()

    @property
    def score(self) -> list:
        """Column ``score`` as a list (a copy; use :meth:`arrays` for numpy arrays)."""
        return self.arrays()[3].tolist()

    @property
    def weight(self) -> list:
        """Column ``weight`` as a list (a copy; use :meth:`arrays` for numpy arrays)."""
        return self.arrays()[4].tolist()


class CodedColumn:
    """A float64 column held as uint8 ``codes`` into ``values`` (:meth:`Judgments.arrays` with ``compact``).

    Indexing (a slice, a mask, indices) gives a CodedColumn of the selected rows (the codes only are
    copied); ``np.asarray(col)`` the float64 values, ``values[codes]``, exactly the scores given.
    """

    def __init__(self, codes: Any, values: Any) -> None:
        self.codes = codes
        self.values = values

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, sel: Any) -> CodedColumn:
        return CodedColumn(self.codes[sel], self.values)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        out = self.values[self.codes]
        return out if dtype is None else out.astype(dtype, copy=False)


def unique_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(unique keys, index of each one's first occurrence, inverse)`` of an integer array.

    As ``np.unique(keys, return_index=True, return_inverse=True)``, computed
    without a sort: non-negative keys below ``2 * len(keys) + 1024`` through a
    table indexed by the key; others with :func:`pref_eval.io.keys.distinct` and a
    hash-table lookup (:func:`pref_eval.io.keys.positions`). Several times faster.
    """
    import numpy as np

    from ..io.keys import distinct, positions

    keys = np.asarray(keys)
    n = len(keys)
    at = np.arange(n, dtype=np.int64)
    if n and keys.dtype.kind in "iu" and int(keys.min()) >= 0 and int(keys.max()) < 2 * n + 1024:
        first = np.full(int(keys.max()) + 1, n, dtype=np.int64)
        np.minimum.at(first, keys, at)
        present = first < n
        u = np.flatnonzero(present).astype(keys.dtype)
        lut = np.cumsum(present) - 1
        return u, first[present], lut[keys]
    u = distinct(keys)
    inv = positions(u, keys)
    first = np.full(len(u), n, dtype=np.int64)
    np.minimum.at(first, inv, at)
    return u, first, inv


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
