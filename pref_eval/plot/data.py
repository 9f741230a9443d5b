"""Per-query values and pairwise tests for the system plots.

Values come either from qrels + runs (through :func:`pref_eval.evaluate`)
or from a per-query file written by ``zelo_eval -q -o tsv|csv|jsonl``
(columns ``run qid measure value``, read by
:func:`pref_eval.io.perquery.read_per_query`). One measure is plotted.

Queries: those with a value for every run (the paired set ``zelo_compare``
uses); ``complete=True`` counts a missing value as 0 instead.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import UsageError, command_running, option_given
from ..io.run_ids import refuse_run_ids_with_per_query
from ..io.comparisons import read_compare_jsonl  # noqa: F401 - the reader lives in io/ (re-exported)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import DTypeLike

    from ..io.coded import CodedTable
    from ..stats.compare import LongTable


def _pick_measure(available: list[str], measure: str | None, where: str) -> str:
    if measure is None:
        if len(available) == 1:
            return available[0]
        with_m = "-m" if command_running() else "measure="
        raise UsageError(f"{where} holds several measures ({', '.join(available)}): choose one with {with_m}")
    for cand in (measure, measure.replace(".", "_", 1)):
        if cand in available:
            return cand
    raise UsageError(f"measure {measure!r} not in {where} (measures: {', '.join(available)})")


def _coded_values(table: CodedTable, measure: str | None, source: str) -> tuple[CodedTable | LongTable, str]:
    """:func:`load_values` of a reader's :class:`~pref_eval.io.coded.CodedTable`: the per-run rows of the
    measure as codes (the DataFrame path's rows, in file order)."""
    if table.pair:
        blank = table.names["run_b"].index("") if "" in table.names["run_b"] else -1
        pair = table.codes["run_b"] != blank
        per_run = table.subset(~pair, pair=False)
        _refuse_pair_only(set(per_run.distinct("measure")), table.subset(pair).distinct("measure"), measure,
                          source)
        table = per_run
    name = _pick_measure(table.distinct("measure"), measure, source)
    table = table.subset(table.codes["measure"] == table.names["measure"].index(name))
    if table.object_ids:  # an id that was not UTF-8 (a Latin-1 topic, as its surrogate escape): as before, a
        from ..stats.compare import LongTable  # LongTable of the rows (the plots' -R path)

        return LongTable(table["run"], table["qid"], table["measure"], table["value"]), name
    return table, name


def _refuse_pair_only(kept: set[str], pair_measures: list[str], measure: str | None, source: str) -> None:
    """A measure of the pair rows only (a preference measure) asked for, or the only kind there is: refused."""
    pair_only = [m for m in pair_measures if m not in kept]
    asked = None if measure is None else next(
        (c for c in (measure, measure.replace(".", "_", 1)) if c in pair_only), None)
    if asked is not None or (measure is None and not kept and pair_only):
        from ..io.textfile import display_name

        names = ", ".join(pair_only) if asked is None else asked
        raise UsageError(f"{display_name(source)}: {names}: values per pair of runs (preference measures): "
                         + ("zelo_compare -P tests them; zelo_plot plots per-run values" if command_running() else
                            "pref_eval.api.compare_runs(per_query_file=PATH) tests them; the plots take per-run "
                            "values"))


def load_values(qrels: str | None, runs: Sequence[str], per_query: str | None, measure: str | None,
                complete: bool = False, run_id_mode: str = "path", run_names: Sequence[str] = (),
                log: Any = None) -> tuple[LongTable | CodedTable | pd.DataFrame, str]:
    """Long table ``run, qid, measure, value`` for one measure, and its name: a
    :class:`~pref_eval.stats.compare.LongTable` (``-R``), the reader's :class:`~pref_eval.io.coded.CodedTable`
    (``-P`` read at once) or a DataFrame (``-P`` read line by line).

    Runs evaluated here are named by the rule of every command (:mod:`pref_eval.io.run_ids`;
    ``run_id_mode`` / ``run_names`` are ``--run-id`` / ``--name``)."""
    if per_query is not None:
        if qrels is not None or runs:
            raise UsageError("give either -P PER_QUERY_FILE or -R QRELS with run files, not both" if command_running()
                             else "give either per_query_file or qrels with runs, not both")
        if option_given("--run-id", run_id_mode != "path") or run_names:
            refuse_run_ids_with_per_query()
        from ..io.perquery import read_per_query_table

        # the reader's codes, no DataFrame (session 28; since session 30 also of a file read line by line)
        return _coded_values(read_per_query_table(per_query), measure, per_query)
    else:
        if qrels is None or not runs:
            raise UsageError("expected -R QRELS and at least one run file, or -P PER_QUERY_FILE" if command_running()
                             else "expected qrels and at least one run, or per_query_file")
        if measure is None:
            raise UsageError("choose a measure with -m (e.g. -m map or -m nDCG@10)" if command_running() else
                             "choose a measure with measure= (e.g. measure='map' or measure='nDCG@10')")
        from ..api.measures import _evaluate_rows
        from ..io.run_ids import run_ids
        from ..stats.compare import LongTable

        ids = run_ids(list(runs), mode=run_id_mode, names=run_names)
        # the rows of pref_eval.evaluate, without its DataFrame (no pandas import: issue #13)
        from ..api._score_rows import _is_score_file, _undefined_left_out

        rows = _evaluate_rows(qrels, dict(zip(ids, runs, strict=True)), [measure], complete=complete, log=log,
                              warn_topic_all=False)
        if _is_score_file(qrels):  # zbench's measures: a query where one is undefined (nan) cannot be paired
            rows = _undefined_left_out(rows, qrels, log)
        table = LongTable.from_rows(rows)
        # (the plot keeps a topic named 'all' as a topic: these rows have no summary rows)
        names = list(dict.fromkeys(table.measure))
        if len(names) != 1:
            raise UsageError(f"measure {measure!r} gives {len(names)} columns ({', '.join(names)}): "
                             "choose one, e.g. P.10 rather than P")
        return table, names[0]


class WideTable:
    """Queries × runs values (the paired table) without pandas: ``columns`` (runs), ``index`` (qids, sorted as
    strings), ``to_numpy()``, ``len()``."""

    def __init__(self, columns: list[str], index: list[str], values) -> None:
        self.columns = columns
        self.index = index
        self._values = values

    def to_numpy(self, dtype: DTypeLike = float) -> np.ndarray:
        return self._values.astype(dtype)

    def __len__(self) -> int:
        return len(self.index)


def paired_table(df: LongTable | CodedTable | pd.DataFrame, complete: bool = False) -> WideTable | pd.DataFrame:
    """Wide table queries × runs (run order = first appearance) on the paired query set.

    A :class:`~pref_eval.stats.compare.LongTable` (``-R``) or a reader's
    :class:`~pref_eval.io.coded.CodedTable` (``-P``) gives a :class:`WideTable` (queries sorted as strings, as
    pandas' pivot does; a NaN value counts as missing); a DataFrame (``-P`` read line by line) a DataFrame."""
    from ..io.coded import CodedTable
    from ..stats.compare import LongTable

    if isinstance(df, LongTable):
        return _paired_long(df, complete)
    if isinstance(df, CodedTable):
        return _paired_coded(df, complete)
    runs = list(dict.fromkeys(df["run"]))
    wide = df.pivot_table(index="qid", columns="run", values="value", aggfunc="first")[runs]
    wide = wide.fillna(0.0) if complete else wide.dropna(axis=0, how="any")
    if len(wide) == 0:
        raise UsageError("no query has a value for every run")
    return wide


def _paired_long(table, complete: bool) -> WideTable:
    import math

    import numpy as np

    runs = list(dict.fromkeys(table.run))
    first: dict[tuple[str, str], float] = {}
    for r, q, v in zip(table.run, table.qid, table.value, strict=True):
        if v is not None and not math.isnan(v):
            first.setdefault((r, q), float(v))
    qids = sorted({q for _, q in first})
    vals = np.array([[first.get((r, q), np.nan) for r in runs] for q in qids], dtype=float).reshape(len(qids),
                                                                                                   len(runs))
    if complete:
        vals = np.where(np.isnan(vals), 0.0, vals)
    else:
        keep = ~np.isnan(vals).any(axis=1)
        vals, qids = vals[keep], [q for q, k in zip(qids, keep, strict=True) if k]
    if len(qids) == 0:
        raise UsageError("no query has a value for every run")
    return WideTable(runs, qids, vals)


def _paired_coded(table: CodedTable, complete: bool) -> WideTable:
    """:func:`paired_table` of one measure's rows as codes (no pair of rows for a cell: the reader refuses
    them), laid out as pandas' ``pivot_table(...)[runs].dropna()`` was: C order, but Fortran order for runs in
    reverse sorted order with queries dropped (the column selection a view with a negative stride, its rows
    taken column by column). The layout decides the order a run's mean adds its values in, and the bootstrap's
    BCa interval moves with the mean's last bit."""
    import numpy as np

    runs = table.distinct("run")
    run_code, qid_code = table.codes["run"], table.codes["qid"]
    position = np.full(len(table.names["run"]), -1, np.intp)
    position[[table.names["run"].index(r) for r in runs]] = np.arange(len(runs))
    present = np.flatnonzero(np.bincount(qid_code, minlength=len(table.names["qid"])))
    qids = sorted(table.names["qid"][c] for c in present.tolist())  # (pandas sorts the pivot's index so)
    column = np.full(len(table.names["qid"]), -1, np.intp)
    index = dict(zip(qids, range(len(qids)), strict=True))
    column[present] = [index[table.names["qid"][c]] for c in present.tolist()]
    vals = np.full((len(runs), len(qids)), np.nan)
    vals[position[run_code], column[qid_code]] = table.value
    dropped = False
    if complete:
        vals = np.where(np.isnan(vals), 0.0, vals)
    else:
        keep = ~np.isnan(vals).any(axis=0)
        dropped = not keep.all()
        vals, qids = vals[:, keep], [q for q, k in zip(qids, keep.tolist(), strict=True) if k]
    if len(qids) == 0:
        raise UsageError("no query has a value for every run")
    fortran = dropped and len(runs) > 1 and runs == sorted(runs, reverse=True)
    return WideTable(runs, qids, np.asfortranarray(vals.T) if fortran else np.ascontiguousarray(vals.T))


def run_count(df: LongTable | CodedTable | pd.DataFrame) -> int:
    """The number of distinct runs of :func:`load_values`' table."""
    return len(df.distinct("run")) if hasattr(df, "distinct") else len(set(df["run"]))


def pairwise_tests(df: WideTable | LongTable | CodedTable | pd.DataFrame, test: str, correction: str, alpha: float,
                   seed: int | None, complete: bool = False) -> dict[str, list]:
    """Records of :func:`pref_eval.stats.compare` for every pair of runs (one test), as columns
    ``{name: list}`` in record order (no DataFrame is made)."""
    from ..stats import compare

    res = compare(df, tests=[test], correction=correction, alpha=alpha, seed=seed, complete=complete)
    return res.record_table.columns_in_order()


def select_records(records: pd.DataFrame, measure: str | None, test: str | None,
                   where: str) -> tuple[pd.DataFrame, str, str]:
    """Rows of one measure and one test (each may be omitted when unique)."""
    measures = list(dict.fromkeys(records["measure"].astype(str)))
    m = _pick_measure(measures, measure, where)
    sub = records[records["measure"].astype(str) == m]
    tests = list(dict.fromkeys(sub["test"].astype(str)))
    if test is None:
        t = "t" if "t" in tests else tests[0]
    elif test in tests:
        t = test
    else:
        raise UsageError(f"test {test!r} not in {where} for measure {m!r} (tests: {', '.join(tests)})")
    return sub[sub["test"].astype(str) == t].reset_index(drop=True), m, t
