"""``json_str``: a JSON string literal exactly as ``json.dumps(s)`` writes it, without importing json.

The preference writer quotes every run name, query id and measure name; the common case
(printable ASCII without ``"`` or ``\\``) needs no escaping, and ``json.dumps`` (default
``ensure_ascii=True``) escapes exactly the other characters: everything outside space..``~``,
plus ``"`` and ``\\``. Only those strings load the json module (~1 % of ``import numpy``, issue #13).
"""
from __future__ import annotations


def json_str(s: object) -> str:
    """``json.dumps(s)`` for a str ``s`` (any other value is passed to ``json.dumps``)."""
    if type(s) is str and s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    import json

    return json.dumps(s)
