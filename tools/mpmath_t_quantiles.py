#!/usr/bin/env python3
"""Student's t quantiles to 25 digits with mpmath: the oracle of tests/test_t_quantile_oracle.py.

    python tools/mpmath_t_quantiles.py     # needs mpmath (pip install mpmath), not a dependency of pref_eval

For each (p, df) of the test's table, the t with P(T <= t) = p, found at 80 digits from the regularized
incomplete beta function (P(T <= -s) = I_{df/(df+s^2)}(df/2, 1/2) / 2 for s >= 0; mpmath's ``betainc``):
a bracket by doubling, bisection to 40 digits, then five Newton steps with the density. ``p`` is the double
as written (its exact binary value). Prints the table's rows: ``(p, df, "quantile"),``.
"""
from __future__ import annotations

import mpmath as mp

mp.mp.dps = 80

POINTS = [(p, df) for df in (1.0, 2.0, 3.0, 4.5, 7.0, 10.0, 30.0, 100.0, 1000.0)
          for p in (1e-30, 1e-12, 1e-6, 1e-3, 0.025, 0.1, 0.3, 0.4, 0.6, 0.9, 0.975, 0.999)]
FAR = [(1e-300, 1.0), (1e-200, 1.0), (1e-100, 1.0), (1e-300, 2.0), (1e-300, 3.0), (1e-100, 7.0),
       (1e-300, 30.0), (1e-300, 300.0), (1e-300, 1000.0), (1e-200, 1000.0), (1e-100, 1000.0)]


def lower_tail(s: mp.mpf, df: mp.mpf) -> mp.mpf:
    """P(T <= -s), s >= 0."""
    return mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + s * s), regularized=True) / 2


def density(s: mp.mpf, df: mp.mpf) -> mp.mpf:
    return (mp.gamma((df + 1) / 2) / (mp.sqrt(df * mp.pi) * mp.gamma(df / 2))
            * (1 + s * s / df) ** (-(df + 1) / 2))


def quantile(p: float, df: float) -> mp.mpf:
    pp, d = mp.mpf(p), mp.mpf(df)
    upper = pp > mp.mpf(1) / 2
    q = 1 - pp if upper else pp
    lo, hi = mp.mpf(0), mp.mpf(1)
    while lower_tail(hi, d) > q:
        lo, hi = hi, hi * 2
    while hi - lo > hi * mp.mpf(10) ** -40:
        mid = (lo + hi) / 2
        if lower_tail(mid, d) > q:
            lo = mid
        else:
            hi = mid
    s = (lo + hi) / 2
    for _ in range(5):
        s += (lower_tail(s, d) - q) / density(s, d)
    return s if upper else -s


def main() -> None:
    for p, df in POINTS + FAR:
        print(f'    ({p!r}, {df!r}, "{mp.nstr(quantile(p, df), 25)}"),')


if __name__ == "__main__":
    main()
