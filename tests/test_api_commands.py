"""The public functions of pref_eval.api give what their commands print (the commands are the oracle's
reference; the computations themselves are checked against outside oracles in the commands' own tests)."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from cli_harness import run_inproc
from conftest import ROOT
from pref_eval import api

Q = "qrels/dl19-sample.qrels"
RUNS = ["runs/bm25.run", "runs/dense.run", "runs/rerank.run"]
JUDGE = "judgments/dl19-sample.judge"


def _cli(script: str, argv: list[str]) -> str:
    res = run_inproc(script, argv, ROOT)
    assert res.returncode == 0, res
    return res.stdout.decode()


def test_fit_equals_zelo_fit():
    df = api.fit(ROOT / JUDGE)
    tsv = pd.read_csv(io.StringIO(_cli("zelo_fit", ["-J", JUDGE, "-Q"])), sep="\t", dtype={"qid": str, "docno": str})
    assert list(df.columns) == ["qid", "docno", "score", "se"]
    assert df.qid.tolist() == tsv.qid.tolist() and df.docno.tolist() == tsv.docno.tolist()
    np.testing.assert_array_equal(df.score.to_numpy(), tsv.score.to_numpy())
    np.testing.assert_array_equal(df.se.to_numpy(), tsv.se.to_numpy())


def test_fit_elo_scale_equals_zelo_fit():
    df = api.fit(ROOT / JUDGE, scale="elo", elo_offset=1000.0)
    tsv = pd.read_csv(io.StringIO(_cli("zelo_fit", ["-J", JUDGE, "-Q", "--scale", "elo", "--elo-offset", "1000"])),
                      sep="\t", dtype={"qid": str, "docno": str})
    np.testing.assert_array_equal(df.score.to_numpy(), tsv.score.to_numpy())


def test_preferences_equals_zelo_eval_table():
    df = api.preferences(ROOT / Q, [ROOT / r for r in RUNS], ["rpp", "lexiprecision", "ndcg"])
    text = _cli("zelo_eval", ["-R", Q, "-o", "tsv", "-q", "-m", "rpp", "-m", "lexiprecision", "-m", "ndcg", *RUNS])
    cli = pd.read_csv(io.StringIO(text), sep="\t", dtype={"qid": str, "runj": str}, keep_default_na=False)
    assert list(df.columns) == list(cli.columns) and len(df) == len(cli) > 0
    assert df.iloc[:, :4].astype(str).values.tolist() == cli.iloc[:, :4].astype(str).values.tolist()
    np.testing.assert_array_equal(df.value.to_numpy(float), cli.value.to_numpy(float))


def test_aggregate_equals_pref_aggregate(tmp_path):
    prefs = tmp_path / "prefs.jsonl"
    prefs.write_text(_cli("zelo_eval", ["-R", Q, "-q", *RUNS]))
    ms, results = api.aggregate(prefs, ["rpp", "ap"])
    from pref_eval.output.orderings import json_lines

    got = "".join(line for agg in results for line in json_lines(agg, ms, per_query=False, summary=True))
    assert got == _cli("pref_aggregate", ["-P", str(prefs), "-m", "rpp", "-m", "ap"])
    summary = json.loads(got.splitlines()[-1])
    assert summary["qid"] == "all" and set(summary["rpp"]) == {"type", "mc4", "borda"}


def test_compare_equals_zelo_compare_jsonl():
    path = ROOT / "tests" / "data" / "stats" / "perquery.tsv"
    res = api.compare(path, tests=("t", "sign"), correction="holm")
    cli = [json.loads(ln) for ln in _cli("zelo_compare", ["-P", str(path), "--tests", "t,sign", "-o", "jsonl"])
           .splitlines()]
    got = {(r.measure, r.run_a, r.run_b, r.test): r.p_adjusted for r in res.records.itertuples()}
    assert len(got) == len(cli) > 0
    for d in cli:
        assert got[(d["measure"], d["run_a"], d["run_b"], d["test"])] == d["p_adjusted"]


def test_pairs_are_cycles_and_seeded():
    queries = [("q1", [f"d{i}" for i in range(7)]), ("q2", ["a", "b", "c"])]
    p = api.pairs(queries, cycles=3, seed=5)
    assert p == api.pairs(queries, cycles=3, seed=5) and p != api.pairs(queries, cycles=3, seed=6)
    for qid, docs in queries:
        seen = [d for q, a, b in p if q == qid for d in (a, b)]
        assert sorted(set(seen)) == sorted(docs)
        assert all(seen.count(d) == 2 * 3 for d in docs)  # each cycle compares every document twice


def test_simulate_equals_zelo_simulate(tmp_path):
    m = [[0.5, 0.75, 0.75], [0.25, 0.5, 0.5], [0.25, 0.5, 0.5]]
    r = api.simulate(m, 50, seed=1, final_phase=True)
    (tmp_path / "m.txt").write_text("\n".join(" ".join(map(str, row)) for row in m) + "\n")
    res = run_inproc("zelo_simulate", ["tournament", "--matrix", str(tmp_path / "m.txt"), "--reps", "50",
                                       "--seed", "1", "--final-phase", "-Q"], tmp_path)
    assert res.returncode == 0, res
    out = res.stdout.decode().splitlines()
    row = dict(zip(out[0].split("\t"), out[1].split("\t"), strict=True))
    assert int(row["found"]) == int(np.sum(r["found"]))
