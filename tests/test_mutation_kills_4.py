"""Mutation round 4 (m33, session 23): tests that kill mutants the suite let live, each with an outside
oracle (a documented message, a hand-worked value, a package computed live). The mutants and the equivalent
ones are listed in NOTES.md (m33's entry)."""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.errors import UsageError
from pref_eval.stats.complete_fill import fill_missing


def test_complete_fill_names_the_lacking_run_and_query():
    """``-P -c -m yaap``: the refusal names the run and the query it lacks (run B, the 2nd of 2, lacks t3,
    the 3rd of 3: the existing case had both at index 1, so the query found along the runs' axis passed)."""
    X = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, np.nan]])
    present = ~np.isnan(X)
    with pytest.raises(UsageError, match=r"run 'B' lacks query 't3'"):
        fill_missing(X, present, "yaap", ["t1", "t2", "t3"], ["A", "B"])
    X = np.array([[np.nan, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    with pytest.raises(UsageError, match=r"run 'A' lacks query 't1'"):
        fill_missing(X, ~np.isnan(X), "yaap", ["t1", "t2", "t3"], ["A", "B", "C"])


def test_power_of_a_negative_base_is_numpy_s():
    """libm.power's documented split: the C library's pow for a finite base > 0, numpy's for another base (for
    -0.8 ** k the two differ in the last bit of 6 of these 3,000 on an AVX-512 CPU, so `isfinite(b) and b > 0`
    mutated to `or` is seen there; elsewhere numpy calls the C library and they agree)."""
    from pref_eval import libm

    x = np.arange(3000, dtype=np.float64)
    assert libm.power(-0.8, x).tolist() == np.power(-0.8, x).tolist()
    assert libm.power(0.0, np.array([-1.0, 0.0, 2.0])).tolist() == [np.inf, 1.0, 0.0]


def test_topic_table_rows_topics_in_byte_order_means_last():
    """``-o topics`` rows: topics in byte order with ``all`` (the means) last, measures in the order first met
    within a topic (docs/zelo_eval.md). Topic ``zz`` sorts after ``all`` in byte order and the rows arrive
    measure by measure: the key's qid and ``all`` tests mutated to the measure passed on numeric topics."""
    from pref_eval.output.table import topic_table

    rows = [(run, q, m, v) for m in ("map", "P_5") for run, v in (("A", 0.5), ("B", 0.25))
            for q in ("zz", "all", "10", "9")]
    got = [(r[0], r[1]) for r in list(topic_table(rows, ["A", "B"]))[1:]]
    assert got == [(q, m) for q in ("10", "9", "zz", "all") for m in ("map", "P_5")]


def test_pairs_pool_api_defaults(tmp_path, capsys):
    """pairs_pool's documented defaults: an unreadable run raises (``keep_going=False``), scores compared in
    double precision (``trec9=False``: 1.0000000001 beats 1.0; rounded to float32 they tie and docno
    descending puts z first), depth >= 1, nothing on stderr without a ``log``."""
    from pref_eval.api.pooling import pairs_pool
    from pref_eval.errors import InputError

    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 1.0000000001 t\n1 Q0 z 2 1.0 t\n")
    assert pairs_pool([str(run)], 1, output=None) == [("1", "a")]
    assert capsys.readouterr().err == ""
    assert pairs_pool([str(run)], 1, output=None, trec9=True) == [("1", "z")]
    with pytest.raises(InputError, match="no such file"):
        pairs_pool([str(run), str(tmp_path / "missing.run")], 1, output=None)
    with pytest.raises(UsageError, match="depth: expected an integer >= 1, got 0"):
        pairs_pool([str(run)], 0, output=None)


def test_pairs_pool_report_without_the_pool_and_nothing_when_every_run_fails(tmp_path):
    """``output=None`` with ``contributions``: only the report, hand-worked (one run, two documents pooled,
    both unique); every run unreadable under ``keep_going``: EvaluationError and no file at all (documented
    "nothing written")."""
    from pref_eval.api.pooling import pairs_pool
    from pref_eval.errors import EvaluationError

    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    report = tmp_path / "c.tsv"
    assert pairs_pool([str(run)], 5, output=None, contributions=str(report)) == [("1", "a"), ("1", "b")]
    assert report.read_text() == f"run\tpooled\tunique\n{run}\t2\t2\nall\t2\t2\n"
    out = tmp_path / "pool.txt"
    with pytest.raises(EvaluationError, match="none of the 1 runs could be read"):
        pairs_pool([str(tmp_path / "missing.run")], 5, output=str(out), keep_going=True)
    assert not out.exists()


def test_topics_jsonl_rows_hand_worked():
    """``-o topics-jsonl`` (docs/zelo_eval.md: ``qid, measure, runs, min, median, max`` and ``values``, null for
    a run lacking the topic), by hand: the default suite reached this writer only through a slow test."""
    import io
    import json

    from pref_eval.output.table import write_topics

    rows = [("A", "1", "map", 0.5), ("B", "1", "map", 0.25), ("A", "2", "map", 1.0), ("A", "all", "map", 0.75),
            ("B", "all", "map", 0.25)]
    out = io.StringIO()
    write_topics(out, rows, ["A", "B"], "topics-jsonl")
    assert [json.loads(x) for x in out.getvalue().splitlines()] == [
        {"qid": "1", "measure": "map", "runs": 2, "min": 0.25, "median": 0.375, "max": 0.5,
         "values": {"A": 0.5, "B": 0.25}},
        {"qid": "2", "measure": "map", "runs": 1, "min": 1.0, "median": 1.0, "max": 1.0,
         "values": {"A": 1.0, "B": None}},
        {"qid": "all", "measure": "map", "runs": 2, "min": 0.25, "median": 0.5, "max": 0.75,
         "values": {"A": 0.75, "B": 0.25}}]
    assert out.getvalue().endswith("}\n") and out.getvalue().count("\n") == 3
