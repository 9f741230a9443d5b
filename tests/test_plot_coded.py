"""``zelo_plot systems|pairs -P`` plots the reader's codes (session 28, s38): a per-query file read at once
reaches the plot's queries x runs table and the pairwise tests as a :class:`pref_eval.io.coded.CodedTable` --
no pandas DataFrame, no pivot (before: ~1 s of CPU per million rows and pandas' import).

Oracle: pandas' ``pivot_table(index="qid", columns="run", values="value", aggfunc="first")[runs]`` with
``dropna`` / ``fillna(0)`` -- the old path, computed live on pandas' own ``read_csv`` of the file: the same
values, run order, query order, and the same memory layout (C, or Fortran order for runs in reverse sorted
order with queries dropped: the order a run's mean adds its values in, which moves the bootstrap's BCa interval),
so each run's mean and standard deviation are equal to the last bit. The no-pandas test fails on the old code.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pref_eval.io.coded import CodedTable
from pref_eval.plot.data import load_values, paired_table, run_count


def _write(path, runs, queries, seed, drop=0.1, decimals=4):
    rng = np.random.default_rng(seed)
    lines = ["run\tqid\tmeasure\tvalue\n"]
    for r in runs:
        for q in range(queries):
            if rng.random() >= drop:
                lines.append(f"{r}\t{q * 7 % 101}\tmap\t{round(float(rng.random()), decimals)}\n")
                lines.append(f"{r}\t{q * 7 % 101}\tP_10\t{round(float(rng.random()), 1)}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def _pandas_table(path, measure, complete):
    df = pd.read_csv(path, sep="\t", dtype={"run": str, "qid": str, "measure": str})
    df = df[df["measure"] == measure]
    runs = list(dict.fromkeys(df["run"]))
    wide = df.pivot_table(index="qid", columns="run", values="value", aggfunc="first")[runs]
    return wide.fillna(0.0) if complete else wide.dropna(axis=0, how="any")


RUNS = [("a", "b"), ("b", "a"), ("c", "b", "a"), ("b", "c", "a"), ("run1", "run0"), ("x",)]


@pytest.mark.parametrize("runs", RUNS, ids=["-".join(r) for r in RUNS])
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("drop", [0.0, 0.15])
def test_table_equals_pandas_pivot(tmp_path, runs, complete, drop):
    path = _write(tmp_path / "pq.tsv", runs, 40, seed=len(runs) + int(drop * 100), drop=drop)
    table, name = load_values(None, (), path, "map")
    assert isinstance(table, CodedTable) and name == "map"
    assert run_count(table) == len(runs)
    got = paired_table(table, complete)
    want = _pandas_table(path, "map", complete)
    assert got.columns == list(want.columns) and got.index == list(want.index)
    x, y = got.to_numpy(dtype=float), want.to_numpy(dtype=float)
    assert np.array_equal(x, y)
    assert (x.flags.f_contiguous and not x.flags.c_contiguous) == (y.flags.f_contiguous and not y.flags.c_contiguous)
    assert x.mean(axis=0).tobytes() == y.mean(axis=0).tobytes()
    if len(x) > 1:
        assert x.std(axis=0, ddof=1).tobytes() == y.std(axis=0, ddof=1).tobytes()


def test_reverse_sorted_runs_mean_as_pandas_adds(tmp_path):
    """Two runs in reverse sorted order, a query dropped: pandas' table is in Fortran order (pairwise sums per
    run); values chosen so that the sum in query order and numpy's pairwise sum differ in the last bit."""
    vals = np.round(np.random.default_rng(0).random(36), 4).tolist()
    lines = ["run\tqid\tmeasure\tvalue\n"] + [f"{r}\t{q:03d}\tmap\t{v!r}\n" for r in ("z", "y")
                                             for q, v in enumerate(vals) if not (r == "y" and q == 35)]
    path = tmp_path / "pq.tsv"
    path.write_text("".join(lines), encoding="utf-8")
    got = paired_table(load_values(None, (), str(path), "map")[0]).to_numpy(dtype=float)
    want = _pandas_table(str(path), "map", False).to_numpy(dtype=float)
    assert got.mean(axis=0).tobytes() == want.mean(axis=0).tobytes()
    assert np.ascontiguousarray(want).mean(axis=0).tobytes() != want.mean(axis=0).tobytes()  # the layout matters


def test_the_plot_path_builds_no_dataframe(tmp_path):
    """``zelo_plot systems -P`` and ``pairs -P`` never import pandas (the old path pivoted the reader's
    DataFrame)."""
    path = _write(tmp_path / "pq.tsv", ("r1", "r0", "r2"), 20, seed=3)
    code = ("import sys, contextlib\nfrom pref_eval.cli.plot import main\n"
            f"for kind in ('systems', 'pairs'):\n"
            f"    try:\n        main([kind, '-P', {path!r}, '-m', 'map', '-o', kind + '.svg', '-Q'])\n"
            "    except SystemExit as e:\n        assert e.code in (0, None), e.code\n"
            "print('pandas' in sys.modules)")
    import pref_eval

    tested = os.path.dirname(os.path.dirname(os.path.abspath(pref_eval.__file__)))  # (the package imported here)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": tested}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"
    assert (tmp_path / "systems.svg").stat().st_size > 1000 and (tmp_path / "pairs.svg").stat().st_size > 1000
