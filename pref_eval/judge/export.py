"""``zelo_judge export``: every stored pair as canonical JSONL.

Rows of the store are grouped by query, unordered document pair and
repetition (one line per independent judgment of the pair: the first, and
the repetitions an adaptive strategy asked for); the pair is written in the
orientation of its earliest answer (doc_a shown first), each vote turned to
that orientation (a B|A answer negated), in judge order then order of asking. Failed votes are ``null``.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..output.judgments import judgment_line

if TYPE_CHECKING:
    from .store import Store


def export_lines(store: Store, phash: str, judges: list[str] | None = None,
                 tally: dict[str, list[int]] | None = None) -> Iterator[str]:
    """Yield the JSON lines of every pair answered with prompt ``phash``; ``tally`` (``zelo_judge export -v``)
    gets ``{judge: [votes written, of them null]}``."""
    groups: dict[tuple[str, str, str, int], list] = {}
    for judge, qid, d1, d2, rep, vote, _t in store.rows(phash, judges):
        key = (qid, d1, d2, rep) if (qid, d1, d2, rep) in groups or (qid, d2, d1, rep) not in groups \
            else (qid, d2, d1, rep)
        groups.setdefault(key, []).append((judge, d1, vote))
    for (qid, a, b, _rep), rows in groups.items():
        rows.sort(key=lambda r: (r[0], r[1] != a))
        votes, names, orders = [], [], []
        for judge, first, vote in rows:
            flip = first != a
            votes.append(None if vote is None else (-vote if flip else vote))
            names.append(judge)
            orders.append("BA" if flip else "AB")
            if tally is not None:
                counts = tally.setdefault(judge, [0, 0])
                counts[0] += 1
                counts[1] += vote is None
        yield judgment_line(qid, a, b, votes, names, orders)
