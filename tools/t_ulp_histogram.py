#!/usr/bin/env python3
"""How many units in the last place Student's t tail and quantile are off, against the 25-digit table.

    python tools/t_ulp_histogram.py                         # pref_eval.stats.special of this tree, and scipy
    python tools/t_ulp_histogram.py --module old/special.py # another version of the module (before/after)
    python tools/t_ulp_histogram.py --grid                  # the two-sided tail on tests/test_t_tail_oracle.py's grid

The truth is tests/test_t_exact_oracle.py's TABLE (tools/mpmath_t_quantiles.py --exact: 312 points, df from
1 to 1e7, p from 1e-300 to 1 - 1e-16). For each source it prints, for the quantile (``t_quantile(p, df)`` /
``scipy.stats.t.ppf(p, df)``) and the two-sided tail at the table's double t (``t_two_sided(t, df)``, and
``t_two_sided_exact`` where the module has it / ``2 scipy.stats.t.sf(|t|, df)``), a histogram of
|value - truth| / ulp(truth) (exact rational arithmetic; the 25-digit truth's own error is below 1e-8 ulp),
the count of nearest doubles (0.5 ulp or less) and the worst points. scipy is optional.

``--grid``: the two-sided tail only, on tests/test_t_tail_oracle.py's TABLE (tools/mpmath_t_tails.py: 464
points, df 1 to 1e7, |t| 1e-8 to 40 and 16 far tails, 40-digit truth): ``t_two_sided`` (double precision), the t-test's
``t_tail.t_two_sided_array`` (where this tree has it) and scipy's ``2 t.sf(|t|, df)``.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
from decimal import Decimal
from fractions import Fraction

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

BUCKETS = (0.5, 1, 2, 4, 16, 256, 65536, math.inf)


def ulps(value: float, truth: str) -> float:
    exact = Fraction(Decimal(truth))
    if math.isinf(value) or math.isnan(value):
        return math.inf
    near = float(exact)
    ulp = math.ulp(near) if near != 0 else math.ulp(0.0)
    return float(abs(Fraction(value) - exact) / Fraction(ulp))


def histogram(errors: list[float]) -> str:
    counts, low = [], 0.0
    for high in BUCKETS:
        counts.append(f"<={high:g}: {sum(low < e <= high or (low == 0 and e == 0) for e in errors)}")
        low = high
    return ", ".join(counts)


def report(name: str, quantile, tail, table) -> None:
    q_err = [(ulps(quantile(p, df), q), p, df) for p, df, q, _, _ in table]
    t_err = [(ulps(tail(t, df), v), t, df) for _, df, _, t, v in table]
    for what, errs in (("quantile", q_err), ("two-sided tail", t_err)):
        values = [e for e, _, _ in errs]
        print(f"{name} {what}: nearest {sum(e <= 0.5 for e in values)}/{len(values)}; {histogram(values)}")
        worst = sorted(errs, reverse=True)[:4]
        print("    worst: " + "; ".join(f"{e:.3g} ulp at ({x!r}, {df!r})" for e, x, df in worst))


def tail_report(name: str, values: list[float], table) -> None:
    errs = [(ulps(v, truth), t, df) for v, (t, df, truth) in zip(values, table, strict=True)]
    e = [x for x, _, _ in errs]
    print(f"{name} two-sided tail: nearest {sum(x <= 0.5 for x in e)}/{len(e)}; {histogram(e)}")
    print("    worst: " + "; ".join(f"{x:.3g} ulp at ({t!r}, {df!r})" for x, t, df in sorted(errs, reverse=True)[:4]))
    by_df: dict[float, float] = {}
    for x, _, df in errs:
        by_df[df] = max(by_df.get(df, 0.0), x)
    print("    worst by df: " + ", ".join(f"{df:g}: {x:.3g}" for df, x in by_df.items()))


def grid(module: str | None) -> None:
    from test_t_tail_oracle import TABLE

    from pref_eval.stats import special

    mod = special
    if module:
        spec = importlib.util.spec_from_file_location("special_under_test", module)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    name = module or "pref_eval"
    tail_report(name + " t_two_sided", [mod.t_two_sided(t, df) for t, df, _ in TABLE], TABLE)
    if not module:
        import numpy as np

        from pref_eval.stats.t_tail import t_two_sided_array

        got = t_two_sided_array(np.array([r[0] for r in TABLE]), np.array([r[1] for r in TABLE]))
        tail_report(name + " t_two_sided_array", got.tolist(), TABLE)
    try:
        from scipy import stats
    except ImportError:
        return
    tail_report("scipy 2 t.sf", [float(2 * stats.t.sf(abs(t), df)) for t, df, _ in TABLE], TABLE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", help="a special.py to measure instead of pref_eval.stats.special")
    parser.add_argument("--grid", action="store_true", help="the two-sided tail on the (t, df) grid")
    args = parser.parse_args()
    if args.grid:
        grid(args.module)
        return
    from test_t_exact_oracle import TABLE

    if args.module:
        spec = importlib.util.spec_from_file_location("special_under_test", args.module)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    else:
        from pref_eval.stats import special as mod
    name = args.module or "pref_eval"
    report(name, mod.t_quantile, mod.t_two_sided, TABLE)
    if hasattr(mod, "t_two_sided_exact"):
        report(name + " (t_two_sided_exact)", mod.t_quantile, mod.t_two_sided_exact, TABLE)
    try:
        from scipy import stats
    except ImportError:
        return
    report("scipy", lambda p, df: float(stats.t.ppf(p, df)), lambda t, df: float(2 * stats.t.sf(abs(t), df)),
           TABLE)


if __name__ == "__main__":
    main()
