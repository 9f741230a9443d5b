"""The canonical judgment JSON lines written by ``zelo_judge`` (read by ``zelo_fit``).

One object per pair: ``{"qid", "doc_a", "doc_b", "votes": [v, ...],
"judges": [name, ...], "orders": ["AB"|"BA", ...]}``; vote ``i`` (in -1..1,
positive = ``doc_b`` better, ``null`` = failed) came from ``judges[i]`` shown
the documents in ``orders[i]`` (``BA``: B first, the vote already turned back
to the A|B orientation). ``zelo_fit`` combines the votes with ``--ties``.
"""
from __future__ import annotations

from .json_text import json_dumps



def judgment_line(qid: str, doc_a: str, doc_b: str, votes: list, judges: list, orders: list) -> str:
    """One JSON line (with its newline)."""
    return json_dumps({"qid": qid, "doc_a": doc_a, "doc_b": doc_b, "votes": votes, "judges": judges,
                       "orders": orders}, ensure_ascii=False) + "\n"
