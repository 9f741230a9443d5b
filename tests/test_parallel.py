"""--jobs N (a process pool) gives the same bytes as --jobs 1: zelo_fit, zelo_eval, zelo_compare."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pref_eval.parallel import split_even

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _run(module: str, *args: str) -> bytes:
    p = subprocess.run([sys.executable, "-m", f"pref_eval.cli.{module}", *args], capture_output=True, env=ENV)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout


def _judgments(path, queries=23, docs=12, seed=5):
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(queries, docs, 2, 1.5, seed)
    with open(path, "w") as fh:
        for k in range(len(q)):
            fh.write(json.dumps({"qid": f"q{q[k]}", "doc_a": f"d{a[k]}", "doc_b": f"d{b[k]}",
                                 "score": float(s[k])}) + "\n")
        fh.write('{"qid": "lonely", "doc_a": "x", "doc_b": "y", "score": 1}\n')


def test_split_even():
    assert split_even([5, 5, 5, 5], 2) == [(0, 2), (2, 4)]
    assert split_even([100, 1, 1, 1], 3)[0] == (0, 1)
    parts = split_even(list(range(50)), 7)
    assert parts[0][0] == 0 and parts[-1][1] == 50 and len(parts) <= 7
    assert all(b > a for a, b in parts) and all(p[1] == n[0] for p, n in zip(parts, parts[1:], strict=False))
    assert split_even([], 3) == [] and split_even([1], 4) == [(0, 1)]


@pytest.mark.parametrize("prior", ["0.5", "0"])
def test_zelo_fit_jobs_identical(tmp_path, prior):
    j = tmp_path / "j.jsonl"
    _judgments(j)
    outs = []
    for jobs in ("1", "3"):
        diag = tmp_path / f"diag{jobs}.tsv"
        out = _run("fit", "-J", str(j), "--prior", prior, "--jobs", jobs, "--diagnostics", str(diag))
        outs.append((out, diag.read_bytes()))
    assert outs[0] == outs[1]
    assert outs[0][0].count(b"\n") == 23 * 12 + 2 + 1


@pytest.mark.parametrize("shuffled", [False, True])
def test_fit_blocks_equal_whole_fit(shuffled):
    """Blocks cut from judgments grouped by query (slices) or in any order (an argsort) fit as the whole."""
    from pref_eval.zelo.fit import fit_bt, fit_bt_parallel
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(30, 15, 3, 1.0, 2)
    if shuffled:
        p = np.random.default_rng(0).permutation(len(q))
        q, a, b, s = q[p], a[p], b[p], s[p]
    whole = fit_bt(sizes, q, a, b, s, prior=0.0)
    parts = fit_bt_parallel(sizes, q, a, b, s, prior=0.0, parts=7)  # serial, in 7 blocks
    for name in whole.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(whole, name), getattr(parts, name), err_msg=name)


RUNS = [os.path.join(ROOT, "runs", r) for r in ("bm25.run", "dense.run", "rerank.run")]
QRELS = os.path.join(ROOT, "qrels", "dl19-sample.qrels")


@pytest.mark.parametrize("fmt", ["trec", "tsv"])
def test_zelo_eval_jobs_identical(fmt):
    args = ["-R", QRELS, "-o", fmt, "-q", "-m", "official", "-m", "ndcg_cut.10", *RUNS]
    one = _run("eval", *args)
    assert one.count(b"\n") > 100
    assert _run("eval", "--jobs", "2", *args) == one


@pytest.mark.parametrize("args", [
    ["-q"],  # pref_eval.py's JSON lines, every measure, per query
    pytest.param(["-o", "tsv", "-q", "-m", "rpp", "-m", "lexiprecision", "-m", "map", "-m", "ndcg_cut.10"],
                 marks=pytest.mark.slow),  # a subset of the first's measures in another format (s30)
    ["-M", "preferences", "--reference", "bm25.run", "--topk", "5"],
    ["-m", "rpp", "--samples", "3", "--query_fraction", "0.6", "--label_fraction", "0.7", "--seed", "4"],
])
def test_zelo_eval_jobs_identical_in_preference_mode(args):
    """Preference mode reads and ranks the runs in the worker processes; same bytes as --jobs 1."""
    full = ["-R", QRELS, *args, *RUNS]
    one = _run("eval", *full)
    assert one.count(b"\n") >= 2
    assert _run("eval", "--jobs", "2", *full) == one
    assert _run("eval", "--jobs", "3", *full) == one


def test_zelo_eval_jobs_refused_with_zelo_scores(tmp_path):
    scores = tmp_path / "z.tsv"
    scores.write_text("qid\tdocno\tscore\tse\n19335\td1\t0.5\t0.1\n")
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", str(scores), "--jobs", "2", *RUNS],
                       capture_output=True, env=ENV)
    assert p.returncode == 2 and b"--jobs/--scheduler apply to" in p.stderr


def test_zelo_compare_jobs_identical():
    args = ["-R", QRELS, "-m", "map", "-m", "P_10", "--tests", "t,randomization,bootstrap", "--resamples", "500",
            "-o", "jsonl", *RUNS]
    from cli_harness import run_inproc

    res = run_inproc("zelo_compare", args, ROOT)  # --jobs 1 in this process: the pool's process is the point
    assert res.returncode == 0, res.stderr
    one = res.stdout
    assert one.count(b"\n") >= 9
    assert _run("compare", "--jobs", "2", *args) == one


def test_large_fit_in_blocks_equals_whole_fit(monkeypatch):
    """zelo_fit fits a large input block by block (memory); the blocks give the whole fit's bits."""
    import pref_eval.zelo.fit as zf
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(25, 12, 3, 1.0, 4)
    whole = zf.fit_bt(sizes, q, a, b, s)
    monkeypatch.setattr(zf, "BLOCK_JUDGMENTS", 100)  # 900 judgments -> 9 blocks
    blocks = zf.fit_bt_parallel(sizes, q, a, b, s)
    for name in whole.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(whole, name), getattr(blocks, name), err_msg=name)
