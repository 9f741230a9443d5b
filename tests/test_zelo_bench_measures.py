"""zbench's three measures: exact agreement with zbench's benchmark.py outputs
(tests/data/zelo/zbench/*/zbench_benchmarks.json, produced by running zbench
under /tmp), and hand-worked cases for our tie-aware defaults."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from pref_eval.errors import EvaluationError
from pref_eval.zelo.bench_measures import align, ndcg_exp, pairwise_accuracy, pairwise_counts, recall_at_k
from pref_eval.io.judgments import read_zbench_annotated

DATA = Path(__file__).resolve().parent / "data" / "zelo" / "zbench"


def _table(path):
    return {q: dict(zip(d, s, strict=False)) for q, d, s in read_zbench_annotated(str(path))}


def _ours(case: str) -> dict:
    """Our zbench-compat measures of the case's run, in zbench_benchmarks.json's layout (an accuracy list with a
    NaN, a 1-document query, is "ZeroDivisionError": zbench dies there)."""
    d = DATA / case
    gt = _table(d / "zbench_annotated.jsonl")
    run = read_zbench_annotated(str(d / "run_rounded.jsonl"))
    res: dict = {}
    for lim_key, lim in [("10", 10), ("None", None), ("5", 5)]:
        ours: dict = {"ndcg": [], "acc": [], "rec": {}}
        for qid, docs, scores in run:
            r, g, miss = align(docs, scores, gt[qid], limit=lim, strict=True)
            ours["ndcg"].append(ndcg_exp(r, g, compat="zbench"))
            ours["acc"].append(pairwise_accuracy(r, g, compat="zbench"))
            for k, kgt in [(5, None), (3, 5), (10, 10)]:
                ours["rec"].setdefault((k, kgt), []).append(recall_at_k(r, g, k, kgt, compat="zbench"))
        res["ndcg_" + lim_key] = ours["ndcg"]
        res["accuracy_" + lim_key] = ("ZeroDivisionError" if any(math.isnan(x) for x in ours["acc"])
                                      else ours["acc"])
        for (k, kgt), vals in ours["rec"].items():
            res[f"recall_{k}_{kgt}_{lim_key}"] = vals
    return res


def _zbench_files(case: str) -> dict[str, dict]:
    # zbench's nDCG orders by np.argsort(scores)[::-1]: numpy's default sort, whose order of ties depends on the
    # CPU (its AVX2 / AVX-512 sorts or its baseline introsort), and the run's scores are rounded to integers. Each
    # file is zbench's benchmark.py run live on (or with numpy's setting for) one kind of CPU (README there)
    return {f.name: json.loads(f.read_text()) for f in sorted((DATA / case).glob("zbench_benchmarks*.json"))}


def _assert_zbench_file(case: str, kind: str, ours: dict) -> None:
    # zbench's file for the kind of CPU ours was computed as (numpy's AVX2 / AVX-512 sorts: zbench_benchmarks.json,
    # zbench run live on AVX2 and AVX-512 machines; baseline introsort: .no-avx2.json); where the settings' effect
    # is not known (conftest.cpu_kind_code: None), zbench's for one kind
    from conftest import cpu_kind_code

    want = _zbench_files(case)
    assert len(want) == 2
    code = cpu_kind_code(kind)
    if code is None:
        assert [name for name, w in want.items() if w == ours], (kind, ours)
    else:
        name = "zbench_benchmarks.json" if code["avx2"] else "zbench_benchmarks.no-avx2.json"
        assert ours == want[name], (kind, name)


@pytest.mark.parametrize("case", ["case_main", "case_soft", "case_small"])
def test_equal_to_zbench_benchmark_py(case):
    _assert_zbench_file(case, "this", _ours(case))


@pytest.mark.parametrize("kind", ["no-avx512", "pre-haswell"])
@pytest.mark.parametrize("case", ["case_main", "case_soft"])
def test_equal_to_zbench_benchmark_py_on_other_cpus(case, kind):
    # computed as on another kind of CPU (conftest.cpu_kinds): zbench's file for that kind
    import os
    import subprocess
    import sys

    from conftest import cpu_kinds

    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import test_zelo_bench_measures as t; "
            "print(json.dumps(t._ours(sys.argv[2])))")
    r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), case], capture_output=True,
                       text=True, env={**os.environ, **cpu_kinds()[kind]})
    assert r.returncode == 0, r.stderr
    _assert_zbench_file(case, kind, json.loads(r.stdout))


def test_ndcg_hand_worked():
    gt = np.log(np.array([3.0, 1.0, 2.0]))  # gains 3, 1, 2
    run = np.array([0.1, 0.9, 0.5])  # order: doc1 (1), doc2 (2), doc0 (3)
    d = 1 / np.log2([2, 3, 4])
    assert ndcg_exp(run, gt) == pytest.approx((1 * d[0] + 2 * d[1] + 3 * d[2]) / (3 * d[0] + 2 * d[1] + 1 * d[2]))
    # cutoff 1
    assert ndcg_exp(run, gt, k=1) == pytest.approx(1 / 3)
    # all tied: average gain 2 at every rank
    assert ndcg_exp(np.zeros(3), gt) == pytest.approx(2 * d.sum() / (3 * d[0] + 2 * d[1] + 1 * d[2]))
    # zbench puts the later index first on ties: [0,0,0] -> order 2,1,0 -> gains 2,1,3
    assert ndcg_exp(np.zeros(3), gt, compat="zbench") == pytest.approx(
        (2 * d[0] + 1 * d[1] + 3 * d[2]) / (3 * d[0] + 2 * d[1] + 1 * d[2]))


def test_accuracy_ties_explicit():
    gt = np.array([3.0, 2.0, 2.0, 1.0])
    run = np.array([1.0, 0.5, 0.5, 0.7])
    # pairs (i<j): 01 c, 02 c, 03 c, 12 gt-tie excluded, 13 d, 23 d  -> 3/5 ... with run tie none
    assert pairwise_accuracy(run, gt) == pytest.approx(3 / 5)
    assert pairwise_accuracy(run, gt, compat="zbench") == pytest.approx(3 / 6)
    run2 = np.array([1.0, 1.0, 0.5, 0.7])  # pair 01 tied in run -> 1/2
    assert pairwise_accuracy(run2, gt) == pytest.approx((0.5 + 1 + 1 + 1 + 0) / 5)
    assert pairwise_counts(run2, gt) == {"concordant": 3, "discordant": 1, "tied_run": 1, "tied_gt": 1, "tied_both": 0}
    assert math.isnan(pairwise_accuracy([1.0], [1.0]))
    assert math.isnan(pairwise_accuracy([1.0], [1.0], compat="zbench"))


def test_recall_denominator_and_ties():
    gt = np.array([0.3, 0.2, 0.1])
    run = np.array([0.3, 0.2, 0.1])
    assert recall_at_k(run, gt, 5) == 1.0  # perfect 3-doc query
    assert recall_at_k(run, gt, 5, compat="zbench") == pytest.approx(0.6)  # zbench divides by k_gt
    assert recall_at_k(np.array([0.0, 0.0, 1.0]), gt, 1, 1) == 0.0
    assert recall_at_k(np.array([1.0, 1.0, 0.0]), gt, 1, 1) == 1.0  # ties: earlier candidate first
    assert recall_at_k(np.array([1.0, 1.0, 0.0]), gt, 1, 1, compat="zbench") == 0.0  # later first


def test_align_limit_and_missing():
    z = {"a": 1.0, "b": 0.0, "c": -1.0}
    r, g, miss = align(["a", "x", "b", "c"], [4, 3, 2, 1], z)
    assert list(r) == [4, 2, 1] and list(g) == [1.0, 0.0, -1.0] and miss == 1
    r, g, miss = align(["a", "x", "b", "c"], [4, 3, 2, 1], z, limit=2)
    assert list(r) == [4] and miss == 1
    with pytest.raises(EvaluationError):
        align(["a", "x"], [1, 2], z, strict=True)


def test_evaluate_against_scores_tsv(tmp_path):
    from pref_eval.zelo.eval_scores import evaluate_against_scores, looks_like_zelo_scores

    sc = tmp_path / "s.tsv"
    sc.write_text("qid\tdocno\tscore\tse\nq1\ta\t1.0\t0.1\nq1\tb\t0.0\t0.1\nq1\tc\t-1.0\t0.1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 b 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 c 3 1.0 t\nq2 Q0 x 1 1.0 t\n")
    assert looks_like_zelo_scores(str(sc)) and not looks_like_zelo_scores(str(run))
    rows = evaluate_against_scores(str(sc), [str(run)], ["zndcg", "zacc", "zrecall@1"])
    got = {(q, m): v for _, q, m, v in rows}
    e = np.exp([1.0, 0.0, -1.0])
    d = 1 / np.log2([2, 3, 4])
    assert got[("q1", "zndcg")] == pytest.approx((e[1] * d[0] + e[0] * d[1] + e[2] * d[2]) / (e @ d))
    assert got[("q1", "zacc")] == pytest.approx(2 / 3)
    assert got[("q1", "zrecall@1")] == 0.0
    assert ("q2", "zacc") not in got and got[("all", "zacc")] == pytest.approx(2 / 3)
