"""``zelo_compare -P`` on the pair layout (runi/runj rows: ``zelo_eval -q`` of preference measures, pref_eval.py's
wide lines) tests the preference rows from the reader's codes to the records without a pandas DataFrame, also with
``--baseline`` (session 29: the records were a DataFrame, pandas imported; the baseline's pairs built from the
file's frame). Oracle: scipy's ``ttest_1samp`` / ``ttest_rel`` on the values written into the file."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import pref_eval
from pref_eval.api import compare_runs

scipy_stats = pytest.importorskip("scipy.stats")

HERE = os.path.dirname(os.path.dirname(os.path.abspath(pref_eval.__file__)))  # the package the tests imported
RUNS = ("a", "b", "c")
PAIRS = (("a", "b"), ("a", "c"), ("b", "c"))


def _values():
    rng = np.random.default_rng(5)
    metric = {r: np.round(rng.random(7), 4) for r in RUNS}
    pref = {p: np.round(rng.uniform(-1, 1, 7), 4) for p in PAIRS}
    return metric, pref


@pytest.fixture
def pairs_file(tmp_path):
    metric, pref = _values()
    lines = ["runi\trunj\tqid\tmeasure\tvalue"]
    for q in range(7):
        lines += [f"{r}\t\tq{q}\tmap\t{metric[r][q]}" for r in RUNS]
        lines += [f"{i}\t{j}\tq{q}\trpp\t{pref[i, j][q]}" for i, j in PAIRS]
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _records(text: str) -> dict:
    return {(r["measure"], r["run_a"], r["run_b"], r["test"]): r for r in map(json.loads, text.splitlines())}


def test_baseline_records_against_scipy(pairs_file):
    """With a baseline: the preference pairs turned to (other, baseline) with values negated, beside the metric
    records; every mean, statistic and p-value as scipy computes them on the file's values."""
    metric, pref = _values()
    got = _records(compare_runs(per_query_file=pairs_file, baseline="b", tests="t", output_format="jsonl"))
    want_pref = {("a", "b"): pref["a", "b"], ("c", "b"): -pref["b", "c"]}
    assert {k[:3] for k in got} == {("map", "a", "b"), ("map", "c", "b"), ("rpp", "a", "b"), ("rpp", "c", "b")}
    for (a, b), d in want_pref.items():
        r, t = got["rpp", a, b, "t"], scipy_stats.ttest_1samp(d, 0.0)
        assert r["mean_diff"] == pytest.approx(d.mean(), rel=1e-12, abs=1e-15)
        assert r["statistic"] == pytest.approx(t.statistic, rel=1e-12)
        assert r["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
    for a in ("a", "c"):
        r, t = got["map", a, "b", "t"], scipy_stats.ttest_rel(metric[a], metric["b"])
        assert r["statistic"] == pytest.approx(t.statistic, rel=1e-9)
        assert r["p_value"] == pytest.approx(t.pvalue, rel=1e-9)


def test_all_pairs_text_table(pairs_file):
    """Without a baseline, the text table's preference means are the file's (scipy's mean to 4 digits)."""
    _, pref = _values()
    text = compare_runs(per_query_file=pairs_file, tests="t", output_format="text")
    rows = {tuple(line.split()[:2]): line.split()[2].rstrip("*") for line in text.splitlines()
            if line.split()[:2] in ([a, b] for a, b in PAIRS)}
    assert rows == {p: f"{pref[p].mean():.4f}" for p in PAIRS}


@pytest.mark.parametrize("extra", [["-o", "jsonl"], ["-o", "jsonl", "--baseline", "b"], ["-o", "text"]])
def test_pair_layout_imports_no_pandas(pairs_file, extra):
    """The command on the pair layout (codes to records) does not import pandas (it did before session 29)."""
    probe = ("import contextlib, io, sys\nfrom pref_eval.cli.compare import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        main(sys.argv[1:])\n    except SystemExit as e:\n        code = e.code\n"
             "print(code, 'pandas' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", probe, "-P", pairs_file, "--tests", "t", *extra],
                       capture_output=True, text=True, cwd=HERE, env={**os.environ, "PYTHONPATH": HERE})
    assert p.stdout.split() == ["0", "False"], p.stderr
