"""zelo_judge on a Latin-1 collection (session 27, b37): texts files and a PAIRS file whose ids and texts are
ISO-8859-1 / Windows-1252 bytes, as CLEF's and older TREC collections are. Before, every such file was refused
(``FILE:LINE: byte 0xe9 is not UTF-8 text``), and converting it with iconv changed its ids too, so they no longer
matched the qrels, runs and judgments that keep the bytes.

The rule (io/texts.py, docs/zelo_judge.md "Texts that are not UTF-8"): ids keep their bytes end to end (the
request's ids, the store, the judgments written, ``export``, zelo_agree against a Latin-1 reference); a text's
byte that is not UTF-8 is shown to the judge as its Windows-1252 character (WHATWG's decoding of ``latin1``),
with one warning per file. Oracles: Python's own ``bytes.decode("cp1252")`` of the texts (what the stand-in
server and a ``cmd:`` judge receive), and the bytes in equal the bytes out for the ids."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_harness import judge_env, run_module_inproc

pytest.importorskip("aiohttp")

Q = b"t\xe9"
DOCS = [b"d\xe9j\xe0", b"caf\xe9", b"na\xefve", b"plain"]
QTEXT = b"QID=" + Q + b" caf\xe9 cr\xe8me \x80 \x93quoted\x94"  # \x80 euro, \x93 \x94 curly quotes (cp1252)
PAIRS = [(DOCS[0], DOCS[1]), (DOCS[2], DOCS[0]), (DOCS[1], DOCS[3]), (DOCS[3], DOCS[2])]


def _u(b: bytes) -> str:
    """What the model reads: the bytes as Windows-1252 text."""
    return b.decode("cp1252")


def _s(b: bytes) -> str:
    """The id as pref_eval keeps it (surrogateescape)."""
    return b.decode("utf-8", "surrogateescape")


def _b(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _corpus(d: Path, utf8_doc: bool = True) -> None:
    (d / "q.tsv").write_bytes(Q + b"\t" + QTEXT + b"\n")
    lines = [doc + b"\tDOC=" + doc + b" text of " + doc + b" \xe0 la carte\n" for doc in DOCS]
    if utf8_doc:  # one document in UTF-8 beside the Latin-1 ones: read as UTF-8, no warning for its line
        lines[3] = b"plain\tDOC=plain na\xc3\xafve UTF-8\n"
    (d / "d.tsv").write_bytes(b"".join(lines))
    (d / "p.txt").write_bytes(b"".join(Q + b" " + a + b" " + b + b"\n" for a, b in PAIRS))
    # zelo_agree's reference: clarke4 'topic docA docB winner', the smaller id (as bytes) wins
    (d / "ref.c4").write_bytes(b"".join(Q + b" " + a + b" " + b + b" " + min(a, b) + b"\n" for a, b in PAIRS))


def _zj(d: Path, *args: str):
    res = run_module_inproc("judge", list(args), d, env=judge_env())
    assert "Traceback" not in res.stderr, res.stderr
    return res


def test_latin1_collection_through_a_stand_in_server(tmp_path, server):
    """Texts and ids to the server as Windows-1252 text (its parsed markers), the ids' bytes kept in the
    judgments, the store's export and zelo_agree's match against a Latin-1 reference (every pair found)."""
    _corpus(tmp_path)
    truth = {_u(Q): {_u(doc): float(k) for k, doc in enumerate(DOCS)}}
    srv, url = server(truth=truth)
    res = _zj(tmp_path, "p.txt", "--queries", "q.tsv", "--docs", "d.tsv", "--judge", f"openai:m@{url}",
              "--store", "s.sqlite", "-o", "out.jsonl")
    assert res.returncode == 0, res.stderr
    warnings = [x for x in res.stderr.splitlines() if "not UTF-8" in x]
    tail = ("characters for the judge (ids keep their bytes); a file in another encoding (Latin-2, KOI8-R, Shift JIS): "
            "iconv -f ENCODING -t UTF-8 {} (its ids hold bytes that are not ASCII, which converting changes too: "
            "convert the pairs, qrels and runs alike)")
    assert warnings == [
        "zelo_judge: warning: d.tsv:1: 3 text(s) hold bytes that are not UTF-8: read as Windows-1252 (Latin-1) "
        + tail.format("d.tsv"),
        "zelo_judge: warning: q.tsv:1: 1 text(s) hold bytes that are not UTF-8: read as Windows-1252 (Latin-1) "
        + tail.format("q.tsv")], res.stderr
    # the server parsed the markers out of the prompt's text: the ids as the model reads them
    assert sorted(set(srv.served)) == sorted(("m", _u(Q), _u(a), _u(b)) for a, b in PAIRS)
    want_ids = {(_s(Q), _s(a), _s(b)) for a, b in PAIRS}
    out = (tmp_path / "out.jsonl").read_bytes()
    assert out.isascii() and b"\\udce9" in out  # the JSON writers' rule (w36)
    assert {(r["qid"], r["doc_a"], r["doc_b"]) for r in map(json.loads, out.splitlines())} == want_ids
    exp = _zj(tmp_path, "export", "--store", "s.sqlite", "-o", "exp.jsonl")
    assert exp.returncode == 0, exp.stderr
    assert sorted((tmp_path / "exp.jsonl").read_bytes().splitlines()) == sorted(out.splitlines())
    agree = run_module_inproc("agree", ["-J", "ref.c4", "-J", "out.jsonl", "-l", "pair", "-o", "jsonl", "-Q"],
                              tmp_path)
    assert agree.returncode == 0, agree.stderr
    recs = {r["statistic"]: r["value"] for r in map(json.loads, agree.stdout.splitlines()) if r["judge_b"]}
    assert (recs["matched"], recs["only_in_a"], recs["only_in_b"]) == (len(PAIRS), 0, 0)  # every id matched as bytes
    # a hand count: the judge's winner (score > 0: the second document) against the reference's (the smaller id)
    hand = [(r["doc_b"] if r["votes"][0] > 0 else r["doc_a"]) == min(r["doc_a"], r["doc_b"], key=_b)
            for r in map(json.loads, out.splitlines())]
    assert recs["agreement"] == sum(hand) / len(hand)


def test_a_cmd_judge_reads_the_texts_as_windows_1252(tmp_path):
    """A ``cmd:`` judge's request: the texts and the prompt as Windows-1252 text (UTF-8 on its stdin), a UTF-8
    text unchanged, the ids as their bytes (the ``\\udcNN`` escape of our JSON writers)."""
    _corpus(tmp_path)
    (tmp_path / "judge.py").write_text(
        "import sys, json\nlog = open('seen.jsonl', 'ab')\nfor line in sys.stdin.buffer:\n    log.write(line)\n"
        "    log.flush()\n    print(json.dumps({'score': 0.5}), flush=True)\n")
    res = _zj(tmp_path, "p.txt", "--queries", "q.tsv", "--docs", "d.tsv", "-Q", "--store", "s.sqlite",
              f"--judge=cmd:{sys.executable} {tmp_path / 'judge.py'}", "-o", "out.jsonl")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    seen = [json.loads(x) for x in (tmp_path / "seen.jsonl").read_bytes().decode("utf-8").splitlines()]
    texts = {_s(doc): _u(b"DOC=" + doc + b" text of " + doc + b" \xe0 la carte") for doc in DOCS[:3]}
    texts["plain"] = "DOC=plain naïve UTF-8"
    assert len(seen) == len(PAIRS)
    for r in seen:
        assert r["qid"] == _s(Q) and r["query"] == _u(QTEXT) == "QID=té café crème € “quoted”"
        assert r["doc_a"] == texts[r["docno_a"]] and r["doc_b"] == texts[r["docno_b"]]
        assert _u(Q) in r["prompt"] and "\udce9" not in r["prompt"] and "€" in r["prompt"]


def test_zbench_pairs_json_texts_and_jsonl_texts(tmp_path):
    """The same rule for JSON texts: a JSON lines docs file with raw Latin-1 bytes, and zbench's pairs.json
    carrying its texts (a ``\\udcNN`` escape, our writers' form of a byte, read as that byte)."""
    from pref_eval.io.texts import read_docs, read_pairs, Texts

    (tmp_path / "d.jsonl").write_bytes(b'{"docno": "caf\xe9", "text": "cr\xe8me \x80"}\n'
                                       b'{"docno": "b", "title": "na\\u00efve", "text": "\\udce9t\xe9"}\n')
    warned: list[str] = []
    t = read_docs(str(tmp_path / "d.jsonl"), warn=warned.append)
    assert t.docs == {_s(b"caf\xe9"): "crème €", "b": "naïve\nété"}
    assert len(warned) == 1 and "d.jsonl:1: 2 text(s) hold bytes that are not UTF-8" in warned[0]
    doc = {"document_id": "caf\\udce9", "content": "x\\udce9"}
    pairs = {"pairs": [{"query_id": "t\\udce9", "query": "qu\\udce9ry", "document_a": doc,
                        "document_b": {"document_id": "b", "content": "y"}}]}
    (tmp_path / "pairs.json").write_text(json.dumps(pairs).replace("\\\\", "\\"))
    texts, warned = Texts(), []
    assert read_pairs(str(tmp_path / "pairs.json"), warned.append, texts) == [(_s(Q), _s(b"caf\xe9"), "b")]
    assert texts.queries == {_s(Q): "quéry"} and texts.per_query[_s(Q)] == {_s(b"caf\xe9"): "xé", "b": "y"}
    assert len(warned) == 1 and "pairs.json:1: 2 text(s) hold bytes" in warned[0], warned


@pytest.mark.parametrize("encoding", ["koi8_r", "iso8859_2", "shift_jis"])
def test_another_encoding_with_ascii_ids_is_told_to_convert(tmp_path, encoding):
    """No ``--text-encoding`` (session 28, b38): a texts file of another 8-bit encoding is read as Windows-1252 with
    one warning, which says whether converting the file changes its ids; here they are ASCII (as the docnos of
    TREC, CLEF and NTCIR collections are), so the advice is to convert, and after the conversion (Python's codec
    standing for iconv) the judge reads the texts right (oracle: Python's codec) with the same ids, no warning."""
    from pref_eval.io.texts import read_docs

    words = {"koi8_r": "Привет мир", "iso8859_2": "Příliš žluťoučký kůň", "shift_jis": "日本語のテキスト"}[encoding]
    data = b"".join(b"LA%04d-0001\t" % k + f"{words} {k}".encode(encoding) + b"\n" for k in range(3))
    (tmp_path / "d.tsv").write_bytes(data)
    warned: list[str] = []
    read_docs(str(tmp_path / "d.tsv"), warn=warned.append)
    assert [w.replace(f"{tmp_path}/", "") for w in warned] == [
        "d.tsv:1: 3 text(s) hold bytes that are not UTF-8: read as Windows-1252 (Latin-1) characters for the judge "
        "(ids keep their bytes); a file in another encoding (Latin-2, KOI8-R, Shift JIS): iconv -f ENCODING -t UTF-8 "
        "d.tsv (its ids are ASCII: converting leaves them as they are)"]
    (tmp_path / "u.tsv").write_bytes(data.decode(encoding).encode("utf-8"))
    warned = []
    t = read_docs(str(tmp_path / "u.tsv"), warn=warned.append)
    assert warned == [] and t.docs == {f"LA{k:04d}-0001": f"{words} {k}" for k in range(3)}
