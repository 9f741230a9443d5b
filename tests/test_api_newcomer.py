"""A newcomer's inputs to the Python API that used to end in a TypeError/KeyError/ValueError from deep
inside, or in a silently wrong number (session 16, helper u25): each is now one ``InputError`` naming
the input, and the accepted neighbours of each still give ir-measures' values (computed live).
"""
from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pref_eval
from pref_eval.errors import InputError

ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUN = str(ROOT / "runs" / "bm25.run")
QD = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
RD = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}}


@pytest.mark.parametrize("records", [
    [1.0, 2.0],                 # a column of scores
    pd.Series([0.5, 0.7]),      # df["score"] instead of df
    np.array([0.5, 0.7]),
    [None],
], ids=["floats", "series", "array", "none"])
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_records_that_are_not_records(records, which):
    """Was ``TypeError: object of type 'float' has no len()`` (or a wrong field split of a string)."""
    args = (records, RD) if which == "qrels" else (QD, records)
    with pytest.raises(InputError) as e:
        pref_eval.calc_aggregate("P@2", *args)
    msg = str(e.value)
    start = "<qrels>:1: expected (qid, docno, rel)" if which == "qrels" else "run:1: expected (qid, docno, score)"
    assert msg.startswith(start)
    assert ", got " in msg


def test_a_string_is_not_a_qrels_record():
    """``["q1 d1 1"]`` (lines, not records) had its characters read as fields: ``q``, `` ``, ``1``..."""
    for recs in (["abc"], ["q1 0 d1 1"]):
        with pytest.raises(InputError, match=r"^<qrels>:1: expected .*, got str"):
            pref_eval.calc_aggregate("P@2", recs, RD)


def test_list_of_dicts_says_what_to_do():
    """``df.to_dict("records")`` as qrels was ``KeyError: 0``."""
    recs = [{"query_id": "q1", "doc_id": "d1", "relevance": 1}]
    with pytest.raises(InputError, match=r"^<qrels>:1: .*got dict .*pandas\.DataFrame\(records\)"):
        pref_eval.calc_aggregate("P@2", recs, RD)
    # the advice works, and gives ir-measures' value
    got = pref_eval.calc_aggregate("P@2", pd.DataFrame(recs), RD)["P@2"]
    exp = ir_measures.calc_aggregate([ir_measures.P @ 2], pd.DataFrame(recs),
                                     pd.DataFrame([("q1", d, s) for d, s in RD["q1"].items()],
                                                  columns=["query_id", "doc_id", "score"]))[ir_measures.P @ 2]
    assert got == exp == 0.5


def _irm_run_frame():
    return pd.DataFrame(list(ir_measures.read_trec_run(RUN)))


@pytest.mark.parametrize("extra", ["score", "SCORE"])
def test_a_column_twice_is_refused(extra):
    """Two columns named score (pd.concat of a frame and its score column) was a numpy broadcast ValueError."""
    run = _irm_run_frame()
    run2 = pd.concat([run, run[["score"]].rename(columns={"score": extra})], axis=1)
    with pytest.raises(InputError, match=r"^run: DataFrame has 2 columns named 'score'"):
        pref_eval.calc_aggregate("nDCG@10", QRELS, run2)
    qrels = pd.DataFrame(list(ir_measures.read_trec_qrels(QRELS)))
    qrels2 = pd.concat([qrels, qrels[["relevance"]]], axis=1)
    with pytest.raises(InputError, match=r"^<qrels>: DataFrame has 2 columns named 'relevance'"):
        pref_eval.calc_aggregate("nDCG@10", qrels2, run)


def test_pyterrier_internal_docid_alone_is_refused():
    """A PyTerrier result without its docno column (``metadata=[]``, or a transformer that dropped it) has only
    ``docid``, Terrier's internal document number. It was read as the document id: every document unjudged,
    nDCG@10 = 0 with no error (or the wrong documents matched when the docnos are numbers)."""
    run = _irm_run_frame().rename(columns={"query_id": "qid", "doc_id": "docno"})
    run["docid"] = np.arange(len(run))
    with pytest.raises(InputError, match=r"^run: column 'docid' holds integers and there is no docno column"):
        pref_eval.calc_aggregate("nDCG@10", QRELS, run.drop(columns="docno"))
    with pytest.raises(InputError, match="holds integers"):  # pandas' nullable integers too
        pref_eval.calc_aggregate("nDCG@10", QRELS, run.drop(columns="docno").astype({"docid": "Int64"}))
    exp = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], list(ir_measures.read_trec_qrels(QRELS)),
                                     _irm_run_frame())[ir_measures.nDCG @ 10]
    assert exp > 0
    # with docno beside it, docid is not read; a docid column of string ids (Pyserini's hits) is the id
    assert pref_eval.calc_aggregate("nDCG@10", QRELS, run)["nDCG@10"] == pytest.approx(exp, abs=1e-12)
    as_str = run.drop(columns="docid").rename(columns={"docno": "docid"})
    assert pref_eval.calc_aggregate("nDCG@10", QRELS, as_str)["nDCG@10"] == pytest.approx(exp, abs=1e-12)


def test_subpackages_after_import_pref_eval():
    """The docs write ``pref_eval.api.judge``, ``pref_eval.errors.PrefEvalWarning``, ``pref_eval.log.Log``:
    after ``import pref_eval`` alone each was an AttributeError (in a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import warnings, pref_eval; warnings.filterwarnings('error', category=pref_eval.errors.PrefEvalWarning); "
            "print(pref_eval.api.judge.__name__, pref_eval.log.Log.__name__)\n"
            "try:\n    pref_eval.nosuch\nexcept AttributeError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    assert out == ["judge Log", "module 'pref_eval' has no attribute 'nosuch'"]


def _per_query():
    return pref_eval.evaluate(QRELS, [RUN, str(ROOT / "runs" / "dense.run")], ["map"])


def test_compare_per_query_table_refusals():
    """A ``value`` column twice was ``AttributeError: 'DataFrame' object has no attribute 'tolist'``; a value
    that is not a number ``ValueError: could not convert string to float``."""
    from pref_eval.errors import UsageError

    pq = _per_query()
    with pytest.raises(UsageError, match="per-query table has column.s. value twice"):
        pref_eval.compare(pd.concat([pq, pq[["value"]]], axis=1), tests=["t"])
    bad = pq.assign(value=pq.value.astype(object))
    bad.loc[bad.index[3], "value"] = "n/a"
    with pytest.raises(UsageError, match=r"value 'n/a' of run 'bm25.run', query '\S+', measure 'map' is not a number"):
        pref_eval.compare(bad, tests=["t"])
    # numbers as text are numbers: the t-test's p-value is scipy's on the paired values
    scipy_stats = pytest.importorskip("scipy.stats")
    wide = pq.pivot(index="qid", columns="run", values="value")
    exp = scipy_stats.ttest_rel(wide["bm25.run"], wide["dense.run"]).pvalue
    got = pref_eval.compare(pq.assign(value=pq.value.astype(str)), tests=["t"]).records["p_value"].iloc[0]
    assert got == pytest.approx(exp, rel=1e-12)


def test_file_functions_refuse_data_and_take_one_path_as_one():
    """fit() of a DataFrame read its column names as file names (``qid: no such file``); a list of tuples was
    ``TypeError`` from os.fspath; agreement("one.txt") read the path's characters as files (``-J -: standard
    input can be read once``)."""
    from pref_eval.errors import UsageError

    frame = pd.DataFrame({"qid": ["q1"], "doc_a": ["a"], "doc_b": ["b"], "score": [1.0]})
    for data, what in ((frame, "DataFrame"), ({"q1": []}, "dict"), ([("q1", "a", "b", 1.0)], "a list holding tuple")):
        with pytest.raises(UsageError, match=f"^judgments: expected a path or a list of paths, got {what}"):
            pref_eval.fit(data)
    judge = str(ROOT / "judgments" / "dl21-crowd-sample.txt")
    with pytest.raises(UsageError, match="needs at least two judgment files"):
        pref_eval.agreement(judge)


def test_pairs_queries_shapes():
    """``pairs({qid: docs})`` iterated the dict's keys: qid "q1" became query "q" with the one document "1"
    (no pair, no error); documents given as one string were its characters."""
    from pref_eval.errors import UsageError

    docs = ["a", "b", "c", "d"]
    assert pref_eval.pairs({"q1": docs, "q2": docs[:3]}, cycles=2, seed=3) == \
        pref_eval.pairs([("q1", docs), ("q2", docs[:3])], cycles=2, seed=3)
    with pytest.raises(UsageError, match="query 'q1': expected a list of docnos, got str 'abc'"):
        pref_eval.pairs([("q1", "abc")])
    with pytest.raises(UsageError, match=r"item 1 is \('q1', 'a', 'b'\); expected \(qid, \[docno, ...\]\)"):
        pref_eval.pairs([("q1", "a", "b")])


@pytest.mark.parametrize("matrix,msg", [
    ([[0.5, 1.7], [0.3, 0.5]], r"expected a probability in \[0, 1\], got 1.7 at row 1, column 2"),
    ([[0.5, float("nan")], [0.3, 0.5]], r"expected a probability in \[0, 1\], got nan at row 1, column 2"),
    ([[0.5, 0.7], [0.3]], r"expected a square matrix of probabilities"),
    ([[0.5]], r"expected a square matrix of at least 2 x 2, got shape \(1, 1\)"),
])
def test_simulate_matrix_checked_as_a_file_is(matrix, msg):
    """An array given to simulate() was not checked (1.7 and NaN simulated silently; a ragged list was numpy's
    ValueError); a matrix file with the same numbers is refused by zelo_simulate."""
    with pytest.raises(InputError, match="^matrix: " + msg):
        pref_eval.simulate(matrix, reps=2)


def test_simulate_options_refused_with_usage_errors(tmp_path):
    from pref_eval.errors import UsageError

    with pytest.raises(UsageError, match="unknown algorithm 'mergerucb'; expected one of dts, mergedts"):
        pref_eval.simulate_bandit("mergerucb", case="A")  # was KeyError
    with pytest.raises(UsageError, match="^case: expected A or B, got 'C'"):  # (the keyword since session 25)
        pref_eval.simulate_bandit("dts", case="C", reps=1, budget=5)  # was ValueError
    with pytest.raises(UsageError, match="^case: expected A or B"):
        pref_eval.simulate_adaptive(case="c", reps=1)
    for kw, msg in ((dict(ks="5"), "^ks: expected a list of integers, got str"),  # was TypeError
                    (dict(ks=[1]), "^ks: expected integers >= 2, got 1"),        # was NaN taus, silently
                    (dict(ks=[2.5]), "^ks: expected integers >= 2, got 2.5"),
                    (dict(cycles=[0]), "^cycles: expected integers >= 1, got 0"),
                    (dict(sigma="0.6"), "^sigma: expected a list of numbers, got str")):
        with pytest.raises(UsageError, match=msg):
            pref_eval.simulate_recovery(trials=1, **kw)


def test_output_over_an_input_names_the_input_option(tmp_path):
    """``zelo_fit -J F --qrels F`` said "output file F is the same file as --qrels F" (the output's own option);
    a positional input was named by its Python parameter (``runs``) rather than as the usage line names it."""
    import shutil

    from cli_harness import run_inproc

    shutil.copy(ROOT / "judgments" / "dl19-sample.judge", tmp_path / "j.judge")
    for d in ("runs", "qrels"):
        shutil.copytree(ROOT / d, tmp_path / d)
    before = (tmp_path / "j.judge").read_bytes()
    for opt in ("--qrels", "--diagnostics", "-o"):
        args = ["-J", "j.judge", opt, "j.judge", "-Q"] + (["-o", "s.tsv"] if opt != "-o" else [])
        res = run_inproc("zelo_fit", args, tmp_path)
        assert res.returncode == 2
        assert res.stderr == ("zelo_fit: output file j.judge is the same file as -J j.judge; "
                                       "refusing to overwrite it\n")
    assert (tmp_path / "j.judge").read_bytes() == before
    q, r1, r2 = "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run"
    for script, args in (("zelo_eval", ["-R", q, "-m", "map", r1, r2, "--output", r2]),
                         ("zelo_compare", ["-R", q, "-m", "map", r1, r2, "--output", r2])):
        res = run_inproc(script, args, tmp_path)
        assert res.returncode == 2
        assert res.stderr == f"{script}: output file {r2} is the same file as RUN {r2}; refusing to overwrite it\n"


def test_a_topic_named_all_is_not_dropped_silently(tmp_path):
    """A topic named ``all`` (trec_eval accepts it; its per-query line reads like the summary line) was left
    out of zelo_compare's tests as a summary row: with -R the means were those of the other topics (a.run's
    P_1 read 1.0000 where trec_eval's mean over both topics is 0.5000), with -P both 'all' rows dropped."""
    from cli_harness import run_inproc

    from pref_eval.errors import UsageError

    (tmp_path / "all.qrels").write_text("all 0 d1 1\nall 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "a.run").write_text("all Q0 d1 1 0.1 a\nall Q0 d2 2 2.0 a\nq2 Q0 d1 1 1.0 a\n")
    (tmp_path / "b.run").write_text("all Q0 d1 1 1.0 b\nall Q0 d2 2 0.5 b\nq2 Q0 d1 1 1.0 b\n")
    # the mean by hand: P@1 is 0 on 'all' (d2 first, non-relevant) and 1 on q2
    from pref_eval.errors import PrefEvalWarning

    topic_all = r"a qrels topic is named 'all': its rows read like the summary rows 'all'"
    with pytest.warns(PrefEvalWarning, match=topic_all):
        assert pref_eval.calc_aggregate("P@1", str(tmp_path / "all.qrels"), str(tmp_path / "a.run"))["P@1"] == 0.5
    for m in ("P.1", "rpp"):
        res = run_inproc("zelo_compare", ["-R", "all.qrels", "-m", m, "a.run", "b.run", "-Q"], tmp_path)
        assert res.returncode == 2 and res.stdout == b"", res
        assert res.stderr.startswith("zelo_compare: all.qrels: a topic named 'all' cannot be compared")
        assert res.stderr.count("\n") == 1
    warning = ("zelo_eval: warning: all.qrels: a topic is named 'all': its per-query lines read like the summary "
               "lines 'all' (zelo_compare refuses them; pref_aggregate and pref_eval.py leave the topic out): "
               "rename it\n")
    for fmt in ("tsv", "jsonl"):
        out = f"pq.{fmt}"
        res = run_inproc("zelo_eval", ["-R", "all.qrels", "-m", "P.1", "-q", "a.run", "b.run", "-o", fmt,
                                       "--output", out], tmp_path)
        assert res.returncode == 0 and res.stderr == warning
        res = run_inproc("zelo_compare", ["-P", out], tmp_path)
        assert res.returncode == 2 and res.stdout == b"", res
        line = 4 if fmt == "tsv" else 3  # the summary line of a.run comes after its two topics
        assert res.stderr.startswith(f"zelo_compare: {out}:{line}: a second row 'all' for run 'a.run', measure 'P_1'")
    for args in (["-q", "a.run", "b.run"], ["-q", "-m", "P.1", "a.run"]):  # preference and metric modes, -q only
        assert run_inproc("zelo_eval", ["-R", "all.qrels", *args], tmp_path).stderr == warning
        assert run_inproc("zelo_eval", ["-R", "all.qrels", *args[1:]], tmp_path).stderr == ""
        assert run_inproc("zelo_eval", ["-R", "all.qrels", "-Q", *args], tmp_path).stderr == ""
    with pytest.warns(PrefEvalWarning, match=topic_all) as got:  # once, at the caller's line
        pq = pref_eval.evaluate(str(tmp_path / "all.qrels"), [str(tmp_path / "a.run"), str(tmp_path / "b.run")],
                                ["P@1"], summary=True)
    assert len(got) == 1 and got[0].filename == __file__
    (tmp_path / "q2.qrels").write_text("q2 0 d1 1\n")  # no topic 'all': no warning (warnings are errors here)
    pref_eval.evaluate(str(tmp_path / "q2.qrels"), [str(tmp_path / "a.run")], ["P@1"], complete=True)
    with pytest.raises(UsageError, match="two rows 'all' for run 'a.run', measure 'P@1'"):
        pref_eval.compare(pq, tests=["t"])


JUDGE = "cmd:while read l; do echo 0.5; done"  # one answer per request line (``echo`` alone exits after one)


def _judge_inputs(tmp_path):
    (tmp_path / "pairs.tsv").write_text("q1\td1\td2\nq1\td2\td3\n")
    (tmp_path / "q.tsv").write_text("q1\tquery one\n")
    (tmp_path / "d.tsv").write_text("d1\tdoc one\nd2\tdoc two\nd3\tdoc three\n")
    return dict(queries=str(tmp_path / "q.tsv"), docs=str(tmp_path / "d.tsv"))


@pytest.mark.parametrize("kw,msg", [  # named by the keyword (session 25)
    (dict(concurrency=0), "concurrency: expected an integer 1..4096, got 0"),
    (dict(concurrency=2.5), "concurrency: expected an integer 1..4096, got 2.5"),  # was TypeError
    (dict(retries="3"), "retries: expected an integer 0..100, got '3'"),           # was TypeError
    (dict(retries=-1), "retries: expected an integer 0..100, got -1"),
    (dict(timeout=-1), "timeout: expected a finite number > 0, got -1"),
    (dict(timeout=float("inf")), "timeout: expected a finite number > 0, got inf"),
    (dict(rpm=0), "rpm: expected a finite number > 0, got 0"),
    (dict(backoff=-1), "backoff: expected a finite number >= 0, got -1"),
    (dict(budget_requests=-1), "budget_requests: expected an integer >= 0, got -1"),
    (dict(seed=-1), "seed: expected an integer 0..18446744073709551615, got -1"),
    (dict(pairs=[("q1", "d1", "d2")]), "pairs: expected a path, got list"),               # was TypeError (stat)
])
def test_judge_options_checked_as_the_command_line_does(tmp_path, kw, msg):
    """pref_eval.api.judge took what zelo_judge's option types refuse (concurrency 0, a negative timeout or
    retry count, ...) or failed with a TypeError; now the same ranges, UsageError, nothing created."""
    from pref_eval.errors import UsageError

    args = dict(pairs=str(tmp_path / "pairs.tsv"), judges=[JUDGE], store=str(tmp_path / "s.sqlite"),
                output=str(tmp_path / "o.jsonl"), **_judge_inputs(tmp_path))
    args.update(kw)
    with pytest.raises(UsageError, match="^" + msg.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        pref_eval.api.judge(**args)
    assert not (tmp_path / "s.sqlite").exists() and not (tmp_path / "o.jsonl").exists()


def test_judge_one_spec_as_a_string_is_one_judge(tmp_path):
    """``judges=JUDGE`` was read character by character (``--judge: ... got 'c'``)."""
    common = dict(pairs=str(tmp_path / "pairs.tsv"), **_judge_inputs(tmp_path))
    pref_eval.api.judge(judges=JUDGE, store=str(tmp_path / "a.sqlite"), output=str(tmp_path / "a.jsonl"),
                        **common)
    pref_eval.api.judge(judges=[JUDGE], store=str(tmp_path / "b.sqlite"), output=str(tmp_path / "b.jsonl"),
                        **common)
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    assert lines == (tmp_path / "b.jsonl").read_text().splitlines() and len(lines) == 2
    assert all(f'"votes": [0.5], "judges": ["{JUDGE}"]' in ln for ln in lines)


def test_judge_without_output_prints_nothing(tmp_path, capfd):
    """``pref_eval.api.judge`` without ``output=`` printed every judgment line on standard output (a notebook cell
    filled with JSON); now, as ``fit`` and ``pairs``, it writes nothing and the judgments are the session's
    ``results``; ``output="-"`` is standard output, as the command's default."""
    common = dict(pairs=str(tmp_path / "pairs.tsv"), judges=[JUDGE], **_judge_inputs(tmp_path))
    sess = pref_eval.api.judge(store=str(tmp_path / "a.sqlite"), **common)
    assert capfd.readouterr().out == ""
    assert [(r.qid, r.doc_a, r.doc_b, r.votes) for r in sess.results] == [("q1", "d1", "d2", [0.5]),
                                                                           ("q1", "d2", "d3", [0.5])]
    pref_eval.api.judge(store=str(tmp_path / "b.sqlite"), output="-", **common)
    out = capfd.readouterr().out.splitlines()
    assert len(out) == 2 and all('"votes": [0.5]' in ln for ln in out)


def test_agreement_strings_and_output_options(tmp_path):
    """``levels="pair"`` was read as the levels p, a, i, r (a UsageError naming them), ``names="ab"`` as the
    names a and b (silently); ``digits=-1`` and an unknown ``output_format`` were ValueErrors from the writer
    (after the computation), now UsageErrors before anything is read."""
    from pref_eval.errors import UsageError

    judges = [str(ROOT / "judgments" / "dl21-crowd-sample.txt"), str(ROOT / "judgments" / "dl21-gpt4o-sample.human")]
    one = pref_eval.agreement(judges, levels="pair", resamples=0)
    assert repr(one) == repr(pref_eval.agreement(judges, levels=["pair"], resamples=0)) and one  # NaN != NaN
    with pytest.raises(UsageError, match="^names: 1 given for 2 judgment files"):
        pref_eval.agreement(judges, names="ab", levels=["pair"], resamples=0)
    out = str(tmp_path / "a.txt")
    with pytest.raises(UsageError, match=r"^digits: expected an integer 0\.\.17, got -1"):
        pref_eval.agreement(judges, levels=["pair"], output=out, digits=-1)
    with pytest.raises(UsageError, match="^output_format: expected one of text, tsv"):
        pref_eval.agreement(judges, levels=["pair"], output=out, output_format="nope")
    assert not (tmp_path / "a.txt").exists()


def test_compare_runs_strings_and_report_options():
    """``measures="map"`` was read per character (``unknown measure 'm'``), ``runs="x.run"`` too (``r is given
    twice``); an unknown ``fmt`` or ``digits=-1`` were ValueErrors after the tests had run."""
    from pref_eval.cli.compare import FORMATS
    from pref_eval.api.comparison import _REPORT_FORMATS
    from pref_eval.errors import UsageError

    assert FORMATS == _REPORT_FORMATS
    runs = [RUN, str(ROOT / "runs" / "dense.run")]
    text = pref_eval.compare_runs(qrels=QRELS, runs=runs, measures="map P.5", tests="t")
    assert text == pref_eval.compare_runs(qrels=QRELS, runs=runs, measures=["map", "P.5"], tests="t")
    assert "P_5" in text
    with pytest.raises(UsageError, match="need at least two run files"):
        pref_eval.compare_runs(qrels=QRELS, runs=RUN, measures=["map"], tests="t")
    with pytest.raises(UsageError, match="^output_format: expected one of text, markdown, latex, csv, jsonl, got"):
        pref_eval.compare_runs(qrels=QRELS, runs=runs, measures=["map"], tests="t", output_format="nope")
    with pytest.raises(UsageError, match=r"^digits: expected an integer 0\.\.17, got -1"):
        pref_eval.compare_runs(qrels=QRELS, runs=runs, measures=["map"], tests="t", digits=-1)



def _data_where_paths_go(qrels, runs, per_query):
    """The command functions given data (qrels, runs, a per-query table) where they read files."""
    dense = str(ROOT / "runs" / "dense.run")
    return [
        (lambda: pref_eval.compare_runs(qrels=qrels, runs=[RUN, dense], measures=["map"]), "qrels"),
        (lambda: pref_eval.compare_runs(qrels=QRELS, runs=runs, measures=["map"]), "runs"),
        (lambda: pref_eval.compare_runs(per_query_file=per_query), "per_query_file"),
        (lambda: pref_eval.evaluate_runs(qrels, [RUN], measures=["map"], output_format="tsv"), "qrels"),
        (lambda: pref_eval.evaluate_runs(QRELS, runs, measures=["map"], output_format="tsv"), "runs"),
        (lambda: pref_eval.plot_systems(pref_eval.PlotValues(qrels=qrels, runs=(RUN, dense), measure="map"),
                                        pref_eval.PlotImage("x.png", 4, 3)), "qrels"),
        (lambda: pref_eval.plot_systems(pref_eval.PlotValues(per_query_file=per_query, measure="map"),
                                        pref_eval.PlotImage("x.png", 4, 3)), "per_query_file"),
    ]


def test_command_functions_refuse_data_where_paths_go(capsys):
    """``compare_runs(qrels={...})`` was an ``InputError`` whose file name was the whole qrels dict,
    ``compare_runs(per_query_file=DataFrame)`` pandas' "truth value of a DataFrame is ambiguous",
    ``evaluate_runs(qrels_dict, ...)`` / ``PlotValues(qrels=...)`` a ``TypeError`` from os.fspath, and
    ``evaluate_runs(qrels, "one.run")`` read the path's characters as runs ("r is given twice"). Now one
    UsageError naming the option and the function that takes data; the one path is one run (ir-measures'
    AP, live)."""
    from pref_eval.errors import UsageError

    pq = pref_eval.evaluate(QRELS, [RUN, str(ROOT / "runs" / "dense.run")], ["map"])
    for call, option in _data_where_paths_go(QD, [RD, RD], pq):
        with pytest.raises(UsageError, match=f"^{option}: expected a path.*, got .*for data: .*pref_eval"):
            call()
    capsys.readouterr()
    pref_eval.evaluate_runs(QRELS, RUN, measures=["map"], output_format="tsv")
    last = capsys.readouterr().out.splitlines()[-1].split("\t")
    exp = ir_measures.calc_aggregate([ir_measures.AP], ir_measures.read_trec_qrels(QRELS),
                                     ir_measures.read_trec_run(RUN))[ir_measures.AP]
    assert last[:3] == ["bm25.run", "all", "map"]
    assert float(last[3]) == pytest.approx(exp, rel=1e-12)


@pytest.mark.slow  # ranx's Qrels/Run compile numba functions on first use
def test_command_functions_refuse_ranx_objects():
    """The same with ranx's own objects (a TypeError before); the hinted call, ``pref_eval.compare(
    pref_eval.evaluate(ranx.Qrels, [ranx.Run, ...]))``, gives ranx.compare's paired t-test p-value (live)."""
    from pref_eval.errors import UsageError

    ranx = pytest.importorskip("ranx")
    qr = ranx.Qrels.from_file(QRELS, kind="trec")
    runs = [ranx.Run.from_file(p, kind="trec") for p in (RUN, str(ROOT / "runs" / "dense.run"))]
    for r, name in zip(runs, ("bm25", "dense"), strict=True):
        r.name = name
    for call, option in _data_where_paths_go(qr, runs, pref_eval.evaluate(qr, runs, ["map"])):
        with pytest.raises(UsageError, match=f"^{option}: expected a path.*, got .*for data: .*pref_eval"):
            call()
    # the shipped runs have tied scores, which ranx orders otherwise (docs/measures.md): give it trec_eval's order
    untied = []
    for r in runs:
        ranked = {q: sorted(d.items(), key=lambda x: (x[1], x[0]), reverse=True) for q, d in r.to_dict().items()}
        untied.append(ranx.Run({q: {doc: float(len(ds) - i) for i, (doc, _) in enumerate(ds)}
                                for q, ds in ranked.items()}, name=r.name))
    rep = ranx.compare(qr, untied, ["map@100"], stat_test="student", make_comparable=True)
    from pref_eval.peer_names import RANX_KEYWORDS

    ours = {k for k, w in RANX_KEYWORDS.items() if "api:compare" in w}
    assert ours <= set(inspect.signature(ranx.compare).parameters)
    res = pref_eval.compare(pref_eval.evaluate(qr, runs, ["map@100"]), tests=["student"])
    assert res.records["p_value"].iloc[0] == pytest.approx(rep.comparisons["bm25", "dense"]["map@100"]["p_value"],
                                                           rel=1e-9)


def test_compare_takes_pyterrier_experiment_perquery_table():
    """PyTerrier's ``pt.Experiment(..., perquery=True)`` returns ``name, qid, measure, value``: compare() said
    "per-query table lacks column(s) run". Now ``name`` is the run column when there is no ``run``; the
    p-value is scipy's ttest_rel (live) on the same values, and a ``run`` column still wins over ``name``."""
    scipy_stats = pytest.importorskip("scipy.stats")
    pq = pref_eval.evaluate(QRELS, [RUN, str(ROOT / "runs" / "dense.run")], ["map"])
    wide = pq.pivot(index="qid", columns="run", values="value")
    exp = scipy_stats.ttest_rel(wide["bm25.run"], wide["dense.run"]).pvalue
    res = pref_eval.compare(pq.rename(columns={"run": "name"}), tests=["t"])
    rec = res.records.iloc[0]
    assert (rec["run_a"], rec["run_b"]) == ("bm25.run", "dense.run")
    assert rec["p_value"] == pytest.approx(exp, rel=1e-9)
    both = pq.assign(name="one")
    assert pref_eval.compare(both, tests=["t"]).records["p_value"].iloc[0] == pytest.approx(exp, rel=1e-9)


def test_compare_reads_pyterrier_perquery_table_saved_as_a_file(tmp_path):
    """The same PyTerrier table saved by pandas (``to_csv`` with its index column, ``to_json(orient="records",
    lines=True)``) was refused by ``compare(path)`` and ``zelo_compare -P`` ("missing run"): the file reader now
    takes ``name`` as the run column too; the p-value is scipy's ttest_rel (live) on the same values."""
    import subprocess
    import sys

    scipy_stats = pytest.importorskip("scipy.stats")
    pq = pref_eval.evaluate(QRELS, [RUN, str(ROOT / "runs" / "dense.run")], ["map"])
    wide = pq.pivot(index="qid", columns="run", values="value")
    exp = scipy_stats.ttest_rel(wide["bm25.run"], wide["dense.run"]).pvalue
    pt = pq.rename(columns={"run": "name"})[["name", "qid", "measure", "value"]]
    pt.to_csv(tmp_path / "pt.csv")
    pt.to_json(tmp_path / "pt.jsonl", orient="records", lines=True)
    pt.to_csv(tmp_path / "pt.tsv", sep="\t", index=False)
    for f in ("pt.csv", "pt.jsonl", "pt.tsv"):
        rec = pref_eval.compare(str(tmp_path / f), tests=["t"]).records.iloc[0]
        assert (rec["run_a"], rec["run_b"]) == ("bm25.run", "dense.run"), f
        assert rec["p_value"] == pytest.approx(exp, rel=1e-9), f
    done = subprocess.run([sys.executable, "-c", "from pref_eval.cli.compare import main; main()", "-P",
                           str(tmp_path / "pt.csv"), "--tests", "t", "-o", "jsonl"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout.splitlines()[0])
    assert row["p_value"] == pytest.approx(exp, rel=1e-9)


def test_compare_unknown_option_is_a_usage_error_naming_ranx_counterpart():
    """``compare(pq, max_p=0.01)`` (ranx.compare's keyword) was Python's TypeError "unexpected keyword";
    now a UsageError naming ours (``alpha``), as iter_calc's unknown options are; the named option works."""
    from pref_eval.errors import UsageError

    pq = pref_eval.evaluate(QRELS, [RUN, str(ROOT / "runs" / "dense.run")], ["map"])
    with pytest.raises(UsageError, match=r"^compare: unknown option 'max_p' \(ranx.compare's; here: alpha\)"):
        pref_eval.compare(pq, tests=["t"], max_p=0.01)
    with pytest.raises(UsageError, match=r"^compare: unknown option 'foo' \(expected one of: tests, "):
        pref_eval.compare(pq, foo=1)
    assert not pref_eval.compare(pq, tests=["t"], alpha=0.01).records["significant"].iloc[0]  # p = 0.0275


class _UnnamedRanxRun:
    """What pref_eval sees of a ``ranx.Run({...})`` made without a name: its module, ``to_dict()``, name None."""
    __module__ = "ranx.data_structures.run"

    def __init__(self, d: dict):
        self.d, self.name = d, None

    def to_dict(self) -> dict:
        return self.d


def test_unnamed_ranx_runs_in_a_list_are_numbered():
    """``evaluate(qrels, [ranx.Run(d1), ranx.Run(d2)])``: ranx.Run's default name is None, and both were named
    ``run`` ("two runs share a name: ['run']"); now run1, run2 by position as for other data (a named one keeps
    its name), with ir-measures' values (live)."""
    r2 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    df = pref_eval.evaluate(QD, [_UnnamedRanxRun(RD), _UnnamedRanxRun(r2)], ["nDCG@10"])
    assert list(dict.fromkeys(df["run"])) == ["run1", "run2"]
    qrels = [ir_measures.Qrel(q, d, g) for q, ds in QD.items() for d, g in ds.items()]
    for name, run in (("run1", RD), ("run2", r2)):
        scored = [ir_measures.ScoredDoc(q, d, s) for q, ds in run.items() for d, s in ds.items()]
        exp = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, scored)
        assert df[df.run == name]["value"].iloc[0] == pytest.approx(exp[ir_measures.nDCG @ 10], rel=1e-12)
    named = _UnnamedRanxRun(r2)
    named.name = "bm25"
    assert list(dict.fromkeys(pref_eval.evaluate(QD, [_UnnamedRanxRun(RD), named], ["nDCG@10"])["run"])) == \
        ["run1", "bm25"]
