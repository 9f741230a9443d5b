"""TREC qrels reader: ``qid iter docno rel``.

Rules (trec_eval 10 compatible, stricter where trec_eval is silent):

* exactly 4 white-space separated fields; anything else is an error;
* a line whose first character is ``#`` is a comment (a ``#`` inside a
  docno is data);
* blank lines are skipped (trec_eval refuses them; we accept them but say so
  in the docs);
* ``rel`` must be an integer (``2``, ``-1``, ``+3``, or an integral decimal such as ``4.0``;
  grammar in :mod:`pref_eval.io.numbers`); a negative grade means "pooled but unjudged", as in
  trec_eval;
* a duplicate (qid, docno) pair is an error naming both lines;
* an empty file (no judgment lines) is an error.

``irds:<dataset-id>`` loads the qrels of an ir_datasets dataset.

**Subtopic (diversity) qrels** (``read_qrels(..., subtopics=True)``, asked
for when a diversity measure is requested): the second column is the
subtopic (intent) id, as in the TREC Web track's diversity qrels; a
(qid, subtopic, docno) triple may appear once. The returned :class:`Qrels`
holds one row per (qid, docno) with its highest grade over the subtopics
(what the ordinary measures see) and keeps every row in ``subtopics``.
The ordinary path does not do any of this work.
"""
from __future__ import annotations

from dataclasses import field
from typing import Any

import numpy as np

from ..records import record
from ..errors import InputError, command_running, shown
from .fastparse import fast_columns
from .numbers import integer_grades
from .tokenize import split_lines
from .textfile import PathLike, display_name, plain_file, read_input_bytes


@record(frozen=True)
class Qrels:
    """Judgments as parallel arrays (one entry per judgment line).

    ``qid`` and ``docno`` are numpy bytes arrays (``S`` dtype: byte-order
    comparisons, as trec_eval's strcmp); ``rel`` int64; ``iter`` the second
    column as bytes (the judgment group for ``-R qrels_jg``); ``line`` the
    1-based line numbers, for messages (an integer array, int32 or int64). ``grouping`` optionally carries the
    work of the duplicate check for the collection (see :func:`grouping_of`).
    """

    qid: np.ndarray
    iter: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    line: np.ndarray
    source: str = "<qrels>"
    grouping: tuple | None = field(default=None, repr=False, compare=False)
    subtopics: Qrels | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.qid)


def grouping_of(q: Qrels) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pref_eval.io.keys.judgment_grouping` of ``q`` (reused when the reader
    already computed it for these very arrays)."""
    g = q.grouping
    if g is not None and g[0] is q.qid and g[1] is q.docno:
        return g[2]
    from .keys import judgment_grouping

    return judgment_grouping(q.qid, q.docno)


def _with_grouping(q: Qrels, check: bool) -> Qrels:
    """``q`` carrying its grouping; with ``check``, a duplicate (qid, docno) is an error."""
    from .keys import judgment_grouping

    g = judgment_grouping(q.qid, q.docno)
    if check:
        _check_duplicates(q, g[2])
    return Qrels(qid=q.qid, iter=q.iter, docno=q.docno, rel=q.rel, line=q.line, source=q.source,
                 grouping=(q.qid, q.docno, g))


def _check_duplicates(q: Qrels, ck: np.ndarray | None = None) -> None:
    """Raise on a duplicate (qid, docno); ``ck`` the sorted group keys if known."""
    if len(q) < 2:
        return
    if ck is None:
        from .keys import factorize_bytes, group_keys, string_keys

        uq, codes = factorize_bytes(q.qid)
        ck = np.sort(group_keys(codes, string_keys(q.docno), max(len(uq), 1)))
    if not bool((ck[1:] == ck[:-1]).any()):
        return  # distinct keys ⇒ distinct (qid, docno) pairs
    order = np.lexsort((q.docno, q.qid))
    sq, sd = q.qid[order], q.docno[order]
    dup = np.flatnonzero((sq[1:] == sq[:-1]) & (sd[1:] == sd[:-1]))
    if len(dup):
        a, b = order[dup[0]], order[dup[0] + 1]
        first, second = sorted((int(q.line[a]), int(q.line[b])))
        raise InputError(
            q.source, second,
            f"duplicate judgment for query {q.qid[a].decode(errors='replace')!s} "
            f"document {q.docno[a].decode(errors='replace')!s} (first at line {first})",
        )


#: Where the qrels go, the hint of a run read as qrels and of qrels read as a run: the command line's places (a
#: command runs), the functions' (a Python caller).
QRELS_FIRST = {True: "`zelo_trec QRELS RUN`, or after -R or --qrels",
               False: "the first argument of evaluate(qrels, runs) and evaluate_runs(qrels, runs), or qrels=QRELS"}


def _run_line(data: bytes, line: int) -> bool:
    """Whether line ``line`` (1-based) of ``data`` reads as a TREC run line: 6 fields, an integer rank, a numeric
    score (the qrels and the run given the other way round; only on the error's path)."""
    import io
    from itertools import islice

    text = next(islice(io.BytesIO(data), line - 1, None), b"").split()
    if len(text) != 6:
        return False
    try:
        int(text[3])
        float(text[4])
    except ValueError:
        return False
    return True


_KINDS = {0: "S", 1: "S", 2: "S", 3: "S"}  # grades as bytes: one grammar for both paths (numbers.py)


def qrels_from_lines(data: bytes, source: str, *, check_duplicates: bool = True,
                     fast: dict[int, np.ndarray] | None = None, try_fast: bool = True) -> Qrels:
    """Parse qrels bytes; see the module docstring for the rules.

    ``fast`` holds columns already parsed by the fast path (then ``data`` is unused).
    """
    if fast is None and try_fast:
        fast = fast_columns(data, min_fields=4, max_fields=4, kinds=_KINDS)
    if fast is not None:
        n = len(fast[0])
        q = Qrels(qid=fast[0], iter=fast[1], docno=fast[2], rel=integer_grades(fast[3], source),
                  line=np.arange(1, n + 1, dtype=np.int32 if n < 2**31 - 1 else np.int64), source=source)
        return _with_grouping(q, check_duplicates)
    try:
        fields, lines = split_lines(data, source, min_fields=4, max_fields=4,
                                    expected="4 fields 'qid iter docno rel'")
    except InputError as err:
        if err.line and err.message.endswith("found 6 fields") and _run_line(data, err.line):
            raise InputError(err.path, err.line, err.message + " (a run's line 'qid Q0 docno rank score tag': "
                             "the qrels come first, " + QRELS_FIRST[command_running()] + ")") from None
        raise
    if len(lines) == 0:
        raise InputError(source, 0, "empty qrels file (expected lines 'qid iter docno rel')")
    rel = integer_grades(fields[3], source, lines)
    q = Qrels(qid=fields[0], iter=fields[1], docno=fields[2], rel=rel, line=lines, source=source)
    return _with_grouping(q, check_duplicates)


def check_subtopic_duplicates(q: Qrels) -> None:
    """Raise on a repeated (qid, subtopic, docno) triple, naming both lines.

    The message is the one of the ordinary duplicate check (``duplicate judgment for query Q document D
    (first at line N)``), with ``subtopic S`` added when the second column is a subtopic id (not ``0`` /
    ``Q0``): the same repeated line gets the same message from every reader of qrels.
    """
    if len(q) < 2:
        return
    o = np.lexsort((q.line, q.docno, q.iter, q.qid))
    sq, si, sd = q.qid[o], q.iter[o], q.docno[o]
    dup = np.flatnonzero((sq[1:] == sq[:-1]) & (si[1:] == si[:-1]) & (sd[1:] == sd[:-1]))
    if len(dup):
        a, b = o[dup[0]], o[dup[0] + 1]
        sub = "" if q.iter[a] in (b"0", b"Q0") else f" subtopic {q.iter[a].decode(errors='replace')}"
        raise InputError(q.source, int(q.line[b]),
                         f"duplicate judgment for query {q.qid[a].decode(errors='replace')}{sub} "
                         f"document {q.docno[a].decode(errors='replace')} (first at line {int(q.line[a])})")


def with_subtopics(q: Qrels) -> Qrels:
    """Subtopic qrels → one row per (qid, docno) (highest grade) carrying every row in ``subtopics``.

    A repeated (qid, subtopic, docno) triple is an error naming both lines.
    """
    full = Qrels(qid=q.qid, iter=q.iter, docno=q.docno, rel=q.rel, line=q.line, source=q.source)
    if len(q) == 0:
        return Qrels(qid=q.qid, iter=q.iter, docno=q.docno, rel=q.rel, line=q.line, source=q.source,
                     subtopics=full)
    check_subtopic_duplicates(q)
    o = np.lexsort((q.line, -q.rel, q.docno, q.qid))
    sq, sd = q.qid[o], q.docno[o]
    first = o[np.concatenate([[True], (sq[1:] != sq[:-1]) | (sd[1:] != sd[:-1])])]
    first.sort()
    c = Qrels(qid=q.qid[first], iter=q.iter[first], docno=q.docno[first], rel=q.rel[first],
              line=q.line[first], source=q.source)
    c = _with_grouping(c, False)
    return Qrels(qid=c.qid, iter=c.iter, docno=c.docno, rel=c.rel, line=c.line, source=c.source,
                 grouping=c.grouping, subtopics=full)


def read_qrels(path: PathLike, *, check_duplicates: bool = True, subtopics: bool = False) -> Qrels:
    """Read a TREC qrels file (path, ``-``, gzip) or ``irds:<dataset-id>``.

    ``subtopics``: the second column is a subtopic id (see the module doc).
    """
    if subtopics:
        return with_subtopics(read_qrels(path, check_duplicates=False))
    p = str(path)
    if p.startswith("irds:"):
        from .irds import irds_qrels_columns

        cols = irds_qrels_columns(p[5:])
        q = Qrels(qid=cols["qid"], iter=cols["iter"], docno=cols["docno"], rel=cols["rel"], line=cols["line"],
                  source=p)
        if check_duplicates:
            _check_duplicates(q)
        return q
    plain = plain_file(p)
    if plain:
        fast = fast_columns(p, min_fields=4, max_fields=4, kinds=_KINDS)
        if fast is not None:
            return qrels_from_lines(b"", display_name(p), check_duplicates=check_duplicates, fast=fast)
    data = read_input_bytes(p, what="qrels file")
    try:
        return qrels_from_lines(data, display_name(p), check_duplicates=check_duplicates, try_fast=not plain)
    except InputError as err:
        from .zelo_scores import stream_misread

        why = stream_misread(p, data, "TREC qrels")
        if why is None:
            from .peer_files import ranx_file_hint

            why = ranx_file_hint(data, "TREC qrels", "Qrels")
        if why is None:
            raise
        raise InputError(err.path, 1, why) from None


def read_subtopic_qrels(path: PathLike) -> Qrels:
    """Every line of a qrels file whose second column is a subtopic id (diazf/pref_eval's qrels).

    The qrels of ``zelo_eval``'s preference mode: a document may be judged under several subtopics
    (its grade is then the highest, :mod:`pref_eval.run_preferences.data`), but a repeated
    (qid, subtopic, docno) triple is an error, as for the diversity measures (:func:`with_subtopics`);
    an ordinary qrels file (second column ``0``/``Q0``) is thus held to the rule of :func:`read_qrels`.
    """
    q = read_qrels(path, check_duplicates=False)
    check_subtopic_duplicates(q)
    return q


def graded_documents(path: PathLike) -> dict[str, dict[str, float]]:
    """``{topic: {docno: grade}}`` of a qrels file read by :func:`read_qrels` (same rules and
    messages), in file order; an id that is not UTF-8 as its surrogate escape (its bytes: the JSON states
    write it as ``\\udcNN``, the text outputs as the same bytes).

    The candidates of ``zelo_pairs init`` (Clarke's tournament, :mod:`pref_eval.zelo.tournament`).
    """
    q = read_qrels(path)
    out: dict[str, dict[str, float]] = {}
    for t, d, g in zip(q.qid.tolist(), q.docno.tolist(), q.rel.tolist(), strict=True):
        out.setdefault(t.decode("utf-8", "surrogateescape"), {})[d.decode("utf-8", "surrogateescape")] = float(g)
    return out


def qrels_from_records(records: Any, source: str = "<qrels>", *, subtopics: bool = False) -> Qrels:
    """Build Qrels from a DataFrame (query_id/doc_id/relevance columns, or
    qid/docno/rel; an ``iteration`` column is kept), a dict ``{qid: {docno: rel}}``
    or an iterable of tuples ``(qid, docno, rel)`` / ``(qid, iteration, docno, rel)``
    or of ``Qrel`` namedtuples. ``subtopics``: the iteration is a subtopic id
    (see :func:`with_subtopics`)."""
    from .frames import id_bytes, id_text, record_fields

    qids: list[Any] = []
    docs: list[Any] = []
    rels: list[Any] = []
    iters: list[str] = []
    if isinstance(records, dict):
        for qid, dd in records.items():
            if not hasattr(dd, "items"):
                raise InputError(source, 0, f"query {shown(qid)}: expected a dict {{docno: grade}}, "
                                            f"got {type(dd).__name__}")
            for doc, rel in dd.items():
                qids.append(qid)
                docs.append(doc)
                rels.append(rel)
    elif hasattr(records, "columns"):
        return _qrels_from_frame(records, source, subtopics=subtopics)
    else:
        for i, rec in enumerate(records, 1):
            if not hasattr(rec, "query_id"):
                rec = record_fields(rec, source, i, "(qid, docno, rel) or (qid, iteration, docno, rel)")
            if hasattr(rec, "query_id"):
                qids.append(rec.query_id)
                docs.append(rec.doc_id)
                rels.append(rec.relevance)
                iters.append(id_text(getattr(rec, "iteration", "0")))
            elif len(rec) == 3:
                qids.append(rec[0])
                docs.append(rec[1])
                rels.append(rec[2])
                iters.append("0")
            elif len(rec) == 4:
                qids.append(rec[0])
                iters.append(id_text(rec[1]))
                docs.append(rec[2])
                rels.append(rec[3])
            else:
                raise InputError(source, i, "expected (qid, docno, rel) or (qid, iteration, docno, rel)")
    qids, docs = _record_ids(qids, source), _record_ids(docs, source)
    n = len(qids)
    q = Qrels(
        qid=id_bytes(qids, source),
        iter=id_bytes(iters, source) if iters and n else np.full(n, b"0", dtype="S1"),
        docno=id_bytes(docs, source),
        rel=_integral(rels, source),
        line=np.arange(1, n + 1, dtype=np.int64),
        source=source,
    )
    return _checked(q, subtopics=subtopics)


def _checked(q: Qrels, *, subtopics: bool) -> Qrels:
    """Qrels given as data, finished as a file's are: subtopic grades merged, or duplicates refused."""
    if subtopics:
        return with_subtopics(q)
    _check_duplicates(q)
    return q


def _record_ids(values: list, source: str) -> list[str]:
    """Query or document ids of records as strings; None, a float (NaN, or 1.0 whose ``str`` "1.0"
    matches no run's "1") or an empty string is an InputError naming the record (1-based)."""
    from .frames import id_text, not_an_id

    for i, x in enumerate(values, 1):
        if not_an_id(x):
            raise InputError(source, i, f"missing, float, bool or empty id {shown(x)} (expected a string or an "
                                        "integer)")
    return [id_text(x) for x in values]


def _qrels_from_frame(df: Any, source: str, *, subtopics: bool) -> Qrels:
    """A DataFrame ``query_id, doc_id, relevance`` (or ``qid, docno, rel`` / PyTerrier's ``label`` / ranx's
    ``q_id, doc_id, score``, the grade named score only beside ranx's q_id; an
    ``iteration`` column is kept; other columns are not read), column-wise; ids checked by
    :func:`pref_eval.io.frames.id_column`."""
    from .frames import find_column, id_column, index_hint

    qc = find_column(df, ("query_id", "qid", "q_id"), source)
    dc = find_column(df, ("doc_id", "docno", "docid"), source)
    rc = find_column(df, ("relevance", "rel", "label"), source)
    if rc is None and qc is not None and qc.lower() == "q_id":
        rc = find_column(df, ("score",), source)  # ranx's Qrels.to_dataframe() / from_df: q_id, doc_id, score
    if qc is None or dc is None or rc is None:
        swapped = ("; this one has a run's score column: the qrels come first, evaluate(qrels, runs, measures) "
                   "(PyTerrier's pt.Evaluate takes the run first)") if qc and dc and find_column(
                       df, ("score",), source) else ""
        raise InputError(source, 0, "DataFrame needs query_id/qid, doc_id/docno and relevance/rel/label columns "
                                    f"(ranx's q_id, doc_id, score too){swapped}{index_hint(df)}")
    n = len(df)
    ic = find_column(df, ("iteration", "iter", "subtopic"), source)
    q = Qrels(
        qid=id_column(df, qc, source),
        iter=id_column(df, ic, source) if ic is not None and n else np.full(n, b"0", dtype="S1"),
        docno=id_column(df, dc, source),
        rel=_integral(list(df[rc]), source),
        line=np.arange(1, n + 1, dtype=np.int64),
        source=source,
    )
    return _checked(q, subtopics=subtopics)


def _integral(values: list, source: str) -> np.ndarray:
    """Grades given as Python / numpy numbers → int64; an integral float (4.0) is its integer, a
    non-integral one is refused as in a qrels file (never truncated)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "iub" or len(arr) == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind != "f":
        return integer_grades(np.array([str(v).encode() for v in values], dtype="S"), source)
    bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) >= 2.0**63))
    if len(bad):
        raise InputError(source, int(bad[0]) + 1, f"relevance grade {shown(values[int(bad[0])])} is not an integer")
    return arr.astype(np.int64)
