"""A run's scores given as data: complex numbers, dates and durations are no scores (u37's trial).

A DataFrame took a complex column (numpy's cast kept the real part, with a ComplexWarning: ``1+5j`` ranked as 1), a
date or a duration column (their integer ticks), and a dict took numpy complex and duration scalars, while the
same values as Python objects in a dict were refused; a list of ``(qid, docno, score)`` records whose scores were
booleans, decimals or text was taken for a list of runs ("run1:1: expected (qid, docno, score), got str '1'").
ir-measures refuses such a frame ("Unable to extract query/object scores"); the values it takes (booleans,
decimals, numbers as text, numpy integers) give its values.
"""
from __future__ import annotations

import decimal
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import InputError

QRELS = {"1": {"a": 1, "b": 0, "c": 1, "d": 0}}
IRM_QRELS = pd.DataFrame({"query_id": "1", "doc_id": list("abcd"), "relevance": [1, 0, 1, 0]})
DOCS = list("abcd")
BAD = {
    "complex": [2 + 5j, 3 + 0j, 1 + 0j, 0j],
    "numpy complex": [np.complex128(2 + 5j), np.complex128(3), np.complex128(1), np.complex128(0)],
    "one complex among floats": [2.0, 3 + 1j, 1.0, 0.0],
    "dates": list(pd.to_datetime(["2020-01-02", "2020-01-04", "2020-01-03", "2020-01-01"])),
    "numpy dates": [np.datetime64("2020-01-02"), np.datetime64("2020-01-04"), np.datetime64("2020-01-03"),
                    np.datetime64("2020-01-01")],
    "durations": [pd.Timedelta(2), pd.Timedelta(4), pd.Timedelta(3), pd.Timedelta(1)],
    "numpy durations": [np.timedelta64(2), np.timedelta64(4), np.timedelta64(3), np.timedelta64(1)],
}
GOOD = {
    "booleans": [True, False, True, False],
    "decimals": [decimal.Decimal("0.5"), decimal.Decimal("2.5"), decimal.Decimal("1"), decimal.Decimal("-1")],
    "numpy integers": [np.int8(2), np.int8(4), np.int8(3), np.int8(1)],
    "mixed": [1, 2.5, 2, 0.5],
    "numbers as text": ["0.5", "2.5", "1e0", "-1"],
}


def _shapes(values: list) -> dict:
    return {
        "dict": {"1": dict(zip(DOCS, values, strict=True))},
        "records": [("1", d, v) for d, v in zip(DOCS, values, strict=True)],
        "frame": pd.DataFrame({"qid": "1", "docno": DOCS, "score": values}),
        "object frame": pd.DataFrame({"qid": "1", "docno": DOCS, "score": pd.Series(values, dtype=object)}),
    }


@pytest.mark.parametrize("kind", BAD)
def test_refused_in_every_shape(kind):
    for shape, run in _shapes(BAD[kind]).items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no ComplexWarning on the way
            with pytest.raises(InputError, match="score"):
                pref_eval.evaluate(QRELS, run, ["AP"])
            if shape == "frame":
                irm = pytest.importorskip("ir_measures")
                with pytest.raises(TypeError):  # ir-measures refuses the same frame
                    irm.calc_aggregate([irm.AP], IRM_QRELS, run.rename(columns={"qid": "query_id", "docno": "doc_id"}))


@pytest.mark.parametrize("kind", GOOD)
def test_taken_as_ir_measures_takes_them(kind):
    irm = pytest.importorskip("ir_measures")
    run = pd.DataFrame({"query_id": "1", "doc_id": DOCS, "score": [float(v) for v in GOOD[kind]]})
    want = irm.calc_aggregate([irm.AP], IRM_QRELS, run)[irm.AP]
    for shape, run in _shapes(GOOD[kind]).items():
        got = pref_eval.evaluate(QRELS, run, ["AP"]).value.tolist()
        assert len(got) == 1 and math.isclose(got[0], want, rel_tol=1e-12), shape


@pytest.mark.parametrize("call", [
    lambda q, r: pref_eval.evaluate(q.encode(), r, ["map"]),
    lambda q, r: pref_eval.evaluate(q, r.encode(), ["map"]),
    lambda q, r: pref_eval.evaluate(q, [r.encode(), r.encode()], ["map"]),
    lambda q, r: pref_eval.evaluate(q, {"a": bytearray(r.encode())}, ["map"]),
    lambda q, r: pref_eval.calc_aggregate(["map"], q, r.encode()),
    lambda q, r: pref_eval.evaluator(["map"], q).evaluate(r.encode()),
    lambda q, r: pref_eval.evaluator(["map"], q.encode())])
def test_a_path_as_bytes_is_named_as_bytes(call):
    """``b"qrels.txt"`` was read as records of its byte values: "expected (qid, docno, rel) ..., got int 113"."""
    from pathlib import Path

    from pref_eval.errors import UsageError

    root = Path(__file__).resolve().parent.parent
    with pytest.raises(UsageError, match=r"got bytes '.*'; a path is a str or a pathlib\.Path"):
        call(str(root / "qrels" / "dl19-sample.qrels"), str(root / "runs" / "bm25.run"))


def test_ids_in_the_index_say_reset_index():
    """A frame indexed by its ids (``df.set_index("qid")``, ranx's frames by ``q_id``) names the index; after
    ``reset_index()`` the same frame is read."""
    run = pd.DataFrame({"qid": "1", "docno": DOCS, "score": [2.0, 4.0, 3.0, 1.0]})
    qrels = pd.DataFrame({"q_id": "1", "doc_id": DOCS, "score": [1, 0, 1, 0]})
    with pytest.raises(InputError, match=r"score columns; 'qid', 'docno' are in the index: df\.reset_index\(\)$"):
        pref_eval.evaluate(QRELS, run.set_index(["qid", "docno"]), ["AP"])
    with pytest.raises(InputError, match=r"score too\); 'q_id' is in the index: df\.reset_index\(\)$"):
        pref_eval.evaluate(qrels.set_index("q_id"), run, ["AP"])
    with pytest.raises(InputError, match=r"score columns$"):  # no id in the index: no hint
        pref_eval.evaluate(QRELS, run.drop(columns="qid"), ["AP"])
    got = pref_eval.evaluate(qrels.set_index("q_id").reset_index(), run.set_index("qid").reset_index(), ["AP"])
    assert got.value.tolist() == pref_eval.evaluate(QRELS, run, ["AP"]).value.tolist()
