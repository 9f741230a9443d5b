"""A bool given as an id (session 30, f40): ``pairs()`` wrote ``"True"`` as a query or document id, and the record
readers of qrels and runs (dicts, tuples, DataFrames) and ``compare()``'s per-query frames took it as the id
``'True'`` (Python's ``str(True)``; a bool is an ``int`` to ``isinstance``). Refused now, as None and floats are.
Oracle: zbench's pydantic models refuse a bool where an id goes (``Input should be a valid string``, r39's live
check of integers; a bool is refused the same way by pydantic's strict str) and JSON's ``true`` is refused as an id
by every JSON reader here (tests/test_json_ids.py): the same id as data must not pass."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pref_eval as pe
from pref_eval.errors import InputError, UsageError


@pytest.mark.parametrize("queries, where", [
    ([(True, ["a", "b", "c"])], "query 1's qid is True"),
    ([("q1", ["a", False, "c"])], "query 'q1': document 2 is False"),
    ([("q1", ["a", np.True_, "c"])], "query 'q1': document 2 is"),
])
def test_pairs_refuses_a_bool_id(queries, where):
    with pytest.raises(UsageError, match=f"^queries: {where}"):
        pe.pairs(queries, cycles=1)


def test_pairs_takes_integers_still():
    """Guard: integers stay ids (their digits, r39)."""
    got = pe.pairs([(1, [2, 3, 4])], cycles=1)
    assert {x for p in got for x in p} <= {"1", "2", "3", "4"} and got


RUN = {"q1": {"d": 1.0}}
QRELS = {"q1": {"d": 1}}


@pytest.mark.parametrize("qrels, run, kind, says", [
    ({"q1": {True: 1}}, RUN, InputError, "<qrels>:1: missing, float, bool or empty id True"),
    ({True: {"d": 1}}, RUN, InputError, "<qrels>:1: missing, float, bool or empty id True"),
    (QRELS, [("q1", True, 1.0)], InputError, "run:1: missing, empty, float or bool id in ('q1', True, 1.0)"),
    (QRELS, {False: {"d": 1.0}}, InputError, "run:1: missing, empty, float or bool id"),
    (pd.DataFrame({"query_id": [True], "doc_id": ["d"], "relevance": [1]}), RUN, InputError,
     "<qrels>: column 'query_id' holds booleans (True)"),
    (QRELS, pd.DataFrame({"query_id": pd.Series([True], dtype=object), "doc_id": ["d"], "score": [1.0]}),
     InputError, "run: column 'query_id' holds booleans (True)"),
], ids=["qrels-doc", "qrels-query", "run-tuple", "run-dict", "qrels-frame", "run-frame-object"])
def test_record_readers_refuse_a_bool_id(qrels, run, kind, says):
    with pytest.raises(kind) as info:
        pe.evaluate(qrels, run, ["map"])
    assert str(info.value).startswith(says), str(info.value)


def test_compare_refuses_a_bool_column():
    frame = pd.DataFrame({"run": ["a", "b"], "qid": [True, True], "measure": ["m", "m"], "value": [1.0, 2.0]})
    with pytest.raises(UsageError, match=r"^per-query table: column 'qid' holds booleans"):
        pe.compare(frame)


@pytest.mark.parametrize("values, row, says", [
    (["q1", True], 2, "True is no id (bool"),
    ([1, np.bool_(False)], 2, "False is no id (bool"),
    (["q1", 1.0], 2, "1.0 is no id (float"),
])
def test_a_bool_or_float_among_ids_in_a_frame(values, row, says):
    """A column mixing a bool or a float with strings or integers (session 30, f40's leftover): the bool became the
    id 'True', the float the id '1.0'; now refused at its row, as a column of bools is."""
    run = pd.DataFrame({"query_id": pd.Series(values, dtype=object), "doc_id": ["d", "e"], "score": [1.0, 2.0]})
    with pytest.raises(InputError) as info:
        pe.evaluate(QRELS, run, ["map"])
    assert str(info.value).startswith(f"run:{row}: column 'query_id': ") and says in str(info.value), str(info.value)


def test_mixed_strings_and_integers_are_still_ids():
    run = pd.DataFrame({"query_id": pd.Series(["q1", 7], dtype=object), "doc_id": ["d", "e"], "score": [1.0, 2.0]})
    df = pe.evaluate({"q1": {"d": 1}, "7": {"e": 1}}, run, ["map"])
    assert sorted(set(df["qid"])) == ["7", "q1"]
