"""A zELO score file where qrels go, beyond zelo_eval: ``pref_eval.evaluate``, ``zelo_compare -R`` and
``zelo_plot systems|pairs -R`` score runs with zbench's measures against zelo_fit's TSV or zbench's annotated
JSON lines, as ``zelo_eval -R SCORES`` does. Before session 28 all three refused the file with the hint meant for
TREC qrels ("zndcg@10 is computed against a zELO score file: -R (the API's qrels) must be zelo_fit's scores TSV or
zbench's JSON lines, not TREC qrels") although they had been given one.

Oracle: zbench's own ``benchmark_ndcg`` / ``benchmark_accuracy`` / ``recall_at_k`` (commit 7e9d787, run live:
tests/data/zelo/zbench/README.md, ``case_dl19pool``) on the same files; scipy's ``ttest_rel`` on zbench's
per-query values for the test's p-value.
"""
from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT  # noqa: E402

CASE = ROOT / "tests" / "data" / "zelo" / "zbench" / "case_dl19pool"
GT = str(CASE / "zbench_annotated.jsonl")
RERANKERS = [str(CASE / f) for f in ("rerank_dense.jsonl", "rerank_rerank.jsonl")]
ZBENCH = json.loads((CASE / "zbench_benchmarks.json").read_text())
# our measure name -> zbench_benchmarks.json's key (zbench's function and its k, k_gt)
MEASURES = {"zndcg": "ndcg", "zacc": "acc", "zrecall@5": "recall5", "zrecall@3,5": "recall3_5"}


def _qids(path: str) -> list[str]:
    return [json.loads(line)["query"]["id"] for line in Path(path).read_text().splitlines()]


def _as_tsv(tmp_path: Path) -> str:
    """The annotated file as zelo_fit's score TSV (the same scores; SE nan)."""
    lines = ["qid\tdocno\tscore\tse"]
    for line in Path(GT).read_text().splitlines():
        rec = json.loads(line)
        lines += [f"{rec['query']['id']}\t{d['id']}\t{d['score']!r}\tnan" for d in rec["documents"]]
    out = tmp_path / "zelo.tsv"
    out.write_text("\n".join(lines) + "\n")
    return str(out)


@pytest.mark.parametrize("kind", ["jsonl", "tsv"])
@pytest.mark.parametrize("limit", [10, None])
def test_evaluate_gives_zbench_values(tmp_path, kind, limit):
    import pref_eval

    gt = GT if kind == "jsonl" else _as_tsv(tmp_path)
    df = pref_eval.evaluate(gt, RERANKERS, list(MEASURES), depth=limit, summary=True)
    got = {(r, q, m): v for r, q, m, v in zip(df["run"], df["qid"], df["measure"], df["value"], strict=True)}
    n = 0
    for path in RERANKERS:
        run, zb = Path(path).name, ZBENCH[Path(path).name]
        for m, key in MEASURES.items():
            want = zb[f"{key}_{limit}"]
            for q, v in zip(_qids(path), want, strict=True):
                assert got[(run, q, m)] == pytest.approx(v, rel=1e-12, abs=1e-15), (run, q, m)
                n += 1
            assert got[(run, "all", m)] == pytest.approx(statistics.fmean(want), rel=1e-12)
    assert n == 2 * 4 * 8 and len(df) == n + 2 * 4


def test_evaluate_default_measures_and_one_path(tmp_path):
    import pref_eval

    df = pref_eval.evaluate(_as_tsv(tmp_path), RERANKERS[0])
    assert list(dict.fromkeys(df["measure"])) == ["zndcg", "zndcg@10", "zacc", "zrecall@10"]  # zelo_eval -R's
    assert set(df["run"]) == {"rerank_dense.jsonl"} and "all" not in set(df["qid"])
    zb = ZBENCH["rerank_dense.jsonl"]["ndcg_None"]
    assert df[df["measure"] == "zndcg"]["value"].tolist() == pytest.approx(zb, rel=1e-12)


def test_trec_run_as_data(tmp_path):
    """A run given as data (a dict) is scored with its documents in the order given, as a file's lines."""
    import pref_eval

    rec = json.loads(Path(RERANKERS[1]).read_text().splitlines()[0])
    q = rec["query"]["id"]
    run = {q: {d["id"]: d["score"] for d in rec["documents"]}}
    with pytest.warns(pref_eval.errors.PrefEvalWarning, match=r"^mine: run lacks 7 of 8 queries of .*"
                                                                r"zbench_annotated.jsonl; its means are over the 1"):
        df = pref_eval.evaluate(GT, {"mine": run}, ["zndcg", "zacc"])
    zb = ZBENCH["rerank_rerank.jsonl"]
    assert df["value"].tolist() == pytest.approx([zb["ndcg_None"][0], zb["acc_None"][0]], rel=1e-12)


def _cli(module: str, argv: list[str], capsys) -> tuple[int, str, str]:
    import importlib

    main = importlib.import_module(f"pref_eval.cli.{module}").main
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def test_zelo_compare_r_with_a_score_file(capsys):
    import scipy.stats

    code, out, err = _cli("compare", ["-R", GT, "-m", "zndcg", "-m", "zacc", "--tests", "t", "-o", "jsonl",
                                      *RERANKERS], capsys)
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["measure"] for r in recs] == ["zndcg", "zacc"]
    for rec, key in zip(recs, ("ndcg_None", "acc_None"), strict=True):
        a, b = (ZBENCH[Path(p).name][key] for p in RERANKERS)
        want = scipy.stats.ttest_rel(a, b)
        assert rec["n_queries"] == 8
        assert rec["statistic"] == pytest.approx(want.statistic, rel=1e-9)
        assert rec["p_value"] == pytest.approx(want.pvalue, rel=1e-9)


@pytest.mark.parametrize("argv", [["-c"], ["-l", "2"], ["--jobs", "2"]])
def test_options_that_do_not_apply_are_refused(capsys, argv):
    code, out, err = _cli("compare", ["-R", GT, "-m", "zndcg", *argv, *RERANKERS], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"zelo_compare: {argv[0]} applies to trec_eval measures, not "
                                                    f"to a zELO score file: {GT} is read as zbench's annotated JSONL")


@pytest.mark.parametrize("kw", [dict(complete=True), dict(level=2), dict(judged_only=True), dict(jobs=2)])
def test_evaluate_refuses_keywords_that_do_not_apply(kw):
    import pref_eval

    with pytest.raises(pref_eval.errors.UsageError, match=f"^{next(iter(kw))} applies to trec_eval measures, "
                                                          "not to a zELO score file"):
        pref_eval.evaluate(GT, RERANKERS, ["zndcg"], **kw)


def test_a_trec_measure_with_a_score_file_names_the_file():
    import pref_eval

    with pytest.raises(pref_eval.errors.UsageError, match=r"zbench_annotated.jsonl is read as zbench's annotated "
                                                          r"JSONL .*: unknown zELO measure 'map'"):
        pref_eval.evaluate(GT, RERANKERS, ["map"])


@pytest.mark.parametrize("kind", ["systems", "pairs"])
def test_zelo_plot_r_equals_the_per_query_file(tmp_path, capsys, kind):
    """``zelo_plot KIND -R SCORES`` draws what ``-P`` draws from a per-query file of zbench's own values."""
    pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install 'pref_eval[plot]')")
    pq = tmp_path / "pq.tsv"
    rows = ["run\tqid\tmeasure\tvalue"]
    for path in RERANKERS:
        for q, v in zip(_qids(path), ZBENCH[Path(path).name]["acc_None"], strict=True):
            rows.append(f"{Path(path).name}\t{q}\tzacc\t{v!r}")
    pq.write_text("\n".join(rows) + "\n")
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    code, _, err = _cli("plot", [kind, "-R", GT, "-m", "zacc", *RERANKERS, "-o", str(a), "-Q"], capsys)
    assert code == 0, err
    code, _, err = _cli("plot", [kind, "-P", str(pq), "-m", "zacc", "-o", str(b), "-Q"], capsys)
    assert code == 0, err
    assert a.read_bytes() == b.read_bytes()


def test_rows_are_zelo_eval_s(tmp_path, capsys):
    """The same rows as ``zelo_eval -R SCORES -q -o tsv`` (the command that read score files first)."""
    import pref_eval

    code, out, err = _cli("eval", ["-R", GT, "-q", "-o", "tsv", "-m", "zndcg@10", "-m", "zrecall@5", "-M", "10",
                                   *RERANKERS], capsys)
    assert code == 0, err
    df = pref_eval.evaluate(GT, RERANKERS, ["zndcg@10", "zrecall@5"], depth=10, summary=True)
    want = [line.split("\t") for line in out.splitlines()[1:]]
    got = [[r, q, m, repr(float(v))] for r, q, m, v in zip(df["run"], df["qid"], df["measure"], df["value"],
                                                              strict=True)]
    assert got == [[r, q, m, repr(float(v))] for r, q, m, v in want]
    assert not any(math.isnan(v) for v in np.asarray(df["value"], dtype=float))


@pytest.mark.parametrize("kind", ["scores", "matrix"])
def test_zelo_plot_s_reads_zbench_annotated_lines(tmp_path, capsys, kind):
    """``zelo_plot scores|matrix -S`` on zbench's own annotated file draws what the same scores do as a TSV with SE
    ``nan`` (zbench gives no SEs); before session 28 it was refused ("expected the header 'qid<TAB>docno...'")."""
    pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install 'pref_eval[plot]')")
    tsv = _as_tsv(tmp_path)
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    extra = ["-J", str(tmp_path / "j.jsonl")] if kind == "matrix" else []
    if kind == "matrix":  # a few judgments of the first query, ordered by the scores of -S
        docs = [d["id"] for d in json.loads(Path(GT).read_text().splitlines()[0])["documents"]][:6]
        (tmp_path / "j.jsonl").write_text("".join(json.dumps({"qid": "1037798", "doc_a": x, "doc_b": y, "score": 1})
                                                  + "\n" for x, y in zip(docs, docs[1:], strict=False)))
    for src, dst in ((GT, a), (tsv, b)):
        code, _, err = _cli("plot", [kind, *extra, "-S", src, "-q", "1037798", "-o", str(dst), "-Q"], capsys)
        assert code == 0, err
    assert a.read_bytes() == b.read_bytes()
    assert kind == "matrix" or b'class="interval' not in a.read_bytes()  # no SE: no interval drawn


def test_documents_without_a_zelo_score_are_counted_in_a_warning(tmp_path, capsys):
    """A TREC run's documents that the score file does not score are left out of what the measures rank (zbench's
    benchmark.py raises on them): one warning per run with the count, which was silent before session 28 (a run of
    100 documents a query against a pool of 30 was ranked on its pool part without a word). Oracle: a count by hand
    of the run's lines whose (topic, docno) the score file lacks, on the file's topics."""
    import pref_eval

    scored = {}
    for line in Path(GT).read_text().splitlines():
        rec = json.loads(line)
        scored[rec["query"]["id"]] = {d["id"] for d in rec["documents"]}
    run = str(ROOT / "runs" / "rerank.run")
    lines = [ln.split() for ln in Path(run).read_text().splitlines()]
    on = [(f[0], f[2]) for f in lines if f[0] in scored]
    left = sum(d not in scored[q] for q, d in on)
    assert 0 < left < len(on)
    want = (f"{left} of its {len(on)} documents on the queries of {GT} have no zELO score there and are left out: "
            f"the measures rank the {len(on) - left} that have one")
    code, out, err = _cli("eval", ["-R", GT, "-m", "zndcg@10", run], capsys)
    assert code == 0 and f"zelo_eval: warning: rerank.run: {want}" in err  # its run id (docs/run-ids.md)
    code, out, err = _cli("compare", ["-R", GT, "-m", "zndcg@10", run, str(ROOT / "runs" / "bm25.run")], capsys)
    assert code == 0 and f"zelo_compare: warning: rerank.run: {want}" in err
    with pytest.warns(pref_eval.errors.PrefEvalWarning, match=r"^rerank\.run: " + want.replace(".", r"\.")):
        pref_eval.evaluate(GT, run, ["zndcg@10"])
    code, out, err = _cli("eval", ["-R", GT, "-m", "zndcg@10", *RERANKERS], capsys)  # every document scored
    assert code == 0 and err == ""


def test_zelo_eval_leaderboard_tables(capsys):
    """``zelo_eval -R SCORES -o wide-csv|markdown``: runs × zbench measures, the means of zbench's per-query values
    (a reranker leaderboard; refused before session 28: "-o markdown applies to metric mode"), and the table
    ``zelo_compare -R SCORES`` prints."""
    import csv
    import io

    code, out, err = _cli("eval", ["-R", GT, "-o", "wide-csv", "-m", "zndcg", "-m", "zacc", *RERANKERS], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["run"] for r in rows] == [Path(p).name for p in RERANKERS]
    for r in rows:
        zb = ZBENCH[r["run"]]
        assert float(r["zndcg"]) == pytest.approx(statistics.fmean(zb["ndcg_None"]), rel=1e-12)
        assert float(r["zacc"]) == pytest.approx(statistics.fmean(zb["acc_None"]), rel=1e-12)
    code, out, err = _cli("eval", ["-R", GT, "-o", "markdown", "-m", "zndcg@10", "-M", "10", *RERANKERS], capsys)
    assert code == 0, err
    code, same, err = _cli("compare", ["-R", GT, "-o", "markdown", "-m", "zndcg@10", "--depth", "10", "--tests", "t",
                                       *RERANKERS], capsys)
    assert code == 0, err
    assert out.startswith("| # | run | zndcg@10 |") and out == same
    code, _, err = _cli("eval", ["-R", GT, "-o", "text", "-q", *RERANKERS], capsys)
    assert code == 2 and "-o text is a table of means: -q/-n do not apply" in err
