"""Texts for judging: queries and documents (``zelo_judge --queries/--docs``).

Formats (detected from the first non-blank character; documented in
docs/zelo_judge.md):

* TSV ``id<TAB>text`` (queries: ``qid<TAB>text``; documents:
  ``docno<TAB>text``); a third and later TAB field is part of the text.
* JSON lines: queries ``{"qid"|"query_id"|"id"|"_id", "text"|"query"}``;
  documents ``{"docno"|"doc_id"|"id"|"_id", "text"|"contents"|"content"}``
  (an optional ``"title"`` is put before the text).
* zbench's QueryDocuments JSONL (``{"query": {"id", "query"},
  "documents": [{"id", "content"}]}``): both queries and documents; a
  document's text is looked up per query first.
* ``irds:<dataset-id>``: ir_datasets' queries (``queries_iter``) and docs
  store (``docs_store().get_many``), texts by ``default_text()``.

Bytes (session 27): ids are their bytes, as in every reader (TREC qrels and runs, judgments): a byte that is
not UTF-8 is kept as its surrogate escape, so a Latin-1 docno of the texts file is the same id as in the pairs
file, the qrels and the store. A *text* is sent to a model, which reads text: a byte of a text that is not
part of a UTF-8 character is read as the Windows-1252 character of that byte (:func:`text_of`; what the WHATWG
Encoding Standard decodes for the labels ``latin1`` and ``iso-8859-1``: ISO-8859-1's letters, Windows'
punctuation for 0x80-0x9F), with one warning per file naming its first such line (docs/zelo_judge.md, "Texts
that are not UTF-8"). A NUL byte is refused (no text to judge).
"""
from __future__ import annotations


import json
from collections.abc import Callable
from typing import Any

from ..errors import InputError, shown as _shown
from .textfile import cr_line_ends, display_name, json_object, read_input_bytes, refuse_nul

_QID_KEYS = ("qid", "query_id", "id", "_id")
_QTEXT_KEYS = ("text", "query")
_DOCNO_KEYS = ("docno", "doc_id", "id", "_id")
_DTEXT_KEYS = ("text", "contents", "content", "body")


class Texts:
    """Query and document texts; ``doc(qid, docno)`` looks per query first, then globally."""

    def __init__(self) -> None:
        self.queries: dict[str, str] = {}
        self.docs: dict[str, str] = {}
        self.per_query: dict[str, dict[str, str]] = {}
        self._irds_docs: tuple[str, Any] | None = None  # (dataset id, docs store) for lazy lookups

    def query(self, qid: str) -> str | None:
        return self.queries.get(qid)

    def doc(self, qid: str, docno: str) -> str | None:
        pq = self.per_query.get(qid)
        if pq is not None and docno in pq:
            return pq[docno]
        return self.docs.get(docno)

    def prefetch(self, docnos: set[str]) -> None:
        """Load the ``irds:`` documents among ``docnos`` (one ``get_many`` call)."""
        if self._irds_docs is None:
            return
        source, store = self._irds_docs
        want = [d for d in docnos if d not in self.docs]
        if not want:
            return
        from .irds import run_quietly

        found = run_quietly(source, "read documents", lambda: store.get_many(want))
        for d, rec in found.items():
            self.docs[str(d)] = _irds_text(rec)


def _irds_text(rec) -> str:
    try:
        return str(rec.default_text())
    except AttributeError:
        return str(getattr(rec, "text", ""))


def _first(rec: dict, keys: tuple[str, ...]):
    """The first of ``keys`` whose value is a string or an integer (its digits), as text; else None."""
    for k in keys:
        v = rec.get(k)
        if isinstance(v, (str, int)) and not isinstance(v, bool):
            return str(v)
    return None


def _first_id(rec: dict, keys: tuple[str, ...]):
    """The id under the first of ``keys`` present in ``rec``: a string, or an integer read as its digits (as
    every JSON id); None when none is present or that value is anything else (``null``, ``true``, ``1.5``:
    the caller's ``file:line``, never the id ``'None'`` nor another key's value)."""
    for k in keys:
        if k in rec:
            v = rec[k]
            return str(v) if isinstance(v, (str, int)) and not isinstance(v, bool) else None
    return None


def _load_irds(dataset_id: str):
    from .irds import load_dataset

    return load_dataset(dataset_id)


def _text_lines(path: str, what: str):
    """``(display name, text)``: UTF-8, a byte that is not UTF-8 kept as its surrogate escape (ids are bytes;
    texts go through :func:`text_of`), CR-only line ends as LF, a NUL byte refused
    (:func:`~pref_eval.io.textfile.refuse_nul`: the TSV ids would differ from the TREC files' ones, and a NUL
    is no text to judge)."""
    name = display_name(path)
    data = cr_line_ends(read_input_bytes(path, what=what))
    text = data.decode("utf-8", "surrogateescape")
    refuse_nul(data, name)
    return name, text


def _windows_1252() -> dict[int, str]:
    """{surrogate escape of byte b: the Windows-1252 character of b} for b in 0x80..0xff; the five bytes
    Windows-1252 leaves undefined (0x81, 0x8d, 0x8f, 0x90, 0x9d) as the C1 control of that code point, as the
    WHATWG Encoding Standard decodes them."""
    table = {}
    for b in range(0x80, 0x100):
        try:
            table[0xDC00 + b] = bytes([b]).decode("cp1252")
        except UnicodeDecodeError:
            table[0xDC00 + b] = chr(b)
    return table


def text_of(text: str) -> str:
    """A text read with surrogateescape as the text a model is shown: each byte that was not part of a UTF-8
    character (``\\udcNN``, also our JSON writers' escape of such a byte) as its Windows-1252 character; UTF-8
    text unchanged (a Latin-1 ``caf\\xe9`` and a UTF-8 ``café`` give the same text)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a surrogate: a byte that was not UTF-8 (or a lone one of a JSON escape: kept)
        return text.translate(_windows_1252())
    return text


class _Bytes:
    """The count and first line of a file's texts holding a byte that is not UTF-8, for one warning."""

    def __init__(self) -> None:
        self.n, self.first = 0, 0
        self.ids_ascii = True  # every id of the file ASCII: a conversion of the file (iconv) leaves them as they are

    def text(self, body: str, no: int, *ids: str) -> str:
        """``body`` as the judge reads it (:func:`text_of`), counted when it held a byte that is not UTF-8; ``ids``:
        the ids given with it (whether the file's ids are ASCII, for the warning's advice)."""
        if self.ids_ascii and not all(i.isascii() for i in ids):
            self.ids_ascii = False
        out = text_of(body)
        if out != body:
            self.n += 1
            self.first = self.first or no
        return out

    def warn(self, name: str, warn: Callable[[str], None] | None) -> None:
        """One warning per file holding such texts; its advice for a file of another 8-bit encoding says whether
        converting it (iconv) would change its ids too (they are bytes, compared with the qrels', runs' and
        pairs' bytes; an ASCII id is the same in UTF-8 and in every ASCII-compatible encoding)."""
        if self.n and warn is not None:
            ids = ("its ids are ASCII: converting leaves them as they are" if self.ids_ascii else
                   "its ids hold bytes that are not ASCII, which converting changes too: convert the pairs, qrels "
                   "and runs alike")
            warn(f"{name}:{self.first}: {self.n} text(s) hold bytes that are not UTF-8: read as Windows-1252 "
                 f"(Latin-1) characters for the judge (ids keep their bytes); a file in another encoding (Latin-2, "
                 f"KOI8-R, Shift JIS): iconv -f ENCODING -t UTF-8 {name} ({ids})")


def _put(table: dict[str, str], first: dict[str, int], key: str, text: str, name: str, no: int, what: str,
         shown: str | None = None) -> None:
    """``table[key] = text``; the same id again with another text is refused (which one would be judged?)."""
    old = table.get(key)
    if old is not None and old != text and key in first:
        raise InputError(name, no, f"{what} {shown or key} again with another text (first on line {first[key]}); "
                         f"expected each {what} once")
    table[key] = text
    first.setdefault(key, no)


def read_queries(path: str, into: Texts | None = None, warn: Callable[[str], None] | None = None) -> Texts:
    """Read query texts (TSV, JSONL, zbench dataset or ``irds:``) into ``into``; ``warn`` gets the warning
    of texts that are not UTF-8 (see the module)."""
    out = into if into is not None else Texts()
    if path.startswith("irds:"):
        ds = _load_irds(path[5:])
        if not ds.has_queries():
            raise InputError(path, 0, "dataset has no queries")
        from .irds import run_quietly

        def fill() -> None:
            for rec in ds.queries_iter():
                out.queries[str(rec.query_id)] = _irds_text(rec)

        run_quietly(path, "read queries", fill)
        return out
    name, text = _text_lines(path, "queries file")
    _parse(text, name, out, queries=True, warn=warn)
    return out


def read_docs(path: str, into: Texts | None = None, warn: Callable[[str], None] | None = None) -> Texts:
    """Read document texts (TSV, JSONL, zbench dataset or ``irds:``) into ``into``; ``warn`` gets the warning
    of texts that are not UTF-8 (see the module)."""
    out = into if into is not None else Texts()
    if path.startswith("irds:"):
        ds = _load_irds(path[5:])
        if not ds.has_docs():
            raise InputError(path, 0, "dataset has no documents")
        from .irds import run_quietly

        out._irds_docs = (path, run_quietly(path, "open the docs store", ds.docs_store))
        if ds.has_queries() and not out.queries:
            read_queries(path, out)
        return out
    name, text = _text_lines(path, "documents file")
    _parse(text, name, out, queries=False, warn=warn)
    return out


def _parse(text: str, name: str, out: Texts, *, queries: bool, warn: Callable[[str], None] | None = None) -> None:
    if not text.strip():  # (before session 30: "none of the N pairs has its texts", naming the pairs file)
        raise InputError(name, 0, "empty queries file (expected 'qid<TAB>text' lines or JSON lines)" if queries else
                         "empty documents file (expected 'docno<TAB>text' lines or JSON lines)")
    raw = _Bytes()
    _parse_lines(text, name, out, queries, raw)
    raw.warn(name, warn)


def _parse_lines(text: str, name: str, out: Texts, queries: bool, raw: _Bytes) -> None:
    json_lines = text.lstrip()[:1] == "{"
    table, what = (out.queries, "query") if queries else (out.docs, "document")
    first: dict[str, int] = {}  # id -> line it was first given on (in this file)
    for no, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if not json_lines:
            key, tab, body = line.partition("\t")
            if not tab or not key.strip():
                what = "qid<TAB>text" if queries else "docno<TAB>text"
                raise InputError(name, no, f"expected '{what}' (or JSON lines)")
            _put(table, first, key.strip(), raw.text(body, no, key), name, no, what)
            continue
        rec = json_object(line, name, no, "a JSON object per line")
        if isinstance(rec.get("query"), dict) and isinstance(rec.get("documents"), list):
            _zbench_record(rec, name, no, out, first, raw)
            continue
        if queries:
            qid, body = _first_id(rec, _QID_KEYS), _first(rec, _QTEXT_KEYS)
            if qid is None or body is None:
                raise InputError(name, no, 'expected {"qid": ..., "text": ...}')
            _put(table, first, qid, raw.text(body, no, qid), name, no, what)
        else:
            docno, body = _first_id(rec, _DOCNO_KEYS), _first(rec, _DTEXT_KEYS)
            if docno is None or body is None:
                raise InputError(name, no, 'expected {"docno": ..., "text": ...}')
            title = rec.get("title")
            body = f"{title}\n{body}" if isinstance(title, str) and title else body
            _put(table, first, docno, raw.text(body, no, docno), name, no, what)


def _zbench_record(rec: dict, name: str, no: int, out: Texts, first: dict[str, int], raw: _Bytes) -> None:
    q = rec["query"]
    qid = _first_id(q, ("id",))
    if qid is None:
        raise InputError(name, no, 'expected {"query": {"id", "query"}, "documents": [{"id", "content"}]}')
    qtext = q.get("query")
    if isinstance(qtext, str):
        out.queries.setdefault(qid, raw.text(qtext, no, qid))
    docs = out.per_query.setdefault(qid, {})
    seen = {k: first[f"{qid}\t{k}"] for k in docs if f"{qid}\t{k}" in first}
    for d in rec["documents"]:
        if not isinstance(d, dict) or _first_id(d, ("id",)) is None or not isinstance(d.get("content"), str):
            raise InputError(name, no, 'expected each document as {"id": ..., "content": "..."}')
        _put(docs, seen, str(d["id"]), raw.text(d["content"], no, qid, str(d["id"])), name, no, "document",
             f"{d['id']} of query {qid}")
        first.setdefault(f"{qid}\t{d['id']}", no)


def read_pairs(path: str, warn: Callable[[str], None] | None = None,
               texts: Texts | None = None, reps: list[int] | None = None) -> list[tuple[str, str, str]]:
    """Pairs to judge, ``(qid, doc_a, doc_b)`` in file order.

    Any output of ``zelo_pairs``: JSON lines with ``qid``, ``doc_a``,
    ``doc_b`` (other fields, e.g. a score, are ignored), ``qid<TAB>doc_a<TAB>doc_b``
    (``cycles --output-format tsv``) or ``topic docA docB`` (``next``); or zbench's ``pairs.json`` or
    ``ai_scores.json`` (one JSON object with a ``"pairs"`` / ``"scored_pairs"`` list, :func:`_zbench_pairs`).
    ``texts``: filled with the query and document texts zbench's two files carry (``query``,
    ``document_a.content``; per query), which its judges were shown. ``reps``: filled with each pair's
    repetition, the fourth column of a ``next`` file that asks a pair again (its header's layout
    ``topic docA docB repeat``), else 0.
    """
    name, text = _text_lines(path, "pairs file")
    json_lines = text.lstrip()[:1] == "{"
    if json_lines:
        _refuse_raw_bytes(text, name)
        zb = _zbench_pairs(text, name, warn, texts)
        if zb is not None:
            if reps is not None:
                reps[:] = [0] * len(zb)
            return zb
    out: list[tuple[str, str, str]] = []
    ks: list[int] = []
    repeat_file = not json_lines and _first_line(text) == _repeat_header()
    for no, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or (not json_lines and line.lstrip().startswith("#")):
            continue
        if json_lines:
            rec = json_object(line, name, no, "a JSON object per line", '{"qid", "doc_a", "doc_b"}')
            f = [_first_id(rec, (k,)) for k in ("qid", "doc_a", "doc_b")]
            if None in f:
                raise InputError(name, no, 'expected string "qid", "doc_a" and "doc_b" fields')
        elif repeat_file:  # a next file asking a pair again: the repetition of each
            f = line.split()
            if len(f) != 4:
                raise InputError(name, no, f"expected 'topic docA docB repeat' (its header), got {len(f)} fields")
            if not (f[3].isascii() and f[3].isdigit()):
                raise InputError(name, no, f"repeat: expected an integer >= 0 (the pair's judgments before this one), "
                                           f"got {_shown(f[3])}")
            ks.append(int(f[3]))
        else:
            f = line.split()
            if len(f) != 3:
                raise InputError(name, no, f"expected 'qid doc_a doc_b', got {len(f)} fields{_judgment_hint(f)}")
        if f[1] == f[2]:
            raise InputError(name, no, f"pair of document {f[1]} with itself (expected two different documents; "
                                       "zbench's self-pair of a one-document query, also written by zelo_pairs "
                                       "--compat zbench, changes no score: leave such lines out)")
        out.append((f[0], f[1], f[2]))
    if reps is not None:
        reps[:] = ks if repeat_file else [0] * len(out)
    return out


def _first_line(text: str) -> str:
    """The file's first line that is not blank, without its line end."""
    for line in text.split("\n", 64):
        if line.strip():
            return line.rstrip("\r\n")
    return ""


REPEAT_LAYOUT = "topic docA docB repeat"  # a next file that asks a pair again (its header's layout; output/pairs)


def _repeat_header() -> str:
    from .judgments import request_header

    return request_header(REPEAT_LAYOUT).rstrip("\n")


def _refuse_raw_bytes(text: str, name: str) -> None:
    """A PAIRS file in JSON (JSON lines, zbench's ``pairs.json`` / ``ai_scores.json``) must be UTF-8 (RFC 8259), as
    zelo_fit reads the same files as judgments and zbench reads its own (a raw byte is its UnicodeDecodeError);
    an id that is not UTF-8 is written ``\\udcNN`` there, as our writers do (session 29: such a byte was taken
    as the id's byte here and refused by zelo_fit -J)."""
    import re

    bad = re.search("[\udc80-\udcff]", text)
    if bad is not None:
        raise InputError(name, text.count("\n", 0, bad.start()) + 1,
                         f"byte 0x{ord(bad[0]) - 0xDC00:02x} is not UTF-8 text (expected a UTF-8 file: JSON is UTF-8, "
                         "as zelo_fit and zbench read it; write an id that is not UTF-8 as \\udcNN, as zelo_pairs "
                         "does, or give the pairs as 'qid docA docB' lines, which keep the bytes)")


def _zbench_pairs(text: str, name: str, warn: Callable[[str], None] | None,
                  texts: Texts | None = None) -> list[tuple[str, str, str]] | None:
    """The pairs of zbench's ``pairs.json`` (``{"pairs": [{"query_id", "document_a": {"document_id"},
    "document_b": {...}}]}``) or ``ai_scores.json`` (the same under ``"scored_pairs"[k]["pair"]``), in file
    order; ``None`` when ``text`` is not one such JSON object (JSON lines). zbench pairs a one-document query's
    document with itself (and asks its judges); such a pair changes no score and is left out, with a warning.
    ``texts``: gets each pair's ``query`` and documents' ``content`` (strings; a pair without them adds none), per
    query; a query or document of a query given two different texts is refused (which one would be judged?)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    key = "pairs" if isinstance(obj.get("pairs"), list) else "scored_pairs"
    items = obj.get(key)
    if not isinstance(items, list) or set(obj) - {key}:
        return None
    from .judgments import _array_element_line, _json_id

    out: list[tuple[str, str, str]] = []
    selfs: list[tuple[str, str]] = []
    seen: dict[tuple[str, ...], int] = {}  # (qid,) or (qid, docno) -> index of the element that gave its text
    raw = _Bytes()  # (its line numbers: the elements' indices, turned into the first one's line for the warning)
    for k, it in enumerate(items):
        try:
            pair = it["pair"] if key == "scored_pairs" else it
            f = (_json_id(pair["query_id"], "query_id"), _json_id(pair["document_a"]["document_id"], "document_a"),
                 _json_id(pair["document_b"]["document_id"], "document_b"))
        except (KeyError, TypeError) as err:
            where = f"{key}[{k}]" + (".pair" if key == "scored_pairs" else "")
            raise InputError(name, _array_element_line(text, key, k),
                             f"{where}: expected query_id, document_a.document_id and document_b.document_id "
                             f"(zbench {'ai_scores' if key == 'scored_pairs' else 'pairs'}.json; problem: {err})"
                             ) from None
        if f[1] == f[2]:
            selfs.append((f[0], f[1]))
            continue
        if texts is not None:
            _zbench_pair_texts(pair, f, texts, seen, name, text, key, k, raw)
        out.append(f)
    if raw.n:
        raw.first = _array_element_line(text, key, raw.first - 1)
        raw.warn(name, warn)
    if selfs and warn is not None:
        q, d = selfs[0]
        warn(f"{name}: left out {len(selfs)} pair(s) of a document with itself (first: {q} {d} {d}; zbench pairs "
             "the document of a one-document query with itself, which changes no score)")
    return out


def _zbench_pair_texts(pair: dict, f: tuple[str, str, str], texts: Texts, seen: dict[tuple[str, ...], int],
                       name: str, text: str, key: str, k: int, raw: _Bytes) -> None:
    """The query and document texts of one zbench pair into ``texts`` (see :func:`_zbench_pairs`)."""
    from .judgments import _array_element_line

    qid = f[0]
    found: list[tuple[tuple[str, ...], str, object]] = [((qid,), "query", pair.get("query"))]
    found += [((qid, d), f"document {d} of query {qid}", pair[side].get("content"))
              for d, side in ((f[1], "document_a"), (f[2], "document_b")) if isinstance(pair[side], dict)]
    for ident, what, body in found:
        if not isinstance(body, str):
            continue
        body = raw.text(body, k + 1, *ident)  # (k + 1: the element's index, 1-based, until the warning)
        old = texts.queries.get(qid) if len(ident) == 1 else texts.per_query.get(qid, {}).get(ident[1])
        if old is not None and old != body:
            first = _array_element_line(text, key, seen[ident]) if ident in seen else 0
            raise InputError(name, _array_element_line(text, key, k),
                             f"{what} again with another text (first in element {seen.get(ident, 0)}"
                             + (f", line {first}" if first else "") + "); expected each text once")
        seen.setdefault(ident, k)
        if len(ident) == 1:
            texts.queries[qid] = body
        else:
            texts.per_query.setdefault(qid, {})[ident[1]] = body


def _judgment_hint(f: list[str]) -> str:
    """For a PAIRS line of the wrong width that looks like a judgment file's (the reference judgments a judge is
    checked against with zelo_agree): how to take its pairs."""
    if len(f) == 5 and f[0] == "@":
        return ("; an llmlog judgment line ('@ topic docA docB M')? its pairs are columns 2-4: "
                "awk '{print $2, $3, $4}' FILE")
    if len(f) == 4 and f[3] in (f[1], f[2]):
        return ("; a 'topic docA docB winner' judgment line? its pairs are the first three columns: "
                "awk '{print $1, $2, $3}' FILE")
    return ""


def read_prompt_template(path: str) -> str:
    """The text of a prompt template file (``zelo_judge --template``): UTF-8 (a bad byte is named
    with its line), gzip/BOM/CRLF as every input. Its placeholders are checked by
    :func:`pref_eval.judge.run.check_template`."""
    from .textfile import read_input_text

    return read_input_text(path, what="prompt template")

