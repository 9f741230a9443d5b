"""A document judged against itself (session 25, v35, a zbench user's trial on hostile edges).

``clarke3`` / ``clarke4`` files and the API's frames (``pref_eval.dask``: "doc_a and doc_b are the same document")
refused such a judgment with its line; ``jsonl``, ``llmlog``, ``carterette`` and ``xie`` files took it and
``zelo_fit`` dropped it in silence (``zelo/fit.py``: "Self-pairs carry no information"), so a file that pairs the
wrong ids (a join gone wrong, a copy of one column) was fitted as if nothing were amiss. Now each of those formats
refuses it as ``FILE:LINE: doc_a and doc_b are the same document 'a' ...`` (exit 2), on the compiled columns,
the line parser and the streamed parts of a large JSON-lines file alike. zbench's ``ai_scores.json`` keeps them:
zbench asks a one-document query's self-pair (docs/differences-zelo.md), and ``--compat zbench`` reproduces it.

Oracle for "informs no score": the Bradley-Terry likelihood of a self-pair is sigma(0) whatever the scores, so the
fit of the other judgments alone is the fit with it (zelo/fit.py drops it); the tests assert the refusal (each case
fails on the old code: exit 0) and that the file without the line is fitted.
"""
from __future__ import annotations

import json

import pytest

from cli_harness import run_module_inproc
from pref_eval.errors import InputError
from pref_eval.io import judgments as formats

CASES = [
    ("j.jsonl", '{"qid":"q","doc_a":"a","doc_b":"b","score":1}\n{"qid":"q","doc_a":"c","doc_b":"c","score":0}\n',
     None, 2, "doc_a and doc_b are the same document 'c'"),
    ("v.jsonl", '{"qid":"q","doc_a":"a","doc_b":"a","votes":[1,-1,null]}\n'
                '{"qid":"q","doc_a":"a","doc_b":"b","score":1}\n',
     None, 1, "doc_a and doc_b are the same document 'a'"),
    ("i.jsonl", '{"qid":1,"doc_a":7,"doc_b":"7","score":1}\n', None, 1, "doc_a and doc_b are the same document '7'"),
    ("l.log", "@ q a b !\n@ q b b =\n", None, 2, "docA and docB are the same document 'b'"),
    ("c.txt", "q a b 1\nq a a -1\n", "carterette", 2, "DOC1 and DOC2 are the same document 'a'"),
    ("x.tsv", "q\ta,b\t1\t2\nq\tb,b\t-1\n", None, 2, "left and right are the same document 'b'"),
]


@pytest.mark.parametrize("name,text,fmt,line,message", CASES, ids=[c[0] for c in CASES])
def test_refused_with_its_line(tmp_path, name, text, fmt, line, message):
    (tmp_path / name).write_text(text)
    args = ["-J", name, *(["--format", fmt] if fmt else []), "-Q"]
    res = run_module_inproc("fit", args, cwd=tmp_path)
    assert res.returncode == 2, res.stdout
    assert "Traceback" not in res.stderr
    assert res.stderr.startswith(f"zelo_fit: {name}:{line}: {message}"), res.stderr
    # without the line: fitted
    kept = "".join(ln + "\n" for k, ln in enumerate(text.splitlines(), 1) if k != line)
    if kept:
        (tmp_path / name).write_text(kept)
        assert run_module_inproc("fit", args, cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("pure", [False, True])
def test_streamed_parts_name_the_line(tmp_path, monkeypatch, pure):
    """A large JSON-lines file (read in parts, the compiled scanner or not): the same line as read whole."""
    monkeypatch.setattr(formats, "STREAM_CHUNK", 4096)
    if pure:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("PREF_EVAL_PURE_PYTHON", raising=False)
    lines = [f'{{"qid":"q{k % 7}","doc_a":"d{k}","doc_b":"d{k + 1}","score":0.25}}' for k in range(3000)]
    lines[2345] = '{"qid":"q1","doc_a":"z9","doc_b":"z9","score":0.25}'
    p = tmp_path / "big.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"big\.jsonl:2346: doc_a and doc_b are the same document 'z9'"):
        formats.read_judgments(str(p))
    with pytest.raises(InputError, match=r":2346: doc_a and doc_b are the same document 'z9'"):
        formats.parse_judgments(p.read_bytes(), "big.jsonl")


def test_zbench_self_pairs_kept():
    """zbench's one-document query: its self-pair is read (and changes no score), as zbench itself does."""
    side = {"metadata": {}, "content": "x", "document_id": "a"}
    pair = {"pair": {"pair_id": "q-a-a", "query_id": "q", "query": "t", "document_a": side, "document_b": side},
            **{f"{m}_score": {"thought": "", "score": 0.0} for m in ("openai", "gemini", "anthropic")}}
    j = formats.parse_judgments(json.dumps({"scored_pairs": [pair]}).encode(), "ai_scores.json")
    assert len(j) == 1
