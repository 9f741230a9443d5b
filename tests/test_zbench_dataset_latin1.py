"""A zbench dataset (QueryDocuments JSONL, ``--dataset`` of zelo_fit and zelo_pairs) whose ids are not UTF-8
(session 28, b38). Was refused (``ds.jsonl:1: byte 0xe9 is not UTF-8 text``) while zelo_judge read the same file
(``--docs ds.jsonl``) with its Latin-1 docnos as their bytes (session 27, b37). Now one rule: a raw byte that is not
UTF-8 is the id's byte, and its JSON escape ``\\udcNN`` (what our JSON writers write) is the same id.

zbench itself (run live from the mirror, tests/zbench_live.py) stops with a UnicodeDecodeError on the raw byte
and reads the escape as the id ``'d\\udce9'``: taking the raw byte refuses nothing zbench reads and reads the
escape as zbench does. Oracles: zbench's loader on the escaped file; an ASCII twin of the collection (each
byte >= 0x80 as ``~xx``), whose output, with the bytes put back, is the Latin-1 output byte for byte.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import zbench_live as zl
from cli_harness import run_module_inproc

DOCS = [b"d\xe9j\xe0", b"caf\xe9", b"plain", b"\xfcber"]
QUERY = b"t\xe9"


def _twin(b: bytes) -> bytes:
    """The ASCII twin of ``b``: a byte >= 0x80 as ``~xx``."""
    return b"".join(b"~%02x" % c if c >= 0x80 else bytes([c]) for c in b)


def _back(b: bytes) -> bytes:
    """:func:`_twin` undone."""
    import re

    return re.sub(rb"~([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), b)


def _dataset(form: str) -> bytes:
    """The dataset with its ids (and one content) as raw Latin-1 bytes, as JSON escapes, or as the ASCII twin."""
    def s(b: bytes) -> bytes:
        if form == "raw":
            return b'"' + b + b'"'
        if form == "twin":
            return b'"' + _twin(b) + b'"'
        return json.dumps(b.decode("utf-8", "surrogateescape")).encode("ascii")  # "d\udce9j\udce0"

    docs = b", ".join(b'{"id": ' + s(d) + b', "content": ' + s(b"text of " + d) + b'}' for d in DOCS)
    return (b'{"query": {"id": ' + s(QUERY) + b', "query": ' + s(b"caf\xe9") + b'}, "documents": [' + docs + b']}\n'
            + b'{"query": {"id": "q2", "query": "x"}, "documents": [{"id": "a", "content": "x"}, '
              b'{"id": "b", "content": "y"}]}\n')


def _judgments(twin: bool) -> bytes:
    """Clarke's 4-column judgments (``topic docA docB winner``) over the Latin-1 ids."""
    rows = [(DOCS[0], DOCS[1], DOCS[1]), (DOCS[1], DOCS[2], DOCS[1]), (DOCS[2], DOCS[3], DOCS[3]),
            (DOCS[0], DOCS[3], DOCS[0])]
    f = _twin if twin else (lambda b: b)
    return b"".join(f(QUERY) + b" " + f(a) + b" " + f(b) + b" " + f(w) + b"\n" for a, b, w in rows) + b"q2 a b a\n"


def _files(tmp_path: Path, form: str) -> Path:
    d = tmp_path / form
    d.mkdir()
    (d / "ds.jsonl").write_bytes(_dataset(form))
    (d / "j.txt").write_bytes(_judgments(form == "twin"))
    return d


def test_reader_keeps_the_bytes_as_zelo_judge_does(tmp_path):
    """The raw and the escaped file give the same ids, the file's bytes; zelo_judge's texts reader of the same
    file gives the same ids (one format, one set of ids)."""
    from pref_eval.io.judgments import read_zbench_dataset
    from pref_eval.io.texts import read_docs

    raw, esc = _files(tmp_path, "raw"), _files(tmp_path, "esc")
    got = read_zbench_dataset(str(raw / "ds.jsonl"))
    assert got == read_zbench_dataset(str(esc / "ds.jsonl"))
    assert got[0][0].encode("utf-8", "surrogateescape") == QUERY
    assert [d.encode("utf-8", "surrogateescape") for d in got[0][1]] == DOCS
    texts = read_docs(str(raw / "ds.jsonl"), warn=lambda _m: None)
    assert {q: list(docs) for q, docs in texts.per_query.items()} == dict(got)


@pytest.mark.parametrize("fmt", ["tsv", "zbench"])
def test_fit_dataset_latin1_equals_its_ascii_twin(tmp_path, fmt):
    """``zelo_fit --dataset`` on the Latin-1 file (raw or escaped) prints the twin's output with the bytes put
    back (the TSV's ids as raw bytes; zbench's JSON lines as ``\\udcNN`` escapes, w36's rule)."""
    out = {}
    for form in ("raw", "esc", "twin"):
        d = _files(tmp_path, form)
        r = run_module_inproc("fit", ["-J", "j.txt", "--dataset", "ds.jsonl", "--output-format", fmt, "-Q"], d,
                              text=False)
        assert r.returncode == 0, r.stderr
        out[form] = r.stdout
    if fmt == "tsv":
        assert out["raw"] == _back(out["twin"]) and b"\xe9" in out["raw"]
    else:
        twin = _back(out["twin"]).decode("utf-8", "surrogateescape")
        want = "".join(json.dumps(json.loads(x)) + "\n" for x in twin.splitlines())
        assert [json.loads(x) for x in out["raw"].decode("ascii").splitlines()] == \
            [json.loads(x) for x in want.splitlines()]
        assert b"\\udce9" in out["raw"]
    assert out["raw"] == out["esc"] or fmt == "zbench"  # zbench's records keep each file's own texts


def test_pairs_cycles_dataset_latin1(tmp_path):
    """``zelo_pairs cycles --dataset``: the raw and the escaped file draw the same pairs, the twin's with the
    bytes put back (as escapes in the JSON lines; raw bytes in ``--output-format tsv``)."""
    out = {}
    for form in ("raw", "esc", "twin"):
        d = _files(tmp_path, form)
        r = run_module_inproc("pairs", ["cycles", "--dataset", "ds.jsonl", "--cycles", "2", "--seed", "3",
                                        "--output-format", "tsv", "-Q"], d, text=False)
        assert r.returncode == 0, r.stderr
        out[form] = r.stdout
    assert out["raw"] == out["esc"] == _back(out["twin"])
    assert QUERY + b"\t" in out["raw"]


@pytest.mark.slow  # zbench in a process (pydantic's import): ~1 s
def test_zbench_reads_the_escape_and_fails_on_the_raw_byte(tmp_path):
    """zbench's own loader (``Dataset.model_validate({"data": load_jsonl(path)})``, as its annotator reads the
    dataset): the escaped file's ids are ours; the raw byte stops it with a UnicodeDecodeError."""
    pytest.importorskip("pydantic")
    root = zl.zbench_or_skip(tmp_path / "zb")
    raw, esc = _files(tmp_path, "raw"), _files(tmp_path, "esc")
    script = zl.PRELUDE + r'''
import json
from zbench.utils import load_jsonl
from zbench.common_types import Dataset
try:
    ds = Dataset.model_validate({"data": load_jsonl(sys.argv[1])})
except UnicodeDecodeError:
    print("UnicodeDecodeError")
else:
    print(json.dumps([[q.query.id, [d.id for d in q.documents]] for q in ds.data]))
'''
    from pref_eval.io.judgments import read_zbench_dataset

    assert zl.run(root, script, str(raw / "ds.jsonl")).strip() == "UnicodeDecodeError"
    theirs = json.loads(zl.run(root, script, str(esc / "ds.jsonl")))
    assert [[q, ds] for q, ds in read_zbench_dataset(str(raw / "ds.jsonl"))] == theirs
