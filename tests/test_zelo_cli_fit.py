"""zelo_fit command line: TSV, elo, zbench JSONL, graded qrels, diagnostics, errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cli_harness import run_module_inproc

from pref_eval.output.qrels import grade_bins
from pref_eval.io.zelo_scores import read_zelo_scores


def run(*args, stdin=None):
    """``python -m pref_eval.cli.fit ARGS`` in process (cli_harness.run_module_inproc): outputs, exit status and
    the stderr line need no process (zelo_fit's real processes: test_docs.py, test_startup_imports.py)."""
    return run_module_inproc("fit", args, ".", stdin=stdin)


JUDG = "q1 a b b\nq1 b c c\nq1 a c c\nq1 c a a\nq1 b a a\nq2 x y x\nq2 y x y\n"


@pytest.fixture
def jfile(tmp_path):
    p = tmp_path / "j.txt"
    p.write_text(JUDG)
    return str(p)


def test_tsv_default(jfile, tmp_path):
    r = run("-J", jfile)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "qid\tdocno\tscore\tse"
    assert [line.split("\t")[:2] for line in lines[1:]] == [["q1", "a"], ["q1", "b"], ["q1", "c"], ["q2", "x"],
                                                           ["q2", "y"]]
    out = tmp_path / "s.tsv"
    assert run("-J", jfile, "-o", str(out)).returncode == 0
    sc = read_zelo_scores(str(out))
    # q2: x and y each win once -> equal; q1: c > a > b
    assert sc["q2"]["x"] == pytest.approx(sc["q2"]["y"], abs=1e-12)
    assert sc["q1"]["c"] > sc["q1"]["a"] > sc["q1"]["b"]
    assert sum(sc["q1"].values()) == pytest.approx(0, abs=1e-12)


def test_elo_scale(jfile):
    lo = [line.split("\t") for line in run("-J", jfile).stdout.splitlines()[1:]]
    el = [line.split("\t") for line in run("-J", jfile, "--scale", "elo").stdout.splitlines()[1:]]
    for a, b in zip(lo, el, strict=False):
        assert float(b[2]) == pytest.approx(float(a[2]) * 400 / np.log(10) + 1500)


def test_prior0_columns(jfile):
    r = run("-J", jfile, "--prior", "0")
    assert r.stdout.splitlines()[0] == "qid\tdocno\tscore\tse\tcomponent\tlevel"


def test_qrels_and_zbench_output(jfile, tmp_path):
    qr = tmp_path / "out.qrels"
    zb = tmp_path / "out.jsonl"
    r = run("-J", jfile, "--qrels", str(qr), "--grades", "0,1,2", "-o", str(zb), "--output-format", "zbench")
    assert r.returncode == 0, r.stderr
    assert qr.read_text().splitlines() == ["q1 0 a 1", "q1 0 b 0", "q1 0 c 2", "q2 0 x 1", "q2 0 y 1"]
    recs = [json.loads(line) for line in zb.read_text().splitlines()]
    assert [r["query"]["id"] for r in recs] == ["q1", "q2"]
    assert [d["id"] for d in recs[0]["documents"]] == ["a", "b", "c"]


def test_grade_bins_hand_worked():
    s = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    # mid-ranks 1..8: floor(4 (r - 1/2) / 8) = 0,0,1,1,2,2,3,3
    assert list(grade_bins(s, 4, "quantile")) == [0, 0, 1, 1, 2, 2, 3, 3]
    # ties share a grade: mid-ranks 1, 2.5, 2.5, 4 -> floor(2 (r - 1/2) / 4) = 0, 1, 1, 1
    assert list(grade_bins(np.array([0.0, 1.0, 1.0, 2.0]), 2, "quantile")) == [0, 1, 1, 1]
    assert list(grade_bins(np.array([3.0, 3.0, 3.0]), 3, "quantile")) == [1, 1, 1]
    assert list(grade_bins(s, 3, "fixed", [0.0, 3.0])) == [0, 0, 1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize("args,msg", [
    (["--prior", "-1"], "Invalid value for '--prior': -1.0 is not in the range x>=0."),
    (["--qrels", "x", "--grades", "1"], "zelo_fit: --grades needs at least two comma-separated grades, got '1'\n"),
    (["--qrels", "x", "--bins", "fixed:1"], "zelo_fit: --bins fixed: needs 3 thresholds for 4 grades, got 1\n"),
])
def test_usage_errors(jfile, args, msg):
    r = run("-J", jfile, *args)
    assert r.returncode == 2 and (r.stderr == msg or msg.startswith("Invalid") and msg in r.stderr), r.stderr


def test_missing_file():
    r = run("-J", "/nonexistent/j.txt")
    assert r.returncode == 2
    assert r.stderr == "zelo_fit: /nonexistent/j.txt: no such file (expected a judgment file)\n"


def test_diagnostics(jfile, tmp_path):
    d = tmp_path / "diag.tsv"
    assert run("-J", jfile, "--diagnostics", str(d)).returncode == 0
    rows = [line.split("\t") for line in d.read_text().splitlines()]
    assert rows[0][:6] == ["qid", "n_docs", "n_judged", "n_judgments", "n_components", "n_perfect"]
    assert rows[1][:6] == ["q1", "3", "3", "5", "1", "0"]
    assert rows[2][:6] == ["q2", "2", "2", "2", "1", "0"]


def test_failed_run_leaves_existing_outputs_untouched(jfile, tmp_path):
    out, qrels = tmp_path / "out.tsv", tmp_path / "out.qrels"
    out.write_text("old scores\n")
    qrels.write_text("old qrels\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 a b b\nq1 a b\n")
    r = run("-J", jfile, "-J", str(bad), "--format", "clarke4", "-o", str(out), "--qrels", str(qrels))
    assert r.returncode == 2 and r.stderr == f"zelo_fit: {bad}:2: expected 4 fields 'topic docA docB winner', got 3\n"
    assert out.read_text() == "old scores\n" and qrels.read_text() == "old qrels\n"
    # a bad --bins is caught before anything is written
    r = run("-J", jfile, "-o", str(out), "--qrels", str(qrels), "--bins", "fixed:2,1,0")
    assert r.returncode == 2 and out.read_text() == "old scores\n"
    assert not list(tmp_path.glob("*.tmp*")) and sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.txt", "j.txt", "out.qrels", "out.tsv"]
    r = run("-J", jfile, "-o", str(out), "--qrels", str(qrels))
    assert r.returncode == 0 and out.read_text().startswith("qid\tdocno\tscore\tse\n")
