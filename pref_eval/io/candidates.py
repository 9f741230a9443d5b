"""Readers of candidate lists for ``zelo_pairs cycles``: ``qid docno`` lines (``--docs``) and the top
documents of a TREC run (``--run``).

Two white-space separated fields per line, blank lines skipped; the documents of a query in file
order (its candidate order). Errors name the file and the line. Ids are taken as their bytes (a Latin-1 docno of
``zelo_pairs pool``'s output or of a run: its surrogate escape, written back as the same bytes).
"""
from __future__ import annotations

from ..errors import InputError
from .textfile import display_name, read_input_text


def read_candidates(path: str) -> list[tuple[str, list[str]]]:
    """``[(qid, [docno, ...]), ...]``, queries in order of first appearance."""
    name = display_name(path)
    text = read_input_text(path, what="'qid docno' file", any_bytes=True)
    out: dict[str, list[str]] = {}
    for no, line in enumerate(text.split("\n"), start=1):
        f = line.split()
        if not f:
            continue
        if len(f) != 2:
            raise InputError(name, no, f"expected 'qid docno', got {len(f)} fields")
        out.setdefault(f[0], []).append(f[1])
    if not out:  # nothing to pair (a cut download, a wrong file): refused as an empty run or qrels file is
        raise InputError(name, 0, "empty 'qid docno' file (expected lines 'qid docno')")
    return list(out.items())


def repeat_line(path: str, qid: str, docno: str) -> int:
    """The line of a ``qid docno`` file where ``docno`` appears for ``qid`` the second time (0: it does not)."""
    seen = False
    for no, line in enumerate(read_input_text(path, what="'qid docno' file", any_bytes=True).split("\n"), start=1):
        if line.split() == [qid, docno]:
            if seen:
                return no
            seen = True
    return 0


def read_run_candidates(path: str, depth: int | None = None) -> list[tuple[str, list[str]]]:
    """``[(qid, [docno, ...])]`` of a TREC run: per query (in qid order) its documents by score descending,
    docno ascending among ties, the first ``depth`` (all without it); linear in the run lines."""
    import numpy as np

    from .runs import read_run

    r = read_run(path)
    qid = r.qid  # expanded once (linear in run lines)
    order = np.lexsort((r.docno, -r.score, qid))  # score desc, docno asc within qid
    qs, ds = qid[order], r.docno[order]
    heads = np.flatnonzero(np.concatenate([[True], qs[1:] != qs[:-1]])) if len(qs) else np.zeros(0, int)
    ends = np.append(heads[1:], len(qs))
    out: list[tuple[str, list[str]]] = []
    for h, e in zip(heads.tolist(), ends.tolist(), strict=True):
        e = e if depth is None else min(e, h + depth)
        out.append((qs[h].decode("utf-8", "surrogateescape"),
                    [d.decode("utf-8", "surrogateescape") for d in ds[h:e].tolist()]))
    return out
