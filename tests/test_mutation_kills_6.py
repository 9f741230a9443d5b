"""Behaviour no test saw, found by mutants of session 27's ``-P`` reader (session 28, c38: tools/mutants.py on
pref_eval/io/perquery_wide.py, io/coded.py, io/perquery.py and records_csv). Each test was checked to fail on the
mutants it names; the oracles are the documented rules (docs/zelo_compare.md, docs/input-formats.md), Python's
``json`` and exact integers, and rows worked by hand.
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

from pref_eval.errors import InputError
from pref_eval.io.coded import CodedTable
from pref_eval.io.jsonl_scan import scanner_available
from pref_eval.io.perquery import read_per_query, read_per_query_table


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def _pref(q: str, v: float, **extra) -> dict:
    return {"qid": q, "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": v, **extra}


def _metric(q: str, run: str, v: float) -> dict:
    return {"qid": q, "run": run, "sample": 0, "type": "metric", "ndcg": v}


def test_samples_that_one_float_cannot_tell_apart_are_two_samples(tmp_path):
    """``sample`` 2^53 and 2^53 + 1 (``zelo_eval --samples``' column): two samples to Python's ``json`` -- the file
    is refused as rows of more than one sample, naming line 2 -- though both read as the double 2^53 (the fast
    reader takes integer samples below 2^53 only; mutants ``<`` -> ``<=``, ``2.0 ** 53`` -> ``4.0 ** 53`` / ``2.0 **
    54`` read the file as one sample)."""
    lines = [f'{{"qid": "q{i}", "runi": "a", "runj": "b", "sample": {s}, "type": "preference", "rpp": 0.5}}'
             for i, s in enumerate((2 ** 53, 2 ** 53 + 1))]
    assert len({json.loads(x)["sample"] for x in lines}) == 2 and float(2 ** 53) == float(2 ** 53 + 1)
    path = _write(tmp_path / "s.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value) == (f"{path}:2: rows of more than one sample (column 'sample': 9007199254740992, "
                              "9007199254740993; zelo_eval --samples N): compare one sample at a time, e.g. the rows "
                              "of sample 0")


OTHER_TYPE = {  # (lines before it, the line, lines after it); the scanner numbers strings in order of appearance
    "first, type first": ("", {"type": "summary", "qid": "q9", "run": "a", "ndcg": 0.5}, "pref"),  # its code 0
    "first, type third": ("", {"qid": "q9", "run": "a", "type": "summary", "ndcg": 0.5}, "pref"),  # its code 2
    "last": ("pref", {"type": "summary", "qid": "q9", "run": "a", "ndcg": 0.5}, ""),
    # the metric lines' keys in their order: one shape (the line's type checked among theirs)
    "among metric lines": ("metric", {"qid": "q9", "run": "a", "sample": 0, "type": "summary", "ndcg": 0.5},
                           "metric"),
    # runi/runj and no preference line in the file: not read as a preference line (code of an absent
    # 'preference' -1 -> 0); the per-line reader reads a line of another type with runi/runj as a metric line
    "runi/runj, code 0": ("", {"type": "summary", "qid": "q9", "runi": "a", "runj": "b", "rpp": 0.5}, "metric"),
}
SAID = {"runi/runj, code 0": "expected a string for key 'run' in a metric line of pref_eval.py's JSON lines, got None"}


@pytest.mark.parametrize("case", sorted(OTHER_TYPE))
def test_a_line_of_another_type_is_not_read_as_a_metric_line(tmp_path, case):
    """A line whose ``type`` is neither ``preference`` nor ``metric`` is not one of pref_eval.py's lines: it is
    read as a line of the long layout and refused (no ``measure``/``value``), named by its line -- first, last or
    among metric lines of the same keys (mutants: the code of an absent ``metric`` -1 -> 0, of an absent
    ``preference`` -1 -> 0, the check's ``.all()`` -> ``.any()`` took it as a metric or preference line)."""
    body = {"pref": [_pref("q1", 0.5), _pref("q2", 0.25)], "metric": [_metric("q1", "a", 0.5),
                                                                       _metric("q2", "a", 0.25)]}
    before, other, after = OTHER_TYPE[case]
    lines = [*body.get(before, []), other, *body.get(after, [])]
    path = _write(tmp_path / "t.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_per_query(path)
    said = SAID.get(case, "missing key(s) measure, value")
    assert str(err.value) == f"{path}:{lines.index(other) + 1}: {said}"


def test_metric_lines_alone_have_no_second_run(tmp_path):
    """pref_eval.py's metric lines only: the table of rows ``run, qid, measure, value`` by hand, no ``run_b``
    column (that is the runi/runj layout's; mutant: ``pair_seen = True`` at the start gave the frame a run_b)."""
    path = _write(tmp_path / "m.jsonl", [_metric("q1", "a", 0.5), _metric("q2", "b", 0.25)])
    table = read_per_query_table(path)
    if scanner_available():  # (without the C scanner, JSON lines are read into a DataFrame: the same rows below)
        assert isinstance(table, CodedTable) and not table.pair
    frame = read_per_query(path)
    assert list(frame.columns) == ["run", "qid", "measure", "value"]
    assert frame.values.tolist() == [["a", "q1", "ndcg", 0.5], ["b", "q2", "ndcg", 0.25]]


def test_subset_without_the_pair_drops_run_b():
    """``CodedTable.subset(keep, pair=False)`` drops ``run_b`` (its docstring; zelo_compare -P's per-run rows of a
    runi/runj file), ``pair=None`` keeps the table's layout (mutant ``is None`` -> ``is not None`` kept run_b)."""
    names = {"run": ["x", "y"], "qid": ["1", "2"], "measure": ["ap", "rpp"], "run_b": ["", "x"]}
    codes = {"run": np.array([0, 1, 1]), "qid": np.array([0, 0, 1]), "measure": np.array([0, 1, 0]),
             "run_b": np.array([0, 1, 0])}
    table = CodedTable(names, codes, np.array([0.25, 0.5, 0.75]), True)
    keep = table.codes["run_b"] == 0
    per_run = table.subset(keep, pair=False)
    assert per_run.columns == ("run", "qid", "measure", "value") and not per_run.pair
    assert per_run.frame().values.tolist() == [["x", "1", "ap", 0.25], ["y", "2", "ap", 0.75]]
    same = table.subset(keep)
    assert same.pair and same.columns == ("run", "qid", "measure", "value", "run_b")
    assert same["run_b"] == ["", ""]


@pytest.mark.parametrize("key, value, kind, shown", [("qid", 1.5, "metric", "1.5"), ("qid", None, "preference", "None"),
                                                     ("runj", [1], "preference", "[1]"),
                                                     ("run", {"a": 1}, "metric", "{'a': 1}")])
def test_a_wide_line_with_an_id_that_is_not_a_string(tmp_path, key, value, kind, shown):
    """An id of pref_eval.py's lines that is not a string nor an integer is refused naming the key, the kind of
    line and the line (docs/zelo_compare.md; c37's leftover: only ``true`` was tried)."""
    line = _pref("q2", 0.5) if kind == "preference" else _metric("q2", "a", 0.5)
    line[key] = value
    lines = [_pref("q1", 0.25) if kind == "preference" else _metric("q1", "a", 0.25), line]
    path = _write(tmp_path / "k.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value) == (f"{path}:2: expected a string for key '{key}' in a {kind} line of pref_eval.py's "
                              f"JSON lines, got {shown}")


def test_an_integer_id_of_a_wide_line_is_its_decimal_text(tmp_path):
    """An integer ``qid`` (pref_eval.py writes strings; a hand-edited file may not) reads as its decimal text, as
    a TSV file's would: rows by hand."""
    lines = [{"qid": 7, "run": "a", "type": "metric", "ndcg": 0.5}, {"qid": "q2", "run": "a", "type": "metric",
                                                                     "ndcg": 0.25}]
    frame = read_per_query(_write(tmp_path / "i.jsonl", lines))
    assert frame.values.tolist() == [["a", "7", "ndcg", 0.5], ["a", "q2", "ndcg", 0.25]]


MIXED = {  # one shape (the same keys in the same order) holding both kinds of line, an id an integer
    # the metric line's run is 7: its row; the preference line's difference of a measure it holds is left out
    "metric run 7": ([{"qid": "q1", "run": 7, "runi": "a", "runj": "b", "sample": 0, "type": "metric", "m": 0.25},
                      {"qid": "q1", "run": 8, "runi": "a", "runj": "b", "sample": 0, "type": "preference", "m": 0.5}],
                     [["7", "q1", "m", 0.25, ""]]),
    # the preference line's runi is 5 (its row kept: the only metric line is the summary 'all', left out)
    "preference runi 5": ([{"qid": "q1", "run": "", "runi": 5, "runj": "b", "sample": 0, "type": "preference",
                            "m": 0.5},
                           {"qid": "all", "run": "a", "runi": 6, "runj": "b", "sample": 0, "type": "metric",
                            "m": 0.25}],
                          [["5", "q1", "m", 0.5, "b"]]),
    # string ids (read at once): the preference row's run is its runi, its run_b its runj
    "strings, summary metric": ([{"qid": "q1", "run": "z", "runi": "a", "runj": "b", "sample": 0,
                                  "type": "preference", "m": 0.5},
                                 {"qid": "all", "run": "a", "runi": "x", "runj": "y", "sample": 0, "type": "metric",
                                  "m": 0.25}],
                                [["a", "q1", "m", 0.5, "b"]]),
    # the metric row's run is its run (not its runi); a file with a preference line has the run_b column
    "strings, metric row": ([{"qid": "q1", "run": "a", "runi": "x", "runj": "y", "sample": 0, "type": "metric",
                              "m": 0.25},
                             {"qid": "q1", "run": "z", "runi": "a", "runj": "b", "sample": 0, "type": "preference",
                              "m": 0.5}],
                            [["a", "q1", "m", 0.25, ""]]),
}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_lines_of_both_kinds_with_the_same_keys(tmp_path, case):
    """Metric and preference lines with the same keys, an id an integer (read as its decimal text): the rows by
    the documented rule, worked by hand (mutants: the ids a shape needs, ``pref.any()`` -> ``pref.all()`` and
    ``not pref.all()`` -> ``not pref.any()``, read the integer's number as a string code; with string ids, the
    same swaps in the run, run_b and pair_seen of a shape took one kind's ids for the other's)."""
    lines, want = MIXED[case]
    frame = read_per_query(_write(tmp_path / "x.jsonl", lines))
    assert list(frame.columns) == ["run", "qid", "measure", "value", "run_b"]  # a preference line: the pair layout
    assert frame.values.tolist() == want


def test_a_measure_that_is_not_a_number_beside_one_that_is(tmp_path):
    """Two measure keys, one of them a string on every line: refused naming line 1 (mutant: ``any`` -> ``all``
    of the measures' kinds read the string's code as a value)."""
    lines = [{"qid": f"q{i}", "run": "a", "type": "metric", "ndcg": 0.5, "note": "x"} for i in range(3)]
    path = _write(tmp_path / "n.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value) == f"{path}:1: expected a number in column 'value', got 'x'"


def test_a_line_without_measures_gives_no_row(tmp_path):
    """A metric line with no measure key (its own shape, first) gives no row; the other lines' values stay theirs
    (mutant: ``np.zeros(0)`` -> ``np.zeros(1)`` for a shape without measures shifted every later value)."""
    lines = [{"qid": "q0", "run": "a", "type": "metric"}, _metric("q1", "a", 0.5), _metric("q2", "a", 0.25)]
    frame = read_per_query(_write(tmp_path / "e.jsonl", lines))
    assert frame.values.tolist() == [["a", "q1", "ndcg", 0.5], ["a", "q2", "ndcg", 0.25]]


def test_the_csv_writer_of_infinite_values_of_both_signs():
    """``zelo_compare -o csv``'s writer (records_csv, a column at a time) on records whose statistic, effect size
    and interval are +inf, -inf and NaN: the bytes Python's csv module writes of each record dict (mutant: the
    ``-inf`` mask's sign, which wrote +inf as -inf; the tests' constant row gave -inf and NaN only)."""
    import csv
    import io

    import pandas as pd

    from pref_eval.output.comparisons import EXTRA_KEYS, RECORD_KEYS, record_dicts, records_csv

    stats_compare = importlib.import_module("pref_eval.stats.compare")

    rows = [(run, f"q{q}", "m", v) for q in range(6) for run, v in (("a", 0.1 * q), ("b", 0.05 * q + 0.01 * (q % 2)),
                                                                      ("c", 0.3))]
    res = stats_compare.compare(pd.DataFrame(rows, columns=["run", "qid", "measure", "value"]), tests="t")
    table = res.records.copy()  # (the DataFrame of the records)
    specials = [np.inf, -np.inf, np.nan]
    for k, col in enumerate(("statistic", "d_z", "ci_low", "ci_high")):
        table[col] = [specials[(i + k) % 3] for i in range(len(table))]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    keys = [*RECORD_KEYS, *EXTRA_KEYS]
    w.writerow(keys)
    for d in record_dicts(table, 0.05):
        w.writerow(["" if d.get(k) is None else d.get(k) for k in keys])
    got = records_csv(table, 0.05)
    assert got == buf.getvalue()
    assert ",inf," in got and ",-inf," in got


# ---- the per-line JSON reader (io/perquery._json_rows): a file the scanner does not take -- here an escaped
# character in an id (``\u00e9``, é) -- is read line by line; the rows by the documented rule, worked by hand
ESC = "q\\u00e9"  # (as written in the file: the id is "qé")


def _long(run_key: str, run: str, qid: str, value: float, **extra) -> str:
    body = {run_key: run, **extra, "qid": "QID", "measure": "ap", "value": value}
    return json.dumps(body).replace('"QID"', f'"{qid}"')


def test_the_per_line_reader_of_the_runi_runj_layout(tmp_path):
    """Long lines with ``runi``/``runj`` (zelo_eval -q -o jsonl of a preference measure): the pair layout, each
    row's run_b its runj (mutants: ``pair = True`` -> False; ``obj.get("runj") or ""`` -> ``and``)."""
    lines = [_long("runi", "a", ESC, 0.5, runj="b"), _long("runi", "a", "q2", 0.25, runj="c")]
    frame = read_per_query(_write(tmp_path / "p.jsonl", lines))
    assert list(frame.columns) == ["run", "qid", "measure", "value", "run_b"]
    assert frame.values.tolist() == [["a", "qé", "ap", 0.5, "b"], ["a", "q2", "ap", 0.25, "c"]]


def test_the_per_line_reader_takes_run_before_name(tmp_path):
    """A line with both ``run`` and PyTerrier's ``name``: the run is ``run`` (``name`` only stands in for a missing
    ``run``, as the scanner's reader takes it; mutant ``and`` -> ``or`` took ``name``)."""
    lines = [_long("run", "a", ESC, 0.5, name="x"), _long("run", "b", "q2", 0.25, name="y")]
    frame = read_per_query(_write(tmp_path / "n.jsonl", lines))
    assert frame.values.tolist() == [["a", "qé", "ap", 0.5], ["b", "q2", "ap", 0.25]]


def test_the_per_line_reader_keeps_summary_rows_per_pair(tmp_path):
    """Summary rows ``all`` of one runi and measure against two runj are two summaries (left out), not a second
    row 'all' (mutant: the summary's runj ``or`` -> ``and`` made them one)."""
    lines = [_long("runi", "a", ESC, 0.5, runj="b"), _long("runi", "a", "all", 0.5, runj="b"),
             _long("runi", "a", "all", 0.25, runj="c"), _long("runi", "a", "q2", 0.25, runj="c")]
    frame = read_per_query(_write(tmp_path / "s.jsonl", lines))
    assert frame.values.tolist() == [["a", "qé", "ap", 0.5, "b"], ["a", "q2", "ap", 0.25, "c"]]


def test_the_per_line_reader_names_a_second_summary_row(tmp_path):
    """A second row ``all`` for the same run and measure is named by its line, 3 (mutants: ``i + 1`` -> ``i - 1``,
    ``i + 0``, ``i + 2``)."""
    lines = [_long("run", "a", ESC, 0.5), _long("run", "a", "all", 0.5), _long("run", "a", "all", 0.25)]
    path = _write(tmp_path / "a.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value).startswith(f"{path}:3: a second row 'all' for run 'a', measure 'ap'")


def test_a_line_with_runi_but_no_runj_is_a_long_line(tmp_path):
    """Without ``measure``/``value`` and ``type``, a line is pref_eval.py's preference line only with both
    ``runi`` and ``runj`` (docs/zelo_compare.md); one with ``runi`` alone is a long line missing its measure and
    value (mutant ``and`` -> ``or`` asked for its runj)."""
    lines = [_long("run", "a", ESC, 0.5), json.dumps({"qid": "q2", "runi": "a", "rpp": 0.5})]
    path = _write(tmp_path / "r.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value) == f"{path}:2: missing key(s) measure, value"


def test_trec_eval_output_with_topic_names_gets_the_hint(tmp_path):
    """``trec_eval -q`` output (measure, qid, value) of topics named ``q1``: the hint to write the table with
    zelo_eval (mutant ``float(f[2])`` -> ``float(f[1])``: only numbers as topics got it)."""
    path = tmp_path / "t.tsv"
    path.write_text("map\tq1\t0.25\nmap\tq2\t0.5\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert "this looks like trec_eval output (measure, qid, value of one run)" in str(err.value)


def test_a_tsv_table_of_two_samples_is_refused(tmp_path):
    """A TSV table with a ``sample`` column holding two samples (each on other topics: no duplicate row) is
    refused naming line 3, read at once or line by line (mutant ``> 1`` -> ``> 2`` read both samples as one)."""
    path = tmp_path / "s.tsv"
    path.write_text("run\tqid\tmeasure\tvalue\tsample\na\tq1\tap\t0.5\t0\na\tq2\tap\t0.25\t1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value) == (f"{path}:3: rows of more than one sample (column 'sample': 0, 1; zelo_eval --samples "
                              "N): compare one sample at a time, e.g. the rows of sample 0")
