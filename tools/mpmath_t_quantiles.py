#!/usr/bin/env python3
"""Student's t quantiles to 25 digits with mpmath: the oracle of tests/test_t_quantile_oracle.py.

    python tools/mpmath_t_quantiles.py          # needs mpmath (pip install mpmath), not a dependency of pref_eval
    python tools/mpmath_t_quantiles.py --exact  # the table of tests/test_t_exact_oracle.py

For each (p, df) of the test's table, the t with P(T <= t) = p, found at 80 digits from the regularized
incomplete beta function (P(T <= -s) = I_{df/(df+s^2)}(df/2, 1/2) / 2 for s >= 0; mpmath's ``betainc``):
a bracket by doubling, bisection to 40 digits, then five Newton steps with the density. ``p`` is the double
as written (its exact binary value). Prints the table's rows: ``(p, df, "quantile"),``.

``--exact``: the grid of tests/test_t_exact_oracle.py (EXACT_DF x EXACT_P: df from 1 to 1e7, p from 1e-300 to
1 - 1e-16, with p near 1/2 down to one unit in the last place), each row ``(p, df, "quantile", t, "tail")``:
the quantile as above (bisection only to 1e-12, then Newton steps), ``t`` = the nearest double to it, and
``tail`` = P(|T| >= |t|) at that double, I_{df/(df+t^2)}(df/2, 1/2).
"""
from __future__ import annotations

import sys

import mpmath as mp

mp.mp.dps = 80

POINTS = [(p, df) for df in (1.0, 2.0, 3.0, 4.5, 7.0, 10.0, 30.0, 100.0, 1000.0)
          for p in (1e-30, 1e-12, 1e-6, 1e-3, 0.025, 0.1, 0.3, 0.4, 0.6, 0.9, 0.975, 0.999)]
FAR = [(1e-300, 1.0), (1e-200, 1.0), (1e-100, 1.0), (1e-300, 2.0), (1e-300, 3.0), (1e-100, 7.0),
       (1e-300, 30.0), (1e-300, 300.0), (1e-300, 1000.0), (1e-200, 1000.0), (1e-100, 1000.0)]


EXACT_DF = (1.0, 2.0, 3.0, 4.5, 7.0, 10.0, 30.0, 100.0, 1000.0, 1e4, 1e5, 1e6, 1e7)
EXACT_P = (1e-300, 1e-100, 1e-30, 1e-12, 1e-06, 0.001, 0.025, 0.1, 0.3, 0.4, 0.49, 0.4999, 0.4999999,
           0.49999999999999994, 0.5000000000000001, 0.5000001, 0.5001, 0.51, 0.6, 0.9, 0.975, 0.999,
           0.999999999999, 0.9999999999999999)


def lower_tail(s: mp.mpf, df: mp.mpf) -> mp.mpf:
    """P(T <= -s), s >= 0."""
    return mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + s * s), regularized=True) / 2


def density(s: mp.mpf, df: mp.mpf) -> mp.mpf:
    return (mp.gamma((df + 1) / 2) / (mp.sqrt(df * mp.pi) * mp.gamma(df / 2))
            * (1 + s * s / df) ** (-(df + 1) / 2))


def quantile(p: float, df: float, digits: int = 40) -> mp.mpf:
    pp, d = mp.mpf(p), mp.mpf(df)
    upper = pp > mp.mpf(1) / 2
    q = 1 - pp if upper else pp
    lo, hi = mp.mpf(0), mp.mpf(1)
    while lower_tail(hi, d) > q:
        lo, hi = hi, hi * 2
    while hi - lo > hi * mp.mpf(10) ** -digits:
        mid = (lo + hi) / 2
        if lower_tail(mid, d) > q:
            lo = mid
        else:
            hi = mid
    s = (lo + hi) / 2
    for _ in range(5):
        s += (lower_tail(s, d) - q) / density(s, d)
    return s if upper else -s


def two_sided(t: float, df: float) -> mp.mpf:
    s, d = abs(mp.mpf(t)), mp.mpf(df)
    return 2 * lower_tail(s, d)


def main() -> None:
    if sys.argv[1:] == ["--exact"]:
        for df in EXACT_DF:
            for p in EXACT_P:
                q = quantile(p, df, 12)
                t = float(q)
                head = f'    ({p!r}, {df!r}, "{mp.nstr(q, 25)}",'
                tail = f' {t!r}, "{mp.nstr(two_sided(t, df), 25)}"),'
                # the test file's lines are at most 120 characters: a long row on two lines
                print(head + tail if len(head + tail) <= 120 else head + "\n    " + tail, flush=True)
        return
    for p, df in POINTS + FAR:
        print(f'    ({p!r}, {df!r}, "{mp.nstr(quantile(p, df), 25)}"),')


if __name__ == "__main__":
    main()
