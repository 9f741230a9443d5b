"""pref_eval.py's JSON lines (a key per measure) read at once (session 27, s37: pref_eval/io/perquery_wide.py):
a million such lines took 13.2 s of CPU in the per-line reader, ~68 % of ``zelo_compare -P``; now 2.9 s.

Oracle: pref_eval.py's own output (tests/data/pref_eval_ref/medium/params.jsonl, HEAD 28d7bd3 run live) read
with ``json`` by the rule docs/zelo_compare.md states (a row per measure key; metric lines' values; preference
lines' values of the measures no metric line holds; ``qid: all`` left out; file order, then the line's keys).
The loop test counts Python line events in the readers' modules (the old per-line reader's grew with the lines:
it fails on the old code); a bad line in a large file is named as the per-line reader names it.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

from conftest import line_events
from pref_eval.errors import InputError
from pref_eval.io.perquery import read_per_query

REF = Path(__file__).parent / "data" / "pref_eval_ref" / "medium" / "params.jsonl"
perquery = importlib.import_module("pref_eval.io.perquery")
needs_scanner = pytest.mark.skipif(not importlib.import_module("pref_eval.io.jsonl_scan").scanner_available(),
                                   reason="the C scanner is not built (PREF_EVAL_PURE_PYTHON or no compiler)")


def _rule(lines: list[dict]) -> list[tuple]:
    """The rows by the documented rule: (run, qid, measure, value, run_b)."""
    skip = ("qid", "run", "runi", "runj", "sample", "type")
    held = {k for o in lines if o.get("type") == "metric" for k in o if k not in skip}
    out = []
    for o in lines:
        if o["qid"] == "all":
            continue
        pref = o.get("type") == "preference" or (o.get("type") is None and "runi" in o)
        for k, v in o.items():
            if k in skip or (pref and k in held):
                continue
            out.append((o["runi"] if pref else o["run"], o["qid"], k, float(v), o["runj"] if pref else ""))
    return out


@needs_scanner
def test_pref_eval_pys_lines_by_the_rule(monkeypatch):
    lines = [json.loads(ln) for ln in REF.read_text().splitlines() if ln.strip()]

    def per_line(*args, **kw):
        raise AssertionError("the per-line reader was used")

    monkeypatch.setattr(perquery, "_json_rows", per_line)
    df = read_per_query(REF)
    assert list(df.columns) == ["run", "qid", "measure", "value", "run_b"]
    assert list(zip(df["run"], df["qid"], df["measure"], df["value"], df["run_b"], strict=True)) == _rule(lines)


def _wide(queries: int) -> list[str]:
    out = []
    for q in range(queries):
        for i, j in (("a", "b"), ("a", "c"), ("b", "c")):
            out.append(json.dumps({"qid": f"q{q}", "runi": i, "runj": j, "sample": 0, "type": "preference",
                                   "rpp": round(0.01 * (q % 50) - 0.2, 2), "ndcg@5": 0.1}))
        out += [json.dumps({"qid": f"q{q}", "run": r, "sample": 0, "type": "metric", "ndcg@5": 0.3 + q % 7 / 10})
                for r in "abc"]
    return out


@needs_scanner
def test_the_wide_reader_takes_no_python_step_per_line(tmp_path):
    """60 and 6,000 lines: the per-line reader took ~40 line events per line."""
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    small.write_text("\n".join(_wide(10)) + "\n", encoding="utf-8")
    big.write_text("\n".join(_wide(1000)) + "\n", encoding="utf-8")
    counts = []
    for path in (small, big):
        read_per_query(path)  # (the modules it loads)
        counts.append(sum(line_events(sys.modules[m].__file__, read_per_query, path)
                          for m in ("pref_eval.io.perquery", "pref_eval.io.perquery_wide") if m in sys.modules))
    assert counts[1] - counts[0] < 100, counts
    assert len(read_per_query(big)) == 1000 * 3 * 2  # rpp per pair, ndcg@5 per run (the pairs' differences left out)


FAULTS = {
    "null": ('{"qid": "q9", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": null}',
             "1501: expected a number in column 'value', got None"),
    "sample": ('{"qid": "q9x", "runi": "a", "runj": "b", "sample": 1, "type": "preference", "rpp": 0.1}',
               "1501: rows of more than one sample (column 'sample': 0, 1; zelo_eval --samples N): compare one "
               "sample at a time, e.g. the rows of sample 0"),
    "float sample": ('{"qid": "q9x", "runi": "a", "runj": "b", "sample": 0.0, "type": "preference", "rpp": 0.1}',
                     "1501: rows of more than one sample (column 'sample': 0, 0.0; zelo_eval --samples N): compare "
                     "one sample at a time, e.g. the rows of sample 0"),
    "duplicate": ('{"qid": "q3", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": 0.1}',
                  "1501: duplicate row for run 'a', query 'q3', measure 'rpp'"),
    "inf": ('{"qid": "q9x", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": 1e999}',
            "1501: expected a finite number in column 'value', got inf"),
    "id": ('{"qid": "q9x", "run": true, "sample": 0, "type": "metric", "ndcg@5": 0.1}',
           "1501: expected a string for key 'run' in a metric line of pref_eval.py's JSON lines, got True"),
    "duplicate key": ('{"qid": "q9x", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": 0.1, '
                      '"rpp": 0.2}', "1501: duplicate key 'rpp' in a JSON object"),
    "second all": ('{"qid": "all", "run": "a", "sample": 0, "type": "metric", "ndcg@5": 0.1}',
                   "1501: a second row 'all' for run 'a', measure 'ndcg@5' (a topic named 'all' besides the summary "
                   "row?); rows 'all' are summaries and left out: rename the topic"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_bad_line_in_a_large_file_is_named(tmp_path, fault):
    """Line 1,501 of 1,801: the message the per-line reader gives (the whole file goes to it)."""
    line, message = FAULTS[fault]
    lines = _wide(300)
    if fault == "second all":
        lines.insert(10, line)
        lines.insert(1500, line)
    else:
        lines.insert(1500, line)
    path = tmp_path / "wide.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value) == f"{os.fspath(path)}:{message}"


def test_long_lines_mixed_with_wide_lines_keep_file_order(tmp_path):
    """A file of pref_eval.py's wide lines with long lines (``measure``/``value``) between them goes to the
    per-line reader, whose rows are in file order as read_per_query's docstring says (c39: the long lines' rows
    came first, the wide lines' after them). Oracle: the documented rule (``_rule``) on the wide lines, each long
    line's one row in its place -- json's own reading of the file."""
    lines = [json.loads(ln) for ln in REF.read_text().splitlines() if ln.strip()][:40]
    text, expected = [], []
    for i, obj in enumerate(lines):
        text.append(json.dumps(obj))
        expected.append(("wide", i))
        if i % 7 == 3:
            long = {"run": f"L{i}", "qid": "q", "measure": "extra", "value": i / 8}
            text.append(json.dumps(long))
            expected.append(("long", long))
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    held = {k for o in lines if o.get("type") == "metric" for k in o if k not in perquery._WIDE_KEYS}
    rows = []
    for kind, item in expected:
        if kind == "long":
            rows.append((item["run"], item["qid"], item["measure"], item["value"], ""))
        else:  # one wide line's rows by the rule, the metric lines' measures taken from the whole file
            rows.extend(r for r in _rule([lines[item], *({"type": "metric", "qid": "all", "run": "",
                                                            **dict.fromkeys(held, 0)},)]))
    df = read_per_query(path)
    assert any(r[0].startswith("L") for r in rows[:len(rows) // 2])  # (a long row in the first half)
    assert list(zip(df["run"], df["qid"], df["measure"], df["value"], df["run_b"], strict=True)) == rows
