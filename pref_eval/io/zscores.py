"""Reader of trec_eval's ``-Z zscores_file``: lines ``qid measure mean stddev``.

White-space separated, exactly four fields per line; ``mean``/``stddev`` parsed as C ``atof``
(trec_eval's ``convert_zscores.c``: a leading number, else 0). A blank or malformed line is an
error naming the line (trec_eval also refuses it, without the file name); a duplicated (qid,
measure) keeps its first line (trec_eval's binary search picks either). A NUL byte is an error naming
its line (:func:`~pref_eval.io.textfile.refuse_nul`; trec_eval's C strings would end there). The z-scores themselves:
:mod:`pref_eval.trec_eval.zscores`.
"""
from __future__ import annotations

import re

from ..errors import InputError
from .textfile import display_name, read_input_bytes, refuse_nul

ZTable = dict  # {(qid: str, measure: str): (mean: float, stddev: float)}

_ATOF = rb"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))"  # compiled on use


def _atof(tok: bytes) -> float:
    m = re.match(_ATOF, tok, re.IGNORECASE)
    return float(m.group(1)) if m else 0.0


def read_zscores(path: str) -> ZTable:
    """Read a ``qid measure mean stddev`` file into {(qid, measure): (mean, sd)}."""
    data = read_input_bytes(path, what="zscores file")
    name = display_name(path)
    if not data:
        raise InputError(name, 0, "empty zscores file (expected lines 'qid measure mean stddev')")
    refuse_nul(data, name)  # 'q1\0' would be a qid of its own, 'mean\0' read as C's atof reads 'mean'
    table: ZTable = {}
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, raw in enumerate(lines, start=1):
        f = raw.split()
        if len(f) != 4:
            raise InputError(name, i, f"expected 4 fields 'qid measure mean stddev', got {len(f)}")
        key = (f[0].decode("utf-8", "surrogateescape"), f[1].decode("utf-8", "surrogateescape"))
        table.setdefault(key, (_atof(f[2]), _atof(f[3])))
    return table
