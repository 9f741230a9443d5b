"""Columns of a pandas DataFrame given as qrels or a run (the Python API's in-memory inputs).

A frame is read column-wise: its columns are found by name (any case; a
column name that is not a string, such as ``0``, is never one of them), and an
id column (query or document) becomes UTF-8 bytes only when every value is an
id: a missing value (None, NaN, ``pd.NA``) or an empty string is an
:class:`~pref_eval.errors.InputError` naming the column and the row (1-based,
counted in the frame's order, whatever its index), and a column of floats is
refused as a whole: ``str(1037798.0)`` is ``"1037798.0"``, which matches no
qrels topic ``1037798``, so taking it would silently evaluate nothing (pandas
turns an integer column with a missing value into floats).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError


def not_an_id(x: Any) -> bool:
    """None, a float (NaN, or 1.0 whose ``str`` is ``"1.0"``) or an empty string: not a query or document id
    (records and dicts given as qrels or runs; frames are checked column-wise by :func:`id_column`)."""
    return x is None or isinstance(x, float) or (isinstance(x, str) and not x)


def find_column(df: Any, names: tuple[str, ...]) -> Any:
    """The first column of ``df`` whose name, lower-cased, is one of ``names`` (in that order), or None."""
    cols = {c.lower(): c for c in df.columns if isinstance(c, str)}
    for n in names:
        if n in cols:
            return cols[n]
    return None


def id_column(df: Any, col: Any, source: str) -> np.ndarray:
    """Column ``col`` of ``df`` as an array of UTF-8 byte strings (``S`` dtype), refusing non-ids (see module)."""
    import pandas as pd

    s = df[col]
    if len(s) == 0:
        return np.array([], dtype="S1")
    dtype = s.dtype
    kind = dtype.categories.dtype.kind if isinstance(dtype, pd.CategoricalDtype) else getattr(dtype, "kind", "O")
    missing = np.asarray(s.isna(), dtype=bool)
    if missing.any():
        row = int(np.flatnonzero(missing)[0]) + 1
        raise InputError(source, row, f"column {col!r}: missing id (expected a string or an integer)")
    if kind == "f":
        raise InputError(source, 0, f"column {col!r} holds floats ({s.iloc[0]!r}); give ids as strings or "
                                    "integers (the float 1.0 would be the id '1.0', not '1')")
    text = np.asarray(s.astype(str), dtype=str)
    empty = np.flatnonzero(text == "")
    if len(empty):
        raise InputError(source, int(empty[0]) + 1, f"column {col!r}: empty id (expected a string or an integer)")
    return np.char.encode(text, "utf-8")
