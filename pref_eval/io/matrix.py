"""Reading a preference-probability matrix (``zelo_simulate tournament --matrix``).

Format: one row per line, numbers separated by white space; row ``i``,
column ``j`` is the probability that document ``i`` is preferred to ``j``.
The matrix is square, at least 2 x 2, every entry a finite number in
``[0, 1]`` (decimal notation of :mod:`pref_eval.io.numbers`: no hex, no ``_``, no ``nan``).
Blank lines and lines starting with ``#`` are skipped. Errors name the file
and the line.
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import InputError, shown
from .numbers import decimal_floats
from .textfile import display_name, read_input_text


def read_probability_matrix(path: str | os.PathLike[str]) -> np.ndarray:
    """The matrix of ``path`` as a float64 array (see the module docstring)."""
    name = display_name(path)
    text = read_input_text(path, what="matrix file")
    rows: list[list[bytes]] = []
    nos: list[int] = []
    for no, line in enumerate(text.split("\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if rows and len(fields) != len(rows[0]):
            raise InputError(name, no, f"expected {len(rows[0])} numbers as on the first row, got {len(fields)}")
        rows.append([f.encode() for f in fields])
        nos.append(no)
    if len(rows) < 2 or len(rows) != len(rows[0]):
        raise InputError(name, 0, f"expected a square matrix of at least 2 x 2, got {len(rows)} rows of "
                         f"{len(rows[0]) if rows else 0} numbers")
    flat = np.array([t for r in rows for t in r], dtype="S")
    lines = np.repeat(np.array(nos, dtype=np.int64), len(rows[0]))
    vals = decimal_floats(flat, name, lines, what="probability")  # the one number grammar (io/numbers.py)
    bad = np.flatnonzero(~((vals >= 0.0) & (vals <= 1.0)))  # NaN fails both
    if len(bad):
        i = int(bad[0])
        raise InputError(name, int(lines[i]), f"expected a probability in [0, 1], got {shown(flat[i].decode())}")
    return vals.reshape(len(rows), len(rows[0]))


def probability_matrix_from_data(matrix: object, name: str = "matrix") -> np.ndarray:
    """An array-like given to the Python API checked as a file is: square, at least 2 x 2, every entry a
    probability in [0, 1] (NaN refused); else an :class:`~pref_eval.errors.InputError` naming ``name``."""
    try:
        m = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, 0, "expected a square matrix of probabilities (rows of equal length, numbers)") from None
    if m.ndim != 2 or m.shape[0] < 2 or m.shape[0] != m.shape[1]:
        raise InputError(name, 0, f"expected a square matrix of at least 2 x 2, got shape {m.shape}")
    bad = np.argwhere(~((m >= 0.0) & (m <= 1.0)))
    if len(bad):
        i, j = (int(x) for x in bad[0])
        raise InputError(name, 0, f"expected a probability in [0, 1], got {shown(float(m[i, j]))} "
                                  f"at row {i + 1}, column {j + 1}")
    return m
