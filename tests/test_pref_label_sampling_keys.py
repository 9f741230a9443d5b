"""--label_fraction with query ids that are prefixes of others (TREC topics 1 and 10), worked by hand.

pref_eval.py's ``--label_fraction F --label_fraction_policy pool`` keeps, in each query, the
max(int(n·F), 1) relevant documents found in the most run lines (ties: docid descending). Our
(qid, docno) keys were the two byte strings concatenated: numpy drops the NUL separator, so
query 1 + document 0d1 was the same key as query 10 + document d1 (dropping one dropped the other),
and the concatenations did not sort as the pairs do, so the pool counts were looked up in an unsorted
array (labels kept by the wrong counts). The expected values are worked by hand below; diazf/pref_eval's
pref_eval.py (28d7bd3) run on these two cases prints exactly them (session 9's differential trial: 150
random cases with the pool policy, all equal after the fix, 4 different before).
"""
from __future__ import annotations

import json
import subprocess
import sys


def _run(tmp_path, *args):
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", *args], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return {(o["qid"], o["run"]): o["rr"] for o in map(json.loads, r.stdout.splitlines()) if o.get("type") == "metric"}


def test_pool_counts_with_prefix_query_ids(tmp_path):
    # query 1: d3 in 2 run lines, d6 in none -> keep d3; query 10: d4 in 2 lines, d1 in 1 -> keep d4
    (tmp_path / "qrels").write_text("1 0 d3 1\n1 0 d6 1\n10 0 d1 1\n10 0 d4 1\n")
    (tmp_path / "input.A").write_text("1 Q0 d3 1 5 A\n1 Q0 x 2 4 A\n10 Q0 d4 1 3 A\n10 Q0 d1 2 2 A\n")
    (tmp_path / "input.B").write_text("1 Q0 y 1 5 B\n1 Q0 d3 2 4 B\n10 Q0 d1 1 3 B\n10 Q0 d4 2 2 B\n")
    got = _run(tmp_path, "-R", "qrels", "-m", "rr", "-q", "-n", "--label_fraction", "0.5",
               "--label_fraction_policy", "pool", "input.A", "input.B")
    # rr with the kept label only: A finds d3 at 1 and d4 at 1; B finds d3 at 2 and d4 at 2
    assert got == {("1", "A"): 1.0, ("1", "B"): 0.5, ("10", "A"): 1.0, ("10", "B"): 0.5}


def test_dropped_label_does_not_drop_another_querys_label(tmp_path):
    # query 1: z in 2 lines, 0d1 in 1 -> 0d1 dropped; query 10: d1 in 2 lines, w in 1 -> w dropped, d1 kept
    # (query 1 + 0d1 and query 10 + d1 concatenate to the same bytes '10d1')
    (tmp_path / "qrels").write_text("1 0 0d1 1\n1 0 z 1\n10 0 d1 1\n10 0 w 1\n")
    (tmp_path / "input.A").write_text("1 Q0 z 1 5 A\n1 Q0 0d1 2 4 A\n10 Q0 w 1 3 A\n10 Q0 d1 2 2 A\n")
    (tmp_path / "input.B").write_text("1 Q0 q 1 5 B\n1 Q0 z 2 4 B\n10 Q0 d1 1 3 B\n")
    got = _run(tmp_path, "-R", "qrels", "-m", "rr", "-q", "-n", "--label_fraction", "0.5",
               "--label_fraction_policy", "pool", "input.A", "input.B")
    assert got == {("1", "A"): 1.0, ("1", "B"): 0.5, ("10", "A"): 0.5, ("10", "B"): 1.0}


def test_dropped_first_label_keeps_the_query_in_its_place(tmp_path):
    # Fuzz case 1:25 of tools/fuzz_pref_eval.py, reduced. Query A's first relevant line (a1, in no run)
    # is the label the pool policy drops; pref_eval.py deletes it from its dict of queries, so A stays
    # first (qrels order). We recomputed the order from the lines left, and printed B before A.
    (tmp_path / "qrels").write_text("A 0 a1 1\nB 0 b1 1\nA 0 a2 1\n")
    (tmp_path / "input.X").write_text("A Q0 a2 1 5 X\nB Q0 b1 1 5 X\n")
    (tmp_path / "input.Y").write_text("A Q0 n 1 5 Y\nA Q0 a2 2 4 Y\nB Q0 b1 1 5 Y\n")
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", "qrels", "-m", "rr", "-q", "-n",
                        "--label_fraction", "0.5", "--label_fraction_policy", "pool", "input.X", "input.Y"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(o["qid"], o.get("run"), o["rr"]) for o in lines] == [
        ("A", None, 0.5), ("A", "X", 1.0), ("A", "Y", 0.5), ("B", None, 0.0), ("B", "X", 1.0), ("B", "Y", 1.0)]
