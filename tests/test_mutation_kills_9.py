"""Behaviour of pref_eval/io/frames.py (the API's in-memory inputs, ids that are not UTF-8) no test saw, found by
its mutants (session 29, c39: ``tools/mutants.py`` on the module against the API's tests). Each test was checked to
fail on the mutants it names. Oracles: pandas itself (the dtypes ``pd.DataFrame`` gives the same lists), the
module's documented rules, measures worked by hand.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import InputError
from pref_eval.io.frames import frame
from pref_eval.io.perquery import read_per_query

QRELS = [("q1", 0, "d1", 1), ("q1", 0, "d2", 0)]
RUN = [("q1", "d1", 2.0), ("q1", "d2", 1.0)]


@pytest.mark.parametrize("run", ["r", "r\u00e9"], ids=["ascii", "utf8"])
def test_a_per_query_table_of_utf8_ids_has_pandas_own_dtypes(tmp_path, run):
    """Ids that are UTF-8 (ASCII or not) keep pandas' default dtypes, those of ``pd.DataFrame`` on the same lists;
    only an id that was not UTF-8 makes the columns objects (mutants of ``holds_bytes``: ``return False`` ->
    ``True`` for ASCII text and for text that encodes)."""
    path = tmp_path / "pq.tsv"
    path.write_text(f"run\tqid\tmeasure\tvalue\n{run}\tq1\tap\t0.5\ns\tq1\tap\t0.25\n", encoding="utf-8")
    got = read_per_query(path)
    want = pd.DataFrame({"run": [run, "s"], "qid": ["q1", "q1"], "measure": ["ap", "ap"], "value": [0.5, 0.25]})
    assert got.dtypes.tolist() == want.dtypes.tolist() and got.values.tolist() == want.values.tolist()


def test_a_per_query_table_with_a_latin1_run_is_read_as_its_bytes(tmp_path):
    """A Latin-1 run tag (byte 0xE9): the id is its surrogate escape, in a column of objects (mutant ``return
    True`` -> ``False`` in ``holds_bytes``: pandas' strings refused it, a UnicodeEncodeError traceback)."""
    path = tmp_path / "pq.tsv"
    path.write_bytes(b"run\tqid\tmeasure\tvalue\nr\xe9\tq1\tap\t0.5\ns\tq1\tap\t0.25\n")
    got = read_per_query(path)
    assert got["run"].dtype == object and got.values.tolist() == [["r\udce9", "q1", "ap", 0.5], ["s", "q1", "ap", 0.25]]


def test_frame_keeps_a_missing_value_beside_an_id_that_is_not_utf8():
    """A column of strings with a missing value and a surrogate escape: a column of objects holding both as given
    (mutant ``any(isinstance(x, str) ...)`` -> ``all``: the column handed to pandas, a UnicodeEncodeError)."""
    got = frame({"qid": ["q\udce9", None], "v": [1.0, 2.0]})
    assert got["qid"].dtype == object and got.to_dict("list") == {"qid": ["q\udce9", None], "v": [1.0, 2.0]}


def test_records_that_are_numpy_rows_are_records():
    """Qrels and a run given as numpy rows (``list(df.to_numpy())``): records like tuples -- P@1 is 1 (d1, ranked
    first, is relevant; mutant ``or`` -> ``and`` in ``record_fields`` took only tuples and lists)."""
    rows = pref_eval.evaluate([np.array(r, dtype=object) for r in QRELS],
                              {"r": [np.array(r, dtype=object) for r in RUN]}, ["P_1"])
    assert rows.to_dict("records") == [{"run": "r", "qid": "q1", "measure": "P_1", "value": 1.0}]


@pytest.mark.parametrize("digits, shown", [(1, "5"), (60, "1" + "0" * 59), (61, "1" + "0" * 56 + "...")])
def test_a_record_that_is_no_record_is_shown_up_to_60_characters(digits, shown):
    """The refusal shows the value's repr whole up to 60 characters, else its first 57 and ``...`` (mutants of
    ``len(r) <= 60``: ``<``, 0, 59, 61)."""
    value = 5 if digits == 1 else 10 ** (digits - 1)
    with pytest.raises(InputError) as err:
        pref_eval.evaluate([value], {"r": RUN}, ["P_1"])
    assert str(err.value) == f"<qrels>:1: expected (qid, docno, rel) or (qid, iteration, docno, rel), got int {shown}"


def test_a_run_frame_indexed_by_qid_gets_the_reset_index_hint():
    """``df.set_index("qid")``: the refusal says the ids are in the index (mutant ``in ids`` -> ``not in``)."""
    df = pd.DataFrame(RUN, columns=["qid", "docno", "score"]).set_index("qid")
    with pytest.raises(InputError) as err:
        pref_eval.evaluate(QRELS, {"r": df}, ["P_1"])
    assert str(err.value) == ("r: DataFrame needs query_id/qid/q_id, doc_id/docno and score columns; 'qid' is in the "
                              "index: df.reset_index()")
