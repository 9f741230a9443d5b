"""Seeds: the range of every ``--seed`` (0 .. 2^64 - 1) and the one encoding of a seed list into a numpy stream.

:data:`SEED_MAX`: every ``--seed`` (and every ``seed=`` of :mod:`pref_eval.api`) is an integer 0 .. 2^64 - 1.
numpy's ``default_rng`` refuses negative seeds; larger ones than 2^64 - 1 are refused too (64 bits is what
other tools, and JSON readers with unsigned 64-bit integers, hold, and :func:`stream_seed` is proven for it).

:func:`stream_seed`: every stream named by a seed and indices (``[seed, repetition]``, ``[seed, step]``, ...)
goes through it, so that two different (seed, index...) lists of one call site never name one stream, for every
seed 0 .. 2^64 - 1 and every index, while every stream used before session 19 for seeds below 2^32 (and in
practice for every seed) stays bit-identical. :func:`product_seed` is the older derived seed
``seed * 1000003 + index`` (zelo_simulate's tournament repetitions, the adaptive session's topics), kept where
it is one-to-one.
"""
from __future__ import annotations

from typing import Any

SEED_MAX = 2**64 - 1
WORD = 2**32
PRODUCT = 1_000_003
# last word of the fixed-width form; any non-zero word would do (the proof only needs it non-zero)
TAG = 0x5EED_F1ED


def stream_seed(*parts: int, wide: tuple[int, ...] = (0,), fixed: bool = False) -> list[int]:
    """The seed list giving ``numpy.random.default_rng`` the stream named by ``parts`` (each 0 .. 2^64 - 1).

    It is ``list(parts)`` -- the list pref_eval gave ``default_rng`` before session 19, same stream -- when
    that list is unambiguous (the *kept* form below), else the *fixed-width* form: each part as two 32-bit
    words (low, high), then ``len(parts)`` and :data:`TAG`. ``fixed=True`` asks for the fixed-width form
    always (a new family of streams with no old list to keep). ``wide``: the positions of the parts that
    may exceed 2^32 - 1 in the kept form (by default the seed, ``parts[0]``).

    **How numpy reads a list** (``SeedSequence``, checked live by tests/test_seeds.py): each integer becomes
    its 32-bit words, least significant first, as few as it needs (0 → ``[0]``, 2^32 → ``[0, 1]``); the
    words of the list's integers are concatenated, and a result shorter than 4 words (the pool size) is
    padded with zero words; a longer one is not padded, and every word counts. So ``[2**32, 0]`` and
    ``[0, 1]`` are one stream (``[0, 1, 0, 0]``), while ``[a, b, c, d]`` and ``[a, b, c, d, 0]`` are two.
    Hence: *two lists whose words differ after trailing zero words are dropped are two streams* (padding
    only appends zeros). Call ``strip(L)`` a list's words without their trailing zero words.

    **Kept form.** With n parts, each part is one word except the parts at the ``wide`` positions, which
    may have two (0 .. 2^64 - 1). Let k be the number of parts with two words. ``list(parts)`` is kept when
    (i) every part outside ``wide`` is below 2^32, (ii) the two-word parts are the last k positions of
    ``wide`` (in a site with ``wide=(0, 1)``: not ``[2**32, 5]``, which reads as ``[0, 1, 5]`` = ``[0,
    1 + 5·2^32]``), and (iii) when k >= 1, the list's last word is not zero (the last part is not 0, or is
    a two-word part, whose high word is not zero). Then, for one site (fixed n and ``wide``):

    * k = 0: the words are the parts themselves, n words padded alike: different parts, different
      entropy; ``strip`` has at most n words.
    * k >= 1: ``strip`` has exactly n + k words (by (iii)); by (ii) k tells which parts have two words, so
      the words give back the parts. Different k give different lengths of ``strip``, and n + k > n.

    So the kept lists of one site are pairwise different streams.

    **Fixed-width form** ``[lo(p0), hi(p0), ..., lo(p[n-1]), hi(p[n-1]), n, TAG]``: 2n + 2 >= 4 words, so
    never padded, ending in a non-zero word. Two of them are equal only if they have one length (one n) and
    then the same words, hence the same parts: different tuples of any lengths, different streams. Against
    a kept list of n' parts (at most n' + len(wide) <= 2n' words): ``strip`` has 2n + 2 words against at most
    2n', so they differ whenever n' <= n, in particular for every kept list of the same site (n' = n).

    Together: at one call site, ``stream_seed`` is one-to-one on n-tuples of 0 .. 2^64 - 1 (the same
    ``wide``), and the kept streams are exactly the old ones. Call sites keep their families apart as
    before (a constant tag such as ``[seed, r, 1]`` / ``[seed, r, 2]``, or another length); a family made
    with ``fixed=True`` and m parts never meets a kept list of at most m parts. What numpy then does with
    the entropy (a hash into the generator's state) is numpy's; this is about naming different streams.

    Which streams are not the old ones: only lists that were ambiguous -- a seed >= 2^32 with a last index
    0 (``zelo_simulate bandit`` repetition 0, ``[S, r]``), an index >= 2^32, in the ranking session (``wide
    =(0, 1)``) a seed >= 2^32 with a topic hash below 2^32 (a chance of 2^-32 per topic).
    """
    n = len(parts)
    if n < 1:
        raise ValueError("stream_seed needs at least one part")
    parts = tuple(_part(p) for p in parts)  # numpy integers (an API seed of np.int64) as Python ints
    if not fixed:
        big = [i for i, p in enumerate(parts) if p >= WORD]
        k = len(big)
        wide_here = [i for i in wide if 0 <= i < n]
        if big == wide_here[len(wide_here) - k:] and (k == 0 or parts[-1] != 0):
            return list(parts)
    words: list[int] = []
    for p in parts:
        words += [p & (WORD - 1), p >> 32]
    return [*words, n, TAG]


def _part(p: Any) -> int:
    """One part of a seed list as a Python int (``operator.index``: numpy integers too; not bool, not float)."""
    import operator

    if not isinstance(p, bool):
        try:
            v = operator.index(p)
        except TypeError:
            v = -1
        if 0 <= v <= SEED_MAX:
            return v
    raise ValueError(f"stream_seed: each part must be an integer 0 .. 2^64 - 1, got {p!r}")


def product_seed(seed: int, index: int) -> int | None:
    """The derived seed used before session 19, ``seed * 1000003 + index``, when ``index < 1000003``; else None.

    For ``0 <= index < 1000003`` the map (seed, index) → ``seed * 1000003 + index`` is one-to-one (division
    with remainder); past it, seed s's index i + 1000003 was seed s + 1's index i. A caller receiving None
    names the stream with :func:`stream_seed` ``(seed, index, PRODUCT, ..., fixed=True)`` instead, a
    fixed-width list no old derived seed can give (its docstring). Used by zelo_simulate's tournament
    repetitions and the adaptive session's topics.
    """
    seed, index = _part(seed), _part(index)  # Python ints: no int64 wrap-around of the product
    return seed * PRODUCT + index if index < PRODUCT else None
