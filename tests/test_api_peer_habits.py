"""Habits of ir-measures / ranx / PyTerrier users that ended in a misleading error (session 22, helper u31).

- ranx's argument order ``evaluate(qrels, run, metrics)`` given to ``calc_aggregate`` / ``evaluator`` (whose
  order is ir-measures' ``(measures, qrels, run)``), and ir-measures' order given to ``evaluate`` (whose
  order is ranx's): the data landed where the measure names go and the error was "expected one run, got a
  list of 1 runs" or "unknown measure '<the whole run printed on one line>'";
- several cutoffs on one ir-measures / ranx name (``P@5,10``, ``ndcg@5,10``), which trec_eval's syntax
  takes (``P.5,10``) and these do not: "did you mean nDCG?" or "cutoff @5,10 must be an integer";
- parameters after the cutoff (``nDCG@10(judged_only=True)``): "values must be literals" only.

The accepted spellings the messages propose give ir-measures' / ranx's values (computed live).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import InputError, UsageError

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUN = str(ROOT / "runs" / "bm25.run")
RUN2 = str(ROOT / "runs" / "dense.run")
ORDER = (r"the order is evaluate\(qrels, runs, measures\) \(ranx.evaluate's order\) "
         r".*calc_aggregate\(measures, qrels, run\)")


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    q = pd.read_csv(QRELS, sep=" ", header=None, names=["query_id", "iteration", "doc_id", "relevance"], dtype=str)
    r = pd.read_csv(RUN, sep=" ", header=None, names=["query_id", "Q0", "doc_id", "rank", "score", "tag"],
                    dtype={"query_id": str, "doc_id": str})
    return q.astype({"relevance": int}), r


@pytest.mark.parametrize("call,got", [
    (lambda q, r: pref_eval.calc_aggregate(QRELS, RUN, ["nDCG@10"]), "the file '.*dl19-sample.qrels'"),
    (lambda q, r: pref_eval.calc_aggregate(Path(QRELS), Path(RUN), ["nDCG@10"]), "the path '.*dl19-sample.qrels'"),
    (lambda q, r: list(pref_eval.iter_calc(q, r, ["nDCG@10"])), "a DataFrame"),
    (lambda q, r: pref_eval.evaluator(QRELS, ["nDCG@10"]), "the file '.*dl19-sample.qrels'"),
    (lambda q, r: pref_eval.evaluator(q, ["nDCG@10"]), "a DataFrame"),
    (lambda q, r: pref_eval.evaluate(["nDCG@10"], QRELS, RUN), "the file '.*bm25.run'"),
    (lambda q, r: pref_eval.evaluate(["nDCG@10"], q, r), "a DataFrame"),
], ids=["calc_aggregate-files", "calc_aggregate-paths", "iter_calc-frames", "evaluator-file", "evaluator-frame",
        "evaluate-irm-order-file", "evaluate-irm-order-frame"])
def test_data_where_the_measures_go_names_the_order(call, got):
    """Was "expected one run, got a list of 1 runs" (the measure list taken for a run) or "unknown measure
    'runs/bm25.run'" / the whole DataFrame printed as a measure name."""
    q, r = _frames()
    with pytest.raises(UsageError, match=f"^measures: got {got} .*where the measure names go; {ORDER}"):
        call(q, r)


def test_run_files_among_the_measure_names():
    """``evaluate(measures, qrels, [run, run])``: the run list is where the measures go."""
    with pytest.raises(UsageError, match=f"^measures: got the file '.*bm25.run' .*among the measure names; {ORDER}"):
        pref_eval.evaluate(["nDCG@10"], QRELS, [RUN, RUN2])


def test_a_file_named_like_a_measure_is_still_the_measure(tmp_path, monkeypatch):
    """A file ``map`` in the working directory does not make ``map`` a path (no false refusal)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "map").write_text("not a qrels\n")
    assert math.isclose(pref_eval.calc_aggregate("map", QRELS, RUN)["map"],
                        pref_eval.calc_aggregate("AP", QRELS, RUN)["AP"], rel_tol=0, abs_tol=0)


def test_data_as_a_measure_name_is_one_short_line():
    """A run printed where a name goes was the whole run in the message (megabytes on one line), after a
    similarity search over it."""
    with pytest.raises(UsageError) as e:
        pref_eval.calc_aggregate([str({f"q{i}": {f"d{j}": j for j in range(50)} for i in range(20)})], QRELS, RUN)
    msg = str(e.value)
    assert len(msg) < 300 and "characters, not a measure name" in msg and "\n" not in msg


@pytest.mark.parametrize("name,fix", [
    ("P@5,10", "P@5 P@10"),
    ("nDCG@10,P@5", "nDCG@10 P@5"),
    ("RR@10,", "RR@10"),
    ("ndcg@5,10,20", "ndcg@5 ndcg@10 ndcg@20"),
    ("hit_rate@1,5", "hit_rate@1 hit_rate@5"),
    ("ndcg@5,10-l2", "ndcg@5-l2 ndcg@10-l2"),
])
def test_several_cutoffs_on_one_name_say_what_to_write(name, fix):
    """Were "did you mean nDCG?" / "see 'zelo_eval --list-measures'" / "cutoff @5,10,20 must be an integer";
    the proposed names are computed (ir-measures' values for its names: tests/test_irm_sweep.py)."""
    with pytest.raises(UsageError, match=f"one cutoff.*separated by spaces .*: '{fix}'$"):
        pref_eval.calc_aggregate([name], QRELS, RUN)
    got = pref_eval.calc_aggregate(fix, QRELS, RUN)
    assert list(got) and all(math.isfinite(v) for v in got.values())


@pytest.mark.parametrize("name,fix", [
    ("nDCG@10(judged_only=True)", "nDCG(judged_only=True)@10"),
    ("AP@10(rel=2)", "AP(rel=2)@10"),
])
def test_parameters_after_the_cutoff_say_where_they_go(name, fix):
    """Was "parameter @ got '10(judged_only=True)': values must be literals" only; ir-measures refuses it too."""
    with pytest.raises(UsageError, match=re.escape(f"parameters go before the cutoff: '{fix}'")):
        pref_eval.calc_aggregate([name], QRELS, RUN)
    ir_measures = pytest.importorskip("ir_measures")
    m = ir_measures.parse_measure(fix)
    theirs = ir_measures.calc_aggregate([m], ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))[m]
    assert math.isclose(pref_eval.calc_aggregate([fix], QRELS, RUN)[fix], theirs, rel_tol=1e-12)


@pytest.mark.slow  # ranx's Qrels/Run compile numba functions on first use
def test_ranx_order_with_ranx_objects():
    """``pref_eval.calc_aggregate(qrels, run, metrics)`` in ranx's order with ranx objects: was "expected one
    run, got a list of 1 runs"; ``evaluate`` takes that order and gives ranx's value."""
    ranx = pytest.importorskip("ranx")
    q, r = ranx.Qrels.from_file(QRELS, kind="trec"), ranx.Run.from_file(RUN2, kind="trec")
    with pytest.raises(UsageError, match=f"^measures: got a ranx.Qrels .*where the measure names go; {ORDER}"):
        pref_eval.calc_aggregate(q, r, ["ndcg@10"])
    with pytest.raises(UsageError, match=f"^measures: got a ranx.Run .*where the measure names go; {ORDER}"):
        pref_eval.evaluate(["ndcg@10"], q, r)
    df = pref_eval.evaluate(q, r, ["recall@10"], summary=True)
    assert math.isclose(df[df.qid == "all"].value.item(), ranx.evaluate(q, r, "recall@10"), rel_tol=1e-12)


@pytest.mark.parametrize("name", ["zndcg", "zndcg@10", "zacc", "zrecall@10", "zrecall@3,5"])
def test_zelo_score_measures_with_trec_qrels_say_what_they_need(name):
    """Were "unknown measure 'zrecall@3,5'; did you mean recall, Recall, ...?" (and with the comma rule above,
    a wrong split into 'zrecall@3 zrecall@5': zrecall@K,KGT is one measure)."""
    with pytest.raises(UsageError, match=f"^measure '{name}' is computed against a zELO score file: .*not TREC qrels"):
        pref_eval.calc_aggregate([name], QRELS, RUN)


_IRM_NUMRET = """
import ir_measures, sys
from ir_measures import NumRet, nDCG
q, r = list(ir_measures.read_trec_qrels(sys.argv[1])), list(ir_measures.read_trec_run(sys.argv[2]))
print(ir_measures.calc_aggregate([NumRet, nDCG(judged_only=True)@10], q, r)[NumRet])
"""


@pytest.mark.slow  # eight interpreters importing ir-measures
def test_numret_beside_a_judged_only_measure():
    """docs/differences.md: ir-measures 0.4.3 computes ``NumRet`` in the judged-only pytrec_eval call when a
    set's order (``PYTHONHASHSEED``) puts it there; ours is the number retrieved whatever else is asked."""
    import os
    import subprocess
    import sys

    pytest.importorskip("ir_measures")
    theirs = {float(subprocess.run([sys.executable, "-c", _IRM_NUMRET, QRELS, RUN], capture_output=True, text=True,
                                   check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout)
              for seed in range(1, 9)}
    ours = pref_eval.calc_aggregate(["NumRet", "nDCG(judged_only=True)@10"], QRELS, RUN)["NumRet"]
    assert ours == len(Path(RUN).read_text(encoding="utf-8").split("\n")) - 1  # the run file's lines
    assert ours in theirs and min(theirs) < ours


@pytest.mark.parametrize("fmt", ["wide-csv", "text"])
def test_table_of_runs_on_different_topics_says_which_queries(tmp_path, fmt):
    """``zelo_eval -o text|markdown|latex|wide-csv`` averages over the queries every run has (docs/zelo_eval.md),
    but warned "run lacks 1 of 8 qrels topics; averaging over the topics in both" and nothing about the
    queries the table left out (wide-csv has no footer): now zelo_compare's warning, naming them. The means
    are ir-measures' per-query nDCG@10 (live) averaged over the common queries."""
    from cli_harness import run_inproc

    ir_measures = pytest.importorskip("ir_measures")
    lines = Path(RUN).read_text(encoding="utf-8").splitlines()
    gone = lines[-1].split()[0]
    (tmp_path / "cut.run").write_text("\n".join(x for x in lines if x.split()[0] != gone) + "\n", encoding="utf-8")
    res = run_inproc("zelo_eval", ["-R", QRELS, "-m", "nDCG@10", "-o", fmt, RUN2, "cut.run"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stderr == f"zelo_eval: warning: nDCG@10: 1 quer(y/ies) missing for some run left out ({gone}); " \
                         "-c counts them as 0\n"
    theirs = {}
    for path in (RUN2, str(tmp_path / "cut.run")):
        pq = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10],
                                                                  ir_measures.read_trec_qrels(QRELS),
                                                                  ir_measures.read_trec_run(path))}
        theirs[Path(path).name] = sum(v for q, v in pq.items() if q != gone) / (len(pq) - (gone in pq))
    if fmt == "wide-csv":
        rows = [r.split(",") for r in res.stdout.decode().splitlines()[1:]]
        assert {r[1]: float(r[2]) for r in rows} == pytest.approx(theirs, rel=1e-12)
    else:
        assert "Queries: 7 (queries evaluated for every run)" in res.stdout.decode()


@pytest.mark.parametrize("column", ["name", "Tag"])
def test_runs_stacked_in_one_dataframe_say_how_to_pass_them(column):
    """Was "run:804: duplicate document ... trec_eval refuses duplicates" (the second run's first document
    that the first run has); the mapping the message shows gives ir-measures' values (live)."""
    ir_measures = pytest.importorskip("ir_measures")
    frames = [pd.DataFrame(ir_measures.read_trec_run(p)).assign(**{column: Path(p).stem}) for p in (RUN, RUN2)]
    both = pd.concat(frames, ignore_index=True)
    for call in (lambda: pref_eval.evaluate(QRELS, both, ["nDCG@10"]),
                 lambda: pref_eval.calc_aggregate(["nDCG@10"], QRELS, both)):
        with pytest.raises(InputError, match=rf"^run: a DataFrame of 2 runs \(column '{column}'; documents "
                                             rf"repeat within a query\): pass them .*"
                                             rf"dict\(tuple\(df.groupby\('{column}'\)\)\)$"):
            call()
    df = pref_eval.evaluate(QRELS, dict(tuple(both.groupby(column))), ["nDCG@10"], summary=True)
    got = dict(zip(df[df.qid == "all"].run, df[df.qid == "all"].value, strict=True))
    m = ir_measures.nDCG @ 10
    theirs = {Path(p).stem: ir_measures.calc_aggregate([m], ir_measures.read_trec_qrels(QRELS),
                                                        ir_measures.read_trec_run(p))[m] for p in (RUN, RUN2)}
    assert got == pytest.approx(theirs, rel=1e-12)
    # one run with a constant name column is one run
    assert pref_eval.calc_aggregate([m], QRELS, frames[0])[m] == pytest.approx(theirs["bm25"], rel=1e-12)


def test_tukey_legend_reads_as_a_sentence(tmp_path):
    """ranx's ``compare(stat_test="tukey")`` user: the legend said "family-wise by construction correction over 3
    comparison(s)" (the correction's label put where Holm's name goes)."""
    from cli_harness import run_inproc

    res = run_inproc("zelo_compare", ["-R", QRELS, "-m", "ndcg@10", "--tests", "tukey", RUN, RUN2], tmp_path)
    assert res.returncode == 0, res.stderr
    assert ("two-sided, family-wise over 1 comparison(s) per measure by construction (no further correction), "
            "alpha = 0.05.") in res.stdout.decode()
