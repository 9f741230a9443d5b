"""An error message echoing a huge value of the input is printed shortened (docs/exit-codes.md).

Before: ``zelo_fit`` on a judgment whose score is a 100 KB string printed a 100 KB "line"; the fault
sweep (tests/test_fuzz_inputs.py, its 100 KB token mutation) now bounds every message line
(``cli_harness.MESSAGE_LINE_MAX``).
"""
from __future__ import annotations

import json

import pytest
from cli_harness import run_module_inproc

from pref_eval.errors import MESSAGE_LIMIT, InputError, shortened


def test_shortened_keeps_head_and_tail_and_counts_what_it_leaves_out():
    text = "a" * 1000 + "MIDDLE" + "z" * 1000
    out = shortened(text)
    head, tail = text[:375], text[-100:]
    assert out == f"{head} … [{len(text) - 475} characters left out] … {tail}"
    assert len(out) < MESSAGE_LIMIT + 40
    assert shortened("x" * MESSAGE_LIMIT) == "x" * MESSAGE_LIMIT  # at the limit: unchanged


@pytest.mark.parametrize(("module", "args", "line"), [
    ("fit", ["-J", "j.jsonl"],
     {"qid": "q1", "doc_a": "a", "doc_b": "b", "score": "x" * 100_000}),
    ("aggregate", ["-P", "p.jsonl"],
     {"qid": "q1", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "ap": "x" * 100_000}),
])
def test_a_100kb_value_gives_a_short_message_naming_file_and_line(tmp_path, module, args, line):
    (tmp_path / args[1]).write_text(json.dumps(line) + "\n")
    res = run_module_inproc(module, args, cwd=tmp_path)
    assert res.returncode == 2
    [msg] = res.stderr.splitlines()
    assert f"{args[1]}:1: " in msg and "Traceback" not in res.stderr
    assert "characters left out" in msg and len(msg) < 600, len(msg)


def test_the_api_keeps_the_whole_message(tmp_path):
    import pref_eval

    p = tmp_path / "j.jsonl"
    p.write_text(json.dumps({"qid": "q1", "doc_a": "a", "doc_b": "b", "score": "x" * 10_000}) + "\n")
    with pytest.raises(InputError) as e:
        pref_eval.fit(str(p))
    assert "x" * 10_000 in str(e.value)


def test_a_warning_is_shortened_too(capsys):
    from pref_eval.log import Log

    Log("zelo_x").warn("document " + "d" * 70_000 + " skipped")
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("zelo_x: warning: document ddd") and line.endswith("d skipped")
    assert "characters left out" in line and len(line) < 600
