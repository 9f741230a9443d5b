"""A newcomer's inputs to the Python API that used to end in a TypeError/KeyError/ValueError from deep
inside, or in a silently wrong number (session 16, helper u25): each is now one ``InputError`` naming
the input, and the accepted neighbours of each still give ir-measures' values (computed live).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import InputError

ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUN = str(ROOT / "runs" / "bm25.run")
QD = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
RD = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}}


@pytest.mark.parametrize("records", [
    [1.0, 2.0],                 # a column of scores
    pd.Series([0.5, 0.7]),      # df["score"] instead of df
    np.array([0.5, 0.7]),
    [None],
], ids=["floats", "series", "array", "none"])
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_records_that_are_not_records(records, which):
    """Was ``TypeError: object of type 'float' has no len()`` (or a wrong field split of a string)."""
    args = (records, RD) if which == "qrels" else (QD, records)
    with pytest.raises(InputError) as e:
        pref_eval.calc_aggregate("P@2", *args)
    msg = str(e.value)
    start = "<qrels>:1: expected (qid, docno, rel)" if which == "qrels" else "run:1: expected (qid, docno, score)"
    assert msg.startswith(start)
    assert ", got " in msg


def test_a_string_is_not_a_qrels_record():
    """``["q1 d1 1"]`` (lines, not records) had its characters read as fields: ``q``, `` ``, ``1``..."""
    for recs in (["abc"], ["q1 0 d1 1"]):
        with pytest.raises(InputError, match=r"^<qrels>:1: expected .*, got str"):
            pref_eval.calc_aggregate("P@2", recs, RD)


def test_list_of_dicts_says_what_to_do():
    """``df.to_dict("records")`` as qrels was ``KeyError: 0``."""
    recs = [{"query_id": "q1", "doc_id": "d1", "relevance": 1}]
    with pytest.raises(InputError, match=r"^<qrels>:1: .*got dict .*pandas\.DataFrame\(records\)"):
        pref_eval.calc_aggregate("P@2", recs, RD)
    # the advice works, and gives ir-measures' value
    got = pref_eval.calc_aggregate("P@2", pd.DataFrame(recs), RD)["P@2"]
    exp = ir_measures.calc_aggregate([ir_measures.P @ 2], pd.DataFrame(recs),
                                     pd.DataFrame([("q1", d, s) for d, s in RD["q1"].items()],
                                                  columns=["query_id", "doc_id", "score"]))[ir_measures.P @ 2]
    assert got == exp == 0.5


def _irm_run_frame():
    return pd.DataFrame(list(ir_measures.read_trec_run(RUN)))


@pytest.mark.parametrize("extra", ["score", "SCORE"])
def test_a_column_twice_is_refused(extra):
    """Two columns named score (pd.concat of a frame and its score column) was a numpy broadcast ValueError."""
    run = _irm_run_frame()
    run2 = pd.concat([run, run[["score"]].rename(columns={"score": extra})], axis=1)
    with pytest.raises(InputError, match=r"^run: DataFrame has 2 columns named 'score'"):
        pref_eval.calc_aggregate("nDCG@10", QRELS, run2)
    qrels = pd.DataFrame(list(ir_measures.read_trec_qrels(QRELS)))
    qrels2 = pd.concat([qrels, qrels[["relevance"]]], axis=1)
    with pytest.raises(InputError, match=r"^<qrels>: DataFrame has 2 columns named 'relevance'"):
        pref_eval.calc_aggregate("nDCG@10", qrels2, run)


def test_pyterrier_internal_docid_alone_is_refused():
    """A PyTerrier result without its docno column (``metadata=[]``, or a transformer that dropped it) has only
    ``docid``, Terrier's internal document number. It was read as the document id: every document unjudged,
    nDCG@10 = 0 with no error (or the wrong documents matched when the docnos are numbers)."""
    run = _irm_run_frame().rename(columns={"query_id": "qid", "doc_id": "docno"})
    run["docid"] = np.arange(len(run))
    with pytest.raises(InputError, match=r"^run: column 'docid' holds integers and there is no docno column"):
        pref_eval.calc_aggregate("nDCG@10", QRELS, run.drop(columns="docno"))
    with pytest.raises(InputError, match="holds integers"):  # pandas' nullable integers too
        pref_eval.calc_aggregate("nDCG@10", QRELS, run.drop(columns="docno").astype({"docid": "Int64"}))
    exp = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], list(ir_measures.read_trec_qrels(QRELS)),
                                     _irm_run_frame())[ir_measures.nDCG @ 10]
    assert exp > 0
    # with docno beside it, docid is not read; a docid column of string ids (Pyserini's hits) is the id
    assert pref_eval.calc_aggregate("nDCG@10", QRELS, run)["nDCG@10"] == pytest.approx(exp, abs=1e-12)
    as_str = run.drop(columns="docid").rename(columns={"docno": "docid"})
    assert pref_eval.calc_aggregate("nDCG@10", QRELS, as_str)["nDCG@10"] == pytest.approx(exp, abs=1e-12)
