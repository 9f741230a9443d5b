"""The range of every ``--seed`` (and every ``seed=`` of :mod:`pref_eval.api`): integers 0 .. 2^64 - 1.

numpy's ``default_rng`` refuses negative seeds. Larger seeds than 2^64 - 1 are refused too: numpy would take
them, but the commands build many streams from lists such as ``[seed, repetition]``, and numpy's
``SeedSequence`` cuts each integer into 32-bit words and pads the list with zero words, so a seed of more
than 64 bits only adds ways for two different (seed, repetition) lists to name one stream; 64 bits is also
what other tools (and JSON readers that use unsigned 64-bit integers) can hold. Each command's docs page tells
what its seed governs.
"""
from __future__ import annotations

SEED_MAX = 2**64 - 1
