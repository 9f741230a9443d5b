"""Opening input files: paths, ``-`` (stdin), gzip by magic bytes, BOM.

Policy (documented in docs/input-formats.md):

* gzip is recognised by its magic bytes ``1f 8b``, whatever the file name;
  a truncated or corrupt stream is an error.
* A UTF-8 byte-order mark at the start of the file is removed.
* CRLF line ends are accepted: ``\\r`` is white space, as in trec_eval.
* CR-only line ends (old Mac files: ``\\r`` and no ``\\n`` anywhere) are read
  as line ends, so such a file gives the same lines as its LF twin (never one
  long line whose extra fields would be dropped).
* Text that must be UTF-8 (:func:`read_input_text`) names the file and line of
  the first byte that is not UTF-8.
* A missing file, a directory, an unreadable file are errors (line 0).
* A NUL byte in a text file (TREC runs, qrels, rel-info files, the text judgment
  formats, and everything read through :func:`read_input_text`: zELO score files,
  per-query tables, orderings, matrices, ``qid docno`` lists, texts, pairs,
  prompt templates, states) is an error naming its line (:func:`refuse_nul`): C
  readers end a field there, numpy's bytes arrays drop NULs ending a field, so
  ``ab\\0`` and ``ab`` would silently become one id.
"""
from __future__ import annotations

import os
import sys
from typing import Union

from ..errors import InputError, shown

PathLike = Union[str, "os.PathLike[str]"]

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"


def display_name(path: PathLike) -> str:
    """The name used in messages: ``<stdin>`` for ``-``, else the path as given."""
    p = os.fspath(path)
    return "<stdin>" if p == "-" else p


def read_input_bytes(path: PathLike, *, what: str = "file") -> bytes:
    """Return the (decompressed) content of ``path`` as bytes.

    Raises :class:`InputError` for a missing, unreadable or directory path and
    for a truncated or corrupt gzip stream. A leading UTF-8 BOM is dropped.
    """
    p = os.fspath(path)
    name = display_name(p)
    if p == "-":
        data = sys.stdin.buffer.read()
    else:
        if os.path.isdir(p):
            raise InputError(name, 0, f"is a directory, expected {_a(what)}")
        try:
            with open(p, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise InputError(name, 0, f"no such file (expected {_a(what)}{_irds_hint(p, what)})") from None
        except PermissionError:
            raise InputError(name, 0, "cannot read: permission denied") from None
        except OSError as err:
            raise InputError(name, 0, f"cannot read: {err.strerror or err}") from None
    if data[:2] == GZIP_MAGIC:
        import gzip  # only for gzip input (start-up, issue #13)
        import zlib

        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as err:
            raise InputError(name, 0, f"truncated or corrupt gzip data ({err})") from None
    if data[:3] == UTF8_BOM:
        data = data[3:]
    return cr_line_ends(data)


_FILE_SUFFIXES = (".txt", ".qrels", ".gz", ".tsv", ".csv", ".json", ".jsonl", ".trec", ".run", ".test", ".res")


def _irds_hint(path: str, what: str) -> str:
    """What a missing file's message adds for ir_datasets ids: ``irds:ID`` where qrels go (ir_measures' command
    line looks a missing qrels path up as an id, ``msmarco-passage/trec-dl-2019/judged``), and what ``irds:``
    names elsewhere (qrels, or a run's scoreddocs; a run file read for its tags is no run evaluated). Only by
    the name's shape (no import of ir_datasets on an error path): relative, of id characters, its first
    directory absent, not ending in a file suffix."""
    if path.startswith("irds:"):
        return "" if what == "qrels file" else ("; irds:ID names an ir_datasets dataset's qrels where qrels go, its "
                                                "scoreddocs where a run goes to be evaluated, nothing else")
    if what != "qrels file" or os.path.isabs(path) or path.startswith(".") or path.lower().endswith(_FILE_SUFFIXES):
        return ""
    if any(not (c.isascii() and (c.isalnum() or c in "-_./")) for c in path):
        return ""
    if os.path.lexists(path.split("/", 1)[0]) and "/" in path:
        return ""
    return f"; if {shown(path)} is an ir_datasets id, write irds:{path}"


NUL_MESSAGE = "a NUL byte (expected text: a NUL ends a field for C readers, so two different ids could read as one)"


def refuse_nul(data: bytes | str, source: str, line0: int = 0) -> None:
    """Raise ``InputError(source, line)`` at the first NUL of ``data`` (its first line is ``line0 + 1``).

    One ``find`` (memchr) over data already in memory; lines are counted only when a NUL is found.
    """
    nul, nl = (b"\0", b"\n") if isinstance(data, (bytes, bytearray)) else ("\0", "\n")
    i = data.find(nul)  # type: ignore[arg-type]
    if i >= 0:
        raise InputError(source, line0 + data.count(nl, 0, i) + 1, NUL_MESSAGE)  # type: ignore[arg-type]


def cr_line_ends(data: bytes) -> bytes:
    """``data`` with CR-only line ends turned into LF (unchanged when it has any LF)."""
    if b"\r" in data and b"\n" not in data:
        return data.replace(b"\r", b"\n")
    return data


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text; :class:`InputError` names the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise InputError(source, line, f"byte 0x{data[err.start]:02x} is not UTF-8 text "
                         "(expected a UTF-8 file; convert it with iconv)") from None


def read_input_text(path: PathLike, *, what: str = "file", any_bytes: bool = False) -> str:
    """:func:`read_input_bytes` decoded as UTF-8 (errors name the file and line); a NUL byte is refused
    (:func:`refuse_nul`, after the UTF-8 check as for the text judgment formats). ``any_bytes``: a byte that
    is not UTF-8 is kept as its surrogate escape (ids taken as their bytes, as the qrels and run readers do)."""
    data = read_input_bytes(path, what=what)
    name = display_name(path)
    text = data.decode("utf-8", "surrogateescape") if any_bytes else decode_utf8(data, name)
    refuse_nul(data, name)
    return text


def plain_file(path: PathLike) -> bool:
    """True for a regular file that is neither gzip nor starts with a BOM (read straight from disk)."""
    p = os.fspath(path)
    if p == "-":
        return False
    try:
        if not os.path.isfile(p):
            return False
        with open(p, "rb") as fh:
            head = fh.read(3)
    except OSError:
        return False
    return head[:2] != GZIP_MAGIC and head != UTF8_BOM


def first_line_of_file(path: PathLike) -> str:
    """The first line of a regular file (maybe gzip), for guessing its format before it is read; ``""`` for
    ``-``, a file that is not a regular one or that cannot be read (unreadable, a directory without search
    permission on the way, corrupt gzip): the reader proper then reports why, naming the file (exit 2)."""
    p = os.fspath(path)
    if p == "-":
        return ""
    try:
        if not os.path.isfile(p):
            return ""
        with open(p, "rb") as fh:
            head = fh.read(2)
        if head == GZIP_MAGIC:
            import gzip  # only for gzip input (start-up, issue #13)
            import zlib

            try:
                with gzip.open(p, "rt", encoding="utf-8-sig", errors="replace") as gz:
                    return gz.readline()
            except zlib.error:
                return ""
        with open(p, encoding="utf-8-sig", errors="replace") as fh:
            return fh.readline()
    except (OSError, EOFError):
        return ""


def last_line_of_file(path: PathLike) -> bytes:
    """The last line of a file that is not blank (without reading the whole file)."""
    with open(os.fspath(path), "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        span = 1 << 16
        while True:
            start = max(0, size - span)
            fh.seek(start)
            tail = fh.read(size - start).rstrip()
            nl = tail.rfind(b"\n")
            if nl >= 0 or start == 0:
                return tail[nl + 1:]
            span *= 4


def json_object(line: str, name: str, no: int, expect: str = "a JSON object", shape: str | None = None) -> dict:
    """One line of a JSON-lines file as a dict; anything else is ``InputError(name, no, "expected
    {expect} (...)")`` (``shape``, when given, is what a value that is not an object is told it should be) -- the
    one rule of every small JSON-lines reader (hot paths have their own vectorised scanners). A ValueError that is
    not a JSONDecodeError (an integer of more than 4,300 digits, ``sys.get_int_max_str_digits()``) is a fault of
    the line too."""
    import json

    try:
        obj = json.loads(line, object_pairs_hook=unique_keys)
    except DuplicateKey as err:  # which of the two values was meant? (Python's json keeps the last, silently)
        raise InputError(name, no, str(err)) from None
    except (ValueError, RecursionError) as err:
        raise InputError(name, no, f"expected {expect} ({json_reason(err)})") from None
    if not isinstance(obj, dict):
        raise InputError(name, no, f"expected {shape or expect}")
    return obj


class DuplicateKey(ValueError):
    """A JSON object holding one key twice (:func:`unique_keys`)."""


def unique_keys(pairs: list) -> dict:
    """``object_pairs_hook`` of the JSON readers of pref_eval's own formats: a key given twice in one object is
    refused (``duplicate key 'x' in a JSON object``) rather than the last value kept."""
    out = dict(pairs)
    if len(out) != len(pairs):
        keys = [k for k, _ in pairs]
        dup = next(k for k in keys if keys.count(k) > 1)
        raise DuplicateKey(f"duplicate key {shown(dup)} in a JSON object")
    return out


def _a(what: str) -> str:
    """``a file``, ``an ordering of systems``: the article of an error message's noun (was always ``a``)."""
    return f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"


def json_reason(err: Exception) -> str:
    """What a JSON decoder said: ``msg`` of a JSONDecodeError, "nested too deeply" (a RecursionError), or the first
    clause of another ValueError's text (an integer longer than ``sys.get_int_max_str_digits()``: "Exceeds the limit
    (4300 digits) for integer string conversion: value has 5000 digits")."""
    if isinstance(err, RecursionError):
        return "nested too deeply"
    msg = getattr(err, "msg", None)
    return msg if isinstance(msg, str) else str(err).split(";")[0]
