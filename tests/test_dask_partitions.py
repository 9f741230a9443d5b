"""``pref_eval.dask.fit_judgments`` whatever the partitioning: each query's rows are those ``zelo_fit`` writes.

Oracle: the ``zelo_fit`` command on the same judgments written as a JSONL file (its output is checked against
zbench and choix elsewhere). The judgments are in random order, so most partitionings split every query over
several partitions. Before: each partition was fitted on its own, so a split query came out twice (two rows per
document, each fitted from part of its judgments) -- wrong numbers and no error. Now the frame is shuffled by
query (its order kept) unless ``partitioned_by_query=True``, which skips the shuffle and refuses a split query
at ``.compute()``. Here on dask's synchronous scheduler (fast); ``tests/test_dask.py`` runs the same on a
LocalCluster's worker processes (slow).
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("dask.dataframe")

import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pref_eval.dask import fit_judgments  # noqa: E402
from pref_eval.errors import UsageError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.fixture(autouse=True)
def sync_scheduler():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """(the judgments as a pandas frame in random order, zelo_fit's output bytes for them)."""
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(12, 8, 2, 1.5, 5)
    frame = pd.DataFrame(dict(qid=[f"q{x}" for x in q], doc_a=[f"d{x}" for x in a], doc_b=[f"d{x}" for x in b],
                              score=s.astype(np.float64), weight=np.random.default_rng(3).uniform(0.5, 2, len(q))))
    frame = frame.iloc[np.random.default_rng(7).permutation(len(frame))].reset_index(drop=True)
    path = tmp_path_factory.mktemp("dask_parts") / "j.jsonl"
    with open(path, "w") as fh:
        for r in frame.itertuples(index=False):
            fh.write(json.dumps(dict(qid=r.qid, doc_a=r.doc_a, doc_b=r.doc_b, score=r.score, weight=r.weight)) + "\n")
    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", str(path)], capture_output=True, env=ENV)
    assert p.returncode == 0, p.stderr.decode()
    return frame, p.stdout


def as_zelo_fit_writes(out: pd.DataFrame, frame: pd.DataFrame) -> bytes:
    """``out`` written with zelo_fit's TSV writer, queries in zelo_fit's order (first appearance in ``frame``);
    each query's rows in their order in ``out``."""
    from pref_eval.output.zelo_scores import write_scores_columns

    assert not out.duplicated(["qid", "docno"]).any(), "a document fitted twice"
    queries = list(dict.fromkeys(frame["qid"]))
    rows = [out[out["qid"] == qid] for qid in queries]
    buf = io.StringIO()
    write_scores_columns(buf, queries, [list(r["docno"]) for r in rows],
                         np.concatenate([r["score"].to_numpy() for r in rows]),
                         np.concatenate([r["se"].to_numpy() for r in rows]))
    return buf.getvalue().encode()


def _query_blocks(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` sorted by query (stable: each query's judgments in file order), to be cut on query boundaries."""
    return frame.sort_values("qid", kind="stable", key=lambda s: s.str[1:].astype(int))


@pytest.mark.parametrize("npartitions", [1, 2, 7])
def test_any_partitioning_is_zelo_fit(judged, npartitions):
    frame, want = judged
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    assert ddf.npartitions == npartitions
    if npartitions > 1:  # every query split (the frame is in random order)
        parts = [set(p.compute()["qid"]) for p in ddf.to_delayed()]
        assert set.intersection(*parts[:2])
    assert as_zelo_fit_writes(fit_judgments(ddf).compute(), frame) == want


def test_partitioned_by_query_on_query_boundaries(judged):
    frame, want = judged
    blocks = _query_blocks(frame)
    qids = list(dict.fromkeys(blocks["qid"]))
    parts = [blocks[blocks["qid"].isin(qids[k::3])] for k in range(3)]  # each query in one partition
    ddf = dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])
    fast = fit_judgments(ddf, partitioned_by_query=True).compute()
    assert as_zelo_fit_writes(fast, frame) == want
    assert as_zelo_fit_writes(fit_judgments(ddf).compute(), frame) == want


def test_partitioned_by_query_refuses_a_split_query(judged):
    frame, _ = judged
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    first = [list(dict.fromkeys(p.compute()["qid"])) for p in ddf.to_delayed()]
    split = next(q for q in first[1] if q in first[0])
    with pytest.raises(UsageError) as e:
        fit_judgments(ddf, partitioned_by_query=True).compute()
    assert str(e.value).startswith(f"judgments: query {split!r} is in partitions 0 and 1, but "
                                   "partitioned_by_query=True says each query lies in one partition"), str(e.value)


def test_partitioned_by_query_is_a_flag():
    frame = pd.DataFrame(dict(qid=["q1"], doc_a=["a"], doc_b=["b"], score=[1.0]))
    with pytest.raises(UsageError, match=r"^partitioned_by_query: expected True or False, got 'yes'$"):
        fit_judgments(dd.from_pandas(frame, npartitions=1), partitioned_by_query="yes")
