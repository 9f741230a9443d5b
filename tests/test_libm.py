"""pref_eval.libm: the C library's bits (Python's math module, which calls it) on every kind of x86-64 CPU."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pref_eval import libm
from pref_eval.zelo.tau_consistency import pg_mean

ROOT = Path(__file__).resolve().parents[1]


def _cases() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {"log2_ranks": libm.log2(np.arange(2, 5002)), "log2": libm.log2(rng.uniform(1e-3, 1e4, 3000)),
            "log": libm.log(rng.uniform(1e-6, 1e6, 3000)), "exp": libm.exp(rng.uniform(-30, 30, 3000)),
            "exp2": libm.exp2(rng.uniform(-10, 10, 3000)), "pow_ranks": libm.power(0.8, np.arange(3000)),
            "pow": libm.power(0.95, rng.uniform(0, 500, 3000)), "log1p": libm.log1p(rng.uniform(-0.9, 1e3, 3000)),
            "pow_x": libm.pow(rng.uniform(1e-3, 10, 3000), 1.5), "pow_x3": libm.pow(rng.uniform(0, 10, 3000), 3.0),
            "tanh": libm.tanh(rng.normal(0, 4, 3000)),
            "pg_mean": pg_mean(rng.normal(0, 4, 3000), 3)}


def test_equal_to_the_c_library():
    rng = np.random.default_rng(3)
    x = rng.uniform(1e-3, 1e3, 2000)
    x[::7] = x[1::7][: len(x[::7])]  # repeated values
    k = rng.integers(0, 3000, 5000)
    pairs = [(libm.log(x), [math.log(v) for v in x]), (libm.log2(x), [math.log2(v) for v in x]),
             (libm.exp(x / 50), [math.exp(v / 50) for v in x]), (libm.power(0.9, x), [math.pow(0.9, v) for v in x]),
             (libm.log2(k + 2), [math.log2(v + 2) for v in k.tolist()]),
             (libm.power(0.8, k), [math.pow(0.8, v) for v in k.tolist()])]
    if hasattr(math, "exp2"):
        pairs.append((libm.exp2(x / 100), [math.exp2(v / 100) for v in x]))
    for got, want in pairs:
        assert got.dtype == np.float64
        assert got.tolist() == want  # bit for bit
    assert libm.log2(np.array([[2, 4], [8, 1621]])).shape == (2, 2)
    assert float(libm.exp(0.5)) == math.exp(0.5) and libm.exp(0.5).shape == ()
    assert libm.log2(np.array([], dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize("compiled", [True, False])
def test_pow_log1p_and_both_paths_equal_to_the_c_library(compiled, monkeypatch):
    # many values go through the compiled loop (pref_eval._kernels), few -- or all without the kernels -- one
    # Python call per distinct value: Python's math (the C library) bit for bit either way; numpy's own
    # power(x, 1.5) differs in ~5 % of the values on an AVX-512 CPU (session 23)
    if compiled:
        from pref_eval.native import kernels

        if kernels() is None or not hasattr(kernels(), "pow_scalar"):
            pytest.skip("compiled kernels not built")
    else:
        monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    rng = np.random.default_rng(11)
    for n in (5, 3000):
        x = rng.uniform(1e-3, 50, n)
        x[::5] = x[0]
        w = rng.uniform(-0.99, 1e4, n)
        pairs = [(libm.log1p(w), [math.log1p(v) for v in w]), (libm.exp(-x), [math.exp(-v) for v in x]),
                 (libm.log(x), [math.log(v) for v in x]), (libm.log2(x), [math.log2(v) for v in x]),
                 (libm.power(0.9, x), [math.pow(0.9, v) for v in x]),
                 (libm.tanh(x - 25), [math.tanh(v - 25) for v in x])]
        pairs += [(libm.pow(x, y), [math.pow(v, y) for v in x]) for y in (1.5, 0.37, 3.0, -2.5, 1e-3)]
        pairs += [(libm.pow(x - 25, y), [math.pow(v - 25, y) for v in x]) for y in (3.0, -3.0, 5.0)]  # integer y: x < 0
        if hasattr(math, "exp2"):
            pairs.append((libm.exp2(x), [math.exp2(v) for v in x]))
        for got, want in pairs:
            assert got.tolist() == want  # bit for bit
    # the exponents numpy computes exactly on every CPU stay numpy's: sqrt, square, reciprocal, copy, ones
    x = rng.uniform(1e-3, 50, 3000)
    for y, want in [(0.5, np.sqrt(x)), (2.0, x * x), (-1.0, 1.0 / x), (1.0, x), (0.0, np.ones_like(x))]:
        assert libm.pow(x, y).tolist() == want.tolist()
    with np.errstate(all="ignore"):
        a = np.array([0.0, -1.0, np.inf, np.nan, 1e300])
        np.testing.assert_array_equal(libm.pow(a, 1.5), np.power(a, 1.5))
        np.testing.assert_array_equal(libm.pow(a, -1.5), np.power(a, -1.5))
        np.testing.assert_array_equal(libm.log1p(np.array([-1.0, -2.0, np.inf, np.nan])),
                                      np.log1p(np.array([-1.0, -2.0, np.inf, np.nan])))


def test_outside_the_domain_numpy_s_values():
    with np.errstate(all="ignore"):
        for f, g, x in [(libm.log, np.log, [0.0, -1.0, np.nan, np.inf, -np.inf]),
                        (libm.log2, np.log2, [0.0, -2.0, np.nan, np.inf]),
                        (libm.exp, np.exp, [1000.0, -1000.0, np.inf, -np.inf, np.nan]),
                        (libm.exp2, np.exp2, [2000.0, -2000.0, np.inf, np.nan]),
                        (libm.tanh, np.tanh, [np.inf, -np.inf, np.nan])]:
            a = np.array(x)
            np.testing.assert_array_equal(f(a), g(a))
        a = np.array([np.inf, np.nan, 1e6, 0.0])
        np.testing.assert_array_equal(libm.power(0.5, a), np.power(0.5, a))
        np.testing.assert_array_equal(libm.power(-0.5, np.array([2.0, 0.5])), np.power(-0.5, np.array([2.0, 0.5])))
        assert libm.log2(np.array([0, 1, 2])).tolist() == [-math.inf, 0.0, 1.0]  # integer table with 0


def test_logs_below_two_are_the_c_library_s():
    """log/log2 of (0, 2]: the C library's too (on an AVX-512 CPU numpy's own log differs from it in the last
    bit of ~0.5 % of these; m33: the domain `a > 0` mutated to `a > 1` / `a > 2` left them numpy's)."""
    x = np.random.default_rng(5).uniform(1e-6, 2.0, 5000)
    assert libm.log(x).tolist() == [math.log(v) for v in x.tolist()]
    assert libm.log2(x).tolist() == [math.log2(v) for v in x.tolist()]


def test_exp_near_overflow_and_log_of_integers_are_the_c_library_s():
    """exp of [709, 709.78] and exp2 of [1023, 1024) are finite: the C library's too (they were numpy's, which
    differ in the last bit of ~0.2 % there on an AVX-512 CPU), infinity beyond; log of an integer array goes
    through its table (m33: `log` there mutated to `log2` passed the suite)."""
    x = np.linspace(709.0, 709.78, 4001)
    assert libm.exp(x).tolist() == [math.exp(v) for v in x.tolist()]
    assert libm.exp(np.array([709.79, 710.0, 1e6])).tolist() == [math.inf] * 3
    if hasattr(math, "exp2"):
        y = np.linspace(1023.0, 1023.999, 4001)
        assert libm.exp2(y).tolist() == [math.exp2(v) for v in y.tolist()]
    assert libm.exp2(np.array([1024.0, 1024.5, 2000.0])).tolist() == [math.inf] * 3
    k = np.arange(1, 3000)
    assert libm.log(k).tolist() == [math.log(v) for v in k.tolist()]


def test_sparse_integers_far_apart_go_value_by_value():
    """Integers spanning ~1e12 (negative ones too): no table over their range (it would need 8 TB), each value
    the C library's (m33: the `hi - lo` guard mutated to `hi + lo` built that table for a negative range)."""
    k = np.array([-10**12, 0, 3, 2**40])
    assert libm.exp(k).tolist() == [math.exp(v) for v in [-1e12, 0.0, 3.0]] + [math.inf]
    assert libm.log2(np.array([1, 2**40, 2**41 + 1])).tolist() == [0.0, 40.0, math.log2(2**41 + 1)]
    assert libm.power(0.5, np.array([-(10**12), 1, 10**12])).tolist() == [math.inf, 0.5, 0.0]


def test_tanh_and_pg_mean_are_the_c_library_s():
    """tanh: numpy's own SIMD code (on every CPU with AVX2, AVX-512 or not) differs from the C library's in the
    last bit of ~26 % of these values (session 24); tau_consistency's Pólya–Gamma mean took it."""
    x = np.random.default_rng(9).normal(0, 4, 5000)
    assert libm.tanh(x).tolist() == [math.tanh(v) for v in x.tolist()]
    assert libm.tanh(x[:20]).tolist() == [math.tanh(v) for v in x[:20].tolist()]  # value by value
    psi = np.abs(x[x != 0])
    assert pg_mean(x[x != 0], 3).tolist() == [3 * (math.tanh(v / 2.0) / (2.0 * v)) for v in psi.tolist()]


@pytest.mark.parametrize("kind", ["no-avx512", "numpy-baseline"])
def test_same_bits_with_numpy_s_other_code(kind):
    # numpy's own AVX-512 exp/log/log2/exp2/power differ in last bits from the C library's (0.8 ** 2 is
    # 0.64 there and 0.6400000000000001 in glibc, log2(1621) too: session 22): computed with numpy's AVX-512 code
    # off (on a CPU without AVX-512: no change), every value equal
    from conftest import cpu_kinds

    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import test_libm as t; "
            "print(json.dumps({k: v.tolist() for k, v in t._cases().items()}))")
    r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **cpu_kinds()[kind]})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {k: v.tolist() for k, v in _cases().items()}


def test_zelo_eval_measures_same_bytes_with_numpy_s_other_code(tmp_path):
    # the measures users see at full precision: zELO's nDCG (exp of the scores), ranx's DCG and RBP (log2 and
    # power of the ranks), α-nDCG's discounts; before libm, zndcg@10 of one query moved in the last digit
    # between numpy's AVX-512 code and the C library's (python tools/cpu_kinds.py, session 22)
    from conftest import cpu_kinds

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    scores = tmp_path / "z.tsv"
    subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", "judgments/dl19-sample.judge", "-o",
                    str(scores), "-Q"], cwd=ROOT, env=env, check=True)
    runs = ["runs/bm25.run", "runs/dense.run", "runs/rerank.run"]
    cmds = [["-R", str(scores), "-o", "tsv", "-q", "-m", "zndcg@10", "-m", "zndcg", *runs],
            ["-R", "qrels/dl19-sample.qrels", "-o", "tsv", "-q", "-m", "ndcg_cut.10", "-m", "NDCG(dcg='exp-log2')@20",
             "-m", "ndcg", "-m", "RBP(p=0.8)", "-m", "SDCG(max_rel=3)@10", *runs]]
    for args in cmds:
        outs = [subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", *args], cwd=ROOT, capture_output=True,
                               env={**env, **cpu_kinds()[kind]}) for kind in ("this", "no-avx512")]
        assert outs[0].returncode == 0, outs[0].stderr
        assert outs[0].stdout == outs[1].stdout


def _kinds_same_bytes(argv: list[str]) -> None:
    from conftest import cpu_kinds

    # numpy's part of the no-avx512 kind only: OpenBLAS's kernels (the other part) move zelo_fit's SEs
    numpy_only = {"NPY_DISABLE_CPU_FEATURES": cpu_kinds()["no-avx512"]["NPY_DISABLE_CPU_FEATURES"]}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outs = [subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, env={**env, **kind})
            for kind in ({}, numpy_only)]
    assert outs[0].returncode == 0, outs[0].stderr
    assert outs[0].stdout and outs[0].stdout == outs[1].stdout


def test_zelo_fit_weight_power_same_bytes_with_numpy_s_other_code(tmp_path):
    # zelo_fit --weight-power 1.5 on judgments with given weights: the weights went through numpy's power, whose
    # AVX-512 code gave other scores than glibc's pow (session 23); the C library's pow now (libm.pow)
    rng = np.random.default_rng(5)
    path = tmp_path / "w.jsonl"
    path.write_text("".join(json.dumps({"qid": f"q{k % 3}", "doc_a": f"d{a}", "doc_b": f"d{b}",
                                        "score": int(rng.integers(0, 4)) / 3,
                                        "weight": round(float(rng.uniform(0.1, 3)), 3)}) + "\n"
                            for k, (a, b) in enumerate(rng.integers(0, 25, (600, 2))) if a != b))
    _kinds_same_bytes(["pref_eval.cli.fit", "-J", str(path), "--weight-power", "1.5", "-Q"])


@pytest.mark.slow
def test_zelo_simulate_adaptive_same_bytes_with_numpy_s_other_code():
    # the adaptive strategy's win probabilities σ(x_k − x_j) went through numpy's exp: with its AVX-512 code one
    # near-tie was decided otherwise and this row's τ moved (session 23); the C library's exp now (libm.exp)
    _kinds_same_bytes(["pref_eval.cli.simulate", "recovery", "--K", "20", "--sigma", "1.5", "--cycles", "4",
                       "--trials", "4", "--seed", "0", "--strategy", "adaptive", "-Q"])
