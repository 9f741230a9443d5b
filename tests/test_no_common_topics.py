"""A run that shares no topic with the qrels (the qrels of another collection, another topic numbering).

trec_eval 10 (``trec_eval.c``) stops at the first qrels topic the run lacks ("result qid '1' not found in
qrels", exit 4, stdout empty), as for any missing topic; with ``-c`` it evaluates every qrels topic as an empty
ranking (zeros, exit 0). zelo_trec printed the missing-topics warning first, whose advice (``use -c to count
them as zero``) is not the fix, then the error: two lines. Now one line naming both files and some topics of
each, exit 2 (our code for bad input, docs/differences.md); the same for zelo_eval's metric mode (serially,
``--jobs``), ``-R prefs`` and the API. Preference mode keeps pref_eval.py's answer on stdout (the run retrieved
nothing on every query: all zeros, worked by hand below) and warns once per such run.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import ROOT

import pref_eval
from pref_eval.errors import EvaluationError, PrefEvalWarning

TREC_EVAL = Path("/tmp/trec_eval/trec_eval")  # built from usnistgov/trec_eval v10.0 (not in CI)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "q.prefs").write_text("1 0 0 d1 1\n1 0 0 d2 0\n")
    (tmp_path / "r.run").write_text("2 Q0 d1 1 1.0 r\n5 Q0 d1 1 1.0 r\n")  # topics 2 and 5: none in the qrels
    (tmp_path / "s.run").write_text("7 Q0 d2 1 1.0 s\n")
    (tmp_path / "ok.run").write_text("1 Q0 d1 1 1.0 ok\n")
    return tmp_path


def _run(module, *args, cwd):
    return subprocess.run([sys.executable, "-m", f"pref_eval.cli.{module}", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _one_error_line(p, prog, qrels="q.qrels"):
    assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert p.stderr == (f"{prog}: r.run: no queries with both results and relevance info: none of the run's topics "
                        f"is in {qrels} (run 2 topics: '2', '5'; qrels 1 topic: '1')\n"), p.stderr


@pytest.mark.parametrize("args", [["q.qrels", "r.run"], ["-q", "-m", "map", "q.qrels", "r.run"],
                                  ["-R", "prefs", "-m", "prefs_simp", "q.prefs", "r.run"]])
def test_zelo_trec_one_line(files, args):
    p = _run("trec", *args, cwd=files)
    _one_error_line(p, "zelo_trec", args[-2])
    if TREC_EVAL.exists():  # trec_eval also refuses it (its own exit code, 4), printing nothing on stdout
        t = subprocess.run([str(TREC_EVAL), *args], capture_output=True, text=True, cwd=files, timeout=60)
        assert t.returncode != 0 and t.stdout == "", t


def test_zelo_trec_c_evaluates_every_qrels_topic_as_trec_eval(files):
    """``-c``: no error; the qrels topic is an empty ranking (trec_eval 10: num_ret 0, map 0). One warning names
    the run's topics, none evaluated (trec_eval -c says nothing: a run numbered `001` for `1` scored 0; g29)."""
    p = _run("trec", "-c", "-m", "num_ret", "-m", "map", "q.qrels", "r.run", cwd=files)
    assert (p.returncode, p.stderr) == (0, "zelo_trec: warning: r.run: 2 run topics not in q.qrels, not evaluated: "
                                           "'2', '5'\n")
    assert p.stdout == "num_ret               \tall\t0\nmap                   \tall\t0.0000\n"
    if TREC_EVAL.exists():
        t = subprocess.run([str(TREC_EVAL), "-c", "-m", "num_ret", "-m", "map", "q.qrels", "r.run"],
                           capture_output=True, text=True, cwd=files, timeout=60)
        assert (t.returncode, t.stdout) == (0, p.stdout)


@pytest.mark.parametrize("args", [["-m", "map"], ["-m", "map", "-o", "tsv"], ["-m", "map", "--jobs", "2"],
                                  ["-m", "map", "-o", "markdown"]])
def test_zelo_eval_metric_mode_one_line(files, args):
    """Also when another run of the command is fine (it was: the first run's warnings, then the error)."""
    p = _run("eval", "-R", "q.qrels", *args, "ok.run", "r.run", cwd=files)
    _one_error_line(p, "zelo_eval")


def test_zelo_eval_preference_mode_keeps_pref_eval_py_and_warns_once_per_run(files):
    p = _run("eval", "-R", "q.qrels", "-m", "rpp", "-m", "ap", "r.run", "s.run", "ok.run", cwd=files)
    assert p.returncode == 0, p.stderr
    # by hand: on topic 1 r.run and s.run retrieve nothing (AP 0, RPP 0 between them); ok.run retrieves d1 at
    # rank 1 (AP 1, preferred: RPP = 1 over each of them)
    assert p.stdout == (
        '{"qid": "all", "runi": "r.run", "runj": "s.run", "sample": 0, "rpp": 0.0, "ap": 0.0}\n'
        '{"qid": "all", "runi": "r.run", "runj": "ok.run", "sample": 0, "rpp": -1.0, "ap": -1.0}\n'
        '{"qid": "all", "runi": "s.run", "runj": "ok.run", "sample": 0, "rpp": -1.0, "ap": -1.0}\n')
    lines = p.stderr.splitlines()
    assert [ln.split(":")[1] for ln in lines] == [" warning"] * 2, p.stderr
    assert lines[0].startswith("zelo_eval: warning: r.run: none of the run's topics is in q.qrels (1 query "
                               "evaluated: '1'); preference mode scores it as retrieving nothing")
    assert lines[1].startswith("zelo_eval: warning: s.run: ")
    assert _run("eval", "-Q", "-R", "q.qrels", "-m", "rpp", "r.run", "ok.run", cwd=files).stderr == ""


def test_api(files, monkeypatch):
    monkeypatch.chdir(files)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the error alone: no missing-topics warning before it
        with pytest.raises(EvaluationError) as e:
            pref_eval.api.evaluate("q.qrels", ["ok.run", "r.run"], ["map"])
        assert str(e.value) == ("r.run: no queries with both results and relevance info: none of the run's topics "
                                "is in q.qrels (run 2 topics: '2', '5'; qrels 1 topic: '1')")
        with pytest.raises(EvaluationError, match=r"none of the run's topics is in <qrels> \(run 1 topic: '7'"):
            pref_eval.calc_aggregate(["AP"], {"1": {"d1": 1}}, {"7": {"d1": 1.0}})
    with pytest.warns(PrefEvalWarning, match="r.run: none of the run's topics is in q.qrels"):
        df = pref_eval.api.preferences("q.qrels", ["r.run", "ok.run"], ["rpp"], per_query=False)
    assert df["value"].tolist() == [-1.0]


def test_zelo_compare(files):
    """zelo_compare -R: a metric is the one error line; a preference measure pref_eval.py's values (by hand: ok.run
    retrieves the relevant d1, r.run nothing: RPP 1) with the preference-mode warning (it was silent)."""
    _one_error_line(_run("compare", "-R", "q.qrels", "-m", "map", "ok.run", "r.run", cwd=files), "zelo_compare")
    p = _run("compare", "-R", "q.qrels", "-m", "rpp", "ok.run", "r.run", cwd=files)
    assert p.returncode == 0 and "ok.run  r.run  1.0000" in p.stdout, p.stdout
    assert p.stderr.startswith("zelo_compare: warning: r.run: none of the run's topics is in q.qrels") \
        and p.stderr.count("\n") == 1, p.stderr
