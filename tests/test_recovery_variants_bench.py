"""bench/recovery_adaptive_variants.py (the pair-choice variants tried for issue #16): the A-optimal
round against direct matrix inverses, every variant's design within the budget, seeded."""
import importlib.util
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("recovery_variants", ROOT / "bench" / "recovery_adaptive_variants.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _greedy_aopt_by_inverses(x, H, judged, need):
    """Sequential greedy: each pick maximises the drop of sum_{k<l} 4p(1-p)_kl Var(x_k - x_l), by direct inverses."""
    K = len(x)
    P = 1 / (1 + np.exp(-(x[:, None] - x[None, :])))
    W = 4 * P * (1 - P)

    def loss(Hm):
        C = np.linalg.inv(Hm)
        d = np.diag(C)
        V = d[:, None] + d[None, :] - 2 * C
        return (W * V)[np.triu_indices(K, 1)].sum()

    used, out = set(), []
    for _ in range(need):
        base = loss(H)
        best, pick = -np.inf, None
        for i in range(K):
            for j in range(K):
                if i == j or judged[i, j] or i in used or j in used:
                    continue
                u = np.zeros(K)
                u[i], u[j] = 1, -1
                gain = base - loss(H + P[i, j] * (1 - P[i, j]) * np.outer(u, u))
                if gain > best + 1e-12:
                    best, pick = gain, (i, j)
        i, j = pick
        u = np.zeros(K)
        u[i], u[j] = 1, -1
        H = H + P[i, j] * (1 - P[i, j]) * np.outer(u, u)
        used |= {i, j}
        out.append(pick)
    return out


def test_aopt_round_is_the_greedy_of_direct_inverses():
    rng = np.random.default_rng(4)
    K = 8
    for _ in range(3):
        x = rng.normal(0, 1, K)
        B = rng.normal(0, 1, (K, K))
        H = B @ B.T / K + 0.3 * np.eye(K)
        judged = np.zeros((K, K), dtype=bool)
        judged[0, 1] = judged[1, 0] = True
        got = bench.aopt(x[None], np.linalg.inv(H)[None], judged[None], 3, rng)[0]
        want = _greedy_aopt_by_inverses(x, H, judged, 3)
        assert {frozenset(p) for p in got} == {frozenset(p) for p in want}


@pytest.mark.parametrize("name", sorted(bench.VARIANTS))
def test_variant_designs_are_4k_distinct_pairs_and_seeded(name):
    K, T = 12, 3
    a, b, truth, xd, xs = bench.variant_design(name, K, 1.5, T, 0)
    assert a.shape == (T, 4 * K)
    for t in range(T):
        pairs = {frozenset(p) for p in zip(a[t].tolist(), b[t].tolist(), strict=True)}
        assert len(pairs) == 4 * K and all(len(p) == 2 for p in pairs)
    a2, b2, *_ = bench.variant_design(name, K, 1.5, T, 0)
    assert np.array_equal(a, a2) and np.array_equal(b, b2)


def test_variants_bench_runs_and_refuses_unknown_variants(monkeypatch, capsys):
    cmd = [sys.executable, str(ROOT / "bench" / "recovery_adaptive_variants.py"), "--K", "10", "--trials", "2"]
    out = subprocess.run([*cmd, "--variants", "cycles8,aopt"], capture_output=True, text=True, check=True).stdout
    assert "| 8 random cycles |" in out and "| aopt |" in out
    monkeypatch.setattr(sys, "argv", [*cmd[1:], "--variants", "spiral"])  # the refusal in this process (s31)
    with pytest.raises(SystemExit) as bad:
        bench.main()
    assert bad.value.code == 2 and "unknown variant" in capsys.readouterr().err
