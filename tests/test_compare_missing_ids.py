"""``pref_eval.compare`` on a per-query DataFrame with a missing id (session 29, c39: found by mutants of
pref_eval/io/frames.py). A None, NaN or ``pd.NA`` in the run, qid or measure column was read as the run, query or
measure ``'None'`` / ``'nan'``: a query silently dropped as one no run had, or a refusal naming a run ``nan``. Now
refused naming the column and the row (1-based, in the frame's order), the rule of the API's qrels and run frames
(pref_eval/io/frames.py's docstring); also when the column holds ``bytes`` ids (a Latin-1 run name as a file holds
it), whose missing values ``bytes_as_text`` must keep missing.
"""
from __future__ import annotations

import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.io.frames import frame

RUNS = {"str": ["a", "b", "a", "b"], "bytes": [b"r\xe9", b"s", b"r\xe9", b"s"]}


def _table(column: str, missing, runs: str = "str", run_col: str = "run") -> pd.DataFrame:
    data = {run_col: list(RUNS[runs]), "qid": ["q1", "q1", "q2", "q2"], "measure": ["ap"] * 4,
            "value": [0.5, 0.4, 0.3, 0.2]}
    data[run_col if column == "run" else column][1] = missing
    return pd.DataFrame(data)


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA], ids=["None", "NaN", "NA"])
@pytest.mark.parametrize("column", ["run", "qid", "measure"])
def test_a_missing_id_is_refused_naming_its_column_and_row(column, missing):
    with pytest.raises(UsageError) as err:
        pref_eval.compare(_table(column, missing))
    assert str(err.value) == (f"per-query table: column '{column}', row 2: missing id (expected a string or an "
                              "integer)")


@pytest.mark.parametrize("missing", [None, float("nan")], ids=["None", "NaN"])
def test_a_missing_run_among_bytes_run_names_stays_missing(missing):
    """Mutant ``x is None or x != x`` -> ``and`` in ``bytes_as_text`` turned the None into the run ``'None'``."""
    with pytest.raises(UsageError) as err:
        pref_eval.compare(_table("run", missing, runs="bytes"))
    assert str(err.value) == "per-query table: column 'run', row 2: missing id (expected a string or an integer)"


def test_pyterriers_name_column_is_the_one_named():
    with pytest.raises(UsageError) as err:
        pref_eval.compare(_table("run", None, run_col="name"))
    assert str(err.value).startswith("per-query table: column 'name', row 2: missing id")


def test_the_bytes_run_names_without_a_missing_one_are_compared():
    """The guard's twin: the same frame complete is compared, the Latin-1 run named by its surrogate escape."""
    result = pref_eval.compare(_table("qid", "q1", runs="bytes"))  # (row 2's qid is q1 already)
    assert result.runs == ["r\udce9", "s"]


def test_a_doubled_column_of_bytes_ids_is_refused_as_doubled():
    """Two ``run`` columns, one of bytes: refused as doubled, by the caller's check (mutant ``or`` -> ``and`` in
    ``bytes_as_text``'s column check read the doubled column: an AttributeError traceback)."""
    df = pd.DataFrame([[b"r\xe9", "q1", "ap", 0.5, "x"], [b"s", "q1", "ap", 0.25, "y"]],
                      columns=["run", "qid", "measure", "value", "run"])
    with pytest.raises(UsageError) as err:
        pref_eval.compare(df)
    assert str(err.value) == "per-query table has column(s) run twice; expected each once"


@pytest.mark.parametrize("n", [1, 2])
def test_frame_of_rows_without_column_names_numbers_them_as_pandas_does(n):
    """``io.frames.frame(rows)`` with an id pandas' strings cannot hold (a surrogate escape): the columns numbered
    0, 1, 2 as ``pd.DataFrame`` numbers those of the ASCII twin (mutants ``rows[0]`` -> ``rows[1]`` /
    ``rows[2]``: an IndexError, or the width of another row)."""
    rows = [("r\udce9", "q1", 1.0), ("s", "q2", 2.0)][:n]
    twin = pd.DataFrame([("r", "q1", 1.0), ("s", "q2", 2.0)][:n])
    got = frame(rows)
    assert list(got.columns) == list(twin.columns) == [0, 1, 2]
    assert got.values.tolist() == [list(r) for r in rows]
