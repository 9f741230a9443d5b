"""pref_aggregate's reader: the whole-file fast path and the line-by-line path agree, bad lines are reported."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path


import pytest

from cli_harness import run_module_inproc
from click.testing import CliRunner

from pref_eval.cli.aggregate import command

DATA = Path(__file__).resolve().parent / "data" / "pref_eval_ref"
SRC = DATA / "medium" / "all_q.jsonl"


def run(path, *args):
    res = CliRunner().invoke(command, ["-P", str(path), "-q", "--mc4-steps", "10", *args])
    return res.exit_code, res.output


def run_main(*args):
    """Through the real entry point (errors become one line on stderr and exit code 2), in process
    (cli_harness.run_module_inproc; pref_aggregate's real processes: test_docs.py, test_cli_common.py)."""
    return run_module_inproc("aggregate", args, ".")


def expected_reference_output(*m) -> str:
    """pref_aggregate.py's own output on SRC (tests/data/pref_eval_ref/aggregate/medium_q.jsonl)."""
    return (DATA / "aggregate" / "medium_q.jsonl").read_text()


MEASURES = [a for m in ["rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision", "ap", "rbp",
                        "rr", "ndcg", "rp", "p@1", "p@10", "r@1", "r@10"] for a in ("-m", m)]


@pytest.mark.parametrize("variant", ["plain", "blank_lines", "crlf", "gzip", "bracket_in_id", "no_orjson",
                                     "tiny_chunks", "pure_python"])
def test_every_path_reproduces_the_reference(tmp_path, monkeypatch, variant):
    text = SRC.read_text()
    p = tmp_path / "prefs.jsonl"
    if variant == "blank_lines":  # the C scanner skips them; without it, the line-by-line parser
        text = text.replace("\n", "\n\n", 5)
    elif variant == "crlf":
        text = text.replace("\n", "\r\n")
    elif variant == "bracket_in_id":  # ']' anywhere -> line-by-line parser; a renamed run keeps its place
        text = text.replace('"sysF"', '"sys]F"')
    elif variant == "no_orjson":
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
        monkeypatch.setitem(sys.modules, "orjson", None)
    elif variant == "pure_python":
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    elif variant == "tiny_chunks":
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
        import pref_eval.io.pref_jsonl as agg

        monkeypatch.setattr(agg, "CHUNK_BYTES", 1000)
    if variant == "gzip":
        p = tmp_path / "prefs.jsonl.gz"
        p.write_bytes(gzip.compress(text.encode()))
    else:
        p.write_bytes(text.encode())
    code, out = run(p, *MEASURES)
    assert code == 0, out
    exp = expected_reference_output()
    if variant == "bracket_in_id":
        exp = exp.replace('"sysF"', '"sys]F"')
    assert out == exp


@pytest.mark.parametrize("bad,line,msg", [
    ('{"qid": "1", "sample": 0, "type": "preference", "runi": "a", "runj": "b", "rpp": 1}'
     ' {"qid": "1", "sample": 0}', 3, "expected a JSON object"),
    ('{"qid": "1", "sample": 0, "type": "preference", "runi": "a", "runj": "b", "rpp": "0.5"}', 3,
     'rpp: expected a number, got "0.5" (a finite JSON number)'),
    ('{"qid": "1", "sample": 0, "type": "preference", "runi": "a", "rpp": 1}', 3, "missing key 'runj'"),
    ('{"qid": "1", "sample": 0, "type": "other", "runi": "a", "runj": "b", "rpp": 1}', 3, "unknown line type"),
    ('{"qid": "1", "sample": 0, "type": "preference", "runi": "a", "runj": "b", "rpp": [[', 3,
     "expected a JSON object"),
])
def test_bad_line_is_reported_with_its_number(tmp_path, bad, line, msg):
    lines = SRC.read_text().splitlines()[:2] + [bad] + SRC.read_text().splitlines()[2:6]
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(lines) + "\n")
    res = run_main("-P", p)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith(f"pref_aggregate: {p}:{line}: ") and msg in res.stderr


def test_lines_that_only_parse_together_are_rejected(tmp_path):
    """Two broken lines that would merge into one value inside a single JSON document."""
    ok = SRC.read_text().splitlines()[:4]
    p = tmp_path / "merge.jsonl"
    p.write_text("\n".join(ok[:2] + ['{"qid": "1", "sample": 0, "type": "metric", "run": "a", "ap": [[', "]]}"]
                           + ok[2:]) + "\n")
    res = run_main("-P", p)
    assert res.returncode == 2 and f"{p}:3: expected a JSON object" in res.stderr


def test_nan_values_parse_as_python_json_does(tmp_path):
    rows = [{"qid": "1", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": 0.5},
            {"qid": "1", "run": "a", "sample": 0, "type": "metric", "ap": float("nan")},
            {"qid": "1", "run": "b", "sample": 0, "type": "metric", "ap": 0.25}]
    p = tmp_path / "nan.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out = run(p)
    assert code == 0
    assert json.loads(out.splitlines()[0])["rpp"] == ["a", "b"]


@pytest.mark.parametrize("value", ["null", '{"a": 1}', '"x"'])
def test_non_number_values_are_reported(tmp_path, value):
    """The fast path's one-array conversion refuses them; the line-by-line parser names the line."""
    lines = SRC.read_text().splitlines()[:6]
    lines[3] = json.dumps({"qid": "1", "runi": "a", "runj": "b", "sample": 0, "type": "preference",
                           "rpp": 0.5, "ap": 0.1})[:-1].replace('"rpp": 0.5', f'"rpp": {value}') + "}"
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(lines) + "\n")
    res = run_main("-P", p)
    assert res.returncode == 2 and res.stderr.startswith(f"pref_aggregate: {p}:4: rpp: expected a number")


@pytest.mark.parametrize("kind", ["bool", "int64", "huge_int", "ints_only", "one_measure"])
def test_unusual_numbers_read_as_the_line_by_line_parser_reads_them(tmp_path, monkeypatch, kind):
    """bool (refused) / int values, a lone measure: fast path == line-by-line path."""
    import pref_eval.io.pref_jsonl as agg

    rows = []
    for q in "123":
        for i, j in (("a", "b"), ("a", "c"), ("b", "c")):
            rows.append({"qid": q, "runi": i, "runj": j, "sample": 0, "type": "preference",
                         "rpp": 0.5 if q != "2" else -0.25, "ap": 0.1 * int(q)})
    if kind == "bool":
        rows[4]["rpp"] = True
    elif kind == "int64":
        rows[4]["rpp"] = -(2 ** 63) + 1
    elif kind == "huge_int":
        rows[4]["rpp"] = 2 ** 70
    elif kind == "ints_only":
        for k, r in enumerate(rows):
            r["rpp"] = k - 4
    else:
        for r in rows:
            del r["ap"]
    p = tmp_path / "u.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert agg._records_fast(p.read_bytes()) is not None or kind == "huge_int"
    scanner = run(p, "-o", "tsv")  # the C scanner when built (bool values send it to the Python readers)
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    fast = run(p, "-o", "tsv")
    monkeypatch.setattr(agg, "_records_fast", lambda data: None)
    slow = run(p, "-o", "tsv")
    # bool values are refused (issue #17: true is not a number) on every path alike
    assert scanner == fast == slow and (fast[0] == 0) == (kind != "bool")


def test_query_fraction_without_sample_0_is_a_one_line_error(tmp_path):
    """--query_fraction draws from sample 0; a file with only other samples names the problem (was a ValueError)."""
    rows = [{"qid": "1", "runi": "a", "runj": "b", "sample": 1, "type": "preference", "rpp": 0.5},
            {"qid": "2", "runi": "a", "runj": "b", "sample": 1, "type": "preference", "rpp": -0.5}]
    p = tmp_path / "s1.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = run_main("-P", p, "--query_fraction", "0.5")
    assert res.returncode == 2 and res.stdout == "" and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and "--query_fraction" in res.stderr and "sample 0" in res.stderr
