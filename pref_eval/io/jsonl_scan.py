"""Flat JSON lines as numpy columns, through the optional C scanner ``pref_eval._jsonl``.

The scanner (pref_eval/_jsonl.c) accepts only lines that are flat objects
whose values are plain JSON strings (no escapes) or numbers, converts the
numbers exactly as Python's ``float`` does, and groups the lines by their
*shape* (keys and value kinds in order). Anything else gives ``None`` and the
callers use their general Python parser, which also reports bad lines; so the
scanner changes speed, never results.

Set ``PREF_EVAL_PURE_PYTHON=1`` to skip it (tests compare both paths).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..records import record

if TYPE_CHECKING:
    import mmap


@record
class Column:
    """One key of a shape: ``kind`` "n" (column ``index`` of :attr:`ShapeLines.num`)
    or "s" (of :attr:`ShapeLines.txt`)."""

    kind: str
    index: int
    integers: bool = False  # "n" only: every value was an integer literal


@record
class ShapeLines:
    """The lines of one shape.

    ``lines`` 0-based line numbers; ``keys`` in line order; ``num`` float64
    (lines × number keys) and ``txt`` int32 codes into the string table
    (lines × string keys), both read-only; ``cols`` {key: :class:`Column`}.
    """

    keys: tuple
    lines: np.ndarray
    num: np.ndarray
    txt: np.ndarray
    cols: dict

    def values(self, key: str, rows: slice | np.ndarray = slice(None)) -> np.ndarray:
        """The column of ``key`` (float64 or int32 codes) at ``rows``."""
        c = self.cols[key]
        return (self.num if c.kind == "n" else self.txt)[rows, c.index]


def scanner_available() -> bool:
    """True when the C scanner is built and not switched off by ``PREF_EVAL_PURE_PYTHON``."""
    if os.environ.get("PREF_EVAL_PURE_PYTHON"):
        return False
    try:
        from .. import _jsonl  # noqa: F401
    except ImportError:
        return False
    return True


def scan_columns(data: bytes | memoryview | mmap.mmap) -> tuple[list[str], list[ShapeLines]] | None:
    """(string table, shapes) of ``data`` (bytes or any buffer, e.g. an mmap).

    None: no scanner, or a line it does not take.
    """
    if not scanner_available():
        return None
    from .. import _jsonl

    res = _jsonl.scan(data)
    if res is None:
        return None
    strtab, raw = res
    shapes = []
    for keys, kinds, lines, nums, strs, intcols in raw:
        ln = np.frombuffer(lines, dtype=np.int64)
        kinds = kinds.decode("ascii")
        nnum = kinds.count("n")
        num = np.frombuffer(nums, dtype=np.float64).reshape(len(ln), nnum)
        txt = np.frombuffer(strs, dtype=np.int32).reshape(len(ln), len(kinds) - nnum)
        cols, jn, js = {}, 0, 0
        for k, kd in zip(keys, kinds, strict=False):
            if kd == "n":
                cols[k] = Column("n", jn, bool(intcols[jn]))
                jn += 1
            else:
                cols[k] = Column("s", js)
                js += 1
        shapes.append(ShapeLines(keys=keys, lines=ln, num=num, txt=txt, cols=cols))
    return strtab, shapes
