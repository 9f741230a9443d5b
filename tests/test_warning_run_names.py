"""Warnings name a run by its run id, as the output names it (docs/run-ids.md), in every command and function
that names runs by run ids: before session 29 zelo_eval (and ``evaluate_runs``, preference mode everywhere) named
the run by its path as given, zelo_compare, zelo_plot and ``evaluate`` by its id, so one run was ``x/bm25.run`` in
one command's warning and ``bm25`` (its tag) or a ``--name`` label in the other's and in both outputs. Oracle:
the rule of docs/run-ids.md (the id column of the same command's output) and the runs' lines counted here.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pref_eval
from cli_harness import run_module_inproc
from conftest import ROOT  # noqa: E402

Q = str(ROOT / "qrels" / "dl19-sample.qrels")
GT = str(ROOT / "tests" / "data" / "zelo" / "zbench" / "case_dl19pool" / "zbench_annotated.jsonl")


@pytest.fixture()
def runs(tmp_path):
    """Two runs in two folders (ids ``a/r.run``, ``b/r.run``): ``a`` has a topic the qrels lack and lacks the
    other qrels topics but one; ``b`` is bm25."""
    lines = (ROOT / "runs" / "dense.run").read_text().splitlines()
    first = lines[0].split()[0]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    odd = "".join(f"9{x}\n" for x in lines[:5])
    (tmp_path / "a" / "r.run").write_text("".join(f"{x}\n" for x in lines if x.split()[0] == first) + odd)
    shutil.copy(ROOT / "runs" / "bm25.run", tmp_path / "b" / "r.run")
    return tmp_path


def _warnings(module: str, args: list, cwd: Path) -> list[str]:
    res = run_module_inproc(module, [str(a) for a in args], cwd=cwd)
    assert res.returncode == 0, res.stderr
    return [ln.split(": warning: ", 1)[1] for ln in res.stderr.splitlines() if ": warning: " in ln]


def test_topics_not_in_the_qrels_and_lacking(runs):
    got = _warnings("eval", ["-R", Q, "-m", "map", "-o", "tsv", "a/r.run", "b/r.run"], runs)
    assert any(w.startswith("a/r.run: 1 run topic not in ") for w in got), got
    assert any(w.startswith("a/r.run: run lacks ") for w in got), got
    assert not any(str(runs) in w for w in got)  # the path as given was named (here: relative, a/r.run too)
    named = _warnings("eval", ["-R", Q, "-m", "map", "-o", "tsv", "--name", "a/r.run=mine", "a/r.run", "b/r.run"],
                      runs)
    assert any(w.startswith("mine: 1 run topic not in ") for w in named), named
    assert any(w.startswith("mine: run lacks ") for w in named), named
    compared = _warnings("compare", ["-R", Q, "-m", "map", "--name", "a/r.run=mine", "a/r.run", "b/r.run"], runs)
    assert any(w.startswith("mine: 1 run topic not in ") for w in compared), compared


def test_absolute_paths_are_named_by_their_ids(runs):
    got = _warnings("eval", ["-R", Q, "-m", "map", "-o", "tsv", runs / "a" / "r.run", runs / "b" / "r.run"], ".")
    assert any(w.startswith("a/r.run: run lacks ") for w in got), got
    assert not any(str(runs) in w.split(":")[0] for w in got), got


def test_score_file_warnings(runs):
    """zelo_eval -R SCORES: the documents without a zELO score and the queries lacking, by the run's id."""
    args = ["-R", GT, "-m", "zndcg@10", "--run-id", "tag", "b/r.run"]
    got = _warnings("eval", [*args, "-o", "tsv"], runs)
    assert got and all(w.startswith("bm25: ") for w in got), got  # bm25.run's tag
    assert got[0] == _warnings("compare", [*args, ROOT / "runs" / "dense.run"], runs)[0]
    # a run lacking queries of the score file
    top = (ROOT / "runs" / "bm25.run").read_text().splitlines()
    (runs / "b" / "one.run").write_text("".join(f"{x}\n" for x in top if x.split()[0] == top[0].split()[0]))
    got = _warnings("eval", ["-R", GT, "-m", "zndcg@10", "--name", "b/one.run=first", "b/one.run"], runs)
    assert any(w.startswith("first: run lacks ") for w in got), got


def test_preference_mode_no_common_topic(tmp_path):
    """A run holding none of the qrels topics (preference mode scores it as retrieving nothing): by its id."""
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "r.run").write_text("zz Q0 d1 1 1.0 t\nzz Q0 d2 2 0.5 t\n")
    lines = (ROOT / "runs" / "bm25.run").read_text().splitlines()
    (tmp_path / "bm25.run").write_text("".join(f"{x}\n" for x in lines if x.split()[0] == lines[0].split()[0]))
    args = ["-R", Q, "-m", "rpp", "--name", "x/r.run=nothing", "x/r.run", "bm25.run"]
    for module in ("eval", "compare"):
        got = _warnings(module, args, tmp_path)
        assert any(w.startswith("nothing: none of the run's topics is in ") for w in got), (module, got)
    with pytest.warns(pref_eval.errors.PrefEvalWarning, match=r"^r\.run: none of the run's topics is in "):
        pref_eval.preferences(Q, [str(tmp_path / "x" / "r.run"), str(tmp_path / "bm25.run")], ["rpp"])
