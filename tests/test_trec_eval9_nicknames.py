"""``--trec-eval-9``: nicknames list what trec_eval 9.x had (``all_trec`` without unj, rbp, rbp_resid).

Expected outputs come from trec_eval 9.0.8 itself (tests/data/trec_eval9/README.md).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "trec_eval9"
FIX = ["tests/data/irm/fixture.qrels", "tests/data/irm/fixture.run"]
CASES = [
    ("fixture.all_trec.q", ["-q", "-m", "all_trec", *FIX]),
    ("fixture.all_trec.qc", ["-q", "-c", "-m", "all_trec", *FIX]),
    ("dl19-bm25.all_trec.q", ["-q", "-m", "all_trec", "qrels/dl19-sample.qrels", "runs/bm25.run"]),
]


@pytest.mark.parametrize("expected, args", CASES)
def test_all_trec_as_trec_eval_9(expected, args):
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "--trec-eval-9", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (DATA / expected).read_text()


def test_trec_eval_10_all_trec_keeps_its_own_measures():
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-m", "all_trec", *FIX], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    names = {line.split("\t")[0].strip() for line in out.stdout.splitlines()}
    assert {"rbp", "rbp_resid", "unj_5"} <= names
