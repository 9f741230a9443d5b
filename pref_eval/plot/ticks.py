"""Axis ticks at "nice numbers" (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990).

A nice number is 1, 2 or 5 times a power of ten. For a data range ``[lo, hi]`` and about ``n`` ticks,
Heckbert's loose labelling takes the nice number above the range, ``nice_number(hi − lo, False)``, and
the tick step ``d = nice_number(range / (n − 1), True)`` (the nearest nice number); the ticks are the
multiples of ``d``. Here the view is the data range padded by a margin and only the multiples of ``d``
inside it are drawn (the "tight" variant, as plots keep their data margins), so the step is taken
from the unrounded range and made smaller along the 1-2-5 ladder while fewer than three ticks fit;
labels show ``max(−floor(log10 d), 0)`` decimals, negative values with the minus sign U+2212.
Very large or small magnitudes (|v| ≥ 10⁹, or more than 6 decimals) are labelled in ``%g`` style
with just the significant digits the step needs (``2e299``, ``5e−7``). A range that is a single value,
or narrower than 10⁻⁹ of its magnitude, is first widened by 5 % of the value on each side (± 0.05
around 0) by :func:`padded` / :func:`nonsingular`, as matplotlib's locators do (``Locator.nonsingular``).
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


TINY = 1e-9  # a range narrower than this fraction of its magnitude is a single value
EXPAND = 0.05


def nonsingular(lo: float, hi: float) -> tuple[float, float]:
    """``[lo, hi]`` (ordered), widened to ``[lo − 0.05·|lo|, hi + 0.05·|hi|]`` (``[−0.05, 0.05]`` at 0) when
    ``hi − lo ≤ 10⁻⁹ · max(|lo|, |hi|)``: a flat data range still gets an axis with readable ticks."""
    if hi < lo:
        lo, hi = hi, lo
    big = max(abs(lo), abs(hi))
    if hi - lo <= TINY * big or big == 0.0:
        if big == 0.0:
            return -EXPAND, EXPAND
        return lo - EXPAND * abs(lo), hi + EXPAND * abs(hi)
    return lo, hi


def padded(lo: float, hi: float, margin: float = 0.05) -> tuple[float, float]:
    """``[lo, hi]`` made :func:`nonsingular` and widened by ``margin`` of its length on each side."""
    lo, hi = nonsingular(lo, hi)
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
    step_exp = math.floor(math.log10(d) + 1e-9)
    decimals = max(-step_exp, 0)
    values = [round(k * d, decimals) + 0.0 for k in range(first, last + 1)]  # + 0.0: no negative zero
    big = max(abs(v) for v in values)
    if big >= 1e9 or decimals > 6:  # %g style: the significant digits the step needs, encoded as -digits
        digits = (math.floor(math.log10(big)) if big > 0 else step_exp) - step_exp + 1
        decimals = -max(digits, 1)
    return values, decimals


def tick_label(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals (a negative ``decimals``: ``%g`` with ``−decimals``
    significant digits, the exponent without ``+`` or leading zeros), the minus sign U+2212 for a
    negative value."""
    if decimals < 0:
        text = f"{abs(value):.{-decimals}g}"
        if "e" in text:
            mant, exp = text.split("e")
            text = f"{mant}e{MINUS if exp.startswith('-') else ''}{int(exp.lstrip('+-'))}"
        return MINUS + text if value < 0 and value != 0 else text
    text = f"{abs(value):.{decimals}f}"
    return MINUS + text if value < 0 and float(text) != 0 else text
