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

from ..errors import InputError, shown


def not_an_id(x: Any) -> bool:
    """None, a float (NaN, or 1.0 whose ``str`` is ``"1.0"``), a bool (``True`` would be the id ``"True"``; an
    ``int`` to Python, refused since session 30) or an empty string: not a query or document id (records and dicts
    given as qrels or runs, ``pairs()``'s queries; frames are checked column-wise by :func:`id_column`)."""
    return x is None or isinstance(x, (float, bool, np.bool_)) or (isinstance(x, (str, bytes)) and not x)


def id_text(x: Any) -> str:
    """An id given as data (a record's field, a dict's key) as the readers keep ids: ``bytes`` (a Latin-1 docno
    as the file holds it) as its surrogate escapes, anything else as ``str(x)`` (integers as their digits); ``str``
    of ``b'caf\\xe9'`` would be the id ``"b'caf\\xe9'"``, which matches nothing."""
    return x.decode("utf-8", "surrogateescape") if isinstance(x, (bytes, bytearray)) else str(x)


def id_bytes(ids: list[Any], source: str | None = None, column: Any = None) -> np.ndarray:
    """Ids given as data (records, dicts, frames) as the readers keep them: an ``S`` array of their UTF-8 bytes,
    a surrogate escape (an id read as its bytes, a Latin-1 docno; ``zelo_agree -l system`` hands the judgments'
    ids over as records) as the byte it stands for, ``bytes`` as they are, anything else as its ``str``."""
    if not ids:
        return np.array([], dtype="S1")
    raw = [x if isinstance(x, bytes) else str(x).encode("utf-8", "surrogateescape") for x in ids]
    if source is not None and b"\0" in b"".join(raw):  # one C scan; the row only on the error's path
        _refuse_nul(source, next(i for i, x in enumerate(raw) if b"\0" in x), column)
    return np.array(raw, dtype="S")


def _refuse_nul(source: str, row: int, column: Any) -> None:
    """An id holding a NUL given as data: numpy's byte strings drop trailing NULs (``'d1\\0'`` matched ``'d1'``),
    and a file's NUL is refused for the same reason (:func:`pref_eval.io.textfile.refuse_nul`)."""
    where = f"column {shown(column)}: " if column is not None else ""
    raise InputError(source, row + 1, f"{where}an id holding a NUL character (expected text: a NUL ends an id for C "
                                      "readers, so two different ids could read as one)")


def bytes_as_text(df: Any, columns: tuple[str, ...]) -> Any:
    """``df`` with each of ``columns`` (those it has) that holds ``bytes`` ids (a Latin-1 run name or topic as a
    file holds it) as strings of their surrogate escapes (:func:`id_text`), in a column of dtype object; ``df``
    itself when none does (pandas' ``infer_dtype`` per column: no loop per row unless bytes are there). ``str``
    of ``b'r\\xe9'`` would be the name ``"b'r\\xe9'"``, and a ``baseline="r\\udce9"`` would match nothing."""
    import pandas as pd
    from pandas.api.types import infer_dtype

    fixed = {}
    for c in columns:
        if c not in df.columns or list(df.columns).count(c) != 1:
            continue  # (a missing or doubled column: the caller's refusal names it)
        s = df[c]
        kind = infer_dtype(s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype) else s, skipna=True)
        if kind in ("bytes", "mixed"):
            fixed[c] = pd.Series([x if x is None or x != x else id_text(x) for x in s.tolist()], index=df.index,
                                 dtype=object)
    return df.assign(**fixed) if fixed else df


def text_column(s: Any) -> Any:
    """``s.astype(str)``, or (an id that was not UTF-8, which pandas' strings cannot hold; ``bytes``, which pandas
    decodes as UTF-8) a column of dtype object of :func:`id_text` of each value."""
    import pandas as pd

    try:
        return s.astype(str)
    except (UnicodeEncodeError, UnicodeDecodeError):
        return pd.Series([id_text(x) for x in s.tolist()], index=s.index, dtype=object)


def frame(data: Any, columns: list[str] | None = None) -> Any:
    """``pd.DataFrame(data, columns=columns)`` (rows, or a dict of columns); when an id holds a byte that was not
    UTF-8 (a Latin-1 docno kept as its surrogate escape), which pandas' default strings (pyarrow's) cannot hold,
    the columns of strings are of dtype object instead, so the API returns the ids as they were read."""
    import pandas as pd

    try:
        return pd.DataFrame(data, columns=columns)
    except UnicodeEncodeError:
        if isinstance(data, dict):
            named = {c: list(v) for c, v in data.items()}
        else:
            rows = list(data)
            names = columns if columns is not None else list(range(len(rows[0]) if rows else 0))
            named = {c: [r[k] for r in rows] for k, c in enumerate(names)}
        return pd.DataFrame({c: pd.Series(v, dtype=object) if any(isinstance(x, str) for x in v) else v
                             for c, v in named.items()})


def holds_bytes(ids: Any) -> bool:
    """Whether one of the strings ``ids`` holds a byte that was not UTF-8 (a surrogate escape ``\\udcNN``):
    pandas' strings (pyarrow's) cannot hold it; such columns are of dtype object (:func:`frame`)."""
    text = "".join(ids)
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def find_column(df: Any, names: tuple[str, ...], source: str) -> Any:
    """The first column of ``df`` whose name, lower-cased, is one of ``names`` (in that order), or None.

    A name held by two columns (``score`` twice, or ``score`` and ``SCORE``) is an
    :class:`~pref_eval.errors.InputError`: which one would be read?"""
    cols: dict[str, list[Any]] = {}
    for c in df.columns:
        if isinstance(c, str):
            cols.setdefault(c.lower(), []).append(c)
    for n in names:
        if n in cols:
            if len(cols[n]) > 1:
                raise InputError(source, 0, f"DataFrame has {len(cols[n])} columns named {shown(n)} "
                                            f"({', '.join(map(repr, cols[n]))}); expected one")
            return cols[n][0]
    return None


def index_hint(df: Any) -> str:
    """When the ids the reader looks for are in the DataFrame's index (``df.set_index("qid")``, a groupby's
    result, ranx's frames indexed by ``q_id``): "; 'qid' is in the index: df.reset_index()", else ""."""
    ids = ("query_id", "qid", "q_id", "doc_id", "docno", "docid")
    held = [n for n in getattr(getattr(df, "index", None), "names", ()) if isinstance(n, str) and n.lower() in ids]
    return f"; {', '.join(map(shown, held))} {'is' if len(held) == 1 else 'are'} in the index: df.reset_index()" \
        if held else ""


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
        raise InputError(source, row, f"column {shown(col)}: missing id (expected a string or an integer)")
    if kind == "b" or (kind == "O" and pd.api.types.infer_dtype(s, skipna=False) == "boolean"):
        raise InputError(source, 0, f"column {shown(col)} holds booleans ({shown(bool(s.iloc[0]))}); give ids as "
                                    "strings or integers (True would be the id 'True')")
    if kind == "f":
        raise InputError(source, 0, f"column {shown(col)} holds floats ({shown(s.iloc[0])}); give ids as strings or "
                                    "integers (the float 1.0 would be the id '1.0', not '1')")
    if kind == "O" and pd.api.types.infer_dtype(s, skipna=False).startswith("mixed"):
        # a bool or float among strings / integers (pandas' C inference first: only a mixed column pays the types)
        bad = np.flatnonzero(np.asarray(s.map(type).isin((bool, np.bool_, float, np.float64)), dtype=bool))
        if len(bad):
            x = s.iloc[int(bad[0])]
            x = x.item() if isinstance(x, np.generic) else x  # (np.False_ shown as False)
            raise InputError(source, int(bad[0]) + 1, f"column {shown(col)}: {shown(x)} is no id ({type(x).__name__}"
                                                      "; give ids as strings or integers)")
    try:
        strings = s.astype(str)
        nul = np.flatnonzero(np.asarray(strings.str.contains("\0", regex=False), dtype=bool))
        if len(nul):  # (numpy's str arrays, like its bytes, drop trailing NULs: the test is pandas')
            _refuse_nul(source, int(nul[0]), col)
        out = np.char.encode(np.asarray(strings, dtype=str), "utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):  # pandas' strings (pyarrow's) hold UTF-8 only
        out = id_bytes(list(s.astype(object)), source, col)
    empty = np.flatnonzero(out == b"")
    if len(empty):
        raise InputError(source, int(empty[0]) + 1, f"column {shown(col)}: empty id (expected a string or an integer)")
    return out


def record_fields(rec: Any, source: str, line: int, expected: str) -> Any:
    """One record of qrels or a run given as a list or generator (a tuple or list of fields), or an
    :class:`~pref_eval.errors.InputError` naming it: a number, None, a string or a dict is not a record."""
    from collections.abc import Mapping

    if isinstance(rec, (tuple, list)) or (hasattr(rec, "__len__") and hasattr(rec, "__getitem__")
                                          and not isinstance(rec, (str, bytes, Mapping))):
        return rec
    hint = " (a list of dicts: give pandas.DataFrame(records))" if isinstance(rec, Mapping) else ""
    raise InputError(source, line, f"expected {expected}, got {type(rec).__name__} {_short(rec)}{hint}")


def _short(x: Any) -> str:
    r = repr(x)
    return r if len(r) <= 60 else r[:57] + "..."
