"""zelo_eval metric mode (trec blocks, tables) and preference-mode extras."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT  # noqa: E402
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")
RUNS = [ROOT / "runs" / n for n in ("bm25.run", "dense.run", "rerank.run")]
QRELS = ROOT / "qrels" / "dl19-sample.qrels"


def zelo(*args):
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", *map(str, args)],
                          capture_output=True, text=True)


@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10 binary not at /tmp/trec_eval")
def test_trec_blocks_equal_trec_eval_per_run():
    out = zelo("-R", QRELS, "-o", "trec", "-q", "-m", "official", "-m", "ndcg_cut.10", *RUNS)
    assert out.returncode == 0, out.stderr
    expected = "".join(subprocess.run([str(TREC_EVAL), "-q", "-m", "official", "-m", "ndcg_cut.10", str(QRELS), str(r)],
                                      capture_output=True, text=True, check=True).stdout for r in RUNS)
    assert out.stdout == expected


def test_long_table_has_run_column():
    out = zelo("-R", QRELS, "-o", "csv", "-q", "-m", "map", *RUNS)
    lines = out.stdout.splitlines()
    assert lines[0] == "run,qid,measure,value"
    assert {ln.split(",")[0] for ln in lines[1:]} == {"bm25.run", "dense.run", "rerank.run"}
    assert sum(ln.split(",")[1] == "all" for ln in lines[1:]) == 3


def test_default_output_by_number_of_runs():
    one = zelo("-R", QRELS, RUNS[0])
    assert one.stdout.startswith("runid")
    two = zelo("-R", QRELS, *RUNS[:2])
    assert json.loads(two.stdout.splitlines()[0])["qid"] == "all"


def test_reference_and_means_and_preference_table():
    out = zelo("-R", QRELS, "-m", "rpp", "-m", "ap", "--reference", "rerank.run", "--means", *RUNS)
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    pairs = [(x["runi"], x["runj"]) for x in lines if "runi" in x]
    assert pairs == [("rerank.run", "bm25.run"), ("rerank.run", "dense.run")]
    means = {x["run"]: x["ap"] for x in lines if x.get("type") == "metric"}
    assert set(means) == {"bm25.run", "dense.run", "rerank.run"}
    # the mean difference equals the difference of the means
    assert lines[0]["ap"] == pytest.approx(means["rerank.run"] - means["bm25.run"], abs=1e-12)
    tab = zelo("-R", QRELS, "-o", "tsv", "-m", "rpp", "-m", "p@10", *RUNS)
    rows = [ln.split("\t") for ln in tab.stdout.splitlines()]
    assert rows[0] == ["runi", "runj", "qid", "measure", "value"]
    assert ["bm25.run", "dense.run", "all", "rpp"] in [r[:4] for r in rows]
    assert ["bm25.run", "", "all", "p@10"] in [r[:4] for r in rows]
