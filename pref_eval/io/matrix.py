"""Reading a preference-probability matrix (``zelo_simulate tournament --matrix``).

Format: one row per line, numbers separated by white space; row ``i``,
column ``j`` is the probability that document ``i`` is preferred to ``j``.
The matrix is square, at least 2 x 2, every entry a finite number in
``[0, 1]`` (decimal notation as Python's ``float``, no ``nan``/``inf``).
Blank lines and lines starting with ``#`` are skipped. Errors name the file
and the line.
"""
from __future__ import annotations

import math
import os

import numpy as np

from ..errors import InputError
from .textfile import display_name, read_input_text


def read_probability_matrix(path: str | os.PathLike[str]) -> np.ndarray:
    """The matrix of ``path`` as a float64 array (see the module docstring)."""
    name = display_name(path)
    text = read_input_text(path, what="matrix file")
    rows: list[list[float]] = []
    for no, line in enumerate(text.split("\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        row = []
        for tok in fields:
            try:
                v = float(tok)
            except ValueError:
                raise InputError(name, no, f"expected a probability, got {tok!r}") from None
            if "_" in tok or not math.isfinite(v) or not 0.0 <= v <= 1.0:
                raise InputError(name, no, f"expected a probability in [0, 1], got {tok!r}")
            row.append(v)
        if rows and len(row) != len(rows[0]):
            raise InputError(name, no, f"expected {len(rows[0])} numbers as on the first row, got {len(row)}")
        rows.append(row)
    if len(rows) < 2 or len(rows) != len(rows[0]):
        raise InputError(name, 0, f"expected a square matrix of at least 2 x 2, got {len(rows)} rows of "
                         f"{len(rows[0]) if rows else 0} numbers")
    return np.array(rows, dtype=np.float64)
