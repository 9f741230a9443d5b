"""Orderings with ties against outside oracles.

RBO with ties (Corsi & Urbano, SIGIR 2024): values computed by their code
(https://github.com/julian-urbano/sigir2024-rbo) and by the PyPI ``rbo`` package, stored by
tools/rbo_peer_values.py in tests/data/stats/rbo_peer.json; RBO^a against its definition (the mean over
every tie break); hand-worked values; invariances. The rest of ``compare_orderings`` on random tied
inputs: scipy.stats.kendalltau live, tau_AP / tau_AP_a / tau_AP_b against O(n^2) transcriptions of the
papers' formulas written here, swapped pairs by brute force.
"""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from pref_eval.stats.orderings import RBO_TIES, compare_orderings, rbo_ext, rbo_ext_tied

DATA = Path(__file__).resolve().parent / "data" / "stats"


def _breaks(scores):
    """Every tie-free ordering (list of item indices, best first) compatible with ``scores``."""
    groups = [[i for i in range(len(scores)) if scores[i] == v] for v in sorted(set(scores), reverse=True)]
    for combo in itertools.product(*[list(itertools.permutations(g)) for g in groups]):
        yield [i for g in combo for i in g]


def test_rbo_tied_hand_worked():
    # S = (a b) c, L = a b c, p = 1/2; RBO_ext = A_3 p^3 + (1-p)/p (A_1 p + A_2 p^2 + A_3 p^3) = 1/8 + A_1/2 + 3/8.
    s, ll = [2, 2, 1], [3, 2, 1]
    # a: c_S(1) = (1/2, 1/2, 0), c_L(1) = (1, 0, 0): X_1 = 1/2, A_1 = 1/2 -> 3/4 (the mean of the two breaks:
    # a b c gives 1, b a c gives 1/8 + 0 + 3/8 = 1/2)
    assert rbo_ext_tied(s, ll, 0.5, "a") == pytest.approx(0.75, abs=1e-15)
    # b: A_1 = (1/2) / sqrt((1/4 + 1/4) * 1) = 1/sqrt(2)
    assert rbo_ext_tied(s, ll, 0.5, "b") == pytest.approx(0.5 + 0.5 / math.sqrt(2), abs=1e-15)
    # w: the depth-1 prefix of S holds its whole tie group {a, b}: X_1 = 1, A_1 = 2 * 1 / (2 + 1) = 2/3
    assert rbo_ext_tied(s, ll, 0.5, "w") == pytest.approx(0.5 + 1 / 3, abs=1e-15)
    # the old rule, ties broken by name: a b c against a b c
    assert compare_orderings(dict(zip("abc", s, strict=True)), dict(zip("abc", ll, strict=True)),
                             0.5, "name")["rbo"] == pytest.approx(1.0)
    assert compare_orderings(dict(zip("bac", s, strict=True)), dict(zip("bac", ll, strict=True)),
                             0.5, "name")["rbo"] == pytest.approx(0.5)  # renamed: b a c against a b c


def test_rbo_tied_against_corsi_urbano_and_pypi_rbo():
    """Values stored from the peers' own code (tools/rbo_peer_values.py names the calls)."""
    data = json.loads((DATA / "rbo_peer.json").read_text())
    assert "sigir2024-rbo" in data["source"]["corsi_urbano"]
    n_tied = 0
    for c in data["tied"]:
        n_tied += len(set(c["a"])) < len(c["a"]) or len(set(c["b"])) < len(c["b"])
        for t in "abw":
            assert rbo_ext_tied(c["a"], c["b"], c["p"], t) == pytest.approx(c["corsi_urbano"][t], abs=1e-12), (c, t)
        res = compare_orderings(dict(zip(c["names"], c["a"], strict=True)),
                                dict(zip(c["names"], c["b"], strict=True)), c["p"])
        assert res["rbo"] == pytest.approx(c["corsi_urbano"]["a"], abs=1e-12) and res["rbo_ties"] == "a"
    assert n_tied >= 15
    for c in data["tie_free"]:
        assert rbo_ext(c["a"], c["b"], c["p"]) == pytest.approx(c["pypi_rbo"], abs=1e-12)
        sa = {s: -i for i, s in enumerate(c["a"])}
        sb = [-c["b"].index(s) for s in sa]
        for t in "abw":
            assert rbo_ext_tied(list(sa.values()), sb, c["p"], t) == pytest.approx(c["pypi_rbo"], abs=1e-12)


def test_rbo_a_is_the_mean_over_tie_breaks():
    rng = np.random.default_rng(3)
    for _ in range(30):
        k = int(rng.integers(1, 7))
        x = rng.integers(0, 3, k).tolist()
        y = rng.integers(0, 3, k).tolist()
        p = float(rng.choice([0.3, 0.7, 0.9]))
        vals = [rbo_ext(bx, by, p) for bx in _breaks(x) for by in _breaks(y)]
        assert rbo_ext_tied(x, y, p, "a") == pytest.approx(np.mean(vals), abs=1e-12), (x, y, p)
        # RBO^a <= RBO^b (Corsi & Urbano); all three within [0, 1]
        va, vb, vw = (rbo_ext_tied(x, y, p, t) for t in "abw")
        assert va <= vb + 1e-12 and all(-1e-12 <= v <= 1 + 1e-12 for v in (va, vb, vw))


def test_rbo_invariances():
    rng = np.random.default_rng(5)
    for _ in range(40):
        k = int(rng.integers(2, 25))
        x = np.round(rng.normal(size=k), 1)
        y = np.round(rng.normal(size=k), 1)
        p = float(rng.uniform(0.05, 0.99))
        names = [f"s{i}" for i in range(k)]
        renamed = [f"t{j}" for j in rng.permutation(k)]  # a new name, and a new order of the mapping
        perm = rng.permutation(k)
        for t in "abw":
            r1 = compare_orderings(dict(zip(names, x, strict=True)), dict(zip(names, y, strict=True)), p, t)["rbo"]
            r2 = compare_orderings({renamed[i]: x[i] for i in perm}, {renamed[i]: y[i] for i in perm}, p, t)["rbo"]
            assert r1 == pytest.approx(r2, abs=1e-14)  # names and input order do not matter
            assert rbo_ext_tied(x, y, p, t) == pytest.approx(rbo_ext_tied(y, x, p, t), abs=1e-14)  # symmetric
        distinct = rng.permutation(k).astype(float)
        for t in "abw":
            assert rbo_ext_tied(distinct, distinct, p, t) == pytest.approx(1.0, abs=1e-14)  # no ties: RBO(a, a) = 1
        if len(set(x)) < k:  # with ties: RBO^b(a, a) = RBO^w(a, a) = 1, RBO^a(a, a) < 1
            assert rbo_ext_tied(x, x, p, "b") == pytest.approx(1.0, abs=1e-14)
            assert rbo_ext_tied(x, x, p, "w") == pytest.approx(1.0, abs=1e-14)
            assert rbo_ext_tied(x, x, p, "a") < 1
    with pytest.raises(ValueError, match="ties must be one of"):
        compare_orderings({"a": 1, "b": 2}, {"a": 1, "b": 2}, 0.9, "random")
    with pytest.raises(ValueError, match="persistence"):
        rbo_ext_tied([1, 2], [1, 2], 1.0)
    assert RBO_TIES == ("a", "b", "w", "name")


def test_rbo_renaming_the_docs_example():
    """docs/zelo_compare.md's tied example: renaming dense to zdense changes only ``--rbo-ties name``."""
    from pref_eval.io.orderings import read_ordering

    a, _ = read_ordering(DATA / "order_tied_a.tsv")
    b, _ = read_ordering(DATA / "order_tied_b.tsv")

    def ren(d):
        return {("zdense" if s == "dense" else s): v for s, v in d.items()}

    for t in RBO_TIES:
        before, after = compare_orderings(a, b, 0.9, t)["rbo"], compare_orderings(ren(a), ren(b), 0.9, t)["rbo"]
        assert (abs(before - after) > 0.01) if t == "name" else before == after, t


def test_rbo_tied_blocks_and_size():
    """The depth blocks (``max_cells``) do not change the value; 3,000 systems in well under a second."""
    rng = np.random.default_rng(9)
    x = np.round(rng.normal(size=300), 1)
    y = np.round(x + rng.normal(size=300), 1)
    for t in "abw":
        whole = rbo_ext_tied(x, y, 0.95, t)
        assert rbo_ext_tied(x, y, 0.95, t, max_cells=1) == pytest.approx(whole, abs=1e-13)
        assert rbo_ext_tied(x, y, 0.95, t, max_cells=7 * 300) == pytest.approx(whole, abs=1e-13)
    big = np.round(rng.normal(size=3000), 2)
    assert 0 < rbo_ext_tied(big, big[::-1], 0.99) < 1


# ---- the rest of compare_orderings against live oracles and the papers' formulas ------------------------------

def _tau_ap_yilmaz(x, y):
    """tau_AP (Yilmaz, Aslam & Robertson 2008) of y against the reference x, no ties:
    2/(N-1) sum_{i=2..N} C(i)/(i-1) - 1, C(i) = #{items above position i in y that x ranks above it}."""
    order = sorted(range(len(y)), key=lambda i: -y[i])
    n = len(order)
    return 2 / (n - 1) * sum(sum(x[order[j]] > x[order[i]] for j in range(i)) / i for i in range(1, n)) - 1


def _tau_ap_a_paper(x, y):
    """Urbano & Marrero (ICTIR 2017) tau_AP_a: reference x without ties, y with ties. p_i = first position of
    i's tie group in y, t_i its size; 2/(n-1) [sum_{i: p_i > 1} C_i (1/t_i) sum_{k=1..t_i} 1/(p_i + k - 2)
    + sum_i 1/(2 t_i) sum_{k=1..t_i - 1} k/(p_i + k - 1)] - 1, C_i = #{j: p_j < p_i, x_j > x_i}."""
    n = len(x)
    pos = [1 + sum(v > y[i] for v in y) for i in range(n)]
    size = [sum(v == y[i] for v in y) for i in range(n)]
    total = 0.0
    for i in range(n):
        if pos[i] > 1:
            c = sum(pos[j] < pos[i] and x[j] > x[i] for j in range(n))
            total += c * sum(1 / (pos[i] + k - 2) for k in range(1, size[i] + 1)) / size[i]
        total += sum(k / (pos[i] + k - 1) for k in range(1, size[i])) / (2 * size[i])
    return 2 / (n - 1) * total - 1


def _tau_ap_b_paper(x, y):
    """Urbano & Marrero (ICTIR 2017) tau_AP_b = (tau_AP_b(x|y) + tau_AP_b(y|x))/2, tau_AP_b(x|y) =
    2/|I| sum_{i in I} C_i/(p_i - 1) - 1 over I = {i: p_i > 1} (p_i: first position of i's group in y),
    C_i = #{j: y_j > y_i and x_j > x_i}."""
    def one(x, y):
        n = len(x)
        pos = [1 + sum(v > y[i] for v in y) for i in range(n)]
        idx = [i for i in range(n) if pos[i] > 1]
        if not idx:
            return float("nan")
        return 2 / len(idx) * sum(sum(y[j] > y[i] and x[j] > x[i] for j in range(n)) / (pos[i] - 1)
                                  for i in idx) - 1
    return (one(x, y) + one(y, x)) / 2


def _n_breaks(scores):
    return math.prod(math.factorial(list(scores).count(v)) for v in set(scores))


def _same(a, b, tol=1e-12):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def test_compare_orderings_against_live_oracles_with_ties():
    rng = np.random.default_rng(18)
    tied_in = {"a": 0, "b": 0}
    brute = 0
    for trial in range(150):
        n = int(rng.integers(2, 9))
        dec = int(rng.integers(0, 2))
        x = np.round(rng.normal(size=n), dec)
        y = np.round(0.5 * x + rng.normal(size=n), dec)
        if trial % 25 == 0:
            x[:] = 1.0  # all tied
        if trial % 10 == 3:
            x[0], y[-1] = np.inf, -np.inf  # +-inf only orders
        names = [f"sys{i}" for i in rng.permutation(n)]
        res = compare_orderings(dict(zip(names, x, strict=True)), dict(zip(names, y, strict=True)))
        tied_in["a"] += len(set(x)) < n
        tied_in["b"] += len(set(y)) < n
        want = stats.kendalltau(x, y, variant="b", alternative="two-sided")
        assert _same(res["kendall_tau_b"], float(want.statistic), 0)
        assert _same(res["kendall_p"], float(want.pvalue), 0)
        # tau_AP_a: the paper's formula when the reference has no ties; with reference ties, the mean of the
        # tie-free tau_AP over every break of both orderings (the documented half-correct rule)
        for ref, ev, key in ((x, y, "tau_ap_b_given_a"), (y, x, "tau_ap_a_given_b")):
            if len(set(ref)) == n:
                assert _same(res[key], _tau_ap_a_paper(ref, ev)), (ref, ev)
            elif _n_breaks(ref) * _n_breaks(ev) <= 3000:
                brute += 1
                vals = [_tau_ap_yilmaz([-bx.index(i) for i in range(n)], [-by.index(i) for i in range(n)])
                        for bx in _breaks(list(ref)) for by in _breaks(list(ev))]
                assert _same(res[key], float(np.mean(vals))), (ref, ev)
            if len(set(ref)) == n and len(set(ev)) == n:
                assert _same(res[key], _tau_ap_yilmaz(ref, ev))
        assert _same(res["tau_ap_sym"], _tau_ap_b_paper(x, y)), (x, y)
        # swapped pairs: strictly one way in A, strictly the other in B; ties in either are not swaps
        want_pairs = {(names[i], names[j]) for i in range(n) for j in range(n) if x[i] > x[j] and y[i] < y[j]}
        assert set(res["swapped"]) == want_pairs and len(res["swapped"]) == len(want_pairs)
        assert all(dict(zip(names, x, strict=True))[s] > dict(zip(names, x, strict=True))[t] for s, t in res["swapped"])
        assert res["ties_a"] == sum(x[i] == x[j] for i in range(n) for j in range(i + 1, n))
        assert res["ties_b"] == sum(y[i] == y[j] for i in range(n) for j in range(i + 1, n))
        assert res["n_pairs"] == n * (n - 1) // 2
    assert tied_in["a"] > 50 and tied_in["b"] > 50 and brute > 40
