"""Reader of candidate lists: ``qid docno`` lines (``zelo_pairs cycles --docs``).

Two white-space separated fields per line, blank lines skipped; the documents of a query in file
order (its candidate order). Errors name the file and the line.
"""
from __future__ import annotations

from ..errors import InputError
from .textfile import display_name, read_input_text


def read_candidates(path: str) -> list[tuple[str, list[str]]]:
    """``[(qid, [docno, ...]), ...]``, queries in order of first appearance."""
    name = display_name(path)
    text = read_input_text(path, what="'qid docno' file")
    out: dict[str, list[str]] = {}
    for no, line in enumerate(text.split("\n"), start=1):
        f = line.split()
        if not f:
            continue
        if len(f) != 2:
            raise InputError(name, no, f"expected 'qid docno', got {len(f)} fields")
        out.setdefault(f[0], []).append(f[1])
    return list(out.items())
