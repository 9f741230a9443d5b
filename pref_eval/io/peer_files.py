"""What a qrels or run file that failed to read as TREC lines is, when it is a file ranx writes.

ranx (Bassani, ECIR 2022) saves ``Qrels`` and ``Run`` objects as JSON (``{qid: {docno: grade or score}}``,
``save("x.json")``, its default), LZ4-compressed JSON (``x.lz4``) or Parquet (``x.parquet``); pytrec_eval's and
BEIR's users keep the same dict as JSON. Read as TREC lines such a file failed with "expected 4 fields 'qid iter
docno rel', found 1 field" or "a NUL byte", which does not say what to do. Called on the readers' error path only
(:func:`pref_eval.io.qrels.read_qrels`, :func:`pref_eval.io.runs.read_run`).
"""
from __future__ import annotations

import re

_LZ4_FRAME = b"\x04\x22\x4d\x18"  # the LZ4 frame format's magic number (lz4.frame, which ranx uses)
_PARQUET = b"PAR1"
_JSON_DICT = rb'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{'  # {"q1": {  -- a dict of dicts (compiled on use: re's cache)


def ranx_file_kind(data: bytes) -> str | None:
    """What ``data`` is when it is one of ranx's saved formats (or the same dict as JSON), else ``None``."""
    if data.startswith(_PARQUET):
        return "a Parquet file (ranx's save('x.parquet'))"
    if data.startswith(_LZ4_FRAME):
        return "an LZ4-compressed file (ranx's save('x.lz4'))"
    if re.match(_JSON_DICT, data[:4096]):
        return "a JSON object {qid: {docno: value}} (ranx's save('x.json'), a pytrec_eval dict saved as JSON)"
    return None


def ranx_file_hint(data: bytes, expected: str, ranx_class: str) -> str | None:
    """The message for a file of :func:`ranx_file_kind` read as ``expected`` (``TREC qrels``, ``a TREC run``):
    what it is and how to give it (ranx's ``Qrels`` / ``Run``: ``ranx_class``); ``None`` for another file."""
    kind = ranx_file_kind(data)
    if kind is None:
        return None
    how = f"ranx.{ranx_class}.from_file(FILE).save(NEW, kind='trec')"
    return (f"expected {expected}, got {kind}: write it as TREC lines first ({how}), or pass the ranx {ranx_class} "
            "or the dict itself to pref_eval.evaluate")
