"""A JSON line holding an integer longer than Python's limit (``sys.get_int_max_str_digits()``, 4,300 digits): json
raises a plain ValueError there, not a JSONDecodeError (oracle: ``json.loads`` itself, checked below). Session 28:
``io/textfile.json_object`` and the ordering reader's first-line probe caught only JSONDecodeError -- `zelo_compare
--orderings` printed a traceback (exit 1) -- and ``json_reason`` called that fault "nested too deeply" (zelo_fit,
zelo_judge's pairs). Now one line naming the file and line, with json's own reason, exit 2 (docs/exit-codes.md).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import pref_eval
from pref_eval.errors import InputError

BIG = "1" * 5000


def _file(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text + "\n", encoding="utf-8")
    return str(p)


def test_json_raises_a_plain_value_error():
    with pytest.raises(ValueError) as err:
        json.loads(f'{{"a": {BIG}}}')
    assert not isinstance(err.value, json.JSONDecodeError)


@pytest.mark.parametrize("read", ["orderings", "comparisons", "agree", "pairs", "judgments"])
def test_each_reader_names_the_line_and_the_reason(tmp_path, read):
    from pref_eval.io.agree_records import read_agree_jsonl
    from pref_eval.io.comparisons import read_compare_jsonl
    from pref_eval.io.judgments import read_judgments
    from pref_eval.io.orderings import read_ordering
    from pref_eval.io.texts import read_pairs

    line = {"orderings": f'{{"a": {BIG}}}', "pairs": f'{{"qid": "1", "doc_a": "x", "doc_b": {BIG}}}',
            "judgments": f'{{"qid": "1", "doc_a": "x", "doc_b": "y", "score": {BIG}}}'}.get(read, f'{{"n": {BIG}}}')
    path = _file(tmp_path, "f.jsonl", line)
    call = {"orderings": read_ordering, "comparisons": read_compare_jsonl, "agree": read_agree_jsonl,
            "pairs": read_pairs, "judgments": read_judgments}[read]
    with pytest.raises(InputError) as err:
        call(path)
    assert (err.value.path, err.value.line) == (path, 1)
    assert "Exceeds the limit (4300 digits)" in err.value.message and "nested too deeply" not in err.value.message
    assert "set_int_max_str_digits" not in err.value.message


def test_the_command_says_one_line_exit_2(tmp_path):
    path = _file(tmp_path, "a.jsonl", f'{{"a": {BIG}}}')
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(pref_eval.__file__)))
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.compare", "--orderings", path, path],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.splitlines() == [f"zelo_compare: {path}:1: expected a JSON object (Exceeds the limit (4300 "
                                     f"digits) for integer string conversion: value has 5000 digits)"]
