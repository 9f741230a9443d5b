"""pref_eval.evaluate(): paths, DataFrames, dicts and named mappings give the same
long table, and its values equal pytrec_eval's (through ir-measures) computed live."""
from pathlib import Path

import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import UsageError

from conftest import ROOT  # noqa: E402
QRELS = ROOT / "qrels/dl19-sample.qrels"
RUNS = [ROOT / "runs/bm25.run", ROOT / "runs/dense.run"]


def _run_dict(path):
    d = {}
    for line in Path(path).read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        d.setdefault(q, {})[doc] = float(score)
    return d


def test_long_form_columns_and_values_equal_pytrec_eval():
    ir_measures = pytest.importorskip("ir_measures")
    df = pref_eval.evaluate(str(QRELS), [str(p) for p in RUNS], ["AP", "nDCG@10", "P@5"])
    assert list(df.columns) == ["run", "qid", "measure", "value"]
    assert set(df.measure) == {"AP", "nDCG@10", "P@5"}
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    for path in RUNS:
        ours = df[df.run == path.name].set_index(["qid", "measure"]).value  # run id: shortest unique suffix
        theirs = ir_measures.iter_calc([ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5],
                                       qrels, list(ir_measures.read_trec_run(str(path))))
        n = 0
        for m in theirs:
            assert ours[(m.query_id, str(m.measure))] == pytest.approx(m.value, abs=1e-12)
            n += 1
        assert n == len(ours)


def test_inputs_in_every_form_agree():
    by_path = pref_eval.evaluate(QRELS, RUNS[0], ["map", "ndcg_cut.10"])
    qrels_df = pd.read_csv(QRELS, sep=" ", names=["query_id", "it", "doc_id", "relevance"], dtype=str)
    qrels_df["relevance"] = qrels_df.relevance.astype(int)
    by_frames = pref_eval.evaluate(qrels_df, {"bm25": _run_dict(RUNS[0])}, ["map", "ndcg_cut.10"])
    by_dict = pref_eval.evaluate(qrels_df, _run_dict(RUNS[0]), "map ndcg_cut.10")
    assert list(by_frames.run.unique()) == ["bm25"]
    for other in (by_frames, by_dict):
        assert other.value.tolist() == by_path.value.tolist()
        assert other.qid.tolist() == by_path.qid.tolist()


def test_summary_rows_and_trec_names():
    df = pref_eval.evaluate(QRELS, RUNS[0], ["P.5,10"], summary=True)
    allrows = df[df.qid == "all"]
    assert allrows.measure.tolist() == ["P_5", "P_10"]
    per_q = df[(df.qid != "all") & (df.measure == "P_10")].value
    assert allrows.value.iloc[1] == pytest.approx(per_q.mean())


def test_errors():
    with pytest.raises(UsageError, match="unknown measure"):
        pref_eval.evaluate(QRELS, RUNS[0], ["mapp"])
    with pytest.raises(UsageError, match="given twice"):
        pref_eval.evaluate(QRELS, {"a": _run_dict(RUNS[0]), "b": _run_dict(RUNS[1])} and [RUNS[0], RUNS[0]], ["map"])


# ------------------------------------------------------------ ir-measures shapes
def _irm_inputs():
    ir_measures = pytest.importorskip("ir_measures")
    return (ir_measures, list(ir_measures.read_trec_qrels(str(QRELS))),
            list(ir_measures.read_trec_run(str(RUNS[0]))))


def test_every_ir_measures_input_shape_gives_ir_measures_values():
    import numpy as np

    irm, qrels, run = _irm_inputs()
    measures = [irm.AP, irm.nDCG @ 10, irm.P(rel=2) @ 5, irm.RR @ 10]
    expected = {(m.query_id, str(m.measure)): m.value for m in irm.iter_calc(measures, qrels, run)}
    as_dict: dict = {}
    for r in run:
        as_dict.setdefault(r.query_id, {})[r.doc_id] = np.float32(r.score)  # numpy scalars
    shapes = {
        "namedtuple lists": (qrels, run),
        "generators": ((q for q in qrels), (r for r in run)),
        "DataFrames": (pd.DataFrame(qrels), pd.DataFrame(run)),
        "plain tuples": ([(q.query_id, q.doc_id, q.relevance) for q in qrels],
                         [(r.query_id, r.doc_id, r.score) for r in run]),
    }
    for label, (q, r) in shapes.items():
        df = pref_eval.evaluate(q, r, measures)
        assert df.run.nunique() == 1, label  # a list of ScoredDocs is one run
        got = {(qid, m): v for qid, m, v in zip(df.qid, df.measure, df.value, strict=True)}
        assert got.keys() == expected.keys(), label
        for k, v in expected.items():
            assert got[k] == pytest.approx(v, abs=1e-12), (label, k)
    # float32 scores: same ranking as the float32-rounded run in ir-measures
    f32 = [irm.ScoredDoc(r.query_id, r.doc_id, float(np.float32(r.score))) for r in run]
    exp32 = {(m.query_id, str(m.measure)): m.value for m in irm.iter_calc(measures, qrels, f32)}
    df = pref_eval.evaluate(qrels, as_dict, measures)
    for qid, m, v in zip(df.qid, df.measure, df.value, strict=True):
        assert v == pytest.approx(exp32[(qid, m)], abs=1e-12)


def test_iter_calc_and_calc_aggregate_like_ir_measures():
    irm, qrels, run = _irm_inputs()
    measures = [irm.AP, irm.nDCG @ 10, irm.NumRet(rel=1)]
    ours = list(pref_eval.iter_calc(measures, qrels, iter(run)))
    theirs = list(irm.iter_calc(measures, qrels, run))
    assert {(m.query_id, m.measure): m.value for m in ours} == pytest.approx(
        {(m.query_id, str(m.measure)): m.value for m in theirs})
    agg = pref_eval.calc_aggregate(measures, qrels, run)
    ref = irm.calc_aggregate(measures, qrels, run)
    for m in measures:
        assert agg[str(m)] == pytest.approx(ref[m], abs=1e-12)


def test_empty_run_is_refused_as_on_the_command_line(tmp_path):
    from pref_eval.errors import InputError

    empty = tmp_path / "empty.run"
    empty.write_text("")
    for run in (str(empty), [], {}, iter(()), pd.DataFrame(columns=["query_id", "doc_id", "score"])):
        with pytest.raises(InputError, match="empty run"):
            pref_eval.evaluate(QRELS, run, ["map"])


def test_bad_scores_are_input_errors_not_tracebacks():
    from pref_eval.errors import InputError

    qrels = {"1": {"a": 1, "b": 0}}
    for run in ({"1": {"a": "x"}}, [("1", "a", "x")],
                pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["x"]})):
        with pytest.raises(InputError, match="number|expected"):
            pref_eval.evaluate(qrels, run, ["P@1"])


def test_dataframe_columns_are_read_column_wise():
    import numpy as np

    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "ç"], "relevance": [1, 0, 1]})
    run = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "ç"],
                        "score": np.array([1, 2, 3], dtype=np.float32)})
    df = pref_eval.evaluate(qrels, run, ["P@1"])
    assert df.value.tolist() == [0.0, 1.0]  # query 1: b (score 2, grade 0) first; query ids as strings


# ------------------------------------------------------------ ir_measures.evaluator
def test_evaluator_equals_ir_measures_evaluator_on_several_runs():
    """``pref_eval.evaluator(measures, qrels)``: qrels once, three runs; values and Metric shape as ir-measures'."""
    irm, qrels, _ = _irm_inputs()
    measures = [irm.AP, irm.nDCG @ 10, irm.P(rel=2) @ 5, irm.RR @ 10, irm.NumRet(rel=1), irm.Judged @ 10]
    ours_ev = pref_eval.evaluator(measures, iter(qrels))  # a generator: usable once, so read once
    theirs_ev = irm.evaluator(measures, qrels)
    assert callable(ours_ev.iter_calc) and callable(ours_ev.calc_aggregate)
    for path in RUNS * 2:  # every run twice: the evaluator keeps no state from a run
        run = list(irm.read_trec_run(str(path)))
        ours = list(ours_ev.iter_calc(run))
        theirs = list(theirs_ev.iter_calc(run))
        assert all(type(m)._fields == type(t)._fields == ("query_id", "measure", "value")
                   for m, t in zip(ours, theirs, strict=False))
        got = {(m.query_id, m.measure): m.value for m in ours}
        want = {(t.query_id, str(t.measure)): t.value for t in theirs}
        assert got.keys() == want.keys() and len(got) == len(ours)
        for k, v in want.items():
            assert got[k] == pytest.approx(v, abs=1e-12), (path.name, k)
        agg, ref = ours_ev.calc_aggregate(run), theirs_ev.calc_aggregate(run)
        assert set(agg) == {str(m) for m in ref}
        for m, v in ref.items():
            assert agg[str(m)] == pytest.approx(v, abs=1e-12), (path.name, str(m))
    # a path, a dict: the shapes evaluate() takes
    by_path = {(m.query_id, m.measure): m.value for m in ours_ev.iter_calc(str(RUNS[1]))}
    assert by_path == pytest.approx({(m.query_id, m.measure): m.value
                                     for m in ours_ev.iter_calc(_run_dict(RUNS[1]))})


def test_evaluator_errors_are_usage_errors_at_creation():
    qrels = {"1": {"a": 1, "b": 0}}
    with pytest.raises(UsageError, match="unknown measure"):
        pref_eval.evaluator(["mapp"], qrels)
    with pytest.raises(UsageError, match="parameter rel"):
        pref_eval.evaluator(["P(rel=-1)@5"], qrels)
    with pytest.raises(UsageError, match="unknown option 'summary'"):
        pref_eval.evaluator(["AP"], qrels, summary=True)
    with pytest.raises(UsageError, match="no requested measure uses them"):
        pref_eval.evaluator(["AP"], qrels, judgments=ROOT / "judgments/dl19-sample.judge")
    ev = pref_eval.evaluator(["P@1"], qrels, level=1)
    assert [tuple(m) for m in ev.iter_calc({"1": {"a": 2.0, "b": 1.0}})] == [("1", "P@1", 1.0)]
