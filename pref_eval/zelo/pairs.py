"""Random-cycle pair selection (zbench's "4 cycles"), seeded.

For a query with n documents and c cycles: each cycle is a uniformly random
permutation pi of the documents, and the pairs are (pi_i, pi_{i+1 mod n}),
the successor becoming document B. Every document then sits in 2c pairs
and the union of cycles is connected. zbench uses the same construction with
Python's unseeded global ``random``; ``compat="zbench"`` draws the
permutations with ``random.Random(seed).shuffle`` in zbench's order (queries
in order, cycles inside), which reproduces zbench's ``pairs.json`` after
``random.seed(seed)``. Otherwise numpy ``default_rng(seed)`` is used.

``dedup=True`` drops a pair whose unordered pair was already drawn for the
query (zbench keeps them: 6.0 % of the pairs of 4 cycles at n = 50, expected;
``python tools/doc_figures.py repeated-pairs``).
"""
from __future__ import annotations

import random
from collections.abc import Iterable

import numpy as np


def random_cycles(
    queries: Iterable[tuple[str, list[str]]],
    cycles: int = 4,
    seed: int | None = 0,
    *,
    dedup: bool = False,
    limit: int | None = None,
    compat: str | None = None,
) -> list[tuple[str, str, str]]:
    """Pairs ``(qid, doc_a, doc_b)`` from ``cycles`` random cycles per query.

    ``limit`` uses only the first ``limit`` documents of each query (zbench's
    ``document_limit``). n = 1 gives no pair (zbench asks for a self-pair);
    n = 2 gives (a, b) or (b, a) per cycle.
    """
    if cycles < 0:
        raise ValueError("cycles must be >= 0")
    out: list[tuple[str, str, str]] = []
    pyrng = random.Random(seed) if compat == "zbench" else None
    rng = np.random.default_rng(seed) if pyrng is None else None
    for qid, docs in queries:
        n = len(docs) if limit is None else min(len(docs), limit)
        seen: set[tuple[int, int]] = set()
        for _ in range(cycles):
            if pyrng is not None:
                order = list(range(n))
                pyrng.shuffle(order)
                perm = np.array(order, dtype=np.int64)
            else:
                if rng is None:  # one of the two generators is made
                    raise RuntimeError("internal error: no random generator")
                perm = rng.permutation(n)
            if n < 2 and compat != "zbench":
                continue
            nxt = np.roll(perm, -1)
            for i, j in zip(perm.tolist(), nxt.tolist(), strict=False):
                if dedup:
                    key = (min(i, j), max(i, j))
                    if key in seen:
                        continue
                    seen.add(key)
                out.append((qid, docs[i], docs[j]))
    return out
