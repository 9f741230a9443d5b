"""Behaviour no test saw, found by the mutants c38 left unrun or unclassified in pref_eval/io/perquery.py (session 29,
c39: ``tools/mutants.py run`` on c38's list). Each test was checked to fail on the mutants it names, which survived
the reader's tests; the oracles are the documented rules (docs/input-formats.md: CRLF line ends read as the LF
file; the per-line reader's messages, which the reader at once must give alike), Python's ``json`` and rows worked
by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pref_eval.errors import InputError
from pref_eval.io.perquery import read_per_query

ROWS = [["a", "q1", "ap", 0.5], ["a", "q2", "ap", 0.25]]


def _refused(path: Path) -> str:
    with pytest.raises(InputError) as err:
        read_per_query(path)
    return str(err.value)


def test_a_line_end_written_twice_as_cr_keeps_the_last_value_whole(tmp_path):
    """``\\r\\r\\n`` line ends (a CRLF file written again in a Windows text mode) and a last line without its line
    end: the rows of the LF file -- the last value 0.25, not 0.2 (mutants ``lines[-1].endswith`` -> ``lines[-0]`` /
    ``lines[-2]``: the header's or the second last line's bare CR cut the last line's last character)."""
    path = tmp_path / "crcr.tsv"
    path.write_bytes(b"run\tqid\tmeasure\tvalue\r\r\na\tq1\tap\t0.5\r\r\na\tq2\tap\t0.25")
    assert read_per_query(path).values.tolist() == ROWS
    path.write_bytes(b"run\tqid\tmeasure\tvalue\na\tq1\tap\t0.5\na\tq2\tap\t0.25")  # the LF twin
    assert read_per_query(path).values.tolist() == ROWS


@pytest.mark.parametrize("key", ["run", "qid", "measure", "value"])
def test_a_json_line_missing_a_key_is_named(tmp_path, key):
    """JSON lines the C scanner reads at once, the second lacking ``key``: ``F:2: missing key(s) KEY``, as the
    per-line reader says (mutants ``or any(k not in keys ...)`` -> ``and``, ``any`` -> ``all``, ``"type" in keys or
    run_key is None`` -> ``and``: a KeyError traceback)."""
    good = {"run": "a", "qid": "q1", "measure": "ap", "value": 0.5}
    bad = {k: v for k, v in {"run": "a", "qid": "q2", "measure": "ap", "value": 0.25}.items() if k != key}
    path = tmp_path / "m.jsonl"
    path.write_text(f"{json.dumps(good)}\n{json.dumps(bad)}\n", encoding="utf-8")
    assert _refused(path) == f"{path}:2: missing key(s) {key}"


@pytest.mark.parametrize("text, shown", [("1e999", "inf"), ("-1e999", "-inf")])
def test_a_json_value_beyond_the_doubles_is_refused(tmp_path, text, shown):
    """``1e999`` is valid JSON that Python's ``json`` reads as infinity: refused naming its line as the per-line
    reader does, not read at once as an infinite value (mutant ``np.isfinite(...).all()`` -> ``.any()``)."""
    assert json.loads(text) == float(shown)
    path = tmp_path / "inf.jsonl"
    path.write_text('{"run": "a", "qid": "q1", "measure": "ap", "value": 0.5}\n'
                    f'{{"run": "a", "qid": "q2", "measure": "ap", "value": {text}}}\n', encoding="utf-8")
    assert _refused(path) == f"{path}:2: expected a finite number in column 'value', got {shown}"


@pytest.mark.parametrize("name, text, line", [
    ("h.csv", '\nrun,"qid,measure,value\na,q1,ap,0.5\n', 2),
    ("h.tsv", '\n\nrun\t"qid\tmeasure\tvalue\na\tq1\tap\t0.5\n', 3)])
def test_a_header_with_bad_quoting_is_named_by_its_line(tmp_path, name, text, line):
    """The header after blank lines, its quote never closed (csv's ``unexpected end of data``): the header's own
    line is named (mutants ``first + 1`` -> ``first - 1``, ``first + 0``, ``first + 2``)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    kind = "CSV" if name.endswith("csv") else "TSV"
    assert _refused(path) == f"{path}:{line}: bad quoting (unexpected end of data); expected {kind} fields"


def test_pyterriers_name_column_in_a_table(tmp_path):
    """PyTerrier's ``pt.Experiment(..., perquery=True)`` saved as TSV (``name, qid, measure, value``): the run is
    ``name`` (mutants ``"name" in header`` -> ``not in``, ``h == "name"`` -> ``!=``, and the runi/runj test's
    ``and`` -> ``or`` took it for a pair table lacking ``run``)."""
    path = tmp_path / "pt.tsv"
    path.write_text("name\tqid\tmeasure\tvalue\na\tq1\tap\t0.5\na\tq2\tap\t0.25\n", encoding="utf-8")
    frame = read_per_query(path)
    assert list(frame.columns) == ["run", "qid", "measure", "value"] and frame.values.tolist() == ROWS


def test_a_table_with_run_and_name_takes_run(tmp_path):
    """Columns ``name`` and ``run``: the run is ``run`` (``name`` stands in for a missing ``run`` only, as in JSON
    lines; mutant ``"run" not in header and "name" in header`` -> ``or`` took ``name``)."""
    path = tmp_path / "both.tsv"
    path.write_text("name\trun\tqid\tmeasure\tvalue\nx\ta\tq1\tap\t0.5\ny\ta\tq2\tap\t0.25\n", encoding="utf-8")
    assert read_per_query(path).values.tolist() == ROWS


def test_a_table_with_runi_but_no_runj_lacks_run(tmp_path):
    """``runi`` without ``runj`` is no pair table (zelo_eval -q writes both): the header lacks ``run`` (mutants
    ``and`` -> ``or`` in the runi/runj test read it as pairs with an empty runj)."""
    path = tmp_path / "ri.tsv"
    path.write_text("runi\tqid\tmeasure\tvalue\na\tq1\tap\t0.5\n", encoding="utf-8")
    assert _refused(path) == (f"{path}:1: expected a header line with columns run, qid, measure, value "
                              "(missing run)")


def test_a_long_line_beside_wide_lines_is_read_as_a_long_line(tmp_path):
    """pref_eval.py's wide lines and one long line (``measure``/``value`` keys, the measure named by an integer,
    which the long layout takes as its decimal text) in one file: the long line is one row of measure '5' --
    its ``measure`` and ``value`` keys are not two measures of a wide line (mutant ``all(wide)`` -> ``any``
    sent the whole file to the wide reader). Oracle: the rows by hand (the order left aside)."""
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"type": "metric", "run": "a", "qid": "q1", "ap": 0.5}\n'
                    '{"type": "metric", "run": "a", "qid": "q2", "measure": 5, "value": 0.25}\n', encoding="utf-8")
    assert sorted(read_per_query(path).values.tolist()) == [["a", "q1", "ap", 0.5], ["a", "q2", "5", 0.25]]


@pytest.mark.slow
@pytest.mark.parametrize("n_runj, n_qid", [(2 ** 13, 2 ** 17), (2 ** 17, 2 ** 13)])
def test_keys_wrapping_past_two_to_the_64_with_few_values_in_one_column(tmp_path, n_runj, n_qid):
    """The duplicate check's key ``((run B + runj) Q + qid) M + measure`` overflows int64 when its columns hold
    2^17 + 1 runs, B runj, Q queries and M = 2^17 measures (B Q = 2^30): rows 0 and 2^17 (runs a0 and a131072, the
    same runj, query and measure) meet at 2^64, so the key is renumbered before the last column. The bound is the
    product of all four columns' sizes (mutants ``sizes[0]`` -> ``sizes[1]`` / ``sizes[2]``: a column of 2^13
    values counted for the 2^17 + 1 runs kept the product below 2^62, the key wrapped and the clean file was
    refused as holding a duplicate row). Oracle: the rows as written (every run distinct: no duplicate)."""
    r, m = 2 ** 17 + 1, 2 ** 17
    assert r * n_runj * n_qid * m >= 2 ** 64 and min(n_runj, n_qid) ** 2 * max(n_runj, n_qid) * m < 2 ** 62
    rows = [f"a{i}\tb{i % n_runj}\tq{i % n_qid}\tm{i % m}\t{i % 7}" for i in range(r)]
    path = tmp_path / "pq.tsv"
    path.write_text("runi\trunj\tqid\tmeasure\tvalue\n" + "\n".join(rows) + "\n", encoding="utf-8")
    got = read_per_query(path)
    assert got["run"].tolist() == [f"a{i}" for i in range(r)]
    assert got["run_b"].tolist()[-2:] == [f"b{(r - 2) % n_runj}", "b0"] and got["value"].tolist()[-1] == (r - 1) % 7
