"""Dueling-bandit simulations (pref_eval.zelo.bandits) and Yan et al.'s Figure 3.

Oracles: scipy's Beta distribution for the exact θ > 1/2 draw; hand-checkable
matrices (a deterministic 2-item case, a strong Condorcet winner with a generous
budget, a tie between two winners); and the paper's Figure 3 counts (Yan et al.,
SIGIR 2022), with a tolerance of four binomial standard deviations.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pref_eval.zelo.bandits import (
    _beta_above_half,
    case_matrix,
    double_thompson,
    merge_dts,
    round_efficient,
    simulate_bandit,
)
from pref_eval.zelo.figure3 import figure3

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "duelingBandits"
ALGOS = {"dts": double_thompson, "mergedts": merge_dts, "round-efficient": round_efficient}


def test_beta_above_half_matches_scipy():
    from scipy.stats import beta

    rng = np.random.default_rng(7)
    for a, b in [(1, 1), (3, 1), (2, 5), (10, 12), (40, 35)]:
        n = 200_000
        got = _beta_above_half(rng, np.full(n, a), np.full(n, b)).mean()
        want = beta.sf(0.5, a, b)
        assert abs(got - want) < 4 * np.sqrt(want * (1 - want) / n) + 1e-12


def test_case_matrices_equal_the_published_files():
    for case in "AB":
        path = SHARED / f"case{case}.txt"
        if not path.exists():
            pytest.skip("needs ../shared/data/duelingBandits (the published Case A/B matrices)")
        np.testing.assert_array_equal(case_matrix(case), np.loadtxt(path))


@pytest.mark.parametrize("name", sorted(ALGOS))
def test_two_items_deterministic(name):
    M = np.array([[0.5, 1.0], [0.0, 0.5]])
    for r in range(5):
        res = ALGOS[name](M, 50, rng=np.random.default_rng(r))
        assert res.best.tolist() == [0]


# DTS and MergeDTS each keep one of these two long simulations in the suite (dts: tied winners; mergedts: the
# Condorcet winner); the other pair runs with the slow tests (session 21, s30)
def _slow_for(slow_name):
    return [pytest.param(n, marks=pytest.mark.slow) if n == slow_name else n for n in sorted(ALGOS)]


@pytest.mark.parametrize("name", _slow_for("dts"))
def test_condorcet_winner_found_with_generous_budget(name):
    K = 6
    M = np.where(np.arange(K)[:, None] < np.arange(K)[None, :], 0.9, 0.1)
    np.fill_diagonal(M, 0.5)
    # one MergeDTS batch: with several, the arms of a smaller batch duel more often and "most wins"
    # favours them (the paper's budget, T = 1,000 over 100 arms, never gets that far)
    params = {"batch": K} if name == "mergedts" else {}
    r = simulate_bandit(name, M, 20, seed=3, T=1500, **params)
    assert r["found"].sum() >= 18
    assert (r["best_size"] == 1).sum() >= 18


@pytest.mark.parametrize("name", _slow_for("mergedts"))
def test_tied_winners_one_of_them_returned(name):
    M = np.full((4, 4), 0.5)
    M[:2, 2:] = 0.95
    M[2:, :2] = 0.05
    params = {"batch": 4} if name == "mergedts" else {}
    r = simulate_bandit(name, M, 20, seed=1, T=800, **params)
    assert r["found"].sum() >= 18


@pytest.mark.parametrize("name", sorted(ALGOS))
def test_same_seed_same_result_other_seed_differs(name):
    M = case_matrix("B", K=20)
    a = simulate_bandit(name, M, 4, seed=5, T=200)
    b = simulate_bandit(name, M, 4, seed=5, T=200)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_budget_is_respected():
    M = case_matrix("A", K=30)
    for name in ALGOS:
        r = simulate_bandit(name, M, 3, seed=0, T=123)
        assert (r["comparisons"] <= 123).all()


def _within(count: int, reps: int, paper: int, paper_reps: int = 1000, k: float = 4.0) -> bool:
    p = paper / paper_reps
    sd = np.sqrt(max(p * (1 - p), 1 / reps) * reps)
    return abs(count - reps * p) <= k * sd + 1


def test_figure3_round_efficient_full_1000():
    """Round-Efficient, 1,000 repetitions as in the paper (fast: 20 random rounds)."""
    rows = {r["case"]: r for r in figure3(1000, 0, ("round-efficient",))}
    a, b = rows["A"], rows["B"]
    assert _within(a["found"], 1000, 141)
    assert _within(a["returned_one"], 1000, 559)
    assert _within(b["one_found"], 1000, 680)
    assert _within(b["both_found"], 1000, 89)
    assert a["comparisons_min"] == a["comparisons_max"] == 1000
    assert (a["assessors_min"], a["assessors_max"]) >= (2, 4) and a["assessors_max"] <= 6


# (algorithm, case) → the paper's counts checked at 150 repetitions (4 binomial sd); one test per row so
# that pytest-xdist runs the rows in parallel (each row is seeded on its own: same numbers as one call)
FIGURE3_REDUCED = {
    ("dts", "A"): {"found": 124, "returned_one": 959},
    ("dts", "B"): {"one_found": 710, "both_found": 7},
    ("mergedts", "A"): {"found": 108},
    # not asserted: MergeDTS's Case B "both found" (58 in the paper) depends on the paper's unpublished
    # return rule (docs/zelo_simulate.md)
    ("mergedts", "B"): {"one_found": 581},
}


@pytest.mark.slow
@pytest.mark.parametrize("algorithm,case", sorted(FIGURE3_REDUCED))
def test_figure3_dts_and_mergedts_reduced(algorithm, case):
    """DTS and MergeDTS at 150 repetitions against the paper's counts (4 binomial sd)."""
    (row,) = figure3(150, 0, (algorithm,), (case,))
    for column, paper in FIGURE3_REDUCED[algorithm, case].items():
        assert _within(row[column], 150, paper), (column, row[column], paper)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.simulate", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_cli_bandit_seeded_bytes_identical_and_errors():
    """The seeded repeat and the refusals in this process (session 22, s31: six process starts less; this
    process and the child draw with different hash seeds all the same)."""
    from cli_harness import run_inproc

    argv = ["bandit", "--algorithm", "round-efficient", "--case", "B", "--reps", "50", "--seed", "4"]
    a = _cli(*argv)
    b = run_inproc("zelo_simulate", argv, ROOT)
    assert a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout.decode()
    assert a.stdout.splitlines()[0].startswith("algorithm\tcase\treps\tfound")
    for bad, msg in [
        (["--algorithm", "dts", "--case", "A", "--delta", "0.3"], "--delta does not apply"),
        (["--algorithm", "dts"], "exactly one of --case and --matrix"),
        (["--algorithm", "round-efficient", "--case", "A", "--delta", "1.5"], "--delta"),
        (["--algorithm", "mergedts", "--case", "A", "--batch", "1"], "--batch"),
        (["--algorithm", "nope", "--case", "A"], "--algorithm"),
    ]:
        p = run_inproc("zelo_simulate", ["bandit", *bad], ROOT)
        assert p.returncode == 2, (bad, p.stderr)
        assert msg in p.stderr and "Traceback" not in p.stderr


def test_cli_bandit_matrix_file_errors(tmp_path):
    bad = tmp_path / "m.txt"
    bad.write_text("0.5 2\n-1 0.5\n")
    p = _cli("bandit", "--algorithm", "dts", "--matrix", str(bad), "--reps", "1")
    assert p.returncode == 2 and "in [0, 1]" in p.stderr and "Traceback" not in p.stderr
    bad.write_bytes(b"0.5 \xff\n")
    p = _cli("bandit", "--algorithm", "dts", "--matrix", str(bad), "--reps", "1")
    assert p.returncode == 2 and str(bad) in p.stderr and "Traceback" not in p.stderr


# -- the adaptive strategy (pref_eval.zelo.adaptive) -------------------------------------------

def _drive(t, M, rng):
    while not t.done():
        req = t.outstanding()
        assert req, "an unfinished strategy must ask for judgments"
        a = np.array([p[0] for p in req])
        b = np.array([p[1] for p in req])
        t.add(zip(a.tolist(), b.tolist(), np.where(rng.random(len(req)) < M[a, b], 0.0, 1.0).tolist(),
                  strict=True))
    return t


def test_adaptive_two_items_and_strong_winner():
    from pref_eval.zelo.adaptive import AdaptiveBest

    M2 = np.array([[0.5, 1.0], [0.0, 0.5]])
    for r in range(5):
        assert _drive(AdaptiveBest(2, seed=r), M2, np.random.default_rng(r)).best() == [0]
    K = 10
    M = np.where(np.arange(K)[:, None] < np.arange(K)[None, :], 0.95, 0.05)
    np.fill_diagonal(M, 0.5)
    hits = sum(_drive(AdaptiveBest(K, seed=r), M, np.random.default_rng(r)).best() == [0] for r in range(30))
    assert hits >= 28


@pytest.mark.parametrize("seed", range(6))
def test_adaptive_caps_and_termination_on_random_matrices(seed):
    """Any matrix, ties included: it ends, never judges a pair more than the cap, returns alive items."""
    from pref_eval.zelo.adaptive import AdaptiveBest

    rng = np.random.default_rng(seed)
    K = int(rng.integers(3, 25))
    U = rng.choice([0.5, 0.5, 0.75, 0.25, 1.0, 0.0, 0.6], size=(K, K))
    M = np.triu(U, 1) + np.tril(1 - U.T, -1)
    np.fill_diagonal(M, 0.5)
    cap = int(rng.integers(1, 7))
    t = _drive(AdaptiveBest(K, max_per_pair=cap, seed=seed), M, rng)
    assert t.pair_n.max() <= cap
    assert t.comparisons == t.pair_n.sum() // 2
    assert len(t.best()) >= 1 and set(t.best()) <= set(range(K))


def test_adaptive_ties_as_half_votes():
    from pref_eval.zelo.adaptive import AdaptiveBest

    t = AdaptiveBest(4, seed=0)
    while not t.done():
        t.add((a, b, 0.5) for a, b in t.outstanding())  # a judge that always says "tie"
    assert t.pair_n.max() <= 6 and len(t.best()) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("case", ["A", "B"])  # two tests, so pytest -n runs the cases side by side
def test_adaptive_beats_clarke_on_both_cases(case):
    """Issue target: >= 600 of 1,000 on Case A, >= 850 one-found on Case B, <= 6 judgments of a pair;
    here at 300 repetitions with a margin of about 2 binomial sd below the target rate."""
    from pref_eval.zelo.adaptive import simulate_adaptive

    r = simulate_adaptive(case_matrix(case), 300, seed=0)
    if case == "A":
        assert r["found"].sum() >= 0.60 * 300 - 17
        assert np.median(r["comparisons"]) <= 674  # Clarke et al.'s median with the same seeds (docs table)
    else:
        assert r["found"].sum() >= 0.85 * 300 - 12
    assert r["max_pair"].max() <= 6


def test_recovery_adaptive_beats_random_cycles_at_equal_budget():
    from pref_eval.zelo.simulate import recovery

    cyc = recovery(25, 1.5, 4, 20, seed=0)
    ada = recovery(25, 1.5, 4, 20, seed=0, strategy="adaptive")
    assert ada["tau_dense"].mean() > cyc["tau_dense"].mean() + 0.01
    ada2 = recovery(25, 1.5, 4, 20, seed=0, strategy="adaptive")
    np.testing.assert_array_equal(ada["tau_dense"], ada2["tau_dense"])
