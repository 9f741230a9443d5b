"""Tournament._prune_pairs (index arrays, numpy's stable argsort) against the stage's definition.

Clarke et al.'s pruning stage, written out with Python's stable sort: until every document has
n = min(p, |pool| − 1) pairs, draw a random permutation of the pool, sort it stably by the pairs each
document has so far, and pair its first document with the first later one it has not met. Same
generator, same draws: the pairs and the generator's final state must agree exactly.
"""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.zelo.tournament import Tournament


def _reference(pool, p, seed, step):
    rng = np.random.default_rng([seed, step])
    n = min(p, len(pool) - 1)
    count = dict.fromkeys(pool, 0)
    pairs: set[frozenset] = set()
    while min(count.values()) < n:
        order = sorted((pool[i] for i in rng.permutation(len(pool))), key=lambda d: count[d])
        first = order[0]
        other = next((d for d in order[1:] if frozenset((first, d)) not in pairs), None)
        if other is None:
            break
        pairs.add(frozenset((first, other)))
        count[first] += 1
        count[other] += 1
    return sorted("\t".join(sorted(x)) for x in pairs), rng.bit_generator.state


@pytest.mark.parametrize("size,p,seed", [(2, 7, 0), (5, 3, 1), (9, 7, 2), (30, 7, 3), (100, 7, 4), (41, 12, 5),
                                         (17, 16, 6)])
def test_prune_pairs_equal_the_definition(size, p, seed):
    pool = [f"d{i:03d}" for i in np.random.default_rng(seed).permutation(size)]
    t = Tournament(k=1, p=p, f=p + 1, seed=seed)
    got = t._prune_pairs(pool)
    want, state = _reference(pool, p, seed, t.step)
    assert got == want
    # the same number of permutations drawn: replay the reference's draws on the tournament's generator
    t2 = Tournament(k=1, p=p, f=p + 1, seed=seed)
    rng = np.random.default_rng([seed, 1])
    t2._rng = lambda: rng  # type: ignore[method-assign]
    t2._prune_pairs(pool)
    assert rng.bit_generator.state == state
