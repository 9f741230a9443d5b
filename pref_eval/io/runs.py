"""TREC run reader: ``qid iter docno rank score tag [anything...]``.

Rules (trec_eval 10 compatible, stricter where trec_eval is silent):

* at least 6 white-space separated fields; extra fields are ignored;
* blank lines are skipped; a line whose first byte is ``#`` is a comment;
* ``iter`` and ``rank`` are ignored;
* ``score`` is parsed as a double; a non-numeric or NaN score is an error
  (trec_eval silently reads garbage as 0.0, which we refuse); ``inf`` is accepted;
* the run tag is the 6th field of the **last** data line (trec_eval's ``runid``);
* an empty file is an error (trec_eval: "Cannot read results file").

Duplicate documents for a query are detected when the collection is built,
after ``-M`` truncation, as trec_eval does.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from ..records import record
from ..errors import InputError, command_running, shown
from .textfile import PathLike, display_name, last_line_of_file, plain_file, read_input_bytes
from .fastparse import fast_columns
from .numbers import decimal_floats
from .tokenize import column_budget, split_lines


_KINDS = {0: "S", 2: "S", 4: "f8", 5: "T"}  # 5: the distinct tags (Run.tags), not the column


@record(frozen=True)
class Run:
    """One run as parallel arrays in file order.

    ``qid`` (a property) and ``docno`` are numpy bytes arrays, ``score``
    float64, ``line`` 1-based line numbers (``line_numbers``; ``None``
    stores nothing and means lines 1..n, the fast path's case), ``tag`` the
    run tag of the last line, ``name`` the label used in outputs (the file
    name unless given). Query ids are stored as blocks of consecutive equal
    values (``qid_values``, ``qid_lengths``), as runs are written query by
    query; ``qid`` expands them on each access. ``empty_topics``: the query ids a run given as a dict
    ``{qid: {}}`` holds with no document (BEIR's retrievers give a query that found nothing so); they are
    evaluated as having retrieved nothing (:func:`pref_eval.collection.rank_run`), as pytrec_eval,
    ir-measures and ranx evaluate them. A run file cannot express one. ``tags``: the distinct run tags (6th
    column) with the line each first appears on, in line order, found while the file was read (the compiled
    reader and the tokenizer; :func:`pref_eval.io.groups.run_value` takes them instead of reading the file
    again; the streaming path of files over ``COMPILED_MAX`` too, since session 27); ``None`` for runs from a
    DataFrame or a dict.
    """

    qid_values: np.ndarray
    qid_lengths: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    line_numbers: np.ndarray | None
    tag: str
    name: str
    source: str
    empty_topics: tuple[bytes, ...] = ()
    tags: tuple[tuple[str, int], ...] | None = None

    @classmethod
    def from_arrays(cls, qid: np.ndarray, docno: np.ndarray, score: np.ndarray,
                    line_numbers: np.ndarray | None, tag: str, name: str, source: str,
                    tags: tuple[tuple[str, int], ...] | None = None) -> Run:
        """A Run from a per-line ``qid`` array."""
        n = len(qid)
        if n:
            heads = np.flatnonzero(np.concatenate([[True], qid[1:] != qid[:-1]]))
            values, lengths = qid[heads], np.diff(np.append(heads, n))
        else:
            values, lengths = qid[:0], np.zeros(0, dtype=np.int64)
        return cls(qid_values=values, qid_lengths=lengths, docno=docno, score=score,
                   line_numbers=line_numbers, tag=tag, name=name, source=source, tags=tags)

    @property
    def qid(self) -> np.ndarray:
        """Query id of every line (bytes array, expanded from the blocks)."""
        return np.repeat(self.qid_values, self.qid_lengths)

    def __len__(self) -> int:
        return len(self.docno)

    @property
    def line(self) -> np.ndarray:
        """1-based line number of every entry (materialised on demand)."""
        if self.line_numbers is None:
            return np.arange(1, len(self.docno) + 1, dtype=np.int64)
        return self.line_numbers

    def line_of(self, row: int) -> int:
        """Line number of entry ``row``."""
        return row + 1 if self.line_numbers is None else int(self.line_numbers[row])

    def row_of_line(self, line: int) -> int:
        """Entry index of line ``line`` (which must hold an entry)."""
        if self.line_numbers is None:
            return line - 1
        return int(np.searchsorted(self.line_numbers, line))


def _parse_scores(tokens: np.ndarray, lines: np.ndarray, source: str) -> np.ndarray:
    score = decimal_floats(tokens, source, lines, "score")
    bad = np.flatnonzero(np.isnan(score))
    if len(bad):
        i = int(bad[0])
        raise InputError(source, int(lines[i]),
                         f"score {shown(tokens[i].decode(errors='replace'))} is NaN (expected a number)")
    return score


COMPILED_MAX = 1 << 26  # plain run files up to 64 MB: read whole by the kernels (faster than pyarrow's CPU)


def _compiled_reader() -> Any:
    """The compiled kernels if they have ``run_columns`` (built, not switched off), else None."""
    from ..native import kernels

    kern = kernels()
    return kern if kern is not None and hasattr(kern, "run_columns") else None


def _tag_text(tag: bytes) -> str:
    """The run tag as text that is written back as the same bytes (``runid``), as qids and docnos are
    (docs/input-formats.md): a tag that is not UTF-8 (Latin-1 ``t\\xe9g``) keeps its bytes through surrogate
    escapes, as trec_eval prints it, never U+FFFD."""
    return tag.decode("utf-8", errors="surrogateescape")


def _compiled_run(compiled: tuple, source: str, name: str | None) -> Run:
    qid, docno, score, lines, tag_bytes, tags = compiled
    return Run.from_arrays(qid=qid, docno=docno, score=score, line_numbers=lines,
                           tag=_tag_text(tag_bytes),
                           name=name if name is not None else source, source=source,
                           tags=None if tags is None else tuple((_tag_text(t), int(n)) for t, n in tags))


def _compiled_columns(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bytes, Any] | None:
    """(qid, docno, score, lines, tag, tags) as the tokenizer path gives them, from the compiled kernels'
    ``run_columns`` (one pass in C, no Python work per line; ``tags``: the distinct tags and their first
    lines, found by :func:`_tags` from the tag column the kernels give past 64 of them); None when the kernels
    are not built or
    the file has anything unusual (comments, errors, NUL, long fields, words or hex as scores), which
    the tokenizer path then reads with its file:line errors."""
    kern = _compiled_reader()
    if kern is None:
        return None
    got = kern.run_columns(data, column_budget(len(data)))
    if got is None:
        return None
    qbuf, wq, dbuf, wd, sbuf, lbuf, tag, *tags = got  # (a kernel built before session 25 gives no tags)
    lines = np.frombuffer(lbuf, dtype=np.int64)
    found = tags[0] if tags else None
    if isinstance(found, bytearray):  # past 64 distinct tags: the 6th column itself (session 27)
        found = _distinct_tags(np.frombuffer(found, dtype=f"S{len(found) // len(lines)}"), lines)
    return (np.frombuffer(qbuf, dtype=f"S{wq}"), np.frombuffer(dbuf, dtype=f"S{wd}"),
            np.frombuffer(sbuf, dtype=np.float64), lines, tag, found)


def run_from_bytes(data: bytes, source: str, name: str | None = None, *, try_fast: bool = True,
                   try_compiled: bool = True) -> Run:
    """Parse run bytes; see the module docstring for the rules.

    ``try_compiled``: the compiled kernels' reader first (:func:`_compiled_columns`, inputs up to
    ``COMPILED_MAX``); ``try_fast``: then pyarrow (large inputs); then the tokenizer (both False: the
    tokenizer alone, for tests)."""
    compiled = _compiled_columns(data) if try_compiled and len(data) <= COMPILED_MAX else None
    if compiled is not None:
        return _compiled_run(compiled, source, name)
    fast = fast_columns(data, min_fields=6, max_fields=None, kinds=_KINDS) if try_fast else None
    if fast is not None:
        return _fast_run(fast, _last_line(data), source, name)
    try:
        cols, lines = split_lines(data, source, min_fields=6, max_fields=None,
                                  expected="at least 6 fields 'qid iter docno rank score tag'", keep=6,
                                  indented_comments=True)
    except InputError as err:
        if err.line and err.message.endswith("found 4 fields") and _qrels_line(data, err.line):
            from .qrels import QRELS_FIRST

            raise InputError(err.path, err.line, err.message + " (a qrels line 'qid iter docno rel': a run goes "
                             "here; the qrels come first, " + QRELS_FIRST[command_running()] + ")") from None
        raise
    if len(lines) == 0:
        raise InputError(source, 0, "empty run file (expected lines 'qid iter docno rank score tag')")
    score = _parse_scores(cols[4], lines, source)
    tag = _tag_text(cols[5][-1])
    return Run.from_arrays(qid=cols[0], docno=cols[2], score=score, line_numbers=lines, tag=tag,
                           name=name if name is not None else source, source=source, tags=_tags(cols[5], lines))


def _distinct_tags(tags: np.ndarray, lines: np.ndarray) -> list[tuple[bytes, int]]:
    """The distinct tags of a 6th column (an ``S`` array) with the line each first appears on, in line order (one
    comparison with the last line's; ``numpy.unique`` only when they differ)."""
    if bool((tags == tags[-1]).all()):
        return [(bytes(tags[-1]), int(lines[0]))]
    values, at = np.unique(tags, return_index=True)
    return [(bytes(values[k]), int(lines[at[k]])) for k in np.argsort(at, kind="stable")]


def _tags(tags: np.ndarray, lines: np.ndarray) -> tuple[tuple[str, int], ...]:
    """:func:`_distinct_tags` as text (:func:`_tag_text`)."""
    return tuple((_tag_text(t), n) for t, n in _distinct_tags(tags, lines))


def _qrels_line(data: bytes, line: int) -> bool:
    """Whether line ``line`` (1-based) reads as a qrels line, 4 fields ending in an integer grade (the qrels given
    where a run goes; only on the error's path: session 24, as io/qrels.py's hint for the other way round)."""
    import io
    from itertools import islice

    text = next(islice(io.BytesIO(data), line - 1, None), b"").split()
    if len(text) != 4:
        return False
    try:
        int(text[3])
    except ValueError:
        return False
    return True


def _last_line(data: bytes) -> bytes:
    """The last line that is not blank (without copying the file)."""
    end = len(data)
    while True:
        while end > 0 and data[end - 1:end].isspace():
            end -= 1
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end]
        if not line or line.lstrip()[:1] != b"#":  # a comment may be indented in a run (trec_eval 10)
            return line
        end = start


def read_run(path: PathLike, name: str | None = None) -> Run:
    """Read a TREC run file (path, ``-`` for stdin, gzip by magic bytes), or ``irds:<dataset-id>``: the dataset's
    ``scoreddocs`` (:func:`pref_eval.io.irds.irds_run_columns`; a file of that name is read as a file).

    A plain regular file of at most ``COMPILED_MAX`` bytes is read whole by the compiled kernels
    (when built); a larger one (or one they do not take) is tried on the streaming fast path
    (pyarrow, never loaded whole); anything irregular goes to the general tokenizer.
    """
    p = os.fspath(path)
    if p.startswith("irds:") and not os.path.exists(p):
        from .irds import IRDS_RUN_TAG, irds_run_columns

        cols = irds_run_columns(p[5:])
        return Run.from_arrays(qid=cols["qid"], docno=cols["docno"], score=cols["score"], line_numbers=None,
                               tag=IRDS_RUN_TAG, name=name if name is not None else p, source=p,
                               tags=((IRDS_RUN_TAG, 0),))  # its only tag: --run-types / --groups read no file
    source = display_name(p)
    plain = plain_file(p)
    data = None
    if plain:
        if os.path.getsize(p) <= COMPILED_MAX and _compiled_reader() is not None:
            data = read_input_bytes(p, what="run file")
            compiled = _compiled_columns(data)
            if compiled is not None:
                return _compiled_run(compiled, source, name)
        fast = fast_columns(p, min_fields=6, max_fields=None, kinds=_KINDS)
        if fast is not None:
            return _fast_run(fast, last_line_of_file(p), source, name)
    tried = data is not None  # the kernels answered None above: the tokenizer's errors now
    if data is None:
        data = read_input_bytes(p, what="run file")
    try:
        return run_from_bytes(data, source, name, try_fast=not plain, try_compiled=not tried)
    except InputError as err:
        from .zelo_scores import stream_misread

        why = stream_misread(p, data, "a TREC run")
        if why is None:
            from .peer_files import ranx_file_hint

            why = ranx_file_hint(data, "a TREC run", "Run")
        if why is None:
            raise
        raise InputError(err.path, 1, why) from None


def _fast_run(fast: dict[int, np.ndarray], last: bytes, source: str, name: str | None) -> Run:
    tag = _tag_text(last.split()[5])
    tags = tuple((_tag_text(bytes(v)), int(r) + 1) for v, r in fast[5])  # no blank line: row i is line i + 1
    return Run.from_arrays(qid=fast[0], docno=fast[2], score=fast[4], line_numbers=None, tag=tag,
                           name=name if name is not None else source, source=source, tags=tags)


def _integer_column(s: Any) -> bool:
    """A column of integers (numpy or pandas nullable integer dtypes)."""
    import pandas as pd

    return pd.api.types.is_integer_dtype(s.dtype)


def _run_from_frame(df: Any, name: str) -> Run:
    """A DataFrame (query_id/doc_id/score, qid/docno/score or ranx's q_id/doc_id/score columns), column-wise.

    Other columns (PyTerrier's ``rank``, ``query``, ``docid`` beside ``docno``) are not read: the
    ranking is by score, as trec_eval and ir-measures rank. Ids are checked by
    :func:`pref_eval.io.frames.id_column` (a missing or float id is an error).
    """
    from .frames import find_column, id_column, index_hint

    qc = find_column(df, ("query_id", "qid", "q_id"), name)  # q_id: ranx's Run.to_dataframe() / from_df
    dc = find_column(df, ("doc_id", "docno", "docid"), name)
    sc = find_column(df, ("score", "sim"), name)
    if qc is None or dc is None or sc is None:
        swapped = ("; this one has a qrels' grade column: a run goes here, evaluate(qrels, runs, measures)"
                   if qc and dc and find_column(df, ("relevance", "rel", "label"), name) else "")
        if qc and dc and sc is None and (rank := find_column(df, ("rank",), name)) is not None:
            # a reranker's output with ranks only: trec_eval and ir-measures rank by score, never by the rank column
            swapped = ("; this one has ranks only: the ranking is by score, as trec_eval and ir-measures rank, so "
                       f"give the ranks as scores, df.assign(score=-df[{rank!r}])")
        raise InputError(name, 0, f"DataFrame needs query_id/qid/q_id, doc_id/docno and score columns{swapped}"
                                  f"{index_hint(df)}")
    if dc.lower() == "docid" and _integer_column(df[dc]):
        # PyTerrier's docid is Terrier's internal document number, not the collection's id: evaluated
        # against qrels docnos it would match nothing (or, with numeric docnos, the wrong documents)
        raise InputError(name, 0, f"column {shown(dc)} holds integers and there is no docno column: PyTerrier's docid "
                                  "is the index's internal number, not the document id; keep the docno column "
                                  "(or name the column doc_id if these integers are the ids)")
    score = _frame_scores(df[sc], sc, name)
    bad = np.flatnonzero(np.isnan(score))
    if len(bad):
        raise InputError(name, int(bad[0]) + 1, "NaN score (expected a number)")
    return Run.from_arrays(qid=id_column(df, qc, name), docno=id_column(df, dc, name), score=score,
                           line_numbers=None, tag=name, name=name, source=name)


# pandas' inferred kinds of an object column whose values numpy would turn into floats without a word: complex
# (its real part), dates and durations (their integer ticks); a DataFrame's own such dtypes are kinds c, M, m
_NOT_SCORES = frozenset({"complex", "datetime64", "datetime", "date", "timedelta64", "timedelta", "time", "period"})


def _frame_scores(col: Any, sc: str, name: str) -> np.ndarray:
    """A score column as float64: numbers, numbers as text, booleans (as a dict's scores are read). A complex,
    date or duration column is refused: numpy's cast keeps the real part / the ticks, and the dict and record
    paths (``float(x)``) refused them while a DataFrame took them (u37's trial)."""
    import warnings

    import pandas as pd

    kind = getattr(col.dtype, "kind", "O")
    inferred = pd.api.types.infer_dtype(col, skipna=True) if kind == "O" else str(col.dtype)
    if kind in "cmM" or inferred in _NOT_SCORES:
        raise InputError(name, 0, f"column {shown(sc)}: scores must be real numbers, got {inferred} values")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.ComplexWarning)  # a complex value among others
            return np.asarray(col, dtype=np.float64)
    except (TypeError, ValueError, np.exceptions.ComplexWarning):
        raise InputError(name, 0, f"column {shown(sc)}: scores must be numbers") from None


def _record_score(x: Any) -> float:
    """``float(x)``, but a complex or a numpy duration is no score (numpy's complex gave its real part with a
    ComplexWarning, ``np.timedelta64`` its ticks)."""
    if isinstance(x, (complex, np.complexfloating, np.timedelta64, np.datetime64)):
        raise TypeError(x)
    return float(x)


def run_from_records(records: Any, name: str = "run") -> Run:
    """Build a Run from a DataFrame (query_id/doc_id/score or qid/docno/score),
    a dict ``{qid: {docno: score}}`` or an iterable of (qid, docno, score)."""
    from .frames import id_bytes, id_text, not_an_id, record_fields

    if hasattr(records, "columns"):
        return _run_from_frame(records, name)
    if isinstance(records, dict):
        for qid, dd in records.items():
            if not hasattr(dd, "items"):
                raise InputError(name, 0, f"query {shown(qid)}: expected a dict {{docno: score}}, "
                                          f"got {type(dd).__name__}")
        triples = ((qid, doc, s) for qid, dd in records.items() for doc, s in dd.items())
        empty = tuple(id_text(q).encode("utf-8", "surrogateescape") for q, dd in records.items()
                      if not len(dd) and not not_an_id(q))
    else:
        triples = ((r.query_id, r.doc_id, r.score) if hasattr(r, "query_id") else r for r in records)
        empty = ()
    qids: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    for i, rec in enumerate(triples, 1):
        rec = record_fields(rec, name, i, "(qid, docno, score)")
        if len(rec) != 3:
            raise InputError(name, i, "expected (qid, docno, score)")
        try:
            scores.append(_record_score(rec[2]))
        except (TypeError, ValueError):
            raise InputError(name, i, f"score {shown(rec[2])} is not a number") from None
        if not_an_id(rec[0]) or not_an_id(rec[1]):
            raise InputError(name, i, f"missing, empty, float or bool id in {shown(tuple(rec))} (expected strings or "
                                      "integers)")
        qids.append(id_text(rec[0]))
        docs.append(id_text(rec[1]))
    score = np.asarray(scores, dtype=np.float64)
    bad = np.flatnonzero(np.isnan(score))
    if len(bad):
        raise InputError(name, int(bad[0]) + 1, "NaN score (expected a number)")
    run = Run.from_arrays(
        qid=id_bytes(qids, name),
        docno=id_bytes(docs, name),
        score=score, line_numbers=None, tag=name, name=name, source=name,
    )
    return dataclasses.replace(run, empty_topics=empty) if empty else run
