"""Axis ticks at "nice numbers" (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990).

A nice number is 1, 2 or 5 times a power of ten. For a data range ``[lo, hi]`` and about ``n`` ticks,
Heckbert's loose labelling takes the nice number above the range, ``nice_number(hi − lo, False)``, and
the tick step ``d = nice_number(range / (n − 1), True)`` (the nearest nice number); the ticks are the
multiples of ``d``. Here the view is the data range padded by a margin and only the multiples of ``d``
inside it are drawn (the "tight" variant, as plots keep their data margins), so the step is taken
from the unrounded range and made smaller along the 1-2-5 ladder while fewer than three ticks fit;
labels show ``max(−floor(log10 d), 0)`` decimals, negative values with the minus sign U+2212.
"""
from __future__ import annotations

import math

MINUS = "\u2212"


def nice_number(x: float, round_: bool) -> float:
    """The nice number (1, 2, 5 × 10^k) nearest to ``x`` (``round_``) or the smallest one ≥ ``x``."""
    if not x > 0 or not math.isfinite(x):
        raise ValueError(f"nice_number needs a positive finite number, got {x!r}")
    exp = math.floor(math.log10(x))
    f = x / 10.0 ** exp
    if round_:
        nf = 1.0 if f < 1.5 else 2.0 if f < 3.0 else 5.0 if f < 7.0 else 10.0
    else:
        nf = 1.0 if f <= 1.0 else 2.0 if f <= 2.0 else 5.0 if f <= 5.0 else 10.0
    return nf * 10.0 ** exp


def padded(lo: float, hi: float, margin: float = 0.05) -> tuple[float, float]:
    """``[lo, hi]`` widened by ``margin`` of its length on each side (±1 around a single value)."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        return lo - 1.0, hi + 1.0
    pad = (hi - lo) * margin
    return lo - pad, hi + pad


def _smaller_nice(d: float) -> float:
    """The nice number below the nice number ``d`` (… 10 → 5 → 2 → 1 → 0.5 …)."""
    exp = math.floor(math.log10(d) + 1e-9)
    f = round(d / 10.0 ** exp)
    return {1: 0.5, 2: 1.0, 5: 2.0}.get(f, 5.0) * 10.0 ** exp


def nice_ticks(lo: float, hi: float, n: int = 5, least: int = 3) -> tuple[list[float], int]:
    """Tick values inside ``[lo, hi]`` at the multiples of a nice step for about ``n`` ticks, and the
    number of decimals of their labels.

    The step is Heckbert's ``nice_number((hi − lo)/(n − 1), True)``; the range itself is not rounded
    first (that widens a loose axis, but here the view is fixed), and when fewer than ``least`` ticks
    fall inside the view the step goes down the 1-2-5 ladder."""
    n = max(n, 2)
    d = nice_number((hi - lo) / (n - 1), True)
    while True:
        first, last = math.ceil(lo / d - 1e-9), math.floor(hi / d + 1e-9)
        if last - first + 1 >= least:
            break
        d = _smaller_nice(d)
    decimals = max(-math.floor(math.log10(d) + 1e-9), 0)
    values = [round(k * d, decimals) + 0.0 for k in range(first, last + 1)]  # + 0.0: no negative zero
    return values, decimals


def tick_label(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, the minus sign U+2212 for a negative value."""
    text = f"{abs(value):.{decimals}f}"
    return MINUS + text if value < 0 and float(text) != 0 else text
