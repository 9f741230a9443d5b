"""``pref_eval.dask`` with bad input, as a user of docs/dask.md would hand it: the same error classes and
messages as ``pref_eval.api`` (``evaluate`` / ``fit``) for the same mistake, raised before any task runs for
the options (no dask graph built), and one :class:`~pref_eval.errors.PrefEvalError` naming the row or line for
the data a task reads. Here on dask's synchronous scheduler (fast); the same on a LocalCluster's worker
processes, without the worker's "Compute Failed" log, in ``tests/test_dask.py`` (slow).

Before: ``level="x"`` a numpy UFuncTypeError from inside a task, ``depth=-1`` an EvaluationError of another
wording, ``depth=1.5`` / ``complete="yes"`` / ``summary="yes"`` / ``tol=0`` / ``tol=-1`` / ``max_iter=0`` /
``prior=nan`` / ``elo_offset=nan`` accepted (NaN scores or an unconverged fit returned), ``prior="x"`` a
TypeError, a list or a pandas frame an AttributeError, a bag of non-paths a TypeError in the task, a string
score a ValueError, a judgment of a document against itself fitted.
"""
from __future__ import annotations

import os
import shutil

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("dask.bag")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import pref_eval  # noqa: E402
from pref_eval.dask import evaluate_runs, fit_judgments  # noqa: E402
from pref_eval.errors import InputError, PrefEvalError, UsageError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QRELS = os.path.join(ROOT, "qrels", "dl19-sample.qrels")
RUN = os.path.join(ROOT, "runs", "bm25.run")
JUDGE = os.path.join(ROOT, "judgments", "dl19-sample.judge")
FRAME = pd.DataFrame(dict(qid=["q1"] * 3, doc_a=["a", "b", "c"], doc_b=["b", "c", "a"], score=[1.0, 0.0, 0.5]))


@pytest.fixture(autouse=True)
def sync_scheduler():
    with dask.config.set(scheduler="synchronous"):
        yield


def _same_error(ours, theirs):
    """``ours()`` raises what ``theirs()`` (pref_eval.api) raises: class and message."""
    with pytest.raises(PrefEvalError) as want:
        theirs()
    with pytest.raises(PrefEvalError) as got:
        ours()
    assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))
    return str(got.value)


@pytest.fixture
def bad_run(tmp_path):
    p = tmp_path / "bad.run"
    p.write_text("1037798 Q0 d1 1 1.0 r\n1037798 Q0 d2 2 0.5 r\nbad line here\n")
    return str(p)


@pytest.mark.parametrize("case", [
    dict(runs=["/no/such.run"]),
    dict(qrels="/no/such.qrels"),
    dict(qrels=5),
    dict(measures=["mapp"]),
    dict(level="x"), dict(level=1.5),
    dict(depth=-1), dict(depth=0), dict(depth=1.5),
    dict(complete="yes"), dict(summary="yes"),
    dict(runs="bad"),
])
def test_evaluate_runs_as_the_api(case, bad_run):
    args = dict(qrels=QRELS, runs=[RUN], measures=["map"])
    args.update(case)
    if args["runs"] == "bad":
        args["runs"] = [bad_run]
    runs, qrels, measures = args.pop("runs"), args.pop("qrels"), args.pop("measures")
    msg = _same_error(lambda: evaluate_runs(qrels, db.from_sequence(runs, npartitions=1), measures, **args).compute(),
                      lambda: pref_eval.api.evaluate(qrels, runs, measures, **args))
    if "bad.run" in msg:
        assert msg.endswith("bad.run:3: expected at least 6 fields 'qid iter docno rank score tag', found 3 fields")


def test_evaluate_runs_wrong_collection_types():
    with pytest.raises(UsageError, match=r"^runs: expected a dask bag of run file paths, got list"):
        evaluate_runs(QRELS, [RUN], ["map"])
    with pytest.raises(UsageError, match=r"^runs: expected a dask bag of run file paths, got str"):
        evaluate_runs(QRELS, RUN, ["map"])
    with pytest.raises(UsageError, match=r"^runs: expected run file paths, got int 1$"):
        evaluate_runs(QRELS, db.from_sequence([1]), ["map"]).compute()


@pytest.mark.parametrize("option, value", [
    ("prior", -1), ("prior", float("nan")), ("prior", "x"), ("weight_power", -0.5), ("tol", 0), ("tol", -1),
    ("max_iter", 0), ("max_iter", 1.5), ("scale", "x"), ("elo_offset", float("nan")),
])
def test_fit_judgments_options_as_the_api(option, value):
    _same_error(lambda: fit_judgments(dd.from_pandas(FRAME, npartitions=1), **{option: value}),
                lambda: pref_eval.api.fit(JUDGE, **{option: value}))


@pytest.mark.parametrize("change, message", [
    (dict(score=[1.0, 2.0, 0.5]), "judgment scores must be numbers in [0, 1] (1 = doc_b better): row 1 (qid 'q1') "
                                  "has 2.0"),
    (dict(score=[1.0, 0.0, float("nan")]), "judgment scores must be numbers in [0, 1] (1 = doc_b better): row 2 "
                                           "(qid 'q1') has nan"),
    (dict(score=["1", "x", "0.5"]), "judgment scores must be numbers in [0, 1] (1 = doc_b better): row 1 (qid 'q1') "
                                    "has 'x'"),
    (dict(weight=[1.0, 1.0, -1.0]), "judgment weights must be finite numbers >= 0: row 2 (qid 'q1') has -1.0"),
    (dict(doc_b=["b", "b", "a"]), "doc_a and doc_b are the same document 'b': row 1 (qid 'q1')"),
])
def test_fit_judgments_bad_rows_named(change, message):
    """The judgment readers refuse these lines of a file (InputError with file:line, e.g. "docA and docB are the
    same document"); a frame's row is named by its index label and query."""
    with pytest.raises(UsageError) as e:
        fit_judgments(dd.from_pandas(FRAME.assign(**change), npartitions=1)).compute()
    assert str(e.value) == message


def test_fit_judgments_wrong_collection_types():
    for bad, name in ((FRAME, "DataFrame"), ([1, 2], "list")):
        with pytest.raises(UsageError, match=rf"^judgments: expected a dask DataFrame .* got {name} "):
            fit_judgments(bad)
    with pytest.raises(UsageError, match=r"^judgments lack column\(s\) score "):
        fit_judgments(dd.from_pandas(FRAME.drop(columns="score"), npartitions=1))


def test_worker_log_filter_drops_only_our_errors():
    """The filter installed in a worker: distributed's "Compute Failed" record of one of our errors is dropped
    (the client raises it with its message), any other failure's record is kept."""
    import logging

    from pref_eval.dask import _drop_our_failures

    def record(exc_text: str) -> logging.LogRecord:
        return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1,
                                 "Compute Failed\nKey:       %s\nState:     %s\nTask:  %s\nException: %r\n"
                                 "Traceback: %r\n", ("k", "executing", "t", exc_text, "tb"), None)

    assert not _drop_our_failures(record(repr(InputError("bad.run", 3, "expected ..."))))
    assert not _drop_our_failures(record(repr(UsageError("level: expected an integer, got 'x'"))))
    assert _drop_our_failures(record(repr(ValueError("a bug"))))
    assert _drop_our_failures(logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1, "other", (),
                                                None))


def test_evaluate_runs_names_runs_as_zelo_eval(tmp_path):
    """Two run files with the same file name in two folders: named by the shortest unique path suffix
    (docs/run-ids.md: ``exp1/run.txt``, ``exp2/run.txt``), as ``pref_eval.evaluate`` and zelo_eval name them,
    over the whole bag (here the two are in different partitions). Before: both rows were called ``run.txt``.
    The same file twice is refused as they refuse it."""
    paths = []
    for folder, run in (("exp1", "bm25.run"), ("exp2", "rerank.run")):
        (tmp_path / folder).mkdir()
        shutil.copy(os.path.join(ROOT, "runs", run), tmp_path / folder / "run.txt")
        paths.append(str(tmp_path / folder / "run.txt"))
    paths.append(RUN)
    rows = evaluate_runs(QRELS, db.from_sequence(paths, npartitions=3), ["map"], summary=True).compute()
    assert sorted({r[0] for r in rows}) == ["bm25.run", "exp1/run.txt", "exp2/run.txt"]
    want = pref_eval.evaluate(QRELS, paths, ["map"], summary=True)
    assert [tuple(r) for r in want[["run", "qid", "measure", "value"]].itertuples(index=False)] == rows
    twice = [paths[0], os.path.join(tmp_path, "exp2", "..", "exp1", "run.txt")]
    _same_error(lambda: evaluate_runs(QRELS, db.from_sequence(twice, npartitions=2), ["map"]).compute(),
                lambda: pref_eval.evaluate(QRELS, twice, ["map"]))
