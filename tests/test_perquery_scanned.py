"""The TSV/CSV per-query reader's C path (``pref_eval._jsonl.scan_delimited``, session 30): the rows of a file
it takes are the Python readers' (``PREF_EVAL_PURE_PYTHON=1``) byte for byte, its values are Python's ``float``
of the text (the oracle), and every file it leaves alone is read -- or refused, naming the line -- by the
Python readers as before."""
from __future__ import annotations

import random

import numpy as np
import pytest

import pref_eval.io.perquery as pq
from pref_eval.errors import InputError
from pref_eval.io.coded import CodedTable
from pref_eval.io.jsonl_scan import scanner_available

needs_scanner = pytest.mark.skipif(not scanner_available(), reason="the C scanner is not built or switched off")


def _table(path, monkeypatch, pure: bool):
    """(kind, content) of the reader's answer on the file: the table's names, codes, value bits, or the error."""
    if pure:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("PREF_EVAL_PURE_PYTHON", raising=False)
    try:
        t = pq.read_per_query_table(path)
    except InputError as err:
        return "error", str(err)
    if isinstance(t, CodedTable):
        return "coded", (t.names, {c: (v.dtype.str, v.tolist()) for c, v in t.codes.items()},
                         t.value.view(np.int64).tolist(), t.pair, t.columns)
    return "frame", t.to_dict("list")


def _spy(monkeypatch) -> list:
    taken: list = []
    real = pq._scanned_columns

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(pq, "_scanned_columns", spy)
    return taken


NUMBERS = ["0.5", "1", "0", "-0", "+1.5", "1.", ".5", "1e5", "1E-3", "01.50", "-.5e-2", "1e+05", "00",
           "12345678901234567890.123", "123456789012345678e-5", "9007199254740993", "1e23", "4.9e-324",
           "2.2250738585072014e-308", "1.7976931348623157e308", "0.30000000000000004", "-0.0", "7e-400"]


@needs_scanner
@pytest.mark.parametrize("delim", ["\t", ","])
def test_the_values_are_floats_of_the_text(tmp_path, monkeypatch, delim):
    """Every decimal form Python's float takes, the slow conversions (beyond 2^53, exponents beyond 22, the
    subnormals) included: the scanner's bits are float()'s."""
    rng = random.Random(3)
    texts = NUMBERS + ["".join(rng.choice("0123456789") for _ in range(rng.randint(1, 24)))
                       + rng.choice(["", "." + str(rng.randint(0, 10 ** 12))])
                       + rng.choice(["", f"e{rng.randint(-320, 300)}"]) for _ in range(3000)]
    texts = [t for t in texts if np.isfinite(float(t))]
    path = tmp_path / "pq.txt"
    path.write_text(delim.join(["run", "qid", "measure", "value"]) + "\n"
                    + "".join(f"r{delim}q{i}{delim}m{delim}{t}\n" for i, t in enumerate(texts)))
    taken = _spy(monkeypatch)
    got = pq.read_per_query_table(path)
    assert taken == [True]
    assert got.value.view(np.int64).tolist() == np.array([float(t) for t in texts]).view(np.int64).tolist()
    assert _table(path, monkeypatch, False) == _table(path, monkeypatch, True)


CASES = {
    # (text, whether the scanner takes it)
    "plain": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr2\tq1\tm\t0.25\n", True),
    "crlf": ("run,qid,measure,value\r\nr1,q1,m,0.5\r\nr2,q1,m,0.25\r\n", True),
    "last line's cr": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr2\tq1\tm\t0.25\r", True),
    "blank lines": ("\n\nrun\tqid\tmeasure\tvalue\n\nr1\tq1\tm\t0.5\n\n\nr2\tq1\tm\t0.25\n\n", True),
    "tab-only line": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\n\t\t\t\nr2\tq1\tm\t0.25\n", True),
    "comma-only line": ("run,qid,measure,value\nr1,q1,m,0.5\n,,,\nr2,q1,m,0.25\n", False),
    "space line": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\n  \nr2\tq1\tm\t0.25\n", False),
    "padded id": ("run\tqid\tmeasure\tvalue\nr1 \tq1\tm\t0.5\nr2\tq1\tm\t0.25\n", False),
    "quoted": ('run,qid,measure,value\n"r,1",q1,m,0.5\nr2,q1,m,0.25\n', False),
    "summary rows": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr1\tall\tm\t0.5\nr2\tq1\tm\t0.25\n", True),
    "two summary rows": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr1\tall\tm\t0.5\nr1\tall\tm\t0.5\n", False),
    "only summary rows": ("run\tqid\tmeasure\tvalue\nr1\tall\tm\t0.5\n", False),
    "duplicate": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr2\tq1\tm\t0.25\nr1\tq1\tm\t0.75\n", True),
    "a field short": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr2\tq1\tm\n", False),
    "a field more": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr2\tq1\tm\t0.25\tx\n", False),
    "nan": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\tnan\n", False),
    "inf": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\tinf\n", False),
    "1e400": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t1e400\n", False),
    "underscore": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t1_0\n", False),
    "empty value": ("run,qid,measure,value\nr1,q1,m,\n", False),
    "hex": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0x1\n", False),
    "not ascii": ("run\tqid\tmeasure\tvalue\nr\u00e9\tq1\tm\t0.5\n", False),
    "lone cr": ("run\tqid\tmeasure\tvalue\nr1\tq\r1\tm\t0.5\n", False),
    "samples": ("run\tqid\tmeasure\tvalue\tsample\nr1\tq1\tm\t0.5\t0\nr2\tq1\tm\t0.25\t0\n", True),
    "two samples": ("run\tqid\tmeasure\tvalue\tsample\nr1\tq1\tm\t0.5\t0\nr2\tq1\tm\t0.25\t1\n", False),
    "pair layout": ("runi\trunj\tqid\tmeasure\tvalue\nr1\tr2\tq1\trpp\t0.5\nr1\t\tq1\tndcg\t0.25\n"
                    "r2\t\tq1\tndcg\t0.75\n", True),
    "pyterrier name": ("name,qid,measure,value,extra\nr1,q1,m,0.5,x\nr2,q1,m,0.25,y\n", True),
    "columns shuffled": ("value\tmeasure\tqid\trun\n0.5\tm\tq1\tr1\n0.25\tm\tq1\tr2\n", True),
    "no final newline": ("run\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\nr2\tq1\tm\t0.25", True),
    "ids that are numbers": ("run\tqid\tmeasure\tvalue\n1\t10\tm\t0.5\n2\t010\tm\t0.25\n", True),
}


@needs_scanner
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_scanner_and_the_python_readers_agree(tmp_path, monkeypatch, case):
    text, taken_by_scanner = CASES[case]
    path = tmp_path / "pq.txt"
    path.write_bytes(text.encode("utf-8"))
    taken = _spy(monkeypatch)
    fast = _table(path, monkeypatch, False)
    assert taken[:1] == [taken_by_scanner] or (not taken and not taken_by_scanner)
    assert fast == _table(path, monkeypatch, True)


@needs_scanner
def test_a_duplicate_names_its_line(tmp_path, monkeypatch):
    path = tmp_path / "pq.tsv"
    path.write_text("\nrun\tqid\tmeasure\tvalue\nr1\tq1\tm\t0.5\n\nr1\tall\tm\t0.5\nr2\tq1\tm\t0.25\nr1\tq1\tm\t1\n")
    taken = _spy(monkeypatch)
    with pytest.raises(InputError, match=r"pq.tsv:7: duplicate row for run 'r1', query 'q1', measure 'm'"):
        pq.read_per_query_table(path)
    assert taken == [True]


@needs_scanner
def test_random_files_agree(tmp_path, monkeypatch):
    """Random small files, some lines spoiled (blank, padded, quoted, short, a bad value, a duplicate)."""
    rng = random.Random(11)
    path = tmp_path / "pq.txt"
    taken = _spy(monkeypatch)
    for _ in range(150):
        delim = rng.choice(["\t", ","])
        rows = [[f"r{r}", f"q{q}", f"m{m}", rng.choice(NUMBERS[:12])]
                for r in range(rng.randint(1, 3)) for q in range(rng.randint(1, 4)) for m in range(2)]
        for _ in range(rng.randint(0, 2)):
            k, f = rng.randrange(len(rows)), rng.randrange(4)
            rows[k] = rows[k][:]
            rows[k][f] = rng.choice(["", " x", '"x"', "all", "nan", "1_0", "q0", rows[k][f] + "\tz"])
        text = delim.join(["run", "qid", "measure", "value"]) + "\n" + "\n".join(map(delim.join, rows)) + "\n"
        path.write_text(text)
        assert _table(path, monkeypatch, False) == _table(path, monkeypatch, True), text
    assert 30 < sum(taken) < len(taken)


@pytest.mark.parametrize("text", [
    'run,qid,measure,value\n"r,1",q1,m,0.5\nr2,"q""1",m,0.25\n"r,1",all,m,0.5\nr2,q2,m,1e-3\n',
    '{"run": "r\\u00e9", "qid": 1, "measure": "m", "value": 0.5}\n{"run": "r2", "qid": "1", "measure": "m", '
    '"value": 2}\n',
])
def test_the_per_line_readers_rows_are_coded_without_a_dataframe(tmp_path, monkeypatch, text):
    """A file only the per-line reader takes (quoting; JSON escapes and an id that is a number) gives a
    CodedTable too, no DataFrame built (session 30); its rows are the csv / json module's (the oracle), the
    summary row left out."""
    import csv
    import json

    import pref_eval.io.frames as frames

    def no_frame(*args, **kwargs):
        raise AssertionError("a DataFrame was built")

    monkeypatch.setattr(frames, "frame", no_frame)
    path = tmp_path / ("pq.csv" if text.startswith("run") else "pq.jsonl")
    path.write_text(text, encoding="utf-8")
    table = pq.read_per_query_table(path)
    assert isinstance(table, CodedTable)
    if text.startswith("run"):
        rows = [r for r in csv.reader(text.splitlines()[1:]) if r[1] != "all"]
    else:
        rows = [[str(o["run"]), str(o["qid"]), o["measure"], o["value"]] for o in map(json.loads, text.splitlines())]
    assert [list(r) for r in zip(table["run"], table["qid"], table["measure"], table["value"], strict=True)] == [
        [r[0], r[1], r[2], float(r[3])] for r in rows]
