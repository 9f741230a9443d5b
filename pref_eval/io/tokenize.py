"""Splitting whitespace-separated text files into columns.

One function, :func:`split_lines`, shared by the qrels, run and preference
readers. Fields are separated by any run of ASCII white space (space, tab,
``\\r``, ``\\v``, ``\\f``), as C's ``isspace`` in trec_eval; blank lines are
skipped; a line whose first byte is ``#`` is a comment (trec_eval 10).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError


def split_lines(
    data: bytes,
    source: str,
    *,
    min_fields: int,
    max_fields: int | None,
    expected: str,
    keep: int | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Split ``data`` into columns.

    Returns ``(columns, line_numbers)``: ``columns[k]`` is a numpy bytes
    array holding field ``k`` of every data line, for ``k < keep``
    (default ``min_fields``); ``line_numbers`` the 1-based line number of
    each data line. A line with fewer than ``min_fields`` or more than
    ``max_fields`` fields raises :class:`InputError` naming its line.
    """
    keep = min_fields if keep is None else keep
    cols: list[list[bytes]] = [[] for _ in range(keep)]
    nums: list[int] = []
    hi = max_fields if max_fields is not None else 1 << 30
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw or raw[:1] == b"#":
            continue
        parts = raw.split()
        n = len(parts)
        if n == 0:
            continue
        if n < min_fields or n > hi:
            raise InputError(source, lineno, f"expected {expected}, found {n} field{'s' if n != 1 else ''}")
        for k in range(keep):
            cols[k].append(parts[k])
        nums.append(lineno)
    out = [np.array(c, dtype="S") if c else np.array([], dtype="S1") for c in cols]
    return out, np.asarray(nums, dtype=np.int64)
