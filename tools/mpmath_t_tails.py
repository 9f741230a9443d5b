#!/usr/bin/env python3
"""Student's t two-sided tails to 40 digits with mpmath: the table of tests/test_t_tail_oracle.py.

    python tools/mpmath_t_tails.py   # needs mpmath (pip install mpmath), not a dependency of pref_eval

For each (t, df) of the grid -- df in DF (1 to 1e7, with the t-test's typical 52), |t| from 1e-8 to 40 in 30
geometric steps (``T``), plus the double on each side of the point where pref_eval switches from the
hypergeometric series to the continued fraction (x = (a + 1)/(a + 5/2), a = df/2: t = sqrt(1.5 df/(a + 1))), and
16 far-tail points (``FAR``) --
P(|T| >= |t|) = I_x(df/2, 1/2), x = df/(df + t^2) (DLMF 8.17.2 with A&S 26.7.1; mpmath's regularized ``betainc``),
as 1 - I_{1-x}(1/2, df/2) (DLMF 8.17.4) where x > (a + 1)/(a + 5/2) (there mpmath's direct form loses ~12 of
60 digits at df = 1e7), at 60 digits, checked against the same at 90 digits (they agree to 45 digits or the
script stops). ``t`` is the
double as written (its exact binary value). Prints the table's rows: ``(t, df, "tail"),``.
"""
from __future__ import annotations

import math
import sys

import mpmath as mp

DF = (1.0, 2.0, 3.0, 4.5, 7.0, 10.0, 30.0, 52.0, 100.0, 1000.0, 1e4, 1e5, 1e6, 1e7)
T = tuple(1e-8 * (4e9 ** (k / 29)) for k in range(30))
# far tails: t^2/df up to 1e198 (log1p's Newton step at its largest), tails from 1e-61 down to the subnormal 1.9e-309
FAR = ((1e3, 1.0), (1e12, 1.0), (1e60, 1.0), (1e99, 1.0), (1e6, 2.0), (1e50, 2.0), (1e99, 2.0), (1e30, 3.0),
       (1e66, 3.0), (1e100, 3.0), (1e61, 5.0), (1e62, 5.0), (1e15, 20.0), (2e15, 20.0), (3e15, 20.0), (8e15, 20.0))


def two_sided(t: float, df: float, digits: int) -> mp.mpf:
    with mp.workdps(digits):
        s, d = abs(mp.mpf(t)), mp.mpf(df)
        a, half = d / 2, mp.mpf(1) / 2
        x = d / (d + s * s)
        if x > (a + 1) / (a + mp.mpf(5) / 2):
            return 1 - mp.betainc(half, a, 0, s * s / (d + s * s), regularized=True)
        return mp.betainc(a, half, 0, x, regularized=True)


def grid() -> list[tuple[float, float]]:
    points = []
    for df in DF:
        switch = math.sqrt(1.5 * df / (df / 2 + 1))
        ts = sorted(set(T) | {math.nextafter(switch, 0), math.nextafter(switch, math.inf)})
        points += [(t, df) for t in ts]
    return points + list(FAR)


def main() -> None:
    for t, df in grid():
        value, check = two_sided(t, df, 60), two_sided(t, df, 90)
        if abs(value - check) > abs(check) * mp.mpf(10) ** -45:
            sys.exit(f"mpmath's betainc disagrees with itself at t={t!r}, df={df!r}: {value} / {check}")
        print(f'    ({t!r}, {df!r}, "{mp.nstr(value, 40, min_fixed=-4, max_fixed=1)}"),', flush=True)


if __name__ == "__main__":
    main()
