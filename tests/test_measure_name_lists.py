"""Measure names given as one text, separated by spaces (ir-measures' command line: ``"nDCG@10 P@5"``), read
the same way everywhere (u37's trial): ``zelo_eval -m "ndcg@10 ap"`` with two runs (preference mode) and
``zelo_compare -R -m "ndcg@10 mrr"`` took the whole text as one pref_eval.py name (``the cut-off must be an
integer (got '10 ap')``) while one run split it, and ``evaluate_runs`` / ``compare_runs`` cut a one-string
``"RBP(p=0.8, rel=1)"`` at its inner space (``unknown measure 'RBP(p=0.8,'``) while ``evaluate`` did not.
Oracles: diazf/pref_eval HEAD's stored output (tests/data/pref_eval_ref/head), ir-measures live.
"""
from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import pytest

import pref_eval
from pref_eval.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [ROOT / "runs" / f"{n}.run" for n in ("bm25", "dense", "rerank")]
HEAD = ROOT / "tests" / "data" / "pref_eval_ref" / "head" / "dl19-sample.q.jsonl"


def _run(module: str, args: list[str]) -> str:
    import importlib

    main = importlib.import_module(f"pref_eval.cli.{module}").main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(args)
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
    return out.getvalue()


def test_preference_mode_splits_a_spaced_list_as_pref_eval_head_prints_it():
    """``-m "rpp invrpp dcgrpp"`` = pref_eval.py HEAD's ``-m rpp -m invrpp -m dcgrpp`` (stored), byte for byte."""
    ours = _run("eval", ["--pref-eval-head", "-q", "-m", "rpp invrpp dcgrpp", "-R", str(QRELS), *map(str, RUNS)])
    assert ours == HEAD.read_text()


def test_compare_with_qrels_splits_a_spaced_list():
    args = ["-R", str(QRELS), "-o", "csv", *map(str, RUNS)]
    assert _run("compare", ["-m", "ndcg@10 mrr", *args]) == _run("compare", ["-m", "ndcg@10", "-m", "mrr", *args])


def test_bracketed_parameters_keep_their_space(capsys):
    """One string with ``RBP(p=0.8, rel=1)``: ir-measures' value, as ``evaluate`` gives it (dense.run: no tied
    scores, which ir-measures' RBP provider would order otherwise)."""
    irm = pytest.importorskip("ir_measures")
    pref_eval.evaluate_runs(str(QRELS), [str(RUNS[1])], measures="RBP(p=0.8, rel=1) nDCG@10", output_format="tsv")
    got = {ln.split("\t")[2]: float(ln.split("\t")[3]) for ln in capsys.readouterr().out.splitlines()[1:]}
    want = irm.calc_aggregate([irm.parse_measure("RBP(p=0.8, rel=1)"), irm.nDCG @ 10],
                              irm.read_trec_qrels(str(QRELS)), irm.read_trec_run(str(RUNS[1])))
    assert set(got) == {"RBP(p=0.8, rel=1)", "nDCG@10"}
    for name, v in got.items():
        assert math.isclose(v, want[irm.parse_measure(name)], rel_tol=1e-12), name
    report = pref_eval.compare_runs(qrels=str(QRELS), runs=[str(r) for r in RUNS], measures="RBP(p=0.8, rel=1)")
    assert "RBP(p=0.8, rel=1)" in report


def test_close_names_listed_once():
    with pytest.raises(UsageError) as err:
        pref_eval.evaluate_runs(str(QRELS), [str(r) for r in RUNS[:2]], measures=["rpx"])
    close = str(err.value).split("did you mean ")[1].rstrip("?").split(", ")
    assert "rpp" in close and len(close) == len(set(close))
