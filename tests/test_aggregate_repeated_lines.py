"""pref_aggregate on a preference file in which a (query, runi, runj) appears on several lines.

pref_aggregate.py keeps a pair's last value (its per-query dict is keyed by ``runi:runj``), as it and
we do for a metric's (query, run); we summed every line, so concatenating two zelo_eval outputs that
share a pair of runs counted that pair twice and could reorder the runs. Worked by hand; pref_aggregate.py
(diazf/pref_eval 28d7bd3) prints the same orderings for the first file.
"""
from __future__ import annotations

import json
from pathlib import Path

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parent.parent


def _agg(path, *args):
    r = run_module_inproc("aggregate", ["-P", str(path), *args])  # in process: the records need no process
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_repeated_pair_counts_once_with_its_last_value(tmp_path):
    lines = [("A", "B", 0.3), ("A", "B", 0.3), ("B", "C", 0.8), ("A", "C", 0.0)]
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps({"qid": "1", "runi": a, "runj": b, "sample": 0, "type": "preference", "rpp": v})
                         + "\n" for a, b, v in lines))
    # A: +0.3 + 0.0 = 0.3, B: -0.3 + 0.8 = 0.5, C: -0.8 - 0.0 = -0.8 -> B A C (summing both A:B lines gave A B C)
    out = _agg(p, "-q")
    assert out[0]["rpp"] == ["B", "A", "C"]
    assert out[1]["rpp"] == {"type": "preference", "mc4": ["B", "A", "C"], "borda": ["B", "A", "C"]}
    # the last value wins, not the first
    p.write_text(p.read_text().replace('"rpp": 0.3}', '"rpp": 0.6}', 1))  # first A:B line now 0.6: no change
    assert _agg(p, "-q")[0]["rpp"] == ["B", "A", "C"]
    p.write_text(p.read_text() + json.dumps({"qid": "1", "runi": "A", "runj": "B", "sample": 0,
                                             "type": "preference", "rpp": 0.9}) + "\n")
    # last A:B = 0.9: A 0.9, B -0.1, C -0.8 -> A B C
    assert _agg(p, "-q")[0]["rpp"] == ["A", "B", "C"]


def test_concatenated_outputs_equal_one_output(tmp_path):
    runs = [str(ROOT / "runs" / f"{n}.run") for n in ("bm25", "dense", "rerank")]
    ev = ["-R", str(ROOT / "qrels/dl19-sample.qrels"), "-q", "-n", "-m", "rpp", "-m", "lexiprecision"]
    p2, p3 = run_module_inproc("eval", [*ev, *runs[:2]]), run_module_inproc("eval", [*ev, *runs])
    assert p2.returncode == p3.returncode == 0, p2.stderr + p3.stderr
    two, three = p2.stdout, p3.stdout
    (tmp_path / "three.jsonl").write_text(three)
    (tmp_path / "both.jsonl").write_text(two + three)  # bm25:dense twice, with the same values
    assert _agg(tmp_path / "both.jsonl", "-q") == _agg(tmp_path / "three.jsonl", "-q")


def test_repeats_found_once_for_all_lines():
    """``_repeats`` (one sort of all lines' keys, so that each measure skips its own np.unique when it
    says no) agrees with np.unique on random lines with and without a repeated (query, runi, runj)."""
    import numpy as np

    from pref_eval.rank_aggregation import Lines, _repeats

    rng = np.random.default_rng(4)
    for trial in range(200):
        n, nr = int(rng.integers(0, 40)), int(rng.integers(2, 9))
        q, a, b = rng.integers(0, 4, n), rng.integers(0, nr, n), rng.integers(0, nr, n)
        lines = Lines(q=q, a=a, b=b, vals={}, has={})
        key = (q * nr + a) * nr + b
        assert _repeats(lines, nr) == (len(np.unique(key)) < n), trial
