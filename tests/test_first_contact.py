"""Issue #10 ("first contact"): what a new user meets in the first hour.

One test (or a few) per item of the issue; each ran against the main of the
day the issue was filed and failed there. Oracles: pytrec_eval computed live,
trec_eval's definitions (gm_map = exp(mean ln max(AP, 1e-5))), hand-made files.
"""
from __future__ import annotations

import contextlib
import io
import math
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]
JUDGE = ROOT / "judgments" / "dl19-sample.judge"


def cli(module: str, *args) -> tuple[int, str, str]:
    """Run ``pref_eval.cli.MODULE``'s main in-process: (exit code, stdout, stderr)."""
    import importlib

    main = importlib.import_module(f"pref_eval.cli.{module}").main
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


def _pytrec(measure: str) -> dict[str, dict[str, float]]:
    """{run file name: {qid: value}} from pytrec_eval (the oracle)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {measure})
    out = {}
    for p in RUNS:
        run: dict[str, dict[str, float]] = {}
        for line in p.read_text().splitlines():
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
        out[p.name] = {q: v[measure] for q, v in ev.evaluate(run).items()}
    return out


def _blocks(text: str) -> dict[str, dict[str, str]]:
    """trec_eval blocks keyed by their runid line."""
    blocks: dict[str, dict[str, str]] = {}
    cur = None
    for line in text.splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        if name == "runid":
            cur = blocks.setdefault(value, {})
        else:
            assert cur is not None, f"block without a runid line: {line!r}"
            cur[(name, qid)] = value
    return blocks


# 1 ------------------------------------------------------------------------------------------------

def test_item1_trec_eval_measure_with_several_runs_prints_each_runs_value():
    """``zelo_eval -R q -m map A B C`` printed only pair differences; now one labelled block per run."""
    code, out, err = cli("eval", "-R", QRELS, "-m", "map", *RUNS)
    assert code == 0, err
    ref = _pytrec("map")
    blocks = _blocks(out)
    assert list(blocks) == [p.name for p in RUNS]
    for name, vals in ref.items():
        assert blocks[name][("map", "all")] == f"{sum(vals.values()) / len(vals):6.4f}"


def test_item1_trec_output_blocks_carry_the_run_id():
    code, out, _ = cli("eval", "-R", QRELS, "-m", "nDCG@10", "-o", "trec", *RUNS)
    assert code == 0
    assert list(_blocks(out)) == ["bm25.run", "dense.run", "rerank.run"]


def test_item1_pref_eval_names_keep_pref_eval_output():
    """pref_eval.py's own metric names (ndcg, ap, p@10) keep its JSON lines (the drop-in)."""
    code, out, _ = cli("eval", "-R", QRELS, "-m", "ndcg", *RUNS[:2])
    assert code == 0 and out.startswith('{"qid": "all", "runi": "bm25.run", "runj": "dense.run"')


# 2 ------------------------------------------------------------------------------------------------

def _gm(vals) -> float:
    """trec_eval's geometric mean: exp(mean ln max(v, 1e-5))."""
    vals = list(vals)
    return math.exp(sum(math.log(max(v, 1e-5)) for v in vals) / len(vals))


def test_item2_gm_map_in_preference_mode_is_a_geometric_mean():
    import json

    code, out, err = cli("eval", "-R", QRELS, "-m", "gm_map", "-m", "map", "-o", "pref", "--means", *RUNS)
    assert code == 0, err
    ap = _pytrec("map")
    rows = [json.loads(x) for x in out.splitlines()]
    means = {r["run"]: r for r in rows if "run" in r}
    pairs = {(r["runi"], r["runj"]): r for r in rows if "runi" in r}
    for name, vals in ap.items():
        assert means[name]["gm_map"] == pytest.approx(_gm(vals.values()), abs=1e-12)
        assert means[name]["map"] == pytest.approx(sum(vals.values()) / len(vals), abs=1e-12)
    gi, gj = _gm(ap["bm25.run"].values()), _gm(ap["dense.run"].values())
    assert pairs[("bm25.run", "dense.run")]["gm_map"] == pytest.approx(gi - gj, abs=1e-12)


def test_item2_gm_bpref_table_in_preference_mode():
    code, out, err = cli("eval", "-R", QRELS, "-m", "gm_bpref", "-m", "rpp", "-o", "tsv", *RUNS)
    assert code == 0, err
    bpref = _pytrec("bpref")
    got = {r.split("\t")[0]: float(r.split("\t")[4]) for r in out.splitlines()[1:]
           if r.split("\t")[3] == "gm_bpref" and r.split("\t")[1] == ""}
    for name, vals in bpref.items():
        assert got[name] == pytest.approx(_gm(vals.values()), abs=1e-12)


def test_item2_zelo_compare_refuses_a_summary_only_measure():
    code, out, err = cli("compare", "-R", QRELS, "-m", "gm_map", "-m", "map", *RUNS)
    assert code == 2 and out == ""
    assert err.startswith("zelo_compare: measure 'gm_map' is a summary over queries")


# 3 ------------------------------------------------------------------------------------------------

def test_item3_elo_scale_scores_evaluate_like_logit_scores(tmp_path):
    elo, logit = tmp_path / "elo.tsv", tmp_path / "logit.tsv"
    assert cli("fit", "-J", JUDGE, "--scale", "elo", "-o", elo)[0] == 0
    assert cli("fit", "-J", JUDGE, "-o", logit)[0] == 0
    code, out_elo, err = cli("eval", "-R", elo, *RUNS[:2])
    assert code == 0 and "Warning" not in err and "nan" not in out_elo
    code, out_logit, _ = cli("eval", "-R", logit, *RUNS[:2])
    assert out_elo == out_logit  # NDCG with gains exp(s) is unchanged by the elo offset


def test_item3_elo_scores_without_their_marker_are_refused(tmp_path):
    elo = tmp_path / "elo.tsv"
    assert cli("fit", "-J", JUDGE, "--scale", "elo", "-o", elo)[0] == 0
    cut = tmp_path / "cut.tsv"
    cut.write_text("".join("\t".join(x.split("\t")[:4]) + "\n" for x in elo.read_text().splitlines()))
    code, out, err = cli("eval", "-R", cut, RUNS[0])
    assert code == 2 and "not a natural-log zELO score" in err and "Traceback" not in err


# 4 ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, flag", [(["--grades", "0,1"], "--grades"), (["--bins", "fixed:0"], "--bins"),
                                        (["--elo-offset", "0"], "--elo-offset")])
def test_item4_options_without_their_partner_are_refused(tmp_path, args, flag):
    code, out, err = cli("fit", "-J", JUDGE, *args, "-o", tmp_path / "s.tsv")
    assert code == 2 and err.startswith(f"zelo_fit: {flag} applies only with")
    assert not (tmp_path / "s.tsv").exists()
