"""``zelo_compare -P`` and ``zelo_agree -l system`` without a Python step per line, record, pair or judged
document (session 26, p36): the per-query reader (TSV/CSV read at once), the JSON lines writer (a column at a
time), the t-test's p-values (one call for every pair) and the system level's judged shares.

Oracles: pandas' ``read_csv`` for what the reader reads; ``json.dumps`` of each record dict (the old writer,
still :func:`record_dicts`) for the bytes written; a hand count for the judged shares (the t-test's p-values:
tests/test_t_tail_oracle.py). The loop tests count Python line events (sys.settrace) inside
the module: the old code's grew with the rows, records and pairs (they fail on it), the new code's do not.
"""
from __future__ import annotations

import importlib
import json
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import line_events
from pref_eval.errors import InputError
from pref_eval.io.perquery import read_per_query
from pref_eval.output.comparisons import record_dicts, records_jsonl
from pref_eval.stats import compare

perquery = importlib.import_module("pref_eval.io.perquery")


def _line_events(module_name: str, fn, *args, **kw) -> int:
    """Python line events inside ``module_name``'s file while ``fn(*args, **kw)`` runs."""
    return line_events(sys.modules[module_name].__file__, fn, *args, **kw)


def _write_table(path, runs: int, queries: int, measures: int = 2, delim: str = "\t", seed: int = 3) -> None:
    rng = np.random.default_rng(seed)
    lines = [delim.join(["run", "qid", "measure", "value"])]
    lines += [delim.join([f"r{r}", str(100 + q), f"m{m}", repr(round(float(rng.random()), 4))])
              for r in range(runs) for q in range(queries) for m in range(measures)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_the_reader_takes_no_python_step_per_line(tmp_path):
    """200 and 20,000 rows: the old reader took ~10 line events per row (+~200,000 between the two)."""
    small, big = tmp_path / "small.tsv", tmp_path / "big.tsv"
    _write_table(small, 2, 50)
    _write_table(big, 20, 500)
    few = _line_events(perquery.__name__, read_per_query, small)
    many = _line_events(perquery.__name__, read_per_query, big)
    assert many - few < 100, (few, many)


@pytest.mark.parametrize("delim", ["\t", ","])
def test_the_reader_reads_what_pandas_reads(tmp_path, delim):
    """Blank lines, white space around fields, CRLF line ends, summary rows 'all', extra columns in any order:
    the frame pandas' read_csv gives (strings stripped, 'all' rows left out)."""
    rng = np.random.default_rng(11)
    header = ["measure", "extra", "qid", "run", "value"]
    rows = []
    for r in range(3):
        for q in range(40):
            for m in range(2):
                rows.append([f"m{m}", "x", f" {q + 1} " if q % 7 == 0 else str(q + 1), f"run {r}",
                             repr(float(rng.random()))])
        rows.append(["m0", "x", "all", f"run {r}", "0.5"])
    text = delim.join(header) + "\r\n" + "".join(
        delim.join(row) + ("\r\n" if i % 3 else "\n") + ("\n  \n" if i % 50 == 0 else "") for i, row in enumerate(rows))
    path = tmp_path / ("pq.tsv" if delim == "\t" else "pq.csv")
    path.write_bytes(text.encode("utf-8"))
    got = read_per_query(path)
    want = pd.read_csv(path, sep=delim, dtype=str, skip_blank_lines=True).dropna(how="all")
    want = want.apply(lambda c: c.str.strip())
    want = want[want["qid"] != "all"]
    assert got["run"].tolist() == want["run"].tolist()
    assert got["qid"].tolist() == want["qid"].tolist()
    assert got["measure"].tolist() == want["measure"].tolist()
    assert got["value"].tolist() == [float(v) for v in want["value"]]
    assert list(got.columns) == ["run", "qid", "measure", "value"]


def _write_jsonl(path, runs: int, queries: int, seed: int = 4) -> None:
    rng = np.random.default_rng(seed)
    rows = [json.dumps({"run": f"r{r}", "qid": str(100 + q), "measure": f"m{m}", "value": float(rng.random())})
            for r in range(runs) for q in range(queries) for m in range(2)]
    rows.insert(3, "")  # a blank line
    rows.append(json.dumps({"run": "r0", "qid": "all", "measure": "m0", "value": 0.5}))  # a summary row
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_the_jsonl_reader_takes_no_python_step_per_line(tmp_path):
    if not importlib.import_module("pref_eval.io.jsonl_scan").scanner_available():
        pytest.skip("the C scanner is not built (the per-line reader reads the file)")
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    _write_jsonl(small, 2, 50)
    _write_jsonl(big, 20, 500)
    few = _line_events(perquery.__name__, read_per_query, small)
    many = _line_events(perquery.__name__, read_per_query, big)
    assert many - few < 100, (few, many)


def test_the_jsonl_reader_reads_what_pandas_reads(tmp_path):
    path = tmp_path / "pq.jsonl"
    _write_jsonl(path, 3, 40)
    got = read_per_query(path)
    want = pd.read_json(path, lines=True, dtype={"qid": str}, precise_float=True)
    want = want[want["qid"] != "all"]
    for c in ("run", "qid", "measure"):
        assert got[c].tolist() == want[c].tolist()
    assert got["value"].tolist() == want["value"].tolist()


@pytest.mark.parametrize("fault, message", [
    ("r1\t105\tm0\tnan", "expected a finite number in column 'value', got 'nan'"),
    ("r1\t105\tm0\t1_0", "expected a number in column 'value', got '1_0'"),
    ("r1\t105\tm0", "expected 4 fields as in the header, got 3"),
    ('"r1\t105\tm0\t0.5', "bad quoting"),
    ("r1\tall\tm0\t0.5", "a second row 'all' for run 'r1', measure 'm0'"),
])
def test_a_bad_line_in_a_large_file_is_named(tmp_path, fault, message):
    """The reader at once falls back to the per-line reader, which names the first bad line."""
    path = tmp_path / "pq.tsv"
    _write_table(path, 3, 300)
    lines = path.read_text(encoding="utf-8").split("\n")
    if "all" in fault:
        lines.insert(10, "r1\tall\tm0\t0.4")
    lines.insert(1500, fault)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert f"pq.tsv:1501: {message}" in str(err.value)


def test_a_duplicate_row_is_named_at_its_second_line(tmp_path):
    path = tmp_path / "pq.tsv"
    _write_table(path, 3, 300)
    lines = path.read_text(encoding="utf-8").split("\n")
    lines.insert(900, lines[400])
    lines.insert(1200, lines[2])
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError, match=r"pq\.tsv:901: duplicate row for run 'r0'"):
        read_per_query(path)


def _result(tests: str, runs: int = 6, queries: int = 12):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 5, (runs, queries)) / 4
    X[1] = X[0]  # a pair with all-zero differences: t nan, p nan
    X[2] = X[0] + 0.25  # constant differences: an infinite t
    rows = [(f"r{r}", f"q{q}", "m", float(X[r, q])) for r in range(runs) for q in range(queries)]
    df = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    return compare(df, tests=tests, resamples=64, correction="holm")


@pytest.mark.parametrize("tests", ["t", "t,wilcoxon,sign", "randomization,bootstrap,tukey", "wilcoxon"])
def test_the_jsonl_writer_writes_json_dumps_bytes(tests):
    res = _result(tests)
    for records in (res.record_table, res.record_table.frame()):
        want = "".join(json.dumps(d) + "\n" for d in record_dicts(records, 0.05))
        assert records_jsonl(records, 0.05) == want
    text = records_jsonl(res.record_table, 0.05)
    if tests.startswith("t"):  # constant differences: t = -inf, written "-inf"; all-zero ones: t and p nan, null
        assert '"statistic": "-inf"' in text and '"statistic": null, "p_value": null' in text
    assert [json.loads(line) for line in text.splitlines()] == record_dicts(res.record_table, 0.05)


def test_the_jsonl_writer_takes_no_python_step_per_record():
    """6 runs (15 pairs) and 40 runs (780 pairs): the old writer took ~30 line events per record."""
    small, big = _result("t", runs=6), _result("t", runs=40)
    name = "pref_eval.output.comparisons"
    few = _line_events(name, records_jsonl, small.record_table, 0.05)
    many = _line_events(name, records_jsonl, big.record_table, 0.05)
    assert many - few < 100, (few, many)


def test_the_t_test_makes_one_call_for_its_pairs(monkeypatch):
    """10 and 30 runs (45 and 435 pairs): t_two_sided is called by the interval's quantiles only, as often for
    either (the old t-test called it once more per pair)."""
    special = importlib.import_module("pref_eval.stats.special")
    calls = []
    real = special.t_two_sided
    monkeypatch.setattr(special, "t_two_sided", lambda t, df: calls.append(t) or real(t, df))
    _result("t", runs=10)
    few = len(calls)
    _result("t", runs=30)
    assert len(calls) - few == few, (few, len(calls))


def test_the_judged_share_of_each_run(tmp_path):
    """A hand count: run A retrieves 4 documents on the two topics compared (3 judged), 1 on a topic left out;
    run B retrieves 2, none judged."""
    from pref_eval.agree.systemlevel import _own_records
    from pref_eval.api._inputs import _load_runs

    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("t1 Q0 d1 1 9 A\nt1 Q0 d9 2 8 A\nt2 Q0 d2 1 9 A\nt2 Q0 d3 2 8 A\nt3 Q0 d1 1 9 A\n")
    b.write_text("t1 Q0 x1 1 9 B\nt2 Q0 x2 1 9 B\n")
    runs = _load_runs([str(a), str(b)])
    qrels = {"t1": {"d1": 2, "d2": 0}, "t2": {"d2": 1, "d3": 0, "d4": 3}, "t3": {"d1": 1}}
    recs = _own_records("j", [r.name for r in runs], runs, qrels, ["t1", "t2"], np.zeros((2, 2)))
    judged = {r.statistic: (r.value, r.n) for r in recs if r.statistic.startswith("judged:")}
    assert judged == {f"judged:{runs[0].name}": (0.75, 2), f"judged:{runs[1].name}": (0.0, 2)}  # n: topics


def test_the_judged_share_takes_no_python_step_per_judged_document(tmp_path):
    """Pools of 200 and 20,000 judged documents: the old keys took a step per judged document."""
    from pref_eval.agree.systemlevel import _own_records
    from pref_eval.api._inputs import _load_runs

    for name in ("a", "b"):
        (tmp_path / f"{name}.run").write_text("".join(f"t{q} Q0 d{d} {d + 1} {100 - d} {name}\n" for q in range(4)
                                                      for d in range(20)))
    runs = _load_runs([str(tmp_path / "a.run"), str(tmp_path / "b.run")])
    names = [r.name for r in runs]
    counts = []
    for per_topic in (50, 5000):
        qrels = {f"t{q}": {f"d{d}": 1 for d in range(per_topic)} for q in range(4)}
        topics = sorted(qrels)
        counts.append(_line_events("pref_eval.agree.systemlevel", _own_records, "j", names, runs, qrels, topics,
                                   np.zeros((2, 4))))
    assert counts[1] - counts[0] < 20, counts
