"""zelo_compare end to end: -P (tsv/csv/jsonl), -R, formats, errors, --orderings."""
from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pref_eval.io.perquery import read_per_query

from conftest import ROOT  # noqa: E402
DATA = ROOT / "tests" / "data" / "stats"
JSONL_KEYS = ["measure", "run_a", "run_b", "test", "n_queries", "mean_diff", "statistic", "p_value",
              "p_adjusted", "correction"]


def run(*args):
    """zelo_compare in-process (same code path as the console script): (exit code, stdout, stderr)."""
    import contextlib
    import io
    import os

    from pref_eval.cli.compare import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([str(a) for a in args])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def test_console_entry_point_subprocess():
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.compare", "-P", str(DATA / "perquery.tsv"),
                        "-o", "jsonl", "--tests", "t"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 6
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.compare", "-P", "missing.tsv"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr == "zelo_compare: missing.tsv: no such file (expected a per-query file (zelo_eval -q output))\n"


@pytest.mark.parametrize("ext", ["tsv", "csv", "jsonl"])
def test_reader_formats_agree(ext):
    df = read_per_query(DATA / f"perquery.{ext}")
    assert list(df.columns) == ["run", "qid", "measure", "value"]
    assert len(df) == 3 * 2 * 6 - 1 and "all" not in set(df.qid)
    ref = read_per_query(DATA / "perquery.tsv")
    pd.testing.assert_frame_equal(df, ref)


def test_jsonl_output_keys_and_values():
    code, out, err = run("-P", DATA / "perquery.tsv", "-o", "jsonl",
                         "--tests", "t,wilcoxon,sign,randomization,bootstrap")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 2 * 3 * 5
    for d in lines:
        assert list(d)[:10] == JSONL_KEYS
        assert ("ci_low" in d) == (d["test"] in ("t", "bootstrap"))
    # P_10: run c lacks q6 -> 5 queries; the warning says so
    p10 = [d for d in lines if d["measure"] == "P_10"]
    assert {d["n_queries"] for d in p10} == {5}
    assert "P_10: 1 quer" in err and "q6" in err
    df = read_per_query(DATA / "perquery.tsv")
    x = df[(df.run == "a") & (df.measure == "ndcg")].value.to_numpy()
    y = df[(df.run == "b") & (df.measure == "ndcg")].value.to_numpy()
    t = next(d for d in lines
             if d["measure"] == "ndcg" and d["run_a"] == "a" and d["run_b"] == "b" and d["test"] == "t")
    assert t["p_value"] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-9)
    assert t["mean_diff"] == pytest.approx(np.mean(x - y))
    r = next(d for d in lines if d["measure"] == "ndcg" and d["run_a"] == "a" and d["run_b"] == "b"
             and d["test"] == "randomization")
    assert r["exact"] is True and r["resamples"] == 64  # 2^6 <= 10000: exact enumeration


def test_complete_flag_counts_missing_as_zero():
    code, out, _ = run("-P", DATA / "perquery.csv", "-o", "jsonl", "-c", "-m", "P_10", "--tests", "t")
    assert code == 0
    lines = [json.loads(x) for x in out.splitlines()]
    assert {d["n_queries"] for d in lines} == {6}


def test_seeded_output_is_byte_identical():
    args = ("-P", DATA / "perquery.jsonl", "-o", "jsonl", "--tests", "randomization,bootstrap,tukey",
            "--resamples", "500", "--seed", "7")
    a, b = run(*args), run(*args)
    assert a[0] == 0 and a[1] == b[1]
    c = run(*args[:-1], "8")
    assert c[1] != a[1]


def test_text_markdown_latex_csv_reports():
    code, out, _ = run("-P", DATA / "perquery.tsv", "-Q")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["#", "run", "ndcg", "P_10"]
    assert lines[1].split()[:2] == ["a", "a"]
    # markers = Holm-adjusted t-test p < 0.05 with a positive mean difference (oracle: scipy + statsmodels)
    from statsmodels.stats.multitest import multipletests
    df = read_per_query(DATA / "perquery.tsv")
    v = {r: df[(df.run == r) & (df.measure == "ndcg")].value.to_numpy() for r in "abc"}
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    p = multipletests([stats.ttest_rel(v[x], v[y]).pvalue for x, y in pairs], method="holm")[1]
    beats = {r: "".join(sorted(y if v[x].mean() > v[y].mean() else x for (x, y), pp in zip(pairs, p, strict=False)
                               if pp < 0.05 and (x == r if v[x].mean() > v[y].mean() else y == r)))
             for r in "abc"}
    for line, r in zip(lines[1:4], "abc", strict=False):
        cell = line.split()[2]
        assert cell == (f"{v[r].mean():.4f}^{beats[r]}" if beats[r] else f"{v[r].mean():.4f}")
    assert beats["a"] == "bc"
    assert "Holm correction over 3 comparison(s)" in out and "alpha = 0.05" in out
    code, md, _ = run("-P", DATA / "perquery.tsv", "-o", "markdown", "-Q")
    assert md.startswith("| # | run | ndcg | P_10 |") and "<sup>c</sup>" in md and "**" in md
    code, tex, _ = run("-P", DATA / "perquery.tsv", "-o", "latex", "-Q")
    assert "\\begin{tabular}" in tex and "$^{c}$" in tex
    code, csv, _ = run("-P", DATA / "perquery.tsv", "-o", "csv", "-Q")
    assert csv.splitlines()[0].startswith("measure,run_a,run_b,test,n_queries,mean_diff,statistic,p_value")
    assert len(csv.splitlines()) == 1 + 2 * 3 * 3


def test_baseline_and_run_selection():
    code, out, _ = run("-P", DATA / "perquery.tsv", "-o", "jsonl", "--baseline", "c", "--tests", "t", "-Q")
    lines = [json.loads(x) for x in out.splitlines()]
    assert {(d["run_a"], d["run_b"]) for d in lines} == {("a", "c"), ("b", "c")}
    code, out, _ = run("-P", DATA / "perquery.tsv", "-o", "jsonl", "--tests", "t", "-Q", "a", "b")
    assert {(d["run_a"], d["run_b"]) for d in map(json.loads, out.splitlines())} == {("a", "b")}


@pytest.mark.parametrize("args,msg", [
    (["-P", "nope.tsv"], "zelo_compare: nope.tsv: no such file"),
    (["-P", DATA / "perquery.tsv", "--tests", "t,zz"], "unknown test 'zz'"),
    (["-P", DATA / "perquery.tsv", "--baseline", "zz"], "baseline 'zz'"),
    (["-P", DATA / "perquery.tsv", "-m", "zz"], "measure 'zz' not in"),
    ([], "give either -R QRELS"),
])
def test_usage_errors(args, msg):
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert msg in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_bad_per_query_lines(tmp_path):
    f = tmp_path / "bad.tsv"
    f.write_text("run\tqid\tmeasure\tvalue\na\tq1\tm\t0.5\na\tq2\tm\tabc\n")
    code, _, err = run("-P", f)
    assert code == 2 and err.strip() == f"zelo_compare: {f}:3: expected a number in column 'value', got 'abc'"
    f.write_text("run\tqid\tvalue\n")
    code, _, err = run("-P", f)
    assert code == 2 and f"{f}:1: expected a header line" in err
    f.write_text('{"run": "a", "qid": "1", "measure": "m", "value": 1}\n'
                 '{"run": "a", "qid": "1", "measure": "m", "value": 2}\n')
    code, _, err = run("-P", f)
    assert code == 2 and f"{f}:2: duplicate row" in err
    f.write_text('{"run": "a", "qid": "1"}\n')
    code, _, err = run("-P", f)
    assert code == 2 and f"{f}:1: missing key(s) measure, value" in err


def test_orderings_cli():
    code, out, err = run("--orderings", DATA / "order_a.tsv", DATA / "aggregate.jsonl", "--key-b", "rpp:mc4")
    assert code == 0, err
    assert "kendall_tau_b" in out and "tau_ap(B|A)" in out and "swapped pairs" in out
    code, out, _ = run("--orderings", DATA / "order_a.tsv", DATA / "order_b.txt", "-o", "jsonl")
    d = json.loads(out)
    a = [0.45, 0.52, 0.61, 0.58, 0.47]
    b = [-4, -1, 0, -2, -3]
    assert d["kendall_tau_b"] == pytest.approx(stats.kendalltau(a, b).statistic)
    # A: rerank splade dense rm3 bm25; B: rerank dense splade rm3 bm25 -> one swap
    assert d["swapped"] == [["splade", "dense"]]
    code, _, err = run("--orderings", DATA / "order_a.tsv", DATA / "aggregate.jsonl")
    assert code == 2 and "several orderings" in err


def test_orderings_rbo_lists_prefix():
    """--rbo-lists prefix: the four RBO forms of the whole orderings (A 5 systems, B a top 3 with a system A
    lacks) as rows, in JSON, named in the legend; the correlations keep the common systems."""
    from pref_eval.stats.orderings import rbo_prefix

    a, top3 = DATA / "order_a.tsv", DATA / "order_top3.txt"
    code, out, err = run("--orderings", a, top3, "--rbo-lists", "prefix", "-o", "jsonl")
    assert code == 0, err
    d = json.loads(out)
    want = rbo_prefix(["rerank", "splade", "dense", "rm3", "bm25"], ["rerank", "dense", "colbert"], 0.9)
    assert [d["rbo"], d["rbo_min"], d["rbo_max"], d["rbo_res"]] == [want[f] for f in ("ext", "min", "max", "res")]
    assert d["n_systems"] == 2 and d["rbo_lists"] == "prefix" and (d["rbo_len_a"], d["rbo_len_b"]) == (5, 3)
    assert "(but for RBO, --rbo-lists prefix)" in err
    code, out, err = run("--orderings", a, top3, "--rbo-lists", "prefix")
    rows = [ln.split()[0] for ln in out.splitlines() if ln.startswith("rbo_")]
    assert rows == [f"rbo_{f}(p=0.9,ties=a,prefix)" for f in ("ext", "min", "max", "res")]
    assert "rbo prefix: the whole orderings (A 5 systems, B 3)" in out
    code, out, err = run("--orderings", a, top3)  # the default: common systems, the whole-list RBO suggested
    assert code == 0 and "rbo_min" not in out and "(RBO of the whole orderings: --rbo-lists prefix)" in err
    for argv, msg in ((["--rbo-lists", "prefix", "-P", DATA / "perquery.tsv"], "--rbo-lists applies only with "
                       "--orderings"),
                      (["--orderings", a, top3, "--rbo-p", "0", "--rbo-lists", "common"],
                       "--rbo-lists applies only with --rbo-p above 0"),
                      (["--orderings", a, top3, "--rbo-lists", "top"], "Invalid value for '--rbo-lists'")):
        code, out, err = run(*argv)
        assert code == 2 and out == "" and msg in err and "Traceback" not in err, err


@pytest.mark.parametrize("place", [0, 1])
def test_orderings_followed_by_an_option_says_so(place):
    """`zelo_compare --orderings --rbo-ties b A B`: --orderings takes the next two words, so an option became
    file A and the files were runs; the error said only "no -R, -P or runs"."""
    files = [DATA / "order_tied_a.tsv", DATA / "order_tied_b.tsv"]
    argv = ["--orderings", *files[:place], "--rbo-ties", "b", *files[place:]]
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert "took '--rbo-ties' as a file name" in err and err.count("\n") == 1, err
    code, out, _ = run("--rbo-ties", "b", "--orderings", *files)
    assert code == 0 and "ties=b" in out


def test_R_path_equals_P_path(tmp_path):
    pref_eval = pytest.importorskip("pref_eval")
    if not hasattr(pref_eval, "evaluate"):
        pytest.skip("pref_eval.evaluate not available yet")
    try:
        df = pref_eval.evaluate(ROOT / "qrels" / "dl19-sample.qrels",
                                [str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "dense", "rerank")],
                                ["map", "P.10"])
    except Exception as err:  # the evaluator is being built by the lead
        pytest.skip(f"pref_eval.evaluate not usable yet: {err}")
    pq = tmp_path / "pq.tsv"
    df.to_csv(pq, sep="\t", index=False)
    runs = [f"runs/{r}.run" for r in ("bm25", "dense", "rerank")]
    code_r, out_r, err_r = run("-R", "qrels/dl19-sample.qrels", "-m", "map", "-m", "P.10", *runs, "-o", "jsonl")
    code_p, out_p, err_p = run("-P", pq, "-o", "jsonl")
    assert code_r == 0, err_r
    assert code_p == 0, err_p
    lr = [json.loads(x) for x in out_r.splitlines()]
    lp = [json.loads(x) for x in out_p.splitlines()]
    assert len(lr) == len(lp) == 2 * 3 * 3
    def key_p(d):
        return d["measure"], d["run_a"].split("/")[-1], d["run_b"].split("/")[-1], d["test"]

    for a, b in zip(sorted(lr, key=lambda d: (d["measure"], d["run_a"], d["run_b"], d["test"])),
                    sorted(lp, key=key_p), strict=True):
        assert a["p_value"] == pytest.approx(b["p_value"], rel=1e-9, nan_ok=True)
    code, out, _ = run("-R", "qrels/dl19-sample.qrels", "-m", "map", *runs, "--baseline", "bm25", "-o", "jsonl",
                       "--tests", "t")
    assert code == 0 and {json.loads(x)["run_b"] for x in out.splitlines()} == {"bm25.run"}  # one run-id rule (#10)


def test_preference_measures_tested_against_zero():
    """runi/runj layout of zelo_eval -q -o tsv with preference measures: each
    pair's per-query preferences are tested against 0 (oracle: scipy on the
    file's values, statsmodels Holm over the pairs of one measure)."""
    from statsmodels.stats.multitest import multipletests

    f = DATA / "perquery_prefs.tsv"
    code, out, err = run("-P", f, "-o", "jsonl", "--tests", "t,sign", "-Q")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    raw = pd.read_csv(f, sep="\t", dtype={"qid": str, "runj": str}, keep_default_na=False)
    raw = raw[(raw.qid != "all")]
    # metrics once (per-run rows), preference measures once per pair
    assert sorted({d["measure"] for d in lines}) == ["lexirecall", "map", "ndcg_cut.10", "rpp"]
    assert len([d for d in lines if d["measure"] == "map"]) == 3 * 2
    rpp_t = [d for d in lines if d["measure"] == "rpp" and d["test"] == "t"]
    assert len(rpp_t) == 3
    oracle = []
    for d in rpp_t:
        v = raw[(raw.measure == "rpp") & (raw.runi == d["run_a"]) & (raw.runj == d["run_b"])].value.astype(float)
        oracle.append(stats.ttest_1samp(np.round(v.to_numpy(), 12), 0).pvalue)
        assert d["mean_diff"] == pytest.approx(v.mean())
        assert d["n_queries"] == len(v)
    np.testing.assert_allclose([d["p_value"] for d in rpp_t], oracle, rtol=1e-12)
    np.testing.assert_allclose([d["p_adjusted"] for d in rpp_t], multipletests(oracle, method="holm")[1], rtol=1e-12)
    code, out, _ = run("-P", f, "-Q")
    assert "run_a" in out and "Preference measures: mean per-query preference" in out


def test_R_with_preference_measures_equals_zelo_eval_per_query_file(tmp_path):
    """-R with rpp / lexiprecision / p@10 tests exactly what `zelo_eval -q -o tsv`
    prints for the same arguments (same jsonl, byte for byte, as -P on that file; the trec_eval name as
    it is tested alone);
    oracle: scipy on the zelo_eval file's values, statsmodels Holm."""
    from statsmodels.stats.multitest import multipletests

    runs = [f"runs/{r}.run" for r in ("bm25", "dense", "rerank")]
    ms = ["-m", "rpp", "-m", "lexiprecision", "-m", "p@10", "-m", "ndcg_cut.10"]
    pq = tmp_path / "pq.tsv"
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", "qrels/dl19-sample.qrels", *ms, "-q",
                        "-o", "tsv", "--output", str(pq), *runs], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    args = ["-o", "jsonl", "--tests", "t,wilcoxon,sign,randomization", "--resamples", "500", "-Q"]
    code_r, out_r, err_r = run("-R", "qrels/dl19-sample.qrels", *ms, *runs, *args)
    code_p, out_p, err_p = run("-P", pq, *args)
    assert code_r == 0 and code_p == 0, err_r + err_p
    # the trec_eval name is evaluated in metric mode (as -m ndcg_cut.10 alone, labelled with trec_eval's
    # printed name); every topic is in every run here, so its values are the preference mode's
    assert out_r == out_p.replace('"ndcg_cut.10"', '"ndcg_cut_10"')
    alone = run("-R", "qrels/dl19-sample.qrels", "-m", "ndcg_cut.10", *runs, *args)[1]
    assert [x for x in out_r.splitlines() if '"ndcg_cut_10"' in x] == alone.splitlines()
    lines = [json.loads(x) for x in out_r.splitlines()]
    assert {d["measure"] for d in lines} == {"rpp", "lexiprecision", "p@10", "ndcg_cut_10"}
    raw = pd.read_csv(pq, sep="\t", dtype={"qid": str, "runj": str}, keep_default_na=False)
    raw = raw[raw.qid != "all"]
    for m in ("rpp", "lexiprecision"):
        t = [d for d in lines if d["measure"] == m and d["test"] == "t"]
        assert [(d["run_a"], d["run_b"]) for d in t] == [("bm25.run", "dense.run"), ("bm25.run", "rerank.run"),
                                                          ("dense.run", "rerank.run")]
        vals = [raw[(raw.measure == m) & (raw.runi == d["run_a"]) & (raw.runj == d["run_b"])].value.astype(float)
                .to_numpy() for d in t]
        with warnings.catch_warnings():  # a pair whose differences are all equal: scipy's precision note
            warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
            oracle = [stats.ttest_1samp(np.round(v, 12), 0).pvalue for v in vals]
        np.testing.assert_allclose([d["p_value"] for d in t], oracle, rtol=1e-12)
        np.testing.assert_allclose([d["p_adjusted"] for d in t], multipletests(oracle, method="holm")[1],
                                   rtol=1e-12)
        w = [d for d in lines if d["measure"] == m and d["test"] == "wilcoxon"]
        for d, v in zip(w, vals, strict=False):
            assert d["p_value"] == pytest.approx(stats.wilcoxon(np.round(v, 12)).pvalue, rel=1e-12)
    # p@10 is a per-run metric of pref_eval: paired t-test of the two runs' values
    x = raw[(raw.measure == "p@10") & (raw.runi == "dense.run") & (raw.runj == "")].value.astype(float)
    y = raw[(raw.measure == "p@10") & (raw.runi == "bm25.run") & (raw.runj == "")].value.astype(float)
    t = next(d for d in lines if d["measure"] == "p@10" and d["test"] == "t" and d["run_a"] == "bm25.run"
             and d["run_b"] == "dense.run")
    assert t["p_value"] == pytest.approx(stats.ttest_rel(y.to_numpy(), x.to_numpy()).pvalue, rel=1e-12)


def test_R_preference_baseline_and_flags():
    runs = [f"runs/{r}.run" for r in ("bm25", "dense", "rerank")]
    code, out, err = run("-R", "qrels/dl19-sample.qrels", "-m", "rpp", *runs, "--baseline", "bm25", "-o", "jsonl",
                         "--tests", "t")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    # the metric records' orientation (session 22; was zelo_eval --reference's): the baseline is run_b,
    # family = 2 pairs
    assert [(d["run_a"], d["run_b"]) for d in lines] == [("dense.run", "bm25.run"), ("rerank.run", "bm25.run")]
    ps = [d["p_value"] for d in lines]
    assert lines[0]["p_adjusted"] == pytest.approx(min(1, max(2 * min(ps), ps[0]) if ps[0] > ps[1]
                                                          else 2 * ps[0]))
    assert "does not apply" not in err
    code, _, err = run("-R", "qrels/dl19-sample.qrels", "-m", "rpp", "-l", "2", *runs)
    assert code == 2 and "-l applies to trec_eval measures" in err
    code, _, err = run("-R", "qrels/dl19-sample.qrels", "-m", "map", "-b", "2", *runs)
    assert code == 2 and "-b applies to preference measures" in err
    # -b reaches the preference evaluation: the sample qrels are graded 0-3, so -b 1 (binary) changes
    # graded RPP and -b 4 leaves no relevant document (zelo_eval warns the same way)
    base = run("-R", "qrels/dl19-sample.qrels", "-m", "rpp", *runs, "-o", "jsonl", "--tests", "t")[1]
    assert run("-R", "qrels/dl19-sample.qrels", "-m", "rpp", "-b", "1", *runs, "-o", "jsonl", "--tests", "t")[1] != base
    code, _, err = run("-R", "qrels/dl19-sample.qrels", "-m", "rpp", "-b", "4", *runs)
    assert code == 2 and "nothing to compare" in err


def test_sign_min_diff_flag():
    """--sign-min-diff: oracle = binomtest on the counts of |d| >= delta, from the file's values."""
    code, out, err = run("-P", DATA / "perquery.tsv", "-o", "jsonl", "--tests", "sign", "--sign-min-diff", "0.1",
                         "-m", "ndcg", "--correction", "none")
    assert code == 0, err
    df = read_per_query(DATA / "perquery.tsv")
    for d in (json.loads(x) for x in out.splitlines()):
        x = df[(df.run == d["run_a"]) & (df.measure == "ndcg")].set_index("qid").value
        y = df[(df.run == d["run_b"]) & (df.measure == "ndcg")].set_index("qid").value
        diff = np.round((x - y).dropna().to_numpy(), 12)
        k, n = int((diff >= 0.1).sum()), int((np.abs(diff) >= 0.1).sum())
        assert (d["statistic"], d["n_nonzero"], d["min_diff"]) == (k, n, 0.1)
        if n:
            assert d["p_value"] == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12)
    code, _, err = run("-P", DATA / "perquery.tsv", "--sign-min-diff", "-1")
    assert code == 2 and "--sign-min-diff" in err


def test_progress_only_on_a_terminal(monkeypatch):
    """Stage lines ('evaluating', 'running randomization') appear only when stderr is a terminal
    and not with -Q; without a terminal stderr stays empty."""
    import io

    args = ["-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run", "runs/dense.run",
            "--tests", "randomization", "--resamples", "100", "-o", "jsonl"]
    code, _, err = run(*args)
    assert code == 0 and err == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    import contextlib
    import os

    from pref_eval.cli.compare import main

    for quiet, expect in (([], True), (["-Q"], False)):
        buf = Tty()
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(buf), \
                    pytest.raises(SystemExit) as exc:
                main(args + quiet)
        finally:
            os.chdir(cwd)
        assert exc.value.code in (0, None)
        text = buf.getvalue()
        assert ("evaluating 2 runs" in text and "randomization (100 resamples" in text
                and "measures: 1/1" in text) == expect, text


def test_identical_runs_are_not_significant_under_pratt_exact(tmp_path):
    """Two runs equal on 14 queries and a third that differs: `--zero-method pratt --wilcoxon-method exact`
    gave the identical pair p = 2/2^14 (significant), as scipy's method="exact" does (scipy/scipy#6805).
    Now p = 1 from the exact sign-flip distribution given the zeros (method "permutation")."""
    rng = np.random.default_rng(1)
    x = rng.random(14)
    rows = [f"{run}\tq{i:02d}\tm\t{v!r}" for run, vals in (("A", x), ("B", x), ("C", x + rng.normal(0, .2, 14)))
            for i, v in enumerate(vals.tolist())]
    f = tmp_path / "pq.tsv"
    f.write_text("run\tqid\tmeasure\tvalue\n" + "\n".join(rows) + "\n")
    code, out, err = run("-P", f, "-o", "jsonl", "--tests", "wilcoxon", "--zero-method", "pratt",
                         "--wilcoxon-method", "exact")
    assert code == 0, err
    recs = {(r["run_a"], r["run_b"]): r for r in map(json.loads, out.splitlines())}
    ab = recs[("A", "B")]
    assert ab["p_value"] == 1.0 and not ab["significant"] and ab["method"] == "permutation" and ab["n_zero"] == 14
    ac = recs[("A", "C")]  # no zero: scipy's exact test, live
    c = {q: float(v) for q, v in ((line.split("\t")[1], line.split("\t")[3]) for line in rows if line[0] == "C")}
    d = np.round(x - np.array([c[f"q{i:02d}"] for i in range(14)]), 12)
    assert ac["method"] == "exact" and ac["p_value"] == stats.wilcoxon(d, zero_method="pratt", method="exact").pvalue


def test_text_legend_names_the_seed_whichever_test_marks():
    """zelo_compare.md: the seed of the resampling tests is in the text output's legend. It was there only when a
    resampling test set the markers: `--tests t,randomization --seed 5` printed no seed (the table is the t-test's;
    the randomization records, in -o jsonl, are seeded by 5)."""
    for tests in ("t,randomization", "randomization,t", "wilcoxon,bootstrap,tukey"):
        code, out, err = run("-P", DATA / "perquery.tsv", "--tests", tests, "--seed", "5", "--resamples", "200")
        assert code == 0, err
        assert "Resampling: 200 resamples, seed 5." in out.splitlines(), (tests, out)
    code, out, err = run("-P", DATA / "perquery.tsv", "--tests", "t,sign")
    assert code == 0 and "Resampling" not in out


def test_trec_eval_output_as_per_query_file_says_what_to_do(tmp_path):
    """An IR lab keeps `trec_eval -q` outputs; given to -P the reader said only that the header lacks run, qid,
    measure, value. It now says what the file looks like and the two commands that do the comparison."""
    hint = ("; this looks like trec_eval output (measure, qid, value of one run): write the table with "
            "`zelo_eval -R QRELS -q -o tsv -m MEASURE RUN... > pq.tsv`, or test the runs at once with "
            "`zelo_compare -R QRELS -m MEASURE RUN...`\n")
    for first in ("map                   \t401\t0.3730\n", "runid                 \tall\tbm25\n"):
        p = tmp_path / "bm25.treceval"
        p.write_text(first + "P_10                  \t401\t0.7000\n")
        code, out, err = run("-P", p)
        assert (code, out) == (2, "")
        assert err == (f"zelo_compare: {p}:1: expected a header line with columns run, qid, measure, value "
                       f"(missing run, qid, measure, value){hint}")
    p.write_text("a,b\n1,2\n")
    code, _, err = run("-P", p)
    assert code == 2 and err.endswith("(missing run, qid, measure, value)\n")


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
@pytest.mark.parametrize("opt", [["--digits", "2"], ["--marker-test", "sign"]])
def test_table_options_refused_with_record_formats(fmt, opt):
    """zelo_compare.md: an option that would not be read is refused, not ignored. `-o jsonl --digits 2` and
    `-o csv --marker-test sign` ran and wrote the same records as without them (the records are every test's,
    in full precision)."""
    code, out, err = run("-P", DATA / "perquery.tsv", "-o", fmt, *opt)
    assert (code, out) == (2, "")
    assert err == (f"zelo_compare: {opt[0]} applies to the tables (-o text, markdown, latex); -o {fmt} writes "
                   "every record in full precision\n")
    code, out, _ = run("-P", DATA / "perquery.tsv", "-o", "markdown", *opt)
    assert code == 0 and out
