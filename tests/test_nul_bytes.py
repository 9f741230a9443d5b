"""NUL bytes in input files (docs/input-formats.md, docs/differences.md).

A NUL in a TREC text file (run, qrels, ``-R prefs|qrels_prefs|qrels_jg``) or a text judgment file
(clarke3/4, llmlog, carterette, trecprefs, xie) is one ``file:line: a NUL byte ...`` error on every
reading path (pyarrow fast path forced or not, whole or in parallel parts, numpy tokenizer, bytes,
gzip; the judgment formats' column path and line parsers), before any other error of the file.
Before, a NUL ending a field was dropped (numpy bytes arrays strip trailing NULs): ``3\\0`` read as 3,
``ab\\0`` as ``ab``. JSON: a raw NUL is refused by the JSON parsers (strict JSON); an escaped
``\\u0000`` in a judgment id is refused like a tab (no TREC file written from it could be read back),
in a ``zelo_eval -q`` preference file it stays a character of the id, on every path.
"""
from __future__ import annotations

import gzip
import json

import pytest

import pref_eval.io.fastparse as fp
from pref_eval.errors import InputError
from pref_eval.io import judgment_columns as jc
from pref_eval.io import judgments as formats
from pref_eval.io.prefs import (prefs_from_bytes, qrels_jg_from_bytes, qrels_prefs_from_bytes, read_prefs,
                                read_qrels_jg, read_qrels_prefs)
from pref_eval.io.qrels import qrels_from_lines, read_qrels
from pref_eval.io.runs import read_run, run_from_bytes
from pref_eval.io.textfile import NUL_MESSAGE
from pref_eval.zelo.judgments import Judgments

from cli_harness import run_module_inproc

RUN = [b"q1 Q0 d%d %d %d.5 tag" % (k, k, 9 - k) for k in range(1, 9)]
QRELS = [b"q1 0 d%d %d" % (k, k % 3) for k in range(1, 9)]
PREFS = [b"q1 1 1 d%d %d" % (k, k % 3) for k in range(1, 9)]
QRELS_JG = [b"q1 1 d%d %d" % (k, k % 3) for k in range(1, 9)]

TREC = {  # name: (lines, {path: reader of a path}, reader of bytes)
    "run": (RUN, read_run, lambda b: run_from_bytes(b, "f", try_fast=False)),
    "qrels": (QRELS, read_qrels, lambda b: qrels_from_lines(b, "f", try_fast=False)),
    "prefs": (PREFS, read_prefs, lambda b: prefs_from_bytes(b, "f")),
    "qrels_prefs": (QRELS, read_qrels_prefs, lambda b: qrels_prefs_from_bytes(b, "f")),
    "qrels_jg": (QRELS_JG, read_qrels_jg, lambda b: qrels_jg_from_bytes(b, "f")),
}

# where the NUL goes in line 4 (0-based 3): ending a docno, ending the number, inside a field,
# alone after the line, in a comment line before it (then that comment is line 4)
PLACES = {
    "ends an id": lambda ln: ln.replace(b" d4 ", b" d4\0 "),
    "ends the number": lambda ln: ln + b"\0",
    "inside an id": lambda ln: ln.replace(b" d4 ", b" d\x004 "),
    "a field of its own": lambda ln: ln + b" \0",
}


def _with_nul(lines: list[bytes], place: str, repeat: int = 1) -> bytes:
    edited = list(lines)
    edited[3] = PLACES[place](edited[3])
    return b"\n".join(edited) + b"\n" + (b"\n".join(lines) + b"\n") * (repeat - 1)


def _error(fn) -> str:
    with pytest.raises(InputError) as err:
        fn()
    return str(err.value)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", TREC)
def test_trec_readers_refuse_a_nul_on_every_path(tmp_path, monkeypatch, kind, place):
    lines, read_path, read_bytes = TREC[kind]
    data = _with_nul(lines, place)
    p, g = tmp_path / "f", tmp_path / "g"
    p.write_bytes(data)
    g.write_bytes(gzip.compress(data))
    want = f"f:4: {NUL_MESSAGE}"
    assert _error(lambda: read_bytes(data)) == want
    assert _error(lambda: read_path(str(g))) == f"{g}:4: {NUL_MESSAGE}"
    for floor, split in ((1 << 40, 1 << 40), (0, 1 << 40), (0, 0)):  # tokenizer; pyarrow whole; in parts
        monkeypatch.setattr(fp, "PYARROW_MIN", floor)
        monkeypatch.setattr(fp, "SPLIT_MIN", split)
        assert _error(lambda: read_path(str(p))) == f"{p}:4: {NUL_MESSAGE}"


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_nul_in_a_large_file_names_its_line(tmp_path, kind):
    """A file above the fast path's floor (pyarrow tried, in two parts): the NUL's line, not the first
    line the parse stopped at; the NUL comes before an error on an earlier line (a field missing)."""
    lines = TREC[kind][0]
    body = (b"\n".join(lines) + b"\n") * 20000  # 160,000 lines, > 1 MB
    bad = lines[0].rsplit(b" ", 1)[0]
    data = bad + b"\n" + body + lines[1].replace(b" d2 ", b" d2\0 ") + b"\n" + body
    p = tmp_path / "f"
    p.write_bytes(data)
    assert len(data) > fp.PYARROW_MIN
    assert _error(lambda: TREC[kind][1](str(p))) == f"{p}:160002: {NUL_MESSAGE}"
    # without the NUL the earlier line is the error: the NUL is refused first
    p.write_bytes(data.replace(b"\0", b""))
    assert ":1: expected" in _error(lambda: TREC[kind][1](str(p)))


JUDGMENTS = {
    "clarke4": [b"q1 a b a", b"q1 b c c", b"q1 a c a", b"q1 c d d", b"q1 a d a"],
    "clarke3": [b"q1 a b", b"q1 b c", b"q1 a c", b"q1 c d", b"q1 a d"],
    "llmlog": [b"@ q1 a b !", b"@ q1 b c =", b"@ q1 a c !", b"@ q1 c d ?", b"@ q1 a d !"],
    "carterette": [b"q1 a b 1", b"q1 b c -1", b"q1 a c 0", b"q1 c d 1", b"q1 a d -1"],
    "trecprefs": [b"q1 1 1 a 2", b"q1 1 1 b 1", b"q1 1 1 c 0", b"q1 1 1 d 1", b"q1 1 1 e 2"],
    "xie": [b"q1\ta,b\t1\t1\t1", b"q1\tb,c\t-1\t0\t2", b"q1\ta,c\t1\t1\t1", b"q1\tc,d\t1\t1\t1",
            b"q1\ta,d\t2\t2\t2"],
}


@pytest.mark.parametrize("place", ["ends an id", "ends the number"])
@pytest.mark.parametrize("fmt", JUDGMENTS)
def test_text_judgment_formats_refuse_a_nul_on_every_path(tmp_path, monkeypatch, fmt, place):
    edited = list(JUDGMENTS[fmt])
    edited[3] = edited[3].replace(b" d", b" d\0") if place == "ends an id" else edited[3] + b"\0"
    if fmt == "xie":
        edited[3] = edited[3].replace(b",d", b",d\0")
    data = b"\n".join(edited) + b"\n"
    assert b"\0" in data
    p, g = tmp_path / "f", tmp_path / "g"
    p.write_bytes(data)
    g.write_bytes(gzip.compress(data))
    for floor in (1 << 40, 0):  # the column path with pyarrow forced or not
        monkeypatch.setattr(jc, "PYARROW_MIN", floor)
        monkeypatch.setattr(fp, "PYARROW_MIN", floor)
        for path in (p, g):
            for given in (fmt, None):
                assert _error(lambda path=path, given=given: formats.read_judgments(str(path), given)) == \
                    f"{path}:4: {NUL_MESSAGE}"
    assert _error(lambda: formats.READERS[fmt](data.decode(), "f", Judgments(), "half")) == f"f:4: {NUL_MESSAGE}"
    # the file without its NUL is read (the NUL was the only fault)
    p.write_bytes(data.replace(b"\0", b""))
    assert len(formats.read_judgments(str(p), fmt)) > 0


def test_commands_exit_2_with_one_line(tmp_path):
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_bytes(_with_nul(RUN, "ends an id"))
    qrels.write_bytes(b"\n".join(QRELS) + b"\n")
    r = run_module_inproc("trec", [str(qrels), str(run)])
    assert r.returncode == 2 and r.stderr == f"zelo_trec: {run}:4: {NUL_MESSAGE}\n"
    judg = tmp_path / "j"
    judg.write_bytes(b"q1 a b\nq1 b c\x00\n")
    r = run_module_inproc("fit", ["-J", str(judg)])
    assert r.returncode == 2 and r.stderr == f"zelo_fit: {judg}:2: {NUL_MESSAGE}\n"


def _jsonl(ids: list[tuple[str, str, str]]) -> bytes:
    return b"".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "score": 1}).encode() + b"\n" for q, a, b in ids)


def test_json_judgments_raw_nul_refused_escaped_nul_id_refused(tmp_path, monkeypatch):
    ids = [("q1", f"d{k}", f"d{k + 1}") for k in range(200)]
    esc = _jsonl(ids[:150] + [("q1", "d7\x00", "d8")] + ids[150:])
    assert b"\\u0000" in esc
    raw = esc.replace(b"\\u0000", b"\x00")
    p = tmp_path / "f.jsonl"
    monkeypatch.setattr(formats, "STREAM_CHUNK", 512)  # the large-file path, in parts
    for data, why in ((esc, "expected doc_a not empty and without tabs, line breaks or NUL, got 'd7\\x00' "
                            "(ids are written to tab-separated files)"),
                      (raw, "expected a JSON object per line (Invalid control character at)")):
        p.write_bytes(data)
        assert _error(lambda: formats.read_judgments(str(p))) == f"{p}:151: {why}"  # streamed
        assert _error(lambda data=data: formats.parse_judgments(data, "f")) == f"f:151: {why}"  # whole
        assert _error(lambda data=data: formats.READERS["jsonl"](data.decode(), "f", Judgments(), "half")) == \
            f"f:151: {why}"
    # zbench ai_scores.json: an escaped NUL id is refused on the column path and the parser alike
    pair = {"pair": {"pair_id": "p", "query_id": "q1", "query": "", "document_a": {"document_id": "a\x00",
            "metadata": {}, "content": ""}, "document_b": {"document_id": "b", "metadata": {}, "content": ""}},
            **{m: {"thought": "", "score": 0.5} for m in ("openai_score", "anthropic_score", "gemini_score")}}
    doc = json.dumps({"scored_pairs": [pair]}).encode()
    why = "f:1: expected document_a not empty and without tabs, line breaks or NUL, got 'a\\x00'"
    assert _error(lambda: formats.parse_judgments(doc, "f")).startswith(why)
    assert _error(lambda: formats.READERS["zbench"](doc.decode(), "f", Judgments(), "half")).startswith(why)
    assert "Invalid control character" in _error(
        lambda: formats.parse_judgments(doc.replace(b"\\u0000", b"\x00"), "f"))


def test_preference_jsonl_keeps_an_escaped_nul_refuses_a_raw_one(tmp_path, monkeypatch):
    """zelo_eval -q files: ids are strings kept as written; the scanner, orjson and line parser agree."""
    from pref_eval.io import jsonl_scan
    from pref_eval.io import pref_jsonl

    recs = [{"qid": f"q{k}", "runi": "A", "runj": "B", "sample": 0, "type": "preference", "rpp": 0.5}
            for k in range(4)]
    recs[2]["qid"] = "q2\x00"
    p = tmp_path / "p.jsonl"
    esc = "".join(json.dumps(r) + "\n" for r in recs).encode()
    for scanner in (True, False):
        monkeypatch.setattr(jsonl_scan, "scanner_available", lambda s=scanner: s)
        p.write_bytes(esc)
        assert sorted(pref_jsonl.read_pref_file(str(p)).qids) == ["q0", "q1", "q2\x00", "q3"]
        p.write_bytes(esc.replace(b"\\u0000", b"\x00"))
        assert _error(lambda: pref_jsonl.read_pref_file(str(p))).startswith(f"{p}:3: expected a JSON object")
