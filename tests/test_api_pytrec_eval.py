"""A pytrec_eval / BEIR user's dicts through the Python API, against pytrec_eval live.

pytrec_eval (``pip install pytrec_eval-terrier``; Van Gysel & de Rijke, SIGIR 2018) is what BEIR's
``EvaluateRetrieval.evaluate`` calls (Thakur et al., NeurIPS 2021 Datasets and Benchmarks):
``RelevanceEvaluator(qrels, measures).evaluate(run)`` with ``{qid: {docno: grade}}`` /
``{qid: {docno: score}}`` dicts gives ``{qid: {"ndcg_cut_10": value, ...}}``. pytrec_eval aborts or
hangs on some inputs (NOTES.md "Next steps"), so it runs in a subprocess with a time limit, all the
cases of a test in one process. BEIR's averaging (the mean of pytrec_eval's per-query values over the
queries it returns, rounded to 5 decimals, after dropping a document whose id is its query's) is
written here from its description (github.com/beir-cellar/beir, ``beir/retrieval/evaluation.py``).
"""
from __future__ import annotations

import math
import pickle
import subprocess
import sys
import warnings

import pytest

import pref_eval
from conftest import ROOT
from pref_eval.errors import UsageError

SUPPORTED = set(pytest.importorskip("pytrec_eval").supported_measures)  # importing it is safe; evaluating is not

_PEER = r"""
import pickle, sys, pytrec_eval
out = []
for qrels, run, measures, kw in pickle.load(sys.stdin.buffer):
    out.append(pytrec_eval.RelevanceEvaluator(qrels, measures, **kw).evaluate(run))
sys.stdout.buffer.write(pickle.dumps(out))
"""


def pytrec_eval_live(cases: list) -> list[dict]:
    """pytrec_eval's ``evaluate(run)`` of each (qrels, run, measures, keywords)."""
    p = subprocess.run([sys.executable, "-c", _PEER], input=pickle.dumps(cases), capture_output=True, timeout=120,
                       check=True)
    return pickle.loads(p.stdout)


def read_dicts(qrels: str, run: str) -> tuple[dict, dict]:
    """A qrels and a run file as the dicts BEIR and pytrec_eval take (str ids, int grades, float scores)."""
    q: dict = {}
    for line in (ROOT / qrels).read_text().split("\n"):
        if line.strip():
            qid, _, doc, grade = line.split()
            q.setdefault(qid, {})[doc] = int(grade)
    r: dict = {}
    for line in (ROOT / run).read_text().split("\n"):
        if line.strip():
            qid, _, doc, _, score, _ = line.split()
            r.setdefault(qid, {})[doc] = float(score)
    return q, r


SHIPPED = [read_dicts("qrels/dl19-sample.qrels", f"runs/{name}.run") for name in ("bm25", "dense", "rerank")]

# per-query entries pytrec_eval fills with its internals: trec_eval prints none per query for the summary-only
# measures (gm_map / gm_bpref hold log values, num_q 1, runid 0) and relstring is a string (pytrec_eval: 0.0)
PEER_ONLY = {"gm_map", "gm_bpref", "num_q", "runid", "relstring"}
# trec_eval 10 rounds x·R with lround for iprec_at_recall (so 11pt_avg); pytrec_eval embeds trec_eval 9
TREC10_ONLY = ("iprec_at_recall_", "11pt_avg")


def without(res: dict, names) -> dict:
    return {q: {m: v for m, v in ms.items() if m not in names} for q, ms in res.items()}


def ours(qrels, run, measures, **options) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a run lacking qrels topics: pytrec_eval leaves them out silently
        return pref_eval.evaluator(measures, qrels, **options).evaluate(run)


def test_every_supported_measure_on_the_shipped_runs():
    cases = [(q, r, SUPPORTED, {}) for q, r in SHIPPED]
    peer = pytrec_eval_live(cases)
    for (q, r, measures, _), theirs in zip(cases, peer, strict=True):
        got = ours(q, r, measures, trec9=True)  # pytrec_eval's set as it is, keys as pytrec_eval prints them
        assert without(got, {"relstring"}) == without(theirs, PEER_ONLY)
        assert all(len(ms["relstring"]) == 10 for ms in got.values())  # the grades of the top 10, as trec_eval -q
        # the default is trec_eval 10: only its iprec rounding differs (docs/api.md)
        default = ours(q, r, measures)
        assert without(default, ()) != got
        cut = {m for ms in got.values() for m in ms if m.startswith(TREC10_ONLY)}
        assert without(default, cut) == without(got, cut)
        # gm_map / gm_bpref: pytrec_eval's per-query logs, averaged by its own helper = our summary
        summary = pref_eval.calc_aggregate(["gm_map", "gm_bpref"], q, r, trec9=True)
        for m in ("gm_map", "gm_bpref"):
            logs = [ms[m] for ms in theirs.values()]
            assert summary[m] == pytest.approx(math.exp(sum(logs) / len(logs)), rel=1e-12)


def _realistic() -> list:
    base_q = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d9": 1}, "q2": {"d4": 1, "d5": 1, "d7": 0}}
    base_r = {"q1": {"d1": 0.5, "d2": 0.9, "d3": 0.1, "dx": 0.3}, "q2": {"d4": 0.2, "d6": 0.8, "d7": 0.2, "d5": 0.2}}
    return [
        ("docs absent from the qrels, tied scores", base_q, base_r, {}),
        ("negative grades", {"q1": {"d1": -1, "d2": 0, "d3": 2}, "q2": {"d4": -2, "d5": 1}}, base_r, {}),
        ("bool grades", {"q1": {"d1": True, "d2": False, "d3": True}}, base_r, {}),
        ("int scores", base_q, {q: {d: int(s * 10) for d, s in ds.items()} for q, ds in base_r.items()}, {}),
        ("infinite scores", base_q, {"q1": {"d1": math.inf, "d2": 0.5, "d3": -math.inf}, "q2": base_r["q2"]}, {}),
        ("all tied: docno descending", {"q1": {"9": 1, "10": 1, "a": 0, "B": 1, "é": 1}},
         {"q1": {d: 1.0 for d in ("9", "10", "a", "B", "c", "é", "x y")}}, {}),
        ("ties only in float32", {"q1": {"a": 1, "b": 0, "c": 1}},
         {"q1": {"a": 0.1, "b": 0.1 + 1e-12, "c": 0.1 + 2e-9}}, {}),
        ("qrels topic without judgments", {**base_q, "q3": {}}, {**base_r, "q3": {"d1": 1.0}}, {}),
        ("run topic not in the qrels, qrels topic not in the run", base_q, {"q1": base_r["q1"], "q9": {"a": 1.0}}, {}),
        ("relevance_level=2", base_q, base_r, {"relevance_level": 2}),
        ("judged_docs_only_flag", base_q, base_r, {"judged_docs_only_flag": True}),
    ]


REALISTIC = _realistic()
MEASURES = {"map", "map_cut.10", "ndcg", "ndcg_cut.3,10", "P.1,5", "recall.5,100", "recip_rank", "Rprec", "bpref",
            "set_F", "infAP", "success.1,5", "num_ret", "num_rel", "num_rel_ret", "iprec_at_recall", "Rndcg",
            "ndcg_rel", "binG", "G", "utility", "set_P", "set_recall", "set_map", "relative_P.5", "Rprec_mult",
            "num_nonrel_judged_ret", "11pt_avg"}


def test_realistic_dicts_equal_pytrec_eval():
    peer = pytrec_eval_live([(q, r, MEASURES, kw) for _, q, r, kw in REALISTIC])
    ours_kw = {"relevance_level": "level", "judged_docs_only_flag": "judged_only"}
    for (what, q, r, kw), theirs in zip(REALISTIC, peer, strict=True):
        got = ours(q, r, MEASURES, trec9=True, **{ours_kw[k]: v for k, v in kw.items()})
        assert got == theirs, what


K_VALUES = [1, 3, 5, 10, 100, 1000]


def beir_evaluate(theirs: dict) -> dict:
    """BEIR's means of pytrec_eval's per-query values: over the queries returned, rounded to 5 decimals."""
    out = {}
    for k in K_VALUES:
        for beir, trec in (("NDCG", "ndcg_cut"), ("MAP", "map_cut"), ("Recall", "recall"), ("P", "P")):
            out[f"{beir}@{k}"] = round(sum(ms[f"{trec}_{k}"] for ms in theirs.values()) / len(theirs), 5)
    return out


def test_beir_evaluate_is_calc_aggregate_of_its_names():
    cut = ",".join(map(str, K_VALUES))
    measures = {f"map_cut.{cut}", f"ndcg_cut.{cut}", f"recall.{cut}", f"P.{cut}"}
    runs = []
    for q, r in SHIPPED:
        r = {**r, next(iter(r)): {}}  # a query that retrieved nothing: BEIR's retrievers give it as {}
        r = {qid: r[qid] for qid in sorted(r, key=lambda x: not r[x])}  # last: pytrec_eval can crash on it first
        with_own = {qid: {qid: 99.0, **docs} for qid, docs in r.items()}  # the query itself retrieved first
        q_own = {qid: {qid: 1, **docs} for qid, docs in q.items()}  # ... and judged relevant (ArguAna's case)
        runs.append((q_own, with_own))
    # ignore_identical_ids: BEIR drops each document whose id is its query's before calling pytrec_eval
    dropped = [{qid: {d: s for d, s in docs.items() if d != qid} for qid, docs in r.items()} for _, r in runs]
    peer = pytrec_eval_live([(q, r, measures, {}) for (q, _), r in zip(runs, dropped, strict=True)])
    names = list(beir_evaluate(peer[0]))
    for (q, r), r_dropped, theirs in zip(runs, dropped, peer, strict=True):
        beir = beir_evaluate(theirs)
        assert len(theirs) == len(q)  # the empty query is in pytrec_eval's result, all zeros
        # BEIR's names as they are (ir-measures' aliases); the empty query counted as zero, as pytrec_eval
        # returns it (o30: it was left out, a topic the run lacks); complete=True: every qrels topic is a key
        got = pref_eval.calc_aggregate(names, q, r_dropped)
        assert {n: round(v, 5) for n, v in got.items()} == beir
        assert pref_eval.calc_aggregate(names, q, r_dropped, complete=True) == got
        kept = pref_eval.calc_aggregate(names, q, r, complete=True)  # without the drop: other numbers (docs/api.md)
        assert kept["P@1"] == 1.0 and {n: round(v, 5) for n, v in kept.items()} != beir


def test_beir_custom_mrr_and_accuracy_are_rr_and_success_with_complete():
    """BEIR's MRR@k and top-k Accuracy@k: per query from its own sort, summed, divided by the number of qrels
    topics (a topic the run lacks counts 0). No ties in the shipped runs, so their sort is trec_eval's."""
    for q, r in SHIPPED:
        r = {qid: docs for i, (qid, docs) in enumerate(r.items()) if i % 3}  # some qrels topics missing
        mrr, acc = {}, {}
        for k in K_VALUES:
            rr = hit = 0.0
            for qid, docs in r.items():
                top = sorted(docs, key=docs.__getitem__, reverse=True)[:k]
                ranks = [i for i, d in enumerate(top, 1) if q[qid].get(d, 0) > 0]
                rr += 1 / ranks[0] if ranks else 0.0
                hit += 1.0 if ranks else 0.0
            mrr[f"MRR@{k}"], acc[f"Success@{k}"] = round(rr / len(q), 5), round(hit / len(q), 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = pref_eval.calc_aggregate([*mrr, *acc], q, r, complete=True)
        assert {n: round(v, 5) for n, v in got.items()} == {**mrr, **acc}


Q = {"q1": {"d1": 1, "d2": 0}}
R = {"q1": {"d1": 0.5, "d2": 0.9}}


@pytest.mark.parametrize("call", [
    lambda kw: pref_eval.evaluate(Q, R, ["map"], **kw),
    lambda kw: pref_eval.calc_aggregate(["map"], Q, R, **kw),
    lambda kw: list(pref_eval.iter_calc(["map"], Q, R, **kw)),
    lambda kw: pref_eval.evaluator(["map"], Q, **kw),
], ids=["evaluate", "calc_aggregate", "iter_calc", "evaluator"])
@pytest.mark.parametrize("keyword,value,hint", [
    ("relevance_level", 2, "pytrec_eval's; here: level"),
    ("judged_docs_only_flag", True, "pytrec_eval's; here: judged_only"),
    ("k_values", [1, 10], "BEIR's; here: the cutoffs in the measure names"),
    ("ignore_identical_ids", True, "BEIR's; here: none"),
    ("cutoff", 10, r"\(expected one of: complete, level"),
])
def test_their_keywords_name_ours(call, keyword, value, hint):
    with pytest.raises(UsageError, match=f"unknown option '{keyword}' .*{hint}"):
        call({keyword: value})


@pytest.mark.parametrize("call,message", [
    (lambda: pref_eval.evaluate(Q, R, [1, 3, 10]),  # BEIR's k_values where the measures go
     r"got the number 1, not a measure name; .* 'NDCG@1', 'P@1', or trec_eval's 'ndcg_cut.1,3,10'"),
    (lambda: pref_eval.evaluator(Q, {"map", "ndcg"}),  # pytrec_eval's RelevanceEvaluator(qrels, measures) order
     r"measures: got a \{qid: \{docno: value\}\} mapping .* evaluator\(measures, qrels\)"),
    (lambda: pref_eval.calc_aggregate(Q, R, {"map"}), r"measures: got a \{qid: \{docno: value\}\} mapping"),
    (lambda: pref_eval.evaluate(Q, R, ["ndcg_cut@10"]), r"cutoff after a dot: ndcg_cut.10 \(printed ndcg_cut_10\)"),
    (lambda: pref_eval.evaluate(Q, R, ["R_cap@10"]), r"BEIR's capped recall .* is not a measure here"),
    (lambda: pref_eval.evaluate(Q, R, ["Hole@10"]), r"BEIR's Hole@k .* 1 - Judged@k"),
    (lambda: pref_eval.evaluate(Q, R, ["top_k_accuracy@10"]), r"BEIR's top-k accuracy is Success@k"),
])
def test_their_spellings_say_what_to_write(call, message):
    with pytest.raises(UsageError, match=message):
        call()


# o30: a run topic without documents ({"q2": {}}), against the three peers live
EMPTY_Q = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}, "q3": {"d5": 1}, "q4": {"d6": 2, "d7": 1}}
# q2: no document (in the qrels); q3: no key (a topic the run lacks); qx: no document, not in the qrels
EMPTY_R = {"q1": {"d1": 0.5, "d2": 0.9, "d3": 0.1}, "q4": {"d7": 0.3, "d1": 0.2}, "q2": {}, "qx": {}}


def test_empty_run_topic_is_scored_as_pytrec_eval_does():
    """pytrec_eval (so BEIR) returns a qrels topic the run gives as {} with its values for no document (all 0,
    num_rel its own) and leaves out a qrels topic the run has no key for and a run topic the qrels lack."""
    [theirs] = pytrec_eval_live([(EMPTY_Q, EMPTY_R, MEASURES, {})])
    assert set(theirs) == {"q1", "q2", "q4"} and theirs["q2"]["num_rel"] == 1.0
    with pytest.warns(UserWarning, match="run lacks 1 of 4 qrels topics"):  # q3 only
        got = pref_eval.evaluator(MEASURES, EMPTY_Q, trec9=True).evaluate(EMPTY_R)
    # pytrec_eval's iprec_at_recall_0.00 and 11pt_avg of the empty topic are NaN; here 0, as trec_eval -c scores
    # a topic without documents (docs/api.md)
    nan_there = {"iprec_at_recall_0.00", "11pt_avg"}
    assert all(math.isnan(theirs["q2"][m]) for m in nan_there) and all(got["q2"][m] == 0.0 for m in nan_there)
    assert without(got, nan_there) == without(theirs, nan_there) and got["q1"] == theirs["q1"]
    # BEIR's mean: over pytrec_eval's topics
    with pytest.warns(UserWarning, match="run lacks 1 of 4 qrels topics"):
        agg = pref_eval.calc_aggregate(["ndcg_cut.10", "P.5", "map"], EMPTY_Q, EMPTY_R, trec9=True)
    for m in ("ndcg_cut_10", "P_5", "map"):
        assert agg[m] == pytest.approx(sum(v[m] for v in theirs.values()) / 3, abs=1e-15)
    # the default (trec_eval 10) per query: the same topics, q2 all zeros
    with pytest.warns(UserWarning):
        rows = list(pref_eval.iter_calc(["ndcg_cut.10", "num_ret", "num_rel"], EMPTY_Q, EMPTY_R))
    assert [m.query_id for m in rows] == ["q1"] * 3 + ["q2"] * 3 + ["q4"] * 3
    assert {m.measure: m.value for m in rows if m.query_id == "q2"} == {"ndcg_cut_10": 0.0, "num_ret": 0.0,
                                                                        "num_rel": 1.0}


EMPTY_NAMES = ["nDCG@10", "P@5", "AP", "RR"]


def test_empty_run_topic_as_ir_measures():
    """ir-measures scores q2 ({}) 0 too, and also q3 (no key): complete=True; it does not evaluate qx."""
    ir_measures = pytest.importorskip("ir_measures")
    names = EMPTY_NAMES
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], EMPTY_Q, EMPTY_R)
    got = pref_eval.calc_aggregate(names, EMPTY_Q, EMPTY_R, complete=True)
    assert {str(k): v for k, v in theirs.items()} == pytest.approx(got, abs=1e-12)
    per_q = {(m.query_id, str(m.measure)): m.value
             for m in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], EMPTY_Q, EMPTY_R)}
    ours_q = {(m.query_id, m.measure): m.value for m in pref_eval.iter_calc(names, EMPTY_Q, EMPTY_R, complete=True)}
    assert per_q == pytest.approx(ours_q, abs=1e-12) and ("q2", "AP") in per_q and ("qx", "AP") not in per_q


@pytest.mark.slow  # ranx's Qrels/Run compile numba functions on first use
def test_empty_run_topic_as_ranx():
    """ranx (make_comparable=True: the qrels topics the run lacks added empty, qx dropped) scores q2 0 and
    averages over every qrels topic: complete=True."""
    ranx = pytest.importorskip("ranx")
    names = EMPTY_NAMES
    got = pref_eval.calc_aggregate(names, EMPTY_Q, EMPTY_R, complete=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rx = ranx.evaluate(ranx.Qrels(EMPTY_Q), ranx.Run(EMPTY_R), ["ndcg@10", "precision@5", "map", "mrr"],
                           make_comparable=True)
    assert [float(rx[k]) for k in ("ndcg@10", "precision@5", "map", "mrr")] == pytest.approx(
        [got[n] for n in names], abs=1e-12)
