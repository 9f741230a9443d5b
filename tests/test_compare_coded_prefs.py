"""``zelo_compare -P`` tests a file's preference rows from the reader's codes (session 28, s38): the runi/runj
rows of ``zelo_eval -q`` and pref_eval.py's wide JSON lines reach ``compare_preferences``' pair x query matrices
as a :class:`pref_eval.io.coded.CodedTable` -- no DataFrame of the file is built (before: the reader's frame,
filtered, its string columns iterated in Python; 2.3 -> 1.0 of main's CPU on 1 M wide lines).

Oracles: ``scipy.stats.ttest_1samp`` on each pair's values as pandas' ``read_csv`` reads them (the queries every
pair has), the pairs in the order of their first row and the dropped queries counted by hand. The structure
test (no ``CodedTable.frame`` on the command's path) fails on the old code.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from pref_eval.api import compare_runs
from pref_eval.io.coded import CodedTable
from pref_eval.io.jsonl_scan import scanner_available
from pref_eval.io.perquery import read_per_query_table

RUNS = ["r2", "r0", "r1"]


def _rows(seed=4, queries=15):
    """(runi, runj, qid, measure, value): map per run, rpp per pair (r1/r0 lacking query 7)."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        qid = str(100 + q * 3 % 17)
        rows += [(r, "", qid, "map", round(float(rng.random()), 4)) for r in RUNS]
        for a, b in (("r2", "r0"), ("r2", "r1"), ("r1", "r0")):
            if (a, b, q) != ("r1", "r0", 7):
                rows.append((a, b, qid, "rpp", round(float(rng.uniform(-1, 1)), 4)))
    return rows


def _write(path, rows, fmt):
    if fmt == "jsonl":
        text = "".join(json.dumps({"runi": a, "runj": b, "qid": q, "measure": m, "value": v}) + "\n"
                       for a, b, q, m, v in rows)
    else:
        d = "\t" if fmt == "tsv" else ","
        text = d.join(["runi", "runj", "qid", "measure", "value"]) + "\n" + "".join(
            d.join([a, b, q, m, repr(v)]) + "\n" for a, b, q, m, v in rows)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _oracle(rows):
    """{(run_a, run_b): (n, mean, t p)} by scipy over the queries every pair has, and the dropped queries."""
    df = pd.DataFrame(rows, columns=["run", "run_b", "qid", "measure", "value"])
    df = df[df["measure"] == "rpp"]
    pairs = list(dict.fromkeys(zip(df["run"], df["run_b"], strict=True)))
    common = set.intersection(*(set(df[(df["run"] == a) & (df["run_b"] == b)]["qid"]) for a, b in pairs))
    out = {}
    for a, b in pairs:
        sub = df[(df["run"] == a) & (df["run_b"] == b) & df["qid"].isin(common)]
        x = sub["value"].to_numpy(float)
        out[a, b] = (len(x), float(np.mean(x)), float(scipy.stats.ttest_1samp(x, 0.0).pvalue))
    return pairs, out, len(set(df["qid"]) - common)


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_preference_rows_against_scipy(tmp_path, fmt):
    rows = _rows()
    path = _write(tmp_path / f"pq.{fmt}", rows, fmt)
    if fmt != "jsonl" or scanner_available():  # JSON lines are coded by the C scanner (else the DataFrame path)
        assert isinstance(read_per_query_table(path), CodedTable)
    recs = [json.loads(x) for x in compare_runs(per_query_file=path, tests="t", correction="none",
                                                output_format="jsonl").splitlines()]
    pref = [r for r in recs if r["measure"] == "rpp"]
    pairs, want, dropped = _oracle(rows)
    assert dropped == 1
    assert [(r["run_a"], r["run_b"]) for r in pref] == pairs  # first-row order
    for r in pref:
        n, mean, p = want[r["run_a"], r["run_b"]]
        assert r["n_queries"] == n
        assert r["mean_diff"] == pytest.approx(mean, abs=1e-12)
        assert r["p_value"] == pytest.approx(p, rel=1e-9)


def test_the_command_path_builds_no_frame_of_the_file(tmp_path, monkeypatch):
    """Neither the per-run nor the preference rows of a runi/runj file go through ``CodedTable.frame`` (the old
    glue built the whole file's DataFrame for its preference rows)."""
    path = _write(tmp_path / "pq.tsv", _rows(), "tsv")
    want = compare_runs(per_query_file=path, tests="t,sign", output_format="csv")

    def no_frame(self):
        raise AssertionError("CodedTable.frame() called")

    monkeypatch.setattr(CodedTable, "frame", no_frame)
    assert compare_runs(per_query_file=path, tests="t,sign", output_format="csv") == want
    assert "rpp" in want


def test_wide_lines_and_run_selection(tmp_path):
    """pref_eval.py's wide JSON lines (read at once): a run selection keeps the pairs of two selected runs."""
    rows = _rows(seed=9)
    lines = []
    for a, b, q, m, v in rows:
        if m == "rpp":
            lines.append({"qid": q, "runi": a, "runj": b, "sample": 0, "type": "preference", "rpp": v})
    path = tmp_path / "wide.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")
    if scanner_available():  # (without the C scanner: the DataFrame path, the same records below)
        assert isinstance(read_per_query_table(str(path)), CodedTable)
    recs = [json.loads(x) for x in compare_runs(per_query_file=str(path), tests="t", runs=["r1", "r0"],
                                                output_format="jsonl").splitlines()]
    assert [(r["run_a"], r["run_b"]) for r in recs] == [("r1", "r0")]
    x = np.array([v for a, b, q, m, v in rows if (a, b, m) == ("r1", "r0", "rpp")])
    assert recs[0]["n_queries"] == len(x) == 14
    assert recs[0]["p_value"] == pytest.approx(float(scipy.stats.ttest_1samp(x, 0.0).pvalue), rel=1e-9)
