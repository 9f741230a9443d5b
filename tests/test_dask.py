"""The dask path on a LocalCluster (2 worker processes, loopback only): byte-identical to one process.

* ``zelo_fit --scheduler`` and ``zelo_eval --scheduler`` against the serial commands;
* ``pref_eval.dask.fit_judgments`` on a dask DataFrame partitioned by query, written with the
  command's TSV writer, against ``zelo_fit``'s output;
* ``pref_eval.dask.evaluate_runs`` on a bag of run files against :func:`pref_eval.evaluate`.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from pref_eval.errors import UsageError

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow  # a LocalCluster of 2 processes takes several seconds to start

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
RUNS = [os.path.join(ROOT, "runs", r) for r in ("bm25.run", "dense.run", "rerank.run")]
QRELS = os.path.join(ROOT, "qrels", "dl19-sample.qrels")


@pytest.fixture(scope="module")
def cluster():
    os.environ["PYTHONPATH"] = ENV["PYTHONPATH"]  # worker processes import this checkout
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as c:
        yield c


def _run(module: str, *args: str) -> bytes:
    p = subprocess.run([sys.executable, "-m", f"pref_eval.cli.{module}", *args], capture_output=True, env=ENV)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout


@pytest.fixture(scope="module")
def judgments(tmp_path_factory):
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(40, 10, 2, 1.5, 11)
    path = tmp_path_factory.mktemp("dask") / "j.jsonl"
    with open(path, "w") as fh:
        for k in range(len(q)):
            fh.write(json.dumps({"qid": f"q{q[k]}", "doc_a": f"d{a[k]}", "doc_b": f"d{b[k]}",
                                 "score": float(s[k])}) + "\n")
    return path


def test_zelo_fit_scheduler(cluster, judgments):
    serial = _run("fit", "-J", str(judgments))
    assert serial.count(b"\n") == 401
    assert _run("fit", "-J", str(judgments), "--scheduler", cluster.scheduler_address) == serial


def test_zelo_eval_scheduler(cluster):
    args = ["-R", QRELS, "-o", "tsv", "-q", "-m", "official", *RUNS]
    serial = _run("eval", *args)
    assert _run("eval", "--scheduler", cluster.scheduler_address, *args) == serial


@pytest.mark.parametrize("args", [
    ["eval", "-R", QRELS, *RUNS],  # preference mode
    ["eval", "-R", QRELS, "--samples", "3", "--query_fraction", "0.5", "--seed", "4", *RUNS],
    ["eval", "-R", QRELS, "--samples", "2", "--label_fraction", "0.5", "-q", *RUNS],
    ["eval", "-R", QRELS, "-m", "map", "-o", "topics", "--median", "upper", *RUNS],
    ["eval", "-R", QRELS, "-m", "map", "--trec-eval-9", *RUNS],
    ["eval", "-R", QRELS, "--keep-going", *RUNS, "BAD"],
    ["eval", "-R", QRELS, "-m", "map", "--keep-going", *RUNS, "BAD"],
    ["fit", "-J", "JUDGMENTS", "--qrels", "-", "-Q"],
    ["fit", "-J", "JUDGMENTS", "--diagnostics", "-", "-Q"],
    ["fit", "-J", "JUDGMENTS", "--output-format", "zbench", "-Q"],
], ids=["pref", "pref-samples", "pref-label-fraction", "topics", "trec9", "pref-keep-going", "metric-keep-going",
        "fit-qrels", "fit-diagnostics", "fit-zbench"])
def test_scheduler_same_bytes_in_every_mode(cluster, judgments, tmp_path, args):
    """Session 23 (j32): the modes test_zelo_*_scheduler does not run -- the same stdout, stderr and exit status
    with and without --scheduler (a bad run under --keep-going: exit 2 both ways, the same lines)."""
    (tmp_path / "bad.run").write_text("1 Q0 d 1 1 x\nthis is bad\n")
    args = [str(tmp_path / "bad.run") if a == "BAD" else str(judgments) if a == "JUDGMENTS" else a for a in args]

    def run(*more):
        p = subprocess.run([sys.executable, "-m", f"pref_eval.cli.{args[0]}", *args[1:], *more], capture_output=True,
                           env=ENV, timeout=300)
        return p.returncode, p.stdout, p.stderr
    serial = run()
    assert serial[0] == (2 if "--keep-going" in args else 0) and serial[1], serial[2]
    assert run("--scheduler", cluster.scheduler_address) == serial


def test_fit_judgments_dataframe(cluster, judgments):
    """On query boundaries with ``partitioned_by_query=True`` (no shuffle), and split anywhere (the default
    shuffle, distributed's own on a cluster): zelo_fit's bytes."""
    import dask.dataframe as dd
    import pandas as pd

    from pref_eval.dask import fit_judgments
    from pref_eval.output.zelo_scores import write_scores_columns

    with open(judgments) as fh:  # floats exactly as the command reads them
        pdf = pd.DataFrame([json.loads(line) for line in fh])
    # partitions on query boundaries (q0-q12, q13-q29, q30-q39), file order kept
    cuts = [0, 13 * 20, 30 * 20, len(pdf)]
    parts = [pdf.iloc[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    on_bounds = dd.concat([dd.from_pandas(p, npartitions=1) for p in parts])
    shuffled = pdf.sample(frac=1.0, random_state=5)  # every query split over the 3 partitions
    split = dd.from_pandas(shuffled, npartitions=3, sort=False)
    want = _run("fit", "-J", str(judgments))
    with distributed.Client(cluster) as client:
        for ddf, by_query, order in ((on_bounds, True, pdf), (split, False, shuffled)):
            out = fit_judgments(ddf, partitioned_by_query=by_query).compute(scheduler=client)
            assert not out.duplicated(["qid", "docno"]).any()
            buf = io.StringIO()
            queries = list(dict.fromkeys(order["qid"]))
            docs = [list(out["docno"][out["qid"] == qid]) for qid in queries]
            rows = pd.concat([out[out["qid"] == qid] for qid in queries])
            write_scores_columns(buf, queries, docs, rows["score"].to_numpy(), rows["se"].to_numpy())
            # zelo_fit on the shuffled lines: the same scores, the documents in their new first-appearance order
            assert buf.getvalue().encode() == (want if order is pdf else _fit_lines(order))
        with pytest.raises(UsageError, match=r"^judgments: query 'q\d+' is in partitions 0 and 1, but "):
            fit_judgments(split, partitioned_by_query=True).compute(scheduler=client)


def _fit_lines(frame) -> bytes:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as fh:
        for r in frame.itertuples(index=False):
            fh.write(json.dumps(dict(qid=r.qid, doc_a=r.doc_a, doc_b=r.doc_b, score=r.score)) + "\n")
        fh.flush()
        return _run("fit", "-J", fh.name)


def test_evaluate_runs_bag(cluster):
    import dask.bag as db

    import pref_eval
    from pref_eval.dask import MEASURE_COLUMNS, evaluate_runs

    with distributed.Client(cluster) as client:
        rows = evaluate_runs(QRELS, db.from_sequence(RUNS, npartitions=3), ["map", "ndcg_cut.10"],
                             summary=True).compute(scheduler=client)
    want = pref_eval.evaluate(QRELS, {os.path.basename(r): r for r in RUNS}, ["map", "ndcg_cut.10"], summary=True)
    assert [tuple(r) for r in want[list(MEASURE_COLUMNS)].itertuples(index=False)] == rows


def test_bad_input_on_the_workers_is_one_error_and_no_worker_log(cluster, tmp_path):
    """A bad run line or a bad judgment row read in a worker process: the client raises the error
    ``pref_eval.api`` raises for it (same class and message; InputError pickles), at once, and the worker logs
    no "Compute Failed" record with its traceback (tests/test_dask_bad_input.py: the same on one process)."""
    import dask.bag as db
    import dask.dataframe as dd
    import pandas as pd

    import pref_eval
    from pref_eval.dask import evaluate_runs, fit_judgments
    from pref_eval.errors import InputError, UsageError

    bad = tmp_path / "bad.run"
    bad.write_text("1037798 Q0 d1 1 1.0 r\nbad line here\n")
    with pytest.raises(InputError) as want:
        pref_eval.api.evaluate(QRELS, [str(bad)], ["map"])
    frame = pd.DataFrame(dict(qid=["q1"] * 2, doc_a=["a", "b"], doc_b=["b", "c"], score=[1.0, 7.0]))
    with distributed.Client(cluster) as client:
        with pytest.raises(InputError) as got:
            evaluate_runs(QRELS, db.from_sequence([RUNS[0], str(bad)], npartitions=2), ["map"]).compute(
                scheduler=client)
        assert str(got.value) == str(want.value)
        with pytest.raises(UsageError, match=r"^runs: expected run file paths, got int 3$"):
            evaluate_runs(QRELS, db.from_sequence([3]), ["map"]).compute(scheduler=client)
        with pytest.raises(UsageError, match=r"row 1 \(qid 'q1'\) has 7.0$"):
            fit_judgments(dd.from_pandas(frame, npartitions=1)).compute(scheduler=client)
        logs = [msg for w in client.get_worker_logs().values() for _, msg in w]
    assert not [m for m in logs if "Compute Failed" in m], logs
