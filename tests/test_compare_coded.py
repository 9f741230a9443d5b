"""``zelo_compare -P`` tests the reader's codes (session 27, s37): a per-query file read at once reaches the
difference matrices as a :class:`pref_eval.io.coded.CodedTable` -- no pandas DataFrame in between, no list of
strings per column, no second coding of the ids (before: ~2.5 s of CPU per million rows, half the command).

Oracles: ``scipy.stats.ttest_rel`` on the values pandas' ``read_csv`` reads (pivoted by pandas), and
``dict.fromkeys`` of pandas' columns for the orders of runs and measures. The two structure tests (no pandas
import on the command's path; the ids not coded again in ``stats/compare``) fail on the old code.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from pref_eval.api import compare, compare_runs
from pref_eval.io.coded import CodedTable
from pref_eval.io.jsonl_scan import scanner_available
from pref_eval.io.perquery import read_per_query, read_per_query_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
stats_compare = importlib.import_module("pref_eval.stats.compare")


def _rows(runs=("r2", "r0", "r1"), queries=12, measures=("ndcg", "ap"), seed=5):
    rng = np.random.default_rng(seed)
    return [(r, str(200 - q), m, round(float(rng.random()), 4)) for q in range(queries) for r in runs for m in measures]


def _write(path, rows, fmt):
    if fmt == "jsonl":
        text = "".join(json.dumps({"run": r, "qid": q, "measure": m, "value": v}) + "\n" for r, q, m, v in rows)
    else:
        d = "\t" if fmt == "tsv" else ","
        text = d.join(["run", "qid", "measure", "value"]) + "\n" + "".join(
            d.join([r, q, m, repr(v)]) + "\n" for r, q, m, v in rows)
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.skipif(not scanner_available(), reason="JSON lines without the C scanner: the pandas reader")
def test_the_command_path_builds_no_dataframe(tmp_path):
    """TSV, CSV and JSON lines: ``compare_runs(per_query_file=...)`` never imports pandas (the old path built the
    reader's DataFrame and took it apart again)."""
    paths = [_write(tmp_path / f"pq.{fmt}", _rows(), fmt) for fmt in ("tsv", "csv", "jsonl")]
    code = ("import sys; from pref_eval.api import compare_runs\n"
            f"for p in {paths!r}: compare_runs(per_query_file=p, tests='t', output_format='jsonl')\n"
            "print('pandas' in sys.modules)")
    # the package this test imported (the installed one under CI's `pytest`, with its C scanners; a checkout
    # without them built in place falls back to the pandas readers), not the checkout's: cwd is sys.path[0]
    import pref_eval

    tested = os.path.dirname(os.path.dirname(os.path.abspath(pref_eval.__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": tested}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_the_ids_are_coded_once(tmp_path, monkeypatch, fmt):
    """The reader's codes are the matrices' rows and columns: ``stats/compare``'s own coding is not called."""
    if fmt == "jsonl" and not scanner_available():
        pytest.skip("JSON lines without the C scanner: the pandas reader codes its own ids")
    path = _write(tmp_path / f"pq.{fmt}", _rows(), fmt)
    expected = compare_runs(per_query_file=path, tests="t", output_format="jsonl")

    def refuse(column):
        raise AssertionError("ids coded again")

    monkeypatch.setattr(stats_compare, "_codes", refuse)
    assert compare_runs(per_query_file=path, tests="t", output_format="jsonl") == expected
    assert len(compare(path, tests="t").records) == 2 * 3


def _scipy_records(frame: pd.DataFrame, runs: list[str], measures: list[str]) -> list[tuple]:
    """(measure, run_a, run_b, mean_diff, t, p) by scipy on the pivoted values, queries in id order."""
    out = []
    for m in measures:
        table = frame[frame["measure"] == m].pivot(index="run", columns="qid", values="value")
        table = table[sorted(table.columns)].dropna(axis=1)
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                r = scipy.stats.ttest_rel(table.loc[a].to_numpy(), table.loc[b].to_numpy())
                out.append((m, a, b, float(np.mean(table.loc[a].to_numpy() - table.loc[b].to_numpy())),
                            float(r.statistic), float(r.pvalue)))
    return out


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_scipys_t_on_the_coded_rows(tmp_path, fmt):
    """Runs and measures in order of first appearance, a query some run lacks left out: scipy's t-test."""
    rows = _rows(runs=("b", "c", "a"), queries=15)
    rows = [r for r in rows if not (r[0] == "c" and r[1] == "195")]
    path = _write(tmp_path / f"pq.{fmt}", rows, fmt)
    frame = (pd.read_json(path, lines=True, dtype={"qid": str}) if fmt == "jsonl"
             else pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype={"qid": str}))
    runs, measures = list(dict.fromkeys(frame["run"])), list(dict.fromkeys(frame["measure"]))
    text = compare_runs(per_query_file=path, tests="t", output_format="jsonl")
    got = [json.loads(line) for line in text.splitlines()]
    want = _scipy_records(frame, runs, measures)
    assert [(g["measure"], g["run_a"], g["run_b"]) for g in got] == [w[:3] for w in want]
    for g, w in zip(got, want, strict=True):
        assert g["n_queries"] == 14
        np.testing.assert_allclose([g["mean_diff"], g["statistic"], g["p_value"]], w[3:], rtol=1e-9)


def test_the_per_run_rows_of_a_pair_layout(tmp_path):
    """A runi/runj file whose preference rows name a run before its metric rows do: the metric rows' runs in
    their own order of first appearance (``CodedTable.distinct`` after the split), ``runs=``/``measures=``
    selections, and scipy's t on them; the preference rows still tested against 0 (scipy's ``ttest_1samp``)."""
    rng = np.random.default_rng(9)
    lines = ["runi\trunj\tqid\tmeasure\tvalue"]
    prefs = {}
    for q in range(10):
        v = round(float(rng.normal()), 4)
        prefs[str(q)] = v
        lines.append(f"z\ty\t{q}\trpp\t{v!r}")
    metric = [(r, str(q), m, round(float(rng.random()), 4)) for q in range(10) for r in ("y", "x", "z")
              for m in ("p10", "ap")]
    lines += [f"{r}\t\t{q}\t{m}\t{v!r}" for r, q, m, v in metric]
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = read_per_query_table(path)
    assert isinstance(table, CodedTable) and table.pair
    frame = read_per_query(path)
    pd.testing.assert_frame_equal(table.frame(), frame)
    oracle = pd.read_csv(path, sep="\t", dtype={"qid": str, "runj": str}, keep_default_na=False)
    per_run = oracle[oracle["runj"] == ""]
    assert table.subset(table.codes["run_b"] == table.names["run_b"].index(""), pair=False).distinct("run") == \
        list(dict.fromkeys(per_run["runi"])) == ["y", "x", "z"]
    got = [json.loads(line) for line in compare_runs(per_query_file=str(path), tests="t", output_format="jsonl",
                                                     runs=["z", "y"], measures=["ap", "rpp"]).splitlines()]
    want = _scipy_records(per_run.rename(columns={"runi": "run"}), ["z", "y"], ["ap"])
    assert [(g["measure"], g["run_a"], g["run_b"]) for g in got] == [w[:3] for w in want] + [("rpp", "z", "y")]
    np.testing.assert_allclose([got[0]["mean_diff"], got[0]["statistic"], got[0]["p_value"]], want[0][3:],
                               rtol=1e-9)
    r = scipy.stats.ttest_1samp(np.array([prefs[q] for q in sorted(prefs)]), 0.0)
    np.testing.assert_allclose([got[1]["statistic"], got[1]["p_value"]], [r.statistic, r.pvalue], rtol=1e-9)


def test_a_coded_table_behind_the_glue(tmp_path):
    """What the commands' glue reads of a table: ``columns``, ``empty``, ``len``, ``table[name]`` decoded as
    pandas reads the column, ``distinct`` as ``dict.fromkeys``; an unknown column is a KeyError."""
    rows = _rows(runs=("q", "p"), queries=4)
    path = _write(tmp_path / "pq.csv", rows, "csv")
    table = read_per_query_table(path)
    oracle = pd.read_csv(path, dtype={"qid": str})
    assert table.columns == ("run", "qid", "measure", "value") and not table.empty and len(table) == len(oracle)
    for c in ("run", "qid", "measure", "value"):
        assert table[c] == oracle[c].tolist()
    assert table.distinct("run") == list(dict.fromkeys(oracle["run"])) == ["q", "p"]
    for bad in ("run_b", "value", "nope"):
        with pytest.raises(KeyError):
            table.distinct(bad)
    with pytest.raises(KeyError):
        table["run_b"]
    none = table.subset(np.zeros(len(table), bool))
    assert none.empty and none.distinct("measure") == [] and none.frame().empty


def _csv_oracle(records, alpha: float) -> str:
    """Python's csv module writing each record dict (the writer before session 27)."""
    import csv
    import io

    from pref_eval.output.comparisons import EXTRA_KEYS, RECORD_KEYS, record_dicts

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    keys = [*RECORD_KEYS, *EXTRA_KEYS]
    w.writerow(keys)
    for d in record_dicts(records, alpha):
        w.writerow(["" if d.get(k) is None else d.get(k) for k in keys])
    return buf.getvalue()


@pytest.mark.parametrize("tests", ["t", "t,wilcoxon,sign", "randomization,bootstrap,tukey"])
def test_the_csv_writer_writes_csv_writers_bytes(tests):
    """Every test's record keys (intervals only for t and bootstrap; extras per test), NaN and +-inf values,
    ids that need quoting (a comma, a quote, a line break), a records DataFrame: the csv module's bytes."""
    from pref_eval.output.comparisons import records_csv

    rows = _rows(runs=('a,"b"', "c\nd", "e"), queries=8, measures=("m 1",))
    table = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    table.loc[table["run"] == "e", "value"] = 0.5  # a constant row: inf/nan statistics for some tests
    res = stats_compare.compare(table, tests=tests, resamples=50)
    assert records_csv(res.record_table, 0.05) == _csv_oracle(res.record_table, 0.05)
    assert records_csv(res.records, 0.1) == _csv_oracle(res.records, 0.1)
    empty = stats_compare.Records([])
    assert records_csv(empty, 0.05) == _csv_oracle(empty, 0.05)


def test_the_csv_writer_takes_no_python_step_per_record():
    """45 vs 4,950 records (10 vs 100 runs): the old writer took a dict and a row per record (~60 line events
    each); the new one a few per distinct id (each run name is quoted, or not, by the csv module once)."""
    from conftest import line_events
    from pref_eval.output import comparisons

    counts = []
    for runs in (10, 100):
        rows = [(f"r{r}", str(q), "m", float((r * 7 + q * 3) % 11) / 10) for r in range(runs) for q in range(6)]
        res = stats_compare.compare(pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]), tests="t")
        counts.append(line_events(comparisons.__file__, comparisons.records_csv, res.record_table, 0.05))
    assert counts[1] - counts[0] < 1000, counts  # (90 new run names; 4,905 new records)
