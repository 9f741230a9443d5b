"""A row's statistics do not depend on the rows that come with it.

numpy sums a row of a Fortran-ordered matrix in another order than the same row alone (pairwise summation only
runs along a contiguous axis); pandas' ``to_numpy()`` of a pivot table is Fortran-ordered, so ``zelo_compare -P``
on a file of several pairs' preference rows printed, for a pair whose differences are one value up to float noise,
a mean 2 ulp off and a t (and d_z) twice scipy's -- and other bits than the same pair's row alone (fuzz_compare
case 7:230). Oracle: ``scipy.stats.ttest_1samp`` on the row alone.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

# a pair's per-query differences that are 0.1 up to float noise (x - y of tenths), as the fuzz case had them
NOISY = [0.09999999999999998, 0.1, 0.10000000000000003, 0.10000000000000009] * 10 + [0.1, 0.1]


def _matrix(order: str) -> np.ndarray:
    rng = np.random.default_rng(5)
    rows = [rng.normal(size=len(NOISY)), np.array(NOISY), rng.normal(size=len(NOISY)).round(2)]
    return np.array(rows, order=order)


@pytest.mark.filterwarnings("ignore:Precision loss")  # scipy on the noisy row
@pytest.mark.parametrize("order", ["C", "F"])
def test_compare_differences_rows_equal_scipy_alone(order):
    from scipy import stats

    from pref_eval.stats import compare_differences

    D = _matrix(order)
    recs = compare_differences(D, tests="t")
    for i, row in enumerate(np.ascontiguousarray(D)):
        r = recs.iloc[i]
        ref = stats.ttest_1samp(np.round(row, 12), 0.0)
        assert r["mean_diff"] == np.mean(np.round(row, 12))
        assert r["statistic"] == ref.statistic  # to the last bit
        alone = compare_differences(row, tests="t").iloc[0]
        for key in ("mean_diff", "statistic", "p_value", "ci_low", "ci_high", "d_z"):
            assert r[key] == alone[key] or (np.isnan(r[key]) and np.isnan(alone[key])), key


def _compare(path: Path) -> dict:
    p = subprocess.run([sys.executable, str(ROOT / "bin" / "zelo_compare"), "-P", str(path), "-o", "jsonl", "-Q",
                        "--tests", "t"], capture_output=True, text=True, check=True,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return {(r["run_a"], r["run_b"]): r for r in map(json.loads, p.stdout.splitlines())}


@pytest.mark.filterwarnings("ignore:Precision loss")
def test_zelo_compare_P_pair_among_others_equals_pair_alone(tmp_path):
    from scipy import stats

    rng = np.random.default_rng(1)
    n = len(NOISY)
    others = {("a", "b"): rng.normal(size=n).tolist(), ("a", "c"): rng.normal(size=n).round(1).tolist(),
              ("b", "c"): rng.normal(size=n).tolist()}
    lines = [f"r4\tr3\tq{j:02d}\trpp\t{v!r}\n" for j, v in enumerate(NOISY)]
    many = tmp_path / "many.tsv"
    alone = tmp_path / "alone.tsv"
    head = "runi\trunj\tqid\tmeasure\tvalue\n"
    many.write_text(head + "".join(f"{a}\t{b}\tq{j:02d}\trpp\t{v!r}\n" for (a, b), d in others.items()
                                   for j, v in enumerate(d)) + "".join(lines))
    alone.write_text(head + "".join(lines))
    got, want = _compare(many)[("r4", "r3")], _compare(alone)[("r4", "r3")]
    assert got == want
    ref = stats.ttest_1samp(np.round(NOISY, 12), 0.0)
    assert got["statistic"] == ref.statistic
