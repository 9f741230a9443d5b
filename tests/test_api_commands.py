"""The public functions of pref_eval.api give what their commands print (the commands are the oracle's
reference; the computations themselves are checked against outside oracles in the commands' own tests)."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from cli_harness import run_inproc
from conftest import ROOT
from pref_eval import api
from pref_eval.errors import UsageError

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


def test_fit_writes_every_output_as_zelo_fit(tmp_path):
    """api.fit with outputs writes the bytes of ``zelo_fit -o --qrels --diagnostics`` (prior 0: components)."""
    res = run_inproc("zelo_fit", ["-J", str(ROOT / JUDGE), "--prior", "0", "-o", "cli.tsv", "--qrels", "cli.qrels",
                                  "--diagnostics", "cli.diag", "-Q"], tmp_path)
    assert res.returncode == 0, res
    df = api.fit(ROOT / JUDGE, prior=0, output=str(tmp_path / "api.tsv"), qrels_output=str(tmp_path / "api.qrels"),
                 diagnostics=str(tmp_path / "api.diag"))
    for ext in ("tsv", "qrels", "diag"):
        assert (tmp_path / f"api.{ext}").read_bytes() == (tmp_path / f"cli.{ext}").read_bytes() != b""
    assert (tmp_path / "cli.tsv").read_text().split("\n", 1)[0].endswith("\tcomponent\tlevel")
    assert len(df) == len((tmp_path / "cli.tsv").read_text().splitlines()) - 1


def test_fit_zbench_compat_equals_zelo_fit(tmp_path):
    zb = ROOT / "tests" / "data" / "zelo" / "zbench" / "case_small"
    argv = ["-J", str(zb / "ai_scores.json.gz"), "--dataset", str(zb / "dataset.jsonl"), "--compat", "zbench",
            "--output-format", "zbench", "-Q"]
    cli = _cli("zelo_fit", argv)
    api.fit(zb / "ai_scores.json.gz", dataset=str(zb / "dataset.jsonl"), compat="zbench", output_format="zbench",
            output=str(tmp_path / "api.jsonl"))
    assert (tmp_path / "api.jsonl").read_text() == cli and cli.startswith('{"query"')


def test_fit_refuses_an_output_that_is_an_input(tmp_path):
    import shutil

    import pytest

    from pref_eval.errors import UsageError

    j = tmp_path / "j.judge"
    shutil.copy(ROOT / JUDGE, j)
    before = j.read_bytes()
    with pytest.raises(UsageError, match="same file as judgments"):
        api.fit(j, output=str(j))
    assert j.read_bytes() == before


def test_compare_runs_equals_zelo_compare():
    """-R with trec_eval measures (text report), and -P with a preference table (Markdown)."""
    text = api.compare_runs(qrels=str(ROOT / Q), runs=[str(ROOT / r) for r in RUNS], measures=["map", "ndcg_cut.10"])
    assert text == _cli("zelo_compare", ["-R", Q, "-m", "map", "-m", "ndcg_cut.10", *RUNS])
    assert "bm25.run" in text and "ndcg_cut_10" in text
    pq = str(ROOT / "tests" / "data" / "stats" / "perquery_prefs.tsv")
    md = api.compare_runs(per_query_file=pq, output_format="markdown", tests="t,randomization", resamples=500, seed=3)
    assert md == _cli("zelo_compare", ["-P", pq, "-o", "markdown", "--tests", "t,randomization",
                                       "--resamples", "500", "--seed", "3"])
    assert md.lstrip().startswith("|") or "|" in md


def test_compare_runs_takes_its_inputs_by_position():
    """``compare_runs(qrels, runs, measures=...)`` as ``evaluate_runs(qrels, runs, ...)`` and ranx's
    ``compare(qrels, runs, metrics=...)`` (session 28; keyword-only before, so Python's TypeError); the options
    stay keywords, and qrels without runs (a per-query file in qrels' place) is refused naming per_query_file."""
    import inspect

    runs = [str(ROOT / r) for r in RUNS]
    text = api.compare_runs(str(ROOT / Q), runs, measures=["map"], tests="t")
    assert text == api.compare_runs(qrels=str(ROOT / Q), runs=runs, measures=["map"], tests="t")
    assert text == _cli("zelo_compare", ["-R", Q, "-m", "map", "--tests", "t", *RUNS])
    params = list(inspect.signature(api.compare_runs).parameters.values())
    by_position = inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [(p.name, p.kind) for p in params[:2]] == [("qrels", by_position), ("runs", by_position)]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:-1])
    assert params[-1].kind is inspect.Parameter.VAR_KEYWORD  # (session 30: refused naming ours, ranx's keywords)
    with pytest.raises(TypeError, match="positional"):
        api.compare_runs(str(ROOT / Q), runs, ["map"])  # type: ignore[misc]
    pq = str(ROOT / "tests" / "data" / "stats" / "perquery.tsv")
    with pytest.raises(UsageError) as err:
        api.compare_runs(pq)
    assert str(err.value) == (f"qrels {pq!r} without runs: give runs=[RUN, RUN, ...] (a file of per-query values "
                              "goes in per_query_file=PATH)")
    res = run_inproc("zelo_compare", ["-R", Q, "-m", "map"], ROOT)  # the command's line as before
    assert (res.returncode, res.stderr) == (2, "zelo_compare: need at least two run files to compare\n")


def test_compare_runs_with_preference_measures_equals_zelo_compare():
    text = api.compare_runs(qrels=str(ROOT / Q), runs=[str(ROOT / r) for r in RUNS], measures=["rpp", "p@10"],
                            output_format="jsonl", tests="t,sign")
    cli = _cli("zelo_compare", ["-R", Q, "-m", "rpp", "-m", "p@10", "-o", "jsonl", "--tests", "t,sign", *RUNS])
    assert text == cli
    assert {json.loads(ln)["measure"] for ln in cli.splitlines()} >= {"rpp"}


def test_compare_orderings_equals_zelo_compare():
    a = str(ROOT / "tests" / "data" / "stats" / "order_a.tsv")
    b = str(ROOT / "tests" / "data" / "stats" / "order_b.txt")
    for fmt in ("text", "jsonl"):
        text = api.compare_orderings(a, b, output_format=fmt)
        assert text == _cli("zelo_compare", ["--orderings", a, b, "-o", fmt]) != ""
    rec = json.loads(api.compare_orderings(a, b, output_format="jsonl", rbo_p=0.8).splitlines()[0])
    assert "tau" in json.dumps(rec) and rec["rbo_ties"] == "a"
    assert api.compare_orderings(a, b, rbo_ties="w") == _cli("zelo_compare", ["--orderings", a, b, "--rbo-ties", "w"])
    with pytest.raises(UsageError, match="rbo_ties: expected one of a, b, w, name"):
        api.compare_orderings(a, b, rbo_ties="random")
    assert (api.compare_orderings(a, b, rbo_lists="prefix")
            == _cli("zelo_compare", ["--orderings", a, b, "--rbo-lists", "prefix"]))
    with pytest.raises(UsageError, match="rbo_lists: expected one of common, prefix"):
        api.compare_orderings(a, b, rbo_lists="top")


def test_evaluate_runs_writes_what_zelo_eval_prints(tmp_path):
    """Every mode of api.evaluate_runs against zelo_eval: pref JSON lines (sampled), a trec_eval block per run,
    the runs × measures table, a long preference table, a zELO score file."""
    qrels, runs = str(ROOT / Q), [str(ROOT / r) for r in RUNS]
    cases = [
        (dict(per_query=True, samples=3, query_fraction=0.5, seed=4), ["-q", "--samples", "3",
                                                                       "--query_fraction", "0.5", "--seed", "4"]),
        (dict(measures=["map", "ndcg_cut.10"], output_format="trec", per_query=True), ["-m", "map", "-m", "ndcg_cut.10",
                                                                            "-o", "trec", "-q"]),
        (dict(measures=["map", "P.10"], output_format="markdown"), ["-m", "map", "-m", "P.10", "-o", "markdown"]),
        (dict(measures=["rpp", "p@10"], output_format="tsv", per_query=True, reference="rerank.run"),
         ["-m", "rpp", "-m", "p@10", "-o", "tsv", "-q", "--reference", "rerank.run"]),
    ]
    for k, (kw, argv) in enumerate(cases):
        out = tmp_path / f"api{k}"
        api.evaluate_runs(qrels, runs, output=str(out), **kw)
        cli = _cli("zelo_eval", ["-R", Q, *argv, *RUNS])
        assert out.read_text() == cli != "", argv
    scores = tmp_path / "zelo.tsv"
    api.fit(ROOT / JUDGE, output=str(scores))
    api.evaluate_runs(str(scores), runs, measures=["zndcg@10", "zacc"], output_format="tsv", per_query=True,
                      output=str(tmp_path / "z.tsv"))
    cli = _cli("zelo_eval", ["-R", str(scores), "-m", "zndcg@10", "-m", "zacc", "-o", "tsv", "-q", *RUNS])
    assert (tmp_path / "z.tsv").read_text() == cli and "zndcg@10" in cli


def test_evaluate_runs_refuses_what_zelo_eval_refuses(tmp_path):
    import pytest

    from pref_eval.errors import UsageError

    runs = [str(ROOT / r) for r in RUNS]
    with pytest.raises(UsageError, match="^binary applies to preference measures"):  # (the keyword: session 25)
        api.evaluate_runs(str(ROOT / Q), runs, measures=["map"], output_format="trec", binary=1,
                          output=str(tmp_path / "x"))
    import shutil

    copy = tmp_path / "bm25.run"
    shutil.copy(runs[0], copy)
    with pytest.raises(UsageError, match="same file as runs"):
        api.evaluate_runs(str(ROOT / Q), [str(copy), *runs[1:]], output=str(copy))
    assert not (tmp_path / "x").exists() and copy.read_bytes() == (ROOT / RUNS[0]).read_bytes()


def test_pairs_from_files_equal_zelo_pairs_cycles(tmp_path):
    zb = str(ROOT / "tests" / "data" / "zelo" / "zbench" / "case_main" / "dataset.jsonl")
    got = api.pairs(dataset=zb, cycles=4, seed=1, output=str(tmp_path / "p.jsonl"))
    cli = _cli("zelo_pairs", ["cycles", "--dataset", zb, "--cycles", "4", "--seed", "1", "-Q"])
    assert (tmp_path / "p.jsonl").read_text() == cli
    assert [(d["qid"], d["doc_a"], d["doc_b"]) for d in map(json.loads, cli.splitlines())] == got != []
    run = str(ROOT / RUNS[0])
    got = api.pairs(run=run, depth=20, dedup=True, seed=1, output=str(tmp_path / "p.tsv"), output_format="tsv")
    cli = _cli("zelo_pairs", ["cycles", "--run", run, "--depth", "20", "--no-duplicates", "--seed", "1",
                              "--output-format", "tsv", "-Q"])
    assert (tmp_path / "p.tsv").read_text() == cli and cli.count("\n") == len(got) + 1


def test_pairs_state_functions_equal_zelo_pairs(tmp_path):
    """init / next / add / status / result through the API write what the subcommands write."""
    qrels = str(ROOT / Q)
    api_dir, cli_dir = tmp_path / "api", tmp_path / "cli"
    api_dir.mkdir()
    cli_dir.mkdir()
    api.pairs_init(str(api_dir / "s.json"), qrels, k=3, seed=2)
    assert run_inproc("zelo_pairs", ["init", "--state", "s.json", "--qrels", qrels, "--k", "3", "--seed", "2"],
                      cli_dir).returncode == 0
    req = api.pairs_next(str(api_dir / "s.json"), output=str(api_dir / "req.txt"))
    assert run_inproc("zelo_pairs", ["next", "--state", "s.json", "-o", "req.txt"], cli_dir).returncode == 0
    assert (api_dir / "req.txt").read_bytes() == (cli_dir / "req.txt").read_bytes()
    assert (api_dir / "s.json").read_bytes() == (cli_dir / "s.json").read_bytes() and len(req) > 0
    # judge the requests: the document listed first wins
    judged = "".join(json.dumps({"qid": t, "doc_a": a, "doc_b": b, "score": 0.0}) + "\n" for t, a, b in req)
    for d in (api_dir, cli_dir):
        (d / "j.jsonl").write_text(judged)
    api.pairs_add(str(api_dir / "s.json"), [str(api_dir / "j.jsonl")])
    assert run_inproc("zelo_pairs", ["add", "--state", "s.json", "-J", "j.jsonl", "-Q"], cli_dir).returncode == 0
    assert (api_dir / "s.json").read_bytes() == (cli_dir / "s.json").read_bytes()
    rows = api.pairs_status(str(api_dir / "s.json"), output=str(api_dir / "status.tsv"))
    assert (api_dir / "status.tsv").read_text() == _cli("zelo_pairs", ["status", "--state", str(cli_dir / "s.json")])
    assert len(rows) == len((api_dir / "status.tsv").read_text().splitlines()) - 2
    api.pairs_result(str(api_dir / "s.json"), qrels=qrels, output=str(api_dir / "prefs.qrels"))
    assert (api_dir / "prefs.qrels").read_text() == _cli("zelo_pairs", ["result", "--state", str(cli_dir / "s.json"),
                                                                        "--qrels", qrels])


def test_simulate_functions_write_what_zelo_simulate_writes(tmp_path):
    m = tmp_path / "m.txt"
    m.write_text("0.5 0.75 0.75\n0.25 0.5 0.5\n0.25 0.5 0.5\n")
    r = api.simulate(m, 30, seed=2, final_phase=True, output=str(tmp_path / "t.tsv"))
    cli = _cli("zelo_simulate", ["tournament", "--matrix", str(m), "--reps", "30", "--seed", "2", "--final-phase",
                                 "-Q"])
    assert (tmp_path / "t.tsv").read_text() == cli and int(cli.splitlines()[1].split("\t")[2]) == int(r["found"].sum())
    rows = api.simulate_recovery(ks=(10,), sigma=(1.5,), cycles=(2, 4), trials=2, seed=0, output=str(tmp_path / "r"))
    cli = _cli("zelo_simulate", ["recovery", "--K", "10", "--sigma", "1.5", "--cycles", "2,4", "--trials", "2", "-Q"])
    assert (tmp_path / "r").read_text() == cli and len(rows) == 2 == len(cli.splitlines()) - 1
    row = api.simulate_bandit("dts", matrix=str(m), reps=3, budget=50, seed=1, output=str(tmp_path / "b"))
    cli = _cli("zelo_simulate", ["bandit", "--algorithm", "dts", "--matrix", str(m), "--reps", "3", "--T", "50",
                                 "--seed", "1", "-Q"])
    assert (tmp_path / "b").read_text() == cli and cli.splitlines()[1].startswith(f"{row['algorithm']}\t")
    row = api.simulate_adaptive(case="A", reps=2, seed=1, output=str(tmp_path / "a"))
    cli = _cli("zelo_simulate", ["adaptive", "--case", "A", "--reps", "2", "--seed", "1", "-Q"])
    assert (tmp_path / "a").read_text() == cli and row["case"] == "A"


def test_agree_writes_what_zelo_agree_writes(tmp_path):
    a, b = str(ROOT / "judgments" / "dl21-crowd-sample.txt"), str(ROOT / "judgments" / "dl21-gpt4o-sample.human")
    recs = api.agree([a, b], levels=("pair",), resamples=50, seed=3, output=str(tmp_path / "agree.tsv"),
                     output_format="tsv")
    cli = _cli("zelo_agree", ["-J", a, "-J", b, "-l", "pair", "--resamples", "50", "--seed", "3", "-o", "tsv", "-Q"])
    assert (tmp_path / "agree.tsv").read_text() == cli and len(recs) == len(cli.splitlines()) - 1 > 0


def test_plot_functions_draw_what_zelo_plot_draws(tmp_path):
    """SVG output carries no date and a fixed hash salt: the function and the command give the same bytes."""
    import pytest

    pytest.importorskip("matplotlib")
    scores = tmp_path / "z.tsv"
    api.fit(ROOT / JUDGE, output=str(scores))
    api.plot_scores(str(scores), api.PlotImage(str(tmp_path / "api.svg"), 8.0, 5.0), top=5)
    res = run_inproc("zelo_plot", ["scores", "-S", str(scores), "--top", "5", "--width", "8", "--height", "5",
                                   "-o", "cli.svg", "-Q"], tmp_path)
    assert res.returncode == 0, res
    assert (tmp_path / "api.svg").read_bytes() == (tmp_path / "cli.svg").read_bytes()
    assert (tmp_path / "cli.svg").read_bytes().lstrip().startswith(b"<?xml")
    values = api.PlotValues(qrels=str(ROOT / Q), runs=tuple(str(ROOT / r) for r in RUNS), measure="map")
    api.plot_systems(values, api.PlotImage(str(tmp_path / "sys-api.svg"), 7.0, 4.0))
    res = run_inproc("zelo_plot", ["systems", "-R", str(ROOT / Q), "-m", "map", *[str(ROOT / r) for r in RUNS],
                                   "-o", "sys-cli.svg", "-Q"], tmp_path)
    assert res.returncode == 0, res
    assert (tmp_path / "sys-api.svg").read_bytes() == (tmp_path / "sys-cli.svg").read_bytes()
