"""A per-query table as codes: what :func:`pref_eval.io.perquery.read_per_query_table` hands to
``zelo_compare -P`` without a pandas DataFrame in between (session 27).

The reader has each id column as the distinct values (in order of first appearance) and every row's index
among them; :func:`pref_eval.stats.compare.compare` builds its matrices from those codes directly (before,
the DataFrame's string columns were turned back into lists and coded once more: ~1.3 s of CPU per million
rows, and the glue's ``dict.fromkeys`` over a pandas string column another ~0.6 s a column).
:meth:`CodedTable.frame` gives the DataFrame :func:`~pref_eval.io.perquery.read_per_query` returns.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

ID_COLUMNS = ("run", "qid", "measure", "run_b")


class CodedTable:
    """Per-query rows ``run, qid, measure, value`` (and ``run_b`` for the runi/runj layout) as codes.

    ``names[c]``: the distinct values of id column ``c``; ``codes[c]``: each row's index among them (int64);
    ``value``: the values (float64, finite); rows in file order. Enough of a DataFrame's surface for the
    commands' glue: ``columns``, ``empty``, ``len`` and ``table[name]`` (the column as a list, decoded:
    for error paths); :meth:`distinct` is ``dict.fromkeys`` of a column without decoding it.
    """

    def __init__(self, names: dict[str, list[str]], codes: dict[str, np.ndarray], value: np.ndarray,
                 pair: bool, object_ids: bool = False) -> None:
        self.names = names
        self.codes = codes
        self.value = value
        self.pair = pair
        self.object_ids = object_ids  # an id that was not UTF-8 (a surrogate escape): the frame's ids of dtype object
        self.columns: tuple[str, ...] = ("run", "qid", "measure", "value", *(("run_b",) if pair else ()))

    @property
    def empty(self) -> bool:
        return not self.value.size

    def __len__(self) -> int:
        return int(self.value.size)

    def __getitem__(self, name: str) -> list:
        if name not in self.columns:
            raise KeyError(name)
        if name == "value":
            return self.value.tolist()
        return list(map(self.names[name].__getitem__, self.codes[name].tolist()))

    def distinct(self, name: str) -> list[str]:
        """The distinct values of id column ``name`` in order of first appearance among the rows
        (``list(dict.fromkeys(table[name]))``)."""
        if name not in self.columns or name == "value":
            raise KeyError(name)
        code = self.codes[name]
        first = np.full(len(self.names[name]), code.size, np.int64)
        np.minimum.at(first, code, np.arange(code.size, dtype=np.int64))
        present = np.flatnonzero(first < code.size)
        order = present[np.argsort(first[present], kind="stable")]
        return list(map(self.names[name].__getitem__, order.tolist()))

    def subset(self, keep: np.ndarray, pair: bool | None = None) -> CodedTable:
        """The rows where ``keep`` (a boolean array) holds, in their order; ``pair=False`` drops ``run_b``."""
        pair = self.pair if pair is None else pair
        cols = [c for c in ID_COLUMNS if c in self.codes and (pair or c != "run_b")]
        return CodedTable({c: self.names[c] for c in cols}, {c: self.codes[c][keep] for c in cols},
                          self.value[keep], pair, self.object_ids)

    def frame(self) -> pd.DataFrame:
        """The rows as :func:`~pref_eval.io.perquery.read_per_query`'s DataFrame: columns run, qid, measure, value
        (and run_b), each string column the distinct values' pandas array taken row by row (the string dtype
        pandas infers for the column; pyarrow's constructor from a list of a million strings took ~0.3 s)."""
        import pandas as pd

        kept = self.object_ids  # (pandas' strings, pyarrow's, hold UTF-8 only: io/frames.frame)
        texts = {c: pd.Series(np.array(self.names[c], dtype=object), dtype=object if kept else None).array.take(
            self.codes[c]) for c in ID_COLUMNS if c in self.columns}
        if kept:
            texts = {c: pd.Series(t, dtype=object) for c, t in texts.items()}
        return pd.DataFrame({"run": texts["run"], "qid": texts["qid"], "measure": texts["measure"],
                             "value": self.value, **({"run_b": texts["run_b"]} if self.pair else {})})


def first_order(strings: list[str], code: np.ndarray) -> tuple[list[str], np.ndarray]:
    """A column given as codes (>= 0) into ``strings`` (each string once, as a scanner's string table): its
    distinct values in order of first appearance among the rows and each row's index among them (int64) --
    ``dict.fromkeys`` of the decoded column and the lookups, without decoding a row (session 29)."""
    n = code.size
    first = np.full(len(strings), n, np.int64)
    np.minimum.at(first, code, np.arange(n, dtype=np.int64))
    present = np.flatnonzero(first < n)
    order = present[np.argsort(first[present], kind="stable")]
    remap = np.zeros(len(strings), np.int64)
    remap[order] = np.arange(order.size, dtype=np.int64)
    return list(map(strings.__getitem__, order.tolist())), remap[code]


def first_repeat(codes: list[np.ndarray], sizes: list[int]) -> int | None:
    """The first row in row order whose codes (one array per column, ``sizes`` distinct values each) repeat
    an earlier row's, as ``DataFrame.duplicated(keep="first")``'s first True; None when no row does."""
    n = codes[0].size
    key, size = codes[0].astype(np.int64), sizes[0]
    for code, k in zip(codes[1:], sizes[1:], strict=True):
        if size * k >= 2 ** 62:  # the keys so far renumbered densely (at most one per row) before they overflow
            o = np.argsort(key, kind="stable")
            dense = np.empty(n, np.int64)
            dense[o] = np.concatenate(([0], np.cumsum(key[o][1:] != key[o][:-1])))
            key, size = dense, int(dense.max()) + 1
        key, size = key * k + code, size * k
    if size <= 4 * n + 1024:  # a count per key (zelo_eval's tables fill their key space): no sort
        counts = np.bincount(key, minlength=size)
        if not (counts > 1).any():
            return None
        rows = np.flatnonzero(counts[key] > 1)
    else:
        order = np.argsort(key, kind="stable")
        same = key[order][1:] == key[order][:-1]
        if not same.any():
            return None
        return int(order[1:][same].min())
    first = np.full(size, n, np.int64)  # (the error path: each repeated key's first row)
    np.minimum.at(first, key[rows], rows)
    return int(rows[rows != first[key[rows]]].min())
