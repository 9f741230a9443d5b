"""The Python API as PyTerrier / ir-measures users first touch it, against ir-measures computed live.

PyTerrier's frames (``qid, docno, score, rank`` + ``query``, ``docid``; qrels ``qid, docno, label``)
in every id dtype it produces, ir-measures measure objects as inputs and as result keys, generators,
and the inputs that used to give silently wrong numbers (a float id column, a missing id, a run
dict whose values are not dicts, no topic in common, empty qrels) or a traceback.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import file_topics, warns_missing_topics

import pref_eval
from pref_eval.errors import EvaluationError, InputError, UsageError

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import AP, RR, Bpref, Judged, P, R, Rprec, nDCG  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUN = str(ROOT / "runs" / "bm25.run")
MEASURES = [AP, nDCG @ 10, P @ 5, RR, R @ 100, Rprec, Bpref, Judged @ 10, nDCG, P(rel=2) @ 10, AP(rel=2)]


def _irm_frames():
    qrels = pd.DataFrame(list(ir_measures.read_trec_qrels(QRELS)))
    run = pd.DataFrame(list(ir_measures.read_trec_run(RUN)))
    return qrels, run


def _pyterrier_frames():
    """The frames PyTerrier hands around: run ``qid, docid, docno, score, rank, query``; qrels ``qid, docno, label``."""
    qrels, run = _irm_frames()
    pt = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    pt["rank"] = pt.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    pt["query"] = "some text"
    pt["docid"] = np.arange(len(pt))
    return qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}), pt


def _same(ours: dict, theirs: dict) -> None:
    theirs = {str(k): v for k, v in theirs.items()}
    assert set(ours) == set(theirs)
    for k, v in theirs.items():
        assert ours[k] == pytest.approx(v, abs=1e-12), k


@pytest.fixture(scope="module")
def reference():
    qrels, run = _irm_frames()
    agg = ir_measures.calc_aggregate(MEASURES, qrels, run)
    per = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)}
    return agg, per


@pytest.mark.parametrize("dtype", ["object", "int64", "category", "string[pyarrow]"])
def test_pyterrier_frames_in_every_id_dtype_give_ir_measures_values(reference, dtype):
    agg, per = reference
    qrels, run = _pyterrier_frames()
    for df in (qrels, run):
        for c in ("qid", "docno"):
            df[c] = df[c].astype(np.int64) if dtype == "int64" else df[c].astype(dtype)
    run["rank"] = run["rank"].to_numpy()[::-1]  # a rank column that disagrees: the score decides, as in ir-measures
    run = run.sample(frac=1, random_state=3)  # shuffled rows, index not 0..n-1
    run.index = run.index * 7 + 5
    _same(pref_eval.calc_aggregate(MEASURES, qrels, run), agg)
    got = {(m.query_id, m.measure): m.value for m in pref_eval.iter_calc(MEASURES, qrels, run)}
    assert got == pytest.approx(per, abs=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "int64", "object"])
def test_score_dtypes(dtype):
    qrels, run = _irm_frames()
    run["score"] = (run["score"] * 100).round().astype(dtype)
    ref = ir_measures.calc_aggregate(MEASURES, qrels, run.astype({"score": float}))
    _same(pref_eval.calc_aggregate(MEASURES, qrels, run), ref)


def test_measures_given_as_a_generator_are_read_once(reference):
    # a generator was consumed twice: the result was an empty dict
    agg, _ = reference
    qrels, run = _irm_frames()
    _same(pref_eval.calc_aggregate((m for m in MEASURES), qrels, run), agg)
    ev = pref_eval.evaluator((m for m in MEASURES), qrels)
    _same(ev.calc_aggregate(run), agg)


def test_generators_of_ir_measures_records(reference):
    agg, _ = reference
    got = pref_eval.calc_aggregate(MEASURES, ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))
    _same(got, agg)


def test_results_are_indexed_by_ir_measures_objects(reference):
    agg, _ = reference
    res = pref_eval.calc_aggregate(MEASURES, QRELS, RUN)
    for m in MEASURES:
        assert m in res
        assert res[m] == pytest.approx(agg[m], abs=1e-12)
        assert res.get(m) == res[str(m)]
    trec = ir_measures.parse_trec_measure("P.5,10")
    res = pref_eval.calc_aggregate(trec, QRELS, RUN)
    ref = ir_measures.calc_aggregate(trec, *_irm_frames())
    assert [res[m] for m in trec] == pytest.approx([ref[m] for m in trec], abs=1e-12)


def test_evaluator_reused_gives_each_runs_ir_measures_values():
    qrels, _ = _pyterrier_frames()
    ev = pref_eval.evaluator(MEASURES, qrels)
    irm = ir_measures.evaluator(MEASURES, _irm_frames()[0])
    for name in ("bm25", "dense", "rerank", "bm25"):
        path = str(ROOT / "runs" / f"{name}.run")
        _same(ev.calc_aggregate(path), irm.calc_aggregate(ir_measures.read_trec_run(path)))


def test_float_or_missing_ids_are_refused_not_matched_to_nothing():
    qrels, run = _irm_frames()
    bad = run.astype({"query_id": float})  # "1037798.0" matched no topic: every value was 0
    with pytest.raises(InputError, match="'query_id' holds floats"):
        pref_eval.calc_aggregate([AP], qrels, bad)
    with pytest.raises(InputError, match="'query_id' holds floats"):
        pref_eval.calc_aggregate([AP], qrels.astype({"query_id": float}), run)
    bad = run.copy()
    bad.loc[2, "doc_id"] = None  # was the document "None", counted as retrieved
    with pytest.raises(InputError, match=r"^run:3: column 'doc_id': missing id"):
        pref_eval.calc_aggregate([AP], qrels, bad)
    bad = qrels.copy()
    bad.loc[1, "doc_id"] = np.nan  # was a judged document "nan"
    with pytest.raises(InputError, match=r"^<qrels>:2: column 'doc_id': missing id"):
        pref_eval.calc_aggregate([AP], bad, run)
    with pytest.raises(InputError, match="missing, empty, float or bool id"):
        pref_eval.calc_aggregate([AP], qrels, [("1037798", None, 1.0)])


def test_no_topic_in_common_is_an_error_as_on_the_command_line():
    # was {AP: 0.0} (ir-measures: 0.0 for disjoint topics, NaN for empty qrels); zelo_eval exits 2
    qrels, run = _irm_frames()
    with pytest.raises(EvaluationError, match="no queries with both results and relevance info"):
        pref_eval.calc_aggregate([AP], qrels, run.assign(query_id="zzz"))
    with pytest.raises(EvaluationError, match="no queries with both"):
        list(pref_eval.iter_calc([AP], qrels, run.assign(query_id="zzz")))
    with pytest.raises(InputError, match="empty qrels"):
        pref_eval.calc_aggregate([AP], qrels.iloc[:0], run)
    with pytest.raises(InputError, match="empty qrels"):
        pref_eval.calc_aggregate([AP], [], run)
    # complete=True scores the qrels topics the run lacks as 0, as ir-measures does
    ref = ir_measures.calc_aggregate([AP], qrels, run[run.query_id != run.query_id.iloc[0]])
    got = pref_eval.calc_aggregate([AP], qrels, run[run.query_id != run.query_id.iloc[0]], complete=True)
    _same(got, ref)


def test_one_run_is_read_as_one_run():
    # {qid: 5} was taken as the run {"run": {qid: 5}}: query "run", document qid, score 5 → AP 0.0
    with pytest.raises(InputError, match="query '1037798': expected a dict"):
        pref_eval.calc_aggregate([AP], QRELS, {"1037798": 5})
    with pytest.raises(InputError, match="query '1037798': expected a dict"):
        pref_eval.calc_aggregate([AP], {"1037798": 5}, RUN)
    with pytest.raises(UsageError, match="expected one run, got a list of 2 runs"):
        pref_eval.calc_aggregate([AP], QRELS, [RUN, RUN])
    with pytest.raises(UsageError, match="expected one run, got a mapping of 1 runs"):
        pref_eval.calc_aggregate([AP], QRELS, {"bm25": RUN})
    run = {"1037798": {"2258765": 2.4, "3693683": 2.0}}
    ref = ir_measures.calc_aggregate([P @ 1], ir_measures.read_trec_qrels(QRELS), run)
    with warns_missing_topics(file_topics(QRELS), {"run": run}):
        _same(pref_eval.calc_aggregate([P @ 1], QRELS, run), ref)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: pref_eval.calc_aggregate([AP], QRELS, None), "runs: expected a path"),
    (lambda: pref_eval.calc_aggregate([AP], QRELS, 5), "runs: expected a path"),
    (lambda: pref_eval.calc_aggregate([AP], None, RUN), "qrels: expected a path"),
    (lambda: pref_eval.calc_aggregate([AP], 5, RUN), "qrels: expected a path"),
    (lambda: pref_eval.calc_aggregate([AP], QRELS, RUN, foo=1), "calc_aggregate: unknown option 'foo'"),
    (lambda: pref_eval.calc_aggregate([AP], QRELS, RUN, summary=False), "unknown option 'summary'"),
    (lambda: list(pref_eval.iter_calc([AP], QRELS, RUN, foo=1)), "iter_calc: unknown option 'foo'"),
    (lambda: pref_eval.calc_aggregate([AP], QRELS, RUN, level="2"), "level: expected an integer"),
    (lambda: pref_eval.calc_aggregate([AP], QRELS, RUN, jobs=0), "jobs: expected an integer >= 1"),
    (lambda: pref_eval.evaluator([AP], QRELS, level="x"), "level: expected an integer"),
])
def test_bad_arguments_are_usage_errors(call, message):
    with pytest.raises(UsageError, match=message):
        call()


def test_frame_with_non_string_column_names_is_an_input_error():
    qrels, _ = _irm_frames()
    qrels.columns = list(range(len(qrels.columns)))  # was AttributeError: 'int' object has no attribute 'lower'
    with pytest.raises(InputError, match="DataFrame needs query_id/qid"):
        pref_eval.calc_aggregate([AP], qrels, RUN)


def test_a_list_of_dataframes_is_several_runs():
    # a DataFrame has query_id / doc_id attributes (its columns): a list of two was read as one run of two "lines"
    qrels, run = _irm_frames()
    run2 = pd.DataFrame(list(ir_measures.read_trec_run(str(ROOT / "runs" / "dense.run"))))
    df = pref_eval.evaluate(qrels, [run, run2], [AP], summary=True)
    got = dict(zip(df[df.qid == "all"].run, df[df.qid == "all"].value, strict=True))
    assert got == pytest.approx({"run1": ir_measures.calc_aggregate([AP], qrels, run)[AP],
                                 "run2": ir_measures.calc_aggregate([AP], qrels, run2)[AP]}, abs=1e-12)
    with warns_missing_topics(set(qrels.query_id), {"run1": {"1037798"},
                                                    "dense.run": file_topics(ROOT / "runs" / "dense.run")}):
        df = pref_eval.evaluate(qrels, [{"1037798": {"3641634": 1.0}}, str(ROOT / "runs" / "dense.run")], [AP])
    assert list(dict.fromkeys(df.run)) == ["run1", "dense.run"]
    with pytest.raises(UsageError, match="expected one run, got a list of 2 runs"):
        pref_eval.calc_aggregate([AP], qrels, [run, run2])


def test_float_or_missing_ids_in_qrels_records_are_refused():
    # {1037798.0: ...} was the topic "1037798.0": no run topic matched it
    with pytest.raises(InputError, match=r"^<qrels>:1: missing, float, bool or empty id 1037798.0"):
        pref_eval.calc_aggregate([AP], {1037798.0: {"3641634": 3}}, RUN)
    with pytest.raises(InputError, match=r"^<qrels>:2: missing, float, bool or empty id None"):
        pref_eval.calc_aggregate([AP], [("1037798", "3641634", 3), ("1037798", None, 1)], RUN)
    qrels = [("1037798", "3641634", 3), (1037798, "2258765", 1)]  # integer ids are ids
    ref = ir_measures.calc_aggregate([P @ 5], [ir_measures.Qrel(str(q), d, r) for q, d, r in qrels],
                                     ir_measures.read_trec_run(RUN))
    _same(pref_eval.calc_aggregate([P @ 5], qrels, RUN), ref)


def test_a_run_lacking_qrels_topics_warns_as_the_commands_do():
    qrels, run = _irm_frames()
    part = run[run.query_id != run.query_id.iloc[0]]
    from pref_eval.errors import PrefEvalWarning

    assert issubclass(PrefEvalWarning, UserWarning)
    with pytest.warns(PrefEvalWarning, match=r"^run: run lacks 1 of 8 qrels topics; averaging over the topics in both"):
        got = pref_eval.calc_aggregate([AP], qrels, part)
    per = [m.value for m in ir_measures.iter_calc([AP], qrels, part) if m.query_id != run.query_id.iloc[0]]
    assert got[AP] == pytest.approx(sum(per) / len(per), abs=1e-12)  # ir-measures' values, over the 7 topics
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pref_eval.calc_aggregate([AP], qrels, part, complete=True)
        pref_eval.calc_aggregate([AP], qrels, run)


@pytest.mark.timeout(120)
def test_random_pyterrier_frames_equal_ir_measures():
    """40 random collections (seeded), ids as str / int / category / string[pyarrow], float32 scores, a shuffled
    ``rank`` column: every per-query value and (``complete=True``) every mean equals ir-measures'. Scores are
    distinct (tie orders differ by provider: docs/differences.md)."""
    import math
    import warnings

    measures = [AP, nDCG @ 10, P @ 5, RR, Bpref, R @ 10, Rprec, Judged @ 5, nDCG, AP(rel=2)]
    rng = np.random.default_rng(7)
    checked = 0
    for case in range(40):
        qrows, rrows = [], []
        for q in range(int(rng.integers(1, 5))):
            docs = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
            qrows += [(f"{q + 1}", d, int(rng.integers(-1, 4))) for d in docs if rng.random() < 0.6]
            if rng.random() < 0.9:
                rrows += [(f"{q + 1}", d, float(rng.normal()))
                          for d in rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)]
        if not qrows or not rrows:
            continue
        qdf = pd.DataFrame(qrows, columns=["qid", "docno", "label"])
        rdf = pd.DataFrame(rrows, columns=["qid", "docno", "score"]).assign(rank=lambda d: rng.permutation(len(d)))
        iq = pd.DataFrame({"query_id": qdf.qid, "doc_id": qdf.docno, "relevance": qdf.label})
        ir = pd.DataFrame({"query_id": rdf.qid, "doc_id": rdf.docno, "score": rdf.score})
        common = set(iq.query_id) & set(ir.query_id)
        if not common:
            continue
        if case % 4 == 1:
            qdf, rdf = qdf.astype({"qid": int}), rdf.astype({"qid": int})
        elif case % 4 == 2:
            qdf, rdf = qdf.astype({"qid": "category", "docno": "category"}), rdf.astype({"docno": "category"})
        elif case % 4 == 3:
            qdf, rdf = qdf.astype({"qid": "string[pyarrow]"}), rdf.astype({"score": "float32"})
            ir = ir.assign(score=rdf.score.astype(float))
        ref = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, iq, ir)
               if m.query_id in common}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = {(m.query_id, m.measure): m.value for m in pref_eval.iter_calc(measures, qdf, rdf)}
        assert set(got) == set(ref)
        assert all(math.isclose(got[k], ref[k], abs_tol=1e-9) for k in ref), case
        _same(pref_eval.calc_aggregate(measures, qdf, rdf, complete=True),
              ir_measures.calc_aggregate(measures, iq, ir))
        checked += 1
    assert checked >= 30
