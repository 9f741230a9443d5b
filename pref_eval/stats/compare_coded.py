"""``compare_preferences`` on a reader's codes (session 28, s38): the preference rows of a per-query file read at
once (:class:`pref_eval.io.coded.CodedTable`, ``zelo_compare -P`` on ``zelo_eval -q``'s runi/runj layout or
pref_eval.py's JSON lines) reach the pair x query matrices without a pandas DataFrame (before: the reader's frame
built, filtered and its string columns iterated in Python, ~2.5 s of CPU per million rows)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError, shown
from .compare import Records, _code_of, _measure_compared

if TYPE_CHECKING:
    from ..io.coded import CodedTable


def compare_coded_preferences(table: CodedTable, complete: bool, measures: Sequence[str] | None,
                               runs: Sequence[str] | None, kwargs: dict) -> tuple[Records | None, dict[str, int],
                                                                                 dict[str, list[str]]]:
    """:func:`pref_eval.stats.compare.compare_preferences` of a reader's :class:`~pref_eval.io.coded.CodedTable`
    (the reader keeps no summary row and no second row of a (pair, query, measure); its values are finite): the
    same pairs (first-row order), queries (sorted) and matrices from the codes; the records as a
    :class:`~pref_eval.stats.compare.Records` (session 29: no DataFrame, no pandas import)."""
    keep = np.ones(len(table), bool)
    if runs:
        wanted = set(runs)
        for c in ("run", "run_b"):
            keep &= np.array([r in wanted for r in table.names[c]], dtype=bool)[table.codes[c]]
    vals = table.value[keep]
    if not np.isfinite(vals).all():
        i = int(np.flatnonzero(keep)[np.flatnonzero(~np.isfinite(vals))[0]])
        run, run_b, qid, measure = (table.names[c][int(table.codes[c][i])] for c in ("run", "run_b", "qid", "measure"))
        raise UsageError(f"preference table: value {shown(float(table.value[i]))} of pair {shown(run)} / "
                         f"{shown(run_b)}, query {shown(qid)}, measure {shown(measure)} is not a finite number; "
                         "leave the row out for a missing value")
    table = table.subset(keep)
    all_measures = table.distinct("measure")
    blocks: list = []
    nq: dict[str, int] = {}
    dropped: dict[str, list] = {}
    for m in [m for m in (measures or all_measures) if m in all_measures]:
        rows = np.flatnonzero(table.codes["measure"] == table.names["measure"].index(m))
        pairs, qids, X = coded_pair_matrix(table, rows)
        blocks.append(_measure_compared(m, pairs, qids, X, complete, nq, dropped, kwargs))
    return (Records(blocks) if blocks else None), nq, dropped


def coded_pair_matrix(table: CodedTable, rows: np.ndarray) -> tuple[list[tuple[str, str]], list[str], np.ndarray]:
    """:func:`pref_eval.stats.compare._pair_matrix` of one measure's rows ``rows`` of a CodedTable: the pairs in
    first-row order, the qids sorted, X[pair, qid] (NaN: none), C-ordered."""
    names, codes = table.names, table.codes
    key = codes["run"][rows] * len(names["run_b"]) + codes["run_b"][rows]
    distinct, first, pair_of_row = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the pairs in order of their first row
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    firsts = rows[first[order]]
    pairs = list(zip(map(names["run"].__getitem__, codes["run"][firsts].tolist()),
                     map(names["run_b"].__getitem__, codes["run_b"][firsts].tolist()), strict=True))
    q_code = codes["qid"][rows]
    present = np.flatnonzero(np.bincount(q_code, minlength=len(names["qid"])))
    qids = sorted(names["qid"][c] for c in present.tolist())
    column = np.full(len(names["qid"]), -1, np.int64)
    column[present] = _code_of(qids, [names["qid"][c] for c in present.tolist()])
    X = np.full((len(pairs), len(qids)), np.nan)
    X[rank[pair_of_row.reshape(-1)], column[q_code]] = table.value[rows]
    return pairs, qids, X
