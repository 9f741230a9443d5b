"""JSON text as pref_eval writes it: ``json_str`` (a string literal) and ``json_dumps`` (a value).

The preference writer quotes every run name, query id and measure name; the common case
(printable ASCII without ``"`` or ``\\``) needs no escaping, and ``json.dumps`` (default
``ensure_ascii=True``) escapes exactly the other characters: everything outside space..``~``,
plus ``"`` and ``\\``. Only those strings load the json module (~1 % of ``import numpy``, issue #13).

**Ids that are not UTF-8** (docs/input-formats.md, "Ids that are not UTF-8 in JSON"): an id read as
its bytes (a Latin-1 docno ``caf\\xe9``, kept as the surrogate escape ``'caf\\udce9'``, PEP 383) is written as
the JSON escape ``\\udce9`` by every JSON writer -- ``json.dumps``'s own escape of that character, also where a
writer keeps other text as UTF-8 (``ensure_ascii=False``: zelo_judge's judgments, zbench files), which would
otherwise write the raw byte (not UTF-8: not JSON, RFC 8259 section 8.1). The file stays valid JSON; every reader
of pref_eval turns ``\\udcNN`` back into the byte (tests/test_json_latin1.py). :func:`json_dumps` is the one
call every JSON writer makes (a test checks that no other module calls ``json.dumps``).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any


def json_str(s: object) -> str:
    """``json.dumps(s)`` for a str ``s`` (any other value is passed to ``json.dumps``)."""
    if type(s) is str and s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    import json

    return json.dumps(s)


def json_dumps(obj: Any, **options: Any) -> str:
    """``json.dumps(obj, **options)``; with ``ensure_ascii=False`` a lone surrogate (a byte that was not UTF-8,
    ``\\udce9``) is still written as its ``\\uXXXX`` escape, never as the raw byte."""
    import json

    text = json.dumps(obj, **options)
    if options.get("ensure_ascii", True) or text.isascii():
        return text
    import re

    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
