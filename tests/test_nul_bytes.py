"""NUL bytes in input files (docs/input-formats.md, docs/differences.md).

A NUL in a TREC text file (run, qrels, ``-R prefs|qrels_prefs|qrels_jg``) or a text judgment file
(clarke3/4, llmlog, carterette, trecprefs, xie) is one ``file:line: a NUL byte ...`` error on every
reading path (pyarrow fast path forced or not, whole or in parallel parts, numpy tokenizer, bytes,
gzip; the judgment formats' column path and line parsers), before any other error of the file.
Before, a NUL ending a field was dropped (numpy bytes arrays strip trailing NULs): ``3\\0`` read as 3,
``ab\\0`` as ``ab``. JSON: a raw NUL is refused by the JSON parsers (strict JSON); an escaped
``\\u0000`` in a judgment id is refused like a tab (no TREC file written from it could be read back),
in a ``zelo_eval -q`` preference file it stays a character of the id, on every path.

Every other text input (session 16: ``-Z`` z-scores, per-query tables, orderings, matrices, zELO score
files, best items, ``qid docno`` lists, texts, pairs, prompt templates, states, zbench datasets and
annotated files, the JSON-lines outputs zelo_plot reads) refuses a NUL the same way, whole, gzip, stdin,
BOM/CRLF alike: :func:`pref_eval.io.textfile.read_input_text` checks it after the UTF-8 check.
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
    # (both readers where the C scanner is built; without it -- no C compiler, PREF_EVAL_PURE_PYTHON -- the line
    # parser alone: forcing the scanner on there was an ImportError, session 30's install without a compiler)
    for scanner in (True, False) if jsonl_scan.scanner_available() else (False,):
        monkeypatch.setattr(jsonl_scan, "scanner_available", lambda s=scanner: s)
        p.write_bytes(esc)
        assert sorted(pref_jsonl.read_pref_file(str(p)).qids) == ["q0", "q1", "q2\x00", "q3"]
        p.write_bytes(esc.replace(b"\\u0000", b"\x00"))
        assert _error(lambda: pref_jsonl.read_pref_file(str(p))).startswith(f"{p}:3: expected a JSON object")


# ---------------------------------------------------------------- every other text input (session 16)
def _lines_of(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def _reader(module: str, fn: str, **kw):
    def read(path: str):
        import importlib

        return getattr(importlib.import_module(f"pref_eval.{module}"), fn)(path, **kw)
    return read


_AGREE = '{"judge_a": "x", "judge_b": "y", "level": "pair", "statistic": "kappa", "value": 0.5, ' \
         '"ci_low": 0.1, "ci_high": 0.9, "n": %d}'
_COMPARE = '{"measure": "map", "run_a": "A", "run_b": "%s", "test": "t", "mean_diff": 0.1, "p_value": 0.5, ' \
           '"p_adjusted": 0.5}'
_DATASET = '{"query": {"id": "q%d", "query": "text"}, "documents": [{"id": "d1", "content": "c"}]}'
_ANNOTATED = '{"query": {"id": "q%d", "query": "text"}, "documents": [{"id": "d1", "content": "c", "score": 0.5}]}'
_STATE_LINES = ("{", '  "version": 2,', '  "queries": {}', "}")

# reader -> (read a path, a valid file, the line that gets the NUL). Every reader of docs/input-formats.md
# that reads text other than TREC files and judgments (those: the tests above); each reads the whole file
# through textfile.read_input_text / read_input_bytes (gzip, BOM, stdin alike), none streams.
OTHER = {
    "zscores (-Z)": (_reader("io.zscores", "read_zscores"),
                     _lines_of("q1 map 0.5 0.1", "q2 map 0.4 0.2", "q3 map 0.3 0.1"), 2),
    "per-query tsv": (_reader("io.perquery", "read_per_query"),
                      _lines_of("run\tqid\tmeasure\tvalue", "A\tq1\tmap\t0.5", "A\tq2\tmap\t0.4",
                                "B\tq1\tmap\t0.3"), 3),
    "per-query csv": (_reader("io.perquery", "read_per_query"),
                      _lines_of("run,qid,measure,value", "A,q1,map,0.5", "A,q2,map,0.4", "B,q1,map,0.3"), 3),
    "per-query jsonl": (_reader("io.perquery", "read_per_query"),
                        _lines_of(*(json.dumps({"run": "A", "qid": f"q{k}", "measure": "map", "value": 0.5})
                                    for k in range(3))), 2),
    "ordering score": (_reader("io.orderings", "read_ordering"), _lines_of("system score", "A 0.5", "B 0.4"), 3),
    "ordering list": (_reader("io.orderings", "read_ordering"), _lines_of("A", "B", "C"), 2),
    "ordering table": (_reader("io.orderings", "read_ordering"),
                       _lines_of("run\tqid\tmeasure\tvalue", "A\tall\tmap\t0.5", "B\tall\tmap\t0.4"), 3),
    "ordering aggregate": (_reader("io.orderings", "read_ordering"),
                           _lines_of('{"qid": "q1", "map": {"type": "metric", "mean": ["B", "A"]}}',
                                     '{"qid": "all", "map": {"type": "metric", "mean": ["A", "B"]}}'), 2),
    "matrix": (_reader("io.matrix", "read_probability_matrix"),
               _lines_of("# K x K", "0.5 0.6 0.7", "0.4 0.5 0.6", "0.3 0.4 0.5"), 3),
    "zELO scores": (_reader("io.zelo_scores", "read_zelo_scores"),
                    _lines_of("qid\tdocno\tscore\tse", "q1\td1\t0.5\t0.1", "q1\td2\t-0.5\t0.1"), 3),
    "best items (zELO)": (_reader("io.best_items", "read_best_items"),
                          _lines_of("qid\tdocno\tscore\tse", "q1\td1\t0.5\t0.1", "q1\td2\t-0.5\t0.1"), 2),
    "qid docno": (_reader("io.candidates", "read_candidates"), _lines_of("q1 d1", "q1 d2", "q2 d3"), 2),
    "queries tsv": (_reader("io.texts", "read_queries"), _lines_of("q1\tfirst query", "q2\tsecond query"), 2),
    "queries jsonl": (_reader("io.texts", "read_queries"),
                      _lines_of('{"qid": "q1", "text": "one"}', '{"qid": "q2", "text": "two"}'), 2),
    "docs tsv": (_reader("io.texts", "read_docs"), _lines_of("d1\ttext one", "d2\ttext two", "d3\tthree"), 2),
    "docs zbench": (_reader("io.texts", "read_docs"), _lines_of(_DATASET % 1, _DATASET % 2), 2),
    "pairs text": (_reader("io.texts", "read_pairs"), _lines_of("q1 d1 d2", "q1 d2 d3", "q2 d1 d3"), 2),
    "pairs jsonl": (_reader("io.texts", "read_pairs"),
                    _lines_of('{"qid": "q1", "doc_a": "d1", "doc_b": "d2"}', '{"qid": "q1", "doc_a": "d2", '
                              '"doc_b": "d3"}'), 2),
    "prompt template": (_reader("io.texts", "read_prompt_template"),
                        _lines_of("Query: {query}", "A: {doc_a}", "B: {doc_b}"), 2),
    "zelo_agree jsonl": (_reader("io.agree_records", "read_agree_jsonl"), _lines_of(_AGREE % 1, _AGREE % 2), 2),
    "zelo_compare jsonl": (_reader("io.comparisons", "read_compare_jsonl"),
                           _lines_of(_COMPARE % "B", _COMPARE % "C"), 2),
    "zelo_pairs state": (_reader("io.pair_state", "read_state_text"), _lines_of(*_STATE_LINES), 2),
    "zbench dataset": (_reader("io.judgments", "read_zbench_dataset"), _lines_of(_DATASET % 1, _DATASET % 2), 2),
    "zbench annotated": (_reader("io.judgments", "read_zbench_annotated"),
                         _lines_of(_ANNOTATED % 1, _ANNOTATED % 2), 2),
}


def _nul_at(line: bytes, place: str) -> bytes:
    """The NUL ending the first field (before the first separator or quote), ending the line, or inside
    the first field."""
    if place == "ends the line":
        return line + b"\0"
    if place == "inside a field":
        return line[:1] + b"\0" + line[1:]
    cut = min([i for i in (line.find(c) for c in (b" ", b"\t", b",", b'"')) if i > 0] or [len(line)])
    return line[:cut] + b"\0" + line[cut:]


@pytest.mark.parametrize("place", ["ends a field", "ends the line", "inside a field"])
@pytest.mark.parametrize("kind", OTHER)
def test_other_text_inputs_refuse_a_nul(tmp_path, monkeypatch, kind, place):
    """Before session 16 the text ones read a NUL as a character of a field (an id ``d2\\0`` of its own) or
    dropped it (a matrix's ``0.5\\0`` read as 0.5, a best item ``d1\\0`` as ``d1``); the JSON ones refused
    it with the JSON parser's message (a state file at line 0)."""
    read, good, at = OTHER[kind]
    ok = tmp_path / "ok"
    ok.write_bytes(good)
    read(str(ok))  # the file without its NUL is read: the NUL is the only fault
    lines = good.split(b"\n")
    lines[at - 1] = _nul_at(lines[at - 1], place)
    data = b"\n".join(lines)
    p, g = tmp_path / "f", tmp_path / "g.gz"
    p.write_bytes(data)
    g.write_bytes(gzip.compress(data))
    assert _error(lambda: read(str(p))) == f"{p}:{at}: {NUL_MESSAGE}"
    assert _error(lambda: read(str(g))) == f"{g}:{at}: {NUL_MESSAGE}"
    (tmp_path / "crlf").write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))  # BOM, CRLF: same line
    assert _error(lambda: read(str(tmp_path / "crlf"))) == f"{tmp_path / 'crlf'}:{at}: {NUL_MESSAGE}"


@pytest.mark.parametrize("kind", ["zscores (-Z)", "ordering list", "docs tsv", "zbench dataset"])
def test_other_text_inputs_refuse_a_nul_on_stdin(monkeypatch, kind):
    import io
    import sys

    read, good, at = OTHER[kind]
    data = good.replace(b"\n", b"\0\n", at)  # the NUL ends line ``at`` (and the lines before it): the first
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert _error(lambda: read("-")) == f"<stdin>:1: {NUL_MESSAGE}"


def test_a_nul_is_refused_before_a_later_error_and_after_bad_utf8(tmp_path):
    """The NUL check is on the whole text before parsing (a NUL on line 2, a bad line 3: line 2); a byte that
    is not UTF-8 on an earlier or later line is found first, as for the text judgment formats."""
    from pref_eval.io.candidates import read_candidates
    from pref_eval.io.zscores import read_zscores

    p = tmp_path / "f"
    p.write_bytes(b"q1 d1\nq1 d2\0\nq1 d2 extra\n")
    assert _error(lambda: read_candidates(str(p))) == f"{p}:2: {NUL_MESSAGE}"
    p.write_bytes(b"q1 d1\nq1 d2\0\nq1 \xff\n")  # a qid docno list takes ids as bytes (session 26): the NUL
    assert _error(lambda: read_candidates(str(p))) == f"{p}:2: {NUL_MESSAGE}"
    from pref_eval.io.orderings import read_ordering

    p.write_bytes(b"a 1\nb 2\0\nc\xff 3\n")  # an ordering must be UTF-8: its bad byte is found first
    assert _error(lambda: read_ordering(str(p))).startswith(f"{p}:3: byte 0xff is not UTF-8")
    p.write_bytes(b"q1 map 0.5 0.1\nq2 map 0.5\0 0.1\nq3 map\n")
    assert _error(lambda: read_zscores(str(p))) == f"{p}:2: {NUL_MESSAGE}"


def test_other_commands_exit_2_with_one_line(tmp_path):
    """zelo_trec -Z, zelo_compare --orderings and -P, zelo_simulate --matrix, zelo_pairs cycles --docs,
    zelo_eval -B: one ``command: FILE:LINE: a NUL byte ...`` line, exit 2."""
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_bytes(b"\n".join(RUN) + b"\n")
    qrels.write_bytes(b"\n".join(QRELS) + b"\n")
    z = tmp_path / "z"
    z.write_bytes(b"q1 map 0.5 0.1\nq1 P_5\0 0.5 0.1\n")
    o, pq, m, docs, best = (tmp_path / n for n in ("o", "pq", "m", "docs", "best"))
    o.write_bytes(b"A\nB\0\n")
    pq.write_bytes(b"run\tqid\tmeasure\tvalue\nA\tq1\tmap\t0.5\nB\0\tq1\tmap\t0.4\n")
    m.write_bytes(b"0.5 0.6\n0.4 0.5\0\n")
    docs.write_bytes(b"q1 d1\nq1 d2\0\n")
    best.write_bytes(b"qid\tdocno\tscore\tse\nq1\td1\0\t0.5\t0.1\n")
    for module, args, f, line in (("trec", ["-Z", z, "-m", "map", qrels, run], z, 2),
                                  ("compare", ["--orderings", o, o], o, 2),
                                  ("compare", ["-P", pq, "--tests", "t"], pq, 3),
                                  ("simulate", ["tournament", "--matrix", m, "--reps", "1", "-Q"], m, 2),
                                  ("pairs", ["cycles", "--docs", docs, "-Q"], docs, 2),
                                  ("eval", ["-R", qrels, "-B", best, "-m", "BestRR", run], best, 2)):
        r = run_module_inproc(module, args, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.endswith(f": {f}:{line}: {NUL_MESSAGE}\n") \
            and r.stderr.count("\n") == 1, (module, r.stderr)
