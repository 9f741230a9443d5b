"""Data of other installed packages read without importing them (``zelo_plot``'s colour tables, issue #13)."""
from __future__ import annotations

import ast
from typing import Any


def read_literal(path: str, marker: str) -> Any:
    """The Python literal (list or tuple of numbers) written after ``marker`` in the source file ``path``,
    parsed with ``ast.literal_eval`` (nothing is executed); ValueError when it is not there."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    at = text.find(marker)
    if at < 0:
        raise ValueError(f"{marker!r} not in {path}")
    start = at + len(marker)
    opener = text[start:start + 1]
    if opener not in ("[", "("):
        raise ValueError(f"no list or tuple after {marker!r} in {path}")
    closer = {"[": "]", "(": ")"}[opener]
    depth = 0
    for i in range(start, len(text)):
        depth += {opener: 1, closer: -1}.get(text[i], 0)
        if depth == 0:
            return ast.literal_eval(text[start:i + 1])
    raise ValueError(f"unterminated literal after {marker!r} in {path}")
