"""``pref_eval.stats.compare`` reads the per-query rows without a Python loop per row (session 25, a35).

``_cells_by_measure`` built a dict per measure row by row and ``_matrix`` filled the matrix cell by cell
(zelo_compare -P on 100 runs x 1,000 topics x 10 measures: a million iterations each). Now the rows become
codes (a dict's C-level lookups), the values floats by one ``map(float)`` and the duplicate cells one stable
sort (``_Cells``). The refusals are the same: the first bad row in the table's order, a second value of a cell
named before a value that is not a number on the same row (the order of the checks of the old loop).
The oracle of the loop test is a count: Python line events inside ``compare`` (sys.settrace), which grew by
the rows of the runs not compared and now do not.
"""
from __future__ import annotations

import importlib
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import line_events
from pref_eval.errors import UsageError
from pref_eval.stats import compare

compare_module = importlib.import_module("pref_eval.stats.compare")


def _table(runs: int, queries: int = 30, measures: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = [(f"r{r}", f"q{q}", f"m{m}", float(rng.integers(0, 100)) / 100)
            for r in range(runs) for q in range(queries) for m in range(measures)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def _line_events(df: pd.DataFrame) -> int:
    return line_events(sys.modules[compare_module.__name__].__file__, compare, df, tests="t", runs=["r0", "r1"],
                       correction="none")


def test_no_python_step_per_row_of_the_runs_left_out():
    """2 runs compared beside 8 or 98 others (60 rows each): the old loop took 2 line events per row left out
    (+10,800 between the two), now a few per run (the position of each distinct run)."""
    few, many = _line_events(_table(10)), _line_events(_table(100))
    assert many - few < 400, (few, many)


def test_the_matrix_is_the_table():
    df = _table(3, queries=5, measures=2).sample(frac=1, random_state=3)  # rows in any order
    res = compare(df, tests="t", correction="none")
    for m in ("m0", "m1"):
        sub = df[df.measure == m]
        want = sub.pivot(index="run", columns="qid", values="value").loc[res.runs]  # (pandas: the oracle)
        assert np.array_equal(res.mean_values[m], want[sorted(want.columns)].to_numpy().mean(axis=1))
    first = list(dict.fromkeys(df.run))
    assert res.runs == first


def _refused(rows, match, **kw):
    df = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    with pytest.raises(UsageError, match=match):
        compare(df, tests="t", **kw)


BASE = [("a", "q1", "m", 0.5), ("b", "q1", "m", 0.25), ("a", "q2", "m", 0.75), ("b", "q2", "m", 0.5)]


def test_the_first_bad_row_in_the_table_order_is_named():
    _refused(BASE + [("a", "q1", "m", 0.1), ("b", "q2", "m", "x")],
             r"^measure 'm': two values for run 'a' on query 'q1'$")
    _refused(BASE + [("b", "q2", "m", "x"), ("a", "q1", "m", 0.1)],
             r"^measure 'm': two values for run 'b' on query 'q2'$")  # its cell is taken already: named first
    _refused(BASE + [("b", "q3", "m", "x"), ("a", "q1", "m", 0.1)],
             r"^per-query table: value 'x' of run 'b', query 'q3', measure 'm' is not a number$")
    _refused(BASE + [("b", "q3", "m", float("inf")), ("a", "q4", "m", "y")],
             r"^per-query table: value inf of run 'b', query 'q3', measure 'm' is not a finite number; leave the row")
    _refused(BASE + [("a", "q4", "m", "y"), ("b", "q3", "m", "nan")],
             r"^per-query table: value 'y' of run 'a', query 'q4', measure 'm' is not a number$")
    _refused(BASE + [("a", "q4", "m", "nan"), ("b", "q3", "m", "y")],
             r"^per-query table: value 'nan' of run 'a', query 'q4', measure 'm' is not a finite number")


def test_rows_of_runs_left_out_are_not_read():
    rows = BASE + [("c", "q1", "m", "x"), ("c", "q1", "m", float("nan"))]
    df = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    assert compare(df, tests="t", runs=["a", "b"]).n_queries == {"m": 2}
    _refused(rows, r"^per-query table: value 'x' of run 'c', query 'q1', measure 'm' is not a number$")


def test_numbers_as_text_and_summary_rows():
    rows = [(r, q, "m", str(v)) for r, q, _, v in BASE] + [("a", "all", "m", "0.6"), ("b", "all", "m", "x")]
    df = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    assert list(compare(df, tests="t").mean_values["m"]) == [0.625, 0.375]
    _refused(rows + [("a", "all", "m", "0.7")], r"^per-query table: two rows 'all' for run 'a', measure 'm'")
