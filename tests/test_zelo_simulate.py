"""zelo_simulate: CLI output, progress on stderr, errors; recovery sanity."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from pref_eval.zelo.simulate import copeland_winners, recovery


def run(*a):
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.simulate", *a], capture_output=True, text=True)


def test_tournament_cli(tmp_path):
    K = 20
    M = np.where(np.arange(K)[:, None] < np.arange(K)[None, :], 0.9, 0.1)
    np.fill_diagonal(M, 0.5)
    p = tmp_path / "m.txt"
    np.savetxt(p, M)
    r = run("tournament", "--matrix", str(p), "--reps", "20", "--seed", "1")
    assert r.returncode == 0, r.stderr
    head, row = r.stdout.splitlines()
    assert head.split("\t")[:3] == ["matrix", "reps", "found"]
    assert int(row.split("\t")[2]) >= 10  # strong preferences: the best item is usually found
    assert "tournament:" not in r.stderr  # stderr is not a terminal: no progress
    assert run("tournament", "--matrix", str(p), "--reps", "20", "--seed", "1").stdout == r.stdout  # seeded
    bad = tmp_path / "bad.txt"
    bad.write_text("0.5 0.5\n0.5\n")
    r2 = run("tournament", "--matrix", str(bad))
    assert r2.returncode == 2 and r2.stderr.startswith("zelo_simulate: ")


def test_recovery_sane():
    r = recovery(25, 1.5, 8, trials=10, seed=0)
    assert 0.5 < r["tau_dense"].mean() <= 1.0
    assert np.all(r["top_overlap"] <= 1.0)
    assert list(copeland_winners(np.array([[0.5, 0.7], [0.3, 0.5]]))) == [0]


def test_recovery_reads_the_dense_matrix():
    # K = 3, one cycle = all 3 pairs, read from the dense judged matrix: the sparse
    # win matrix IS the dense one, so the two fits agree exactly (tau = 1, overlap 1)
    # (scipy's tau-b of two equal orders with a tie -- trial 5's documents 0 and 2 are symmetric and fit
    # to the same score -- is 0.9999999999999999)
    r = recovery(3, 1.5, 1, trials=30, seed=0)
    assert np.all(np.abs(r["tau_dense"] - 1.0) <= 1e-15) and np.all(r["top_overlap"] == 1.0)
    # different cycle counts draw different cycles; the same seed gives the same arrays
    a, b = recovery(10, 1.5, 2, trials=5, seed=3), recovery(10, 1.5, 8, trials=5, seed=3)
    assert not np.array_equal(a["tau_dense"], b["tau_dense"])
    c = recovery(10, 1.5, 2, trials=5, seed=3)
    for key in a:  # seeded: identical
        assert np.array_equal(a[key], c[key])


def test_recovery_cli_seeded_bytes(tmp_path):
    args = ("recovery", "--K", "10", "--sigma", "1", "--cycles", "2", "--trials", "5", "--seed", "4")
    from cli_harness import run_inproc
    from conftest import ROOT

    r1, r2 = run(*args), run_inproc("zelo_simulate", list(args), ROOT)  # a process, then this one (s30: one start less)
    assert r1.returncode == 0, r1.stderr
    assert r2.returncode == 0 and r1.stdout == r2.stdout.decode() and r1.stdout.startswith("K\tsigma\tcycles")


def test_recovery_top_overlap_is_the_same_on_every_cpu():
    # the dense fit has exact ties (votes in thirds) at the top-10 cut; numpy's default sort orders ties per
    # kind of CPU (its AVX-512 / AVX2 sorts, or introsort), so the overlap moved (0.725 -> 0.720 here without
    # AVX2) until ties were broken by document index. Computed with numpy's baseline code (conftest.cpu_kinds;
    # without glibc's and OpenBLAS's settings for an old CPU, which move the last bits of the fits, so τ too)
    import os

    from conftest import cpu_kinds

    from cli_harness import run_inproc
    from conftest import ROOT

    args = ("recovery", "--K", "50", "--sigma", "3", "--cycles", "2", "--trials", "20", "--seed", "0", "-Q")
    assert cpu_kinds()["this"] == {}  # this CPU: in this process (session 22, s31: a process start less)
    this = run_inproc("zelo_simulate", list(args), ROOT)
    assert this.returncode == 0, this.stderr
    outs = {"this": this.stdout.decode()}
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.simulate", *args], capture_output=True, text=True,
                       env={**os.environ, **cpu_kinds()["numpy-baseline"]})
    assert r.returncode == 0, r.stderr
    outs["numpy-baseline"] = r.stdout
    assert outs["this"].startswith("K\tsigma") and len(set(outs.values())) == 1, outs


def test_progress_only_on_a_terminal(monkeypatch, capsys):
    import io

    from pref_eval.log import Log

    class TTY(io.StringIO):
        def isatty(self):
            return True

    tty = TTY()
    monkeypatch.setattr("sys.stderr", tty)
    Log("zelo_simulate").progress("tournament", 20, 20)
    Log("zelo_simulate", quiet=True).progress("tournament", 5, 20)
    assert tty.getvalue() == "\rzelo_simulate: tournament: 20/20\n"


def test_discordant_by_distance_against_scipy_and_by_hand():
    """The counts add up to scipy's discordant pairs (τ_b = 1 − 2D/P without ties) and each pair lands in the
    bin of its distance in the second order, counted pair by pair here."""
    import pytest
    from scipy.stats import kendalltau

    from pref_eval.zelo.simulate import discordant_by_distance

    rng = np.random.default_rng(7)
    K, T = 17, 6
    xs, xd = rng.normal(size=(T, K)), rng.normal(size=(T, K))
    edges = [1, 2, 4, 9, K]
    got = discordant_by_distance(xs, xd, edges)
    P = K * (K - 1) // 2
    for t in range(T):
        assert got[t].sum() == round((1 - kendalltau(xs[t], xd[t]).statistic) * P / 2)
        rank = {doc: r for r, doc in enumerate(np.argsort(-xd[t]))}
        want = np.zeros(len(edges) - 1, dtype=int)
        for k in range(K):
            for m in range(k + 1, K):
                if (xs[t, k] - xs[t, m]) * (xd[t, k] - xd[t, m]) < 0:
                    d = abs(rank[k] - rank[m])
                    want[next(b for b in range(len(edges) - 1) if edges[b] <= d < edges[b + 1])] += 1
        assert list(got[t]) == list(want)
    # ties count in no bin; distances outside the bins are left out
    assert discordant_by_distance(np.zeros((1, 4)), np.arange(4.0)[None], [1, 4]).sum() == 0
    rev = discordant_by_distance(-np.arange(5.0)[None], np.arange(5.0)[None], [2, 3])
    assert rev.tolist() == [[3]]  # 5 documents reversed: three pairs 2 places apart
    r = recovery(12, 1.5, 2, trials=4, seed=0, distance_bins=[1, 12])
    assert np.array_equal(r["discordant_by_distance"][:, 0],
                          np.round((1 - r["tau_dense"]) * 66 / 2).astype(int))  # fits without ties here
    for bad in ([0, 3], [3], [2, 2], [1.5, 3]):
        with pytest.raises(ValueError, match="distance_bins"):
            recovery(6, 1.5, 1, trials=1, distance_bins=bad)
