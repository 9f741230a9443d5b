"""``zelo_compare -P``'s per-query reader (pref_eval/io/perquery.py): the paths the coverage run of session 27
(c37, ``python tools/coverage_run.py``) found no test of -- the per-line readers' refusals and the cases the
readers at once hand to them. Each file is tiny and hand-written; the oracle is docs/exit-codes.md's promise
(one line ``FILE:LINE: what was expected``, the line counted by hand, exit 2) and, for the files read, the
rows written."""
from __future__ import annotations

import pytest

from pref_eval.errors import InputError
from pref_eval.io.perquery import read_per_query

ROW = '{"run": "a", "qid": "1", "measure": "m", "value": 0.5}\n'

REFUSED = [
    ("dupkey.jsonl", ROW + '{"run": "a", "run": "b", "qid": "2", "measure": "m", "value": 0.5}\n',
     ":2: duplicate key 'run' in a JSON object"),
    ("cut.jsonl", ROW + '{"run": "a", "qid": "2", "measure": "m", "value": 0.5\n',
     ":2: expected a JSON object (Expecting ',' delimiter)"),
    ("array.jsonl", ROW + "[1, 2]\n", ":2: expected a JSON object with keys run, qid, measure, value"),
    ("numid.jsonl", ROW + '{"run": 1.5, "qid": "2", "measure": "m", "value": 0.5}\n',
     ":2: expected a string for key 'run', got 1.5"),
    ("samples.jsonl", ROW.replace("}", ', "sample": "0"}') + ROW.replace("}", ', "sample": "1"}'),
     ":2: rows of more than one sample (column 'sample': 0, 1; zelo_eval --samples N)"),
    ("nan.jsonl", ROW + '{"run": "a", "qid": "2", "measure": "m", "value": NaN}\n',
     ":2: expected a finite number in column 'value', got nan"),
    ("dup.jsonl", ROW + ROW.replace("0.5", "0.25"), ":2: duplicate row for run 'a', query '1', measure 'm'"),
    ("escdup.jsonl", ROW + '{"run": "\\u0061", "qid": "1", "measure": "m", "value": 0.25}\n',
     ":2: duplicate row for run 'a', query '1', measure 'm'"),
    ("quotedup.tsv", 'run\tqid\tmeasure\tvalue\na\t1\tm\t0.5\n"a"\t1\tm\t0.25\n',
     ":3: duplicate row for run 'a', query '1', measure 'm'"),
    ("onechar.tsv", "run\tqid\tmeasure\tvalue\na\t1\tm\t0.5\nx\n", ":3: expected 4 fields as in the header, got 1"),
    ("samplefirst.jsonl", '{"sample": "0", "run": "a", "qid": "1", "measure": "m", "value": 0.5}\n'
                          '{"sample": "1", "run": "a", "qid": "1", "measure": "m", "value": 0.25}\n',
     ":2: rows of more than one sample (column 'sample': 0, 1; zelo_eval --samples N)"),
    ("blank.tsv", "run\tqid\tmeasure\tvalue\n\n  \n", ": no per-query rows (only summary rows or nothing)"),
    ("onlyall.tsv", "run\tqid\tmeasure\tvalue\na\tall\tm\t0.5\n", ": no per-query rows (only summary rows or nothing)"),
    ("onlyall.jsonl", ROW.replace('"1"', '"all"'), ": no per-query rows (only summary rows or nothing)"),
    ("empty.tsv", "  \n\n", ": empty file, expected per-query values (zelo_eval -q output)"),
]


@pytest.mark.parametrize("name, text, message", REFUSED, ids=[c[0] for c in REFUSED])
def test_a_bad_file_is_refused_at_its_line(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    with pytest.raises(InputError) as err:
        read_per_query(path)
    assert str(err.value).startswith(f"{path}{message}"), str(err.value)


READ = [
    # PyTerrier's ``name`` column, a line with an escape (the per-line reader)
    ("name.jsonl", '{"name": "BM25", "qid": "1", "measure": "m", "value": 0.5}\n'
                   '{"name": "BM\\u0032\\u0035", "qid": "2", "measure": "m", "value": 0.25}\n',
     [("BM25", "1", 0.5), ("BM25", "2", 0.25)]),
    # CR LF lines, the last one's CR without its LF
    ("crlf.tsv", "run\tqid\tmeasure\tvalue\r\na\t1\tm\t0.5\r\na\t2\tm\t0.25\r", [("a", "1", 0.5), ("a", "2", 0.25)]),
    # blank lines among the per-line reader's rows (a quoted field sends the file to it)
    ("blank.tsv", 'run\tqid\tmeasure\tvalue\n"a"\t1\tm\t0.5\n\n  \na\t2\tm\t0.25\n',
     [("a", "1", 0.5), ("a", "2", 0.25)]),
]


@pytest.mark.parametrize("name, text, rows", READ, ids=[c[0] for c in READ])
def test_odd_but_valid_files_are_read(tmp_path, name, text, rows):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    got = read_per_query(path)
    assert list(zip(got["run"], got["qid"], got["value"], strict=True)) == rows
    assert set(got["measure"]) == {"m"}
