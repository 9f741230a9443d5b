"""RBO of two prefixes of uneven lengths: RBO_ext, RBO_min, RBO_max, RBO_res (Webber, Moffat & Zobel, TOIS
2010, section 4; ties: Corsi & Urbano, SIGIR 2024).

Oracles: the definition (RBO = (1 - p) sum_d p^(d-1) A_d of explicit completions of the two prefixes: the
bounds are attained by the completions that overlap least and most), hand-worked fractions, the mean over
every tie break (RBO_min^a), and values stored by tools/rbo_peer_values.py from Corsi & Urbano's code
(all four forms, ties a/b/w), the PyPI ``rbo`` package (``rbo_ext``) and dlukes/rbo (a documented
difference).
"""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pref_eval.stats.orderings import compare_orderings, rbo_ext, rbo_ext_tied, rbo_prefix

DATA = Path(__file__).resolve().parent / "data" / "stats"
FORMS = ("ext", "min", "max", "res")


def _rbo_definition(s_full: list, l_full: list, p: float) -> float:
    """(1 - p) sum_{d=1..N} p^(d-1) |S[:d] & L[:d]| / d of two lists of one length N (p^N negligible)."""
    seen_s: set = set()
    seen_l: set = set()
    x = 0
    acc = 0.0
    for d, (u, v) in enumerate(zip(s_full, l_full, strict=True), start=1):
        x += (u == v) + (u != v) * ((u in seen_l) + (v in seen_s))
        seen_s.add(u)
        seen_l.add(v)
        acc += p ** (d - 1) * x / d
    return (1 - p) * acc


def _completions(short: list, long_: list, n: int) -> tuple[tuple[list, list], tuple[list, list]]:
    """The completions of two prefixes to length n that overlap least (fresh items only) and most (the short
    list continues with the long one's items it lacks, the long one with the short one's, then both alike)."""
    least = (short + [f"y{i}" for i in range(n - len(short))], long_ + [f"w{i}" for i in range(n - len(long_))])
    s_more = short + [v for v in long_ if v not in short]
    l_more = long_ + [u for u in short if u not in long_]
    most = (s_more + [f"z{i}" for i in range(n - len(s_more))], l_more + [f"z{i}" for i in range(n - len(l_more))])
    return least, most


def test_hand_worked_uneven():
    # S = a b (s = 2), L = a c b (l = 3), p = 1/2, so (1 - p)/p = 1; X_1 = 1, X_2 = 1, X_3 = 2, A_s = 1/2.
    # ext (eq. 32): X_1 p/1 + X_2 p^2/2 + X_3 p^3/3 = 17/24, + X_s (3 - 2) p^3 / (2 * 3) = 1/48,
    #   + ((X_3 - X_2)/3 + X_2/2) p^3 = 5/48: 5/6.
    # min: 17/24 + X_3 * sum_{d>3} p^d/d = 17/24 + 2 (ln 2 - 1/2 - 1/8 - 1/24) = 2 ln 2 - 5/8.
    # max: at d = 3 S's unseen third item can be c (X = 3); f = 3 + 2 - 2 = 3: A_d = 1 from d = 3 on,
    #   1/2 + (1/2)(1/4) + 1/4 = 7/8; res (eq. 30): p^2 + p^3 - p^3 - (2 (p^3/3) + 2 (ln 2 - 2/3)) = 3/2 - 2 ln 2.
    got = rbo_prefix(["a", "b"], ["a", "c", "b"], 0.5)
    want = {"ext": 5 / 6, "min": 2 * math.log(2) - 5 / 8, "max": 7 / 8, "res": 1.5 - 2 * math.log(2)}
    for form in FORMS:
        assert got[form] == pytest.approx(want[form], abs=1e-15), form
    assert (got["s"], got["l"]) == (2, 3)
    # the same with the lists swapped, and given as score mappings
    swapped = rbo_prefix({"a": 3, "c": 2, "b": 1}, {"a": 2.0, "b": 1.0}, 0.5)
    assert all(swapped[f] == pytest.approx(want[f], abs=1e-15) for f in FORMS)


def test_hand_worked_ties_uneven():
    # S = (a b) tied (s = 2), L = a c b, p = 1/2. Ties a: c_S(1) = 1/2 each, X_1 = 1/2, X_2 = 1, A_s = 1/2;
    # d = 3: X = 2 seen + (3 - 2) A_s * 1 (c, the only item of L not in S, is in at depth 3) = 5/2;
    # ext = (1/2)(1/2) + (1/2)(1/4) + (5/6)(1/8) + ((2 + 1 * 1/2)/3)(1/8) = 7/12 = the mean of the two
    # breaks (a b: 5/6, b a: 1/3); min = the mean of the breaks' minima, 2 ln 2 - 7/8.
    s, ll = {"a": 1, "b": 1}, ["a", "c", "b"]
    got = rbo_prefix(s, ll, 0.5, "a")
    assert got["ext"] == pytest.approx(7 / 12, abs=1e-15)
    assert got["min"] == pytest.approx(2 * math.log(2) - 7 / 8, abs=1e-15)
    breaks = [rbo_prefix(list(order), ll, 0.5) for order in (("a", "b"), ("b", "a"))]
    assert [b["ext"] for b in breaks] == pytest.approx([5 / 6, 1 / 3], abs=1e-15)
    # ties w: the depth-1 prefix of S holds both: A_1 = 2 * 1 / (2 + 1) = 2/3, A_2 = 2 * 1 / (2 + 2) = 1/2;
    # d = 3: X = 5/2 over (2 + 1 unseen + 3)/2 = 3; ext = 1/3 + 1/8 + 5/48 + 5/48 = 2/3
    assert rbo_prefix(s, ll, 0.5, "w")["ext"] == pytest.approx(2 / 3, abs=1e-15)


def test_bounds_are_attained_by_completions():
    """RBO_min and RBO_max are the RBO (by the definition) of the completions that overlap least and most;
    random completions and RBO_ext lie between them."""
    rng = np.random.default_rng(11)
    n = 900
    for _ in range(40):
        s = int(rng.integers(1, 8))
        ln = int(rng.integers(s, 14))
        pool = [f"s{i}" for i in range(18)]
        short = [str(v) for v in rng.choice(pool, s, replace=False)]
        long_ = [str(v) for v in rng.choice(pool, ln, replace=False)]
        p = float(rng.choice([0.3, 0.6, 0.9]))
        got = rbo_prefix(short, long_, p)
        (s0, l0), (s1, l1) = _completions(short, long_, n)
        assert got["min"] == pytest.approx(_rbo_definition(s0, l0, p), abs=1e-12)
        assert got["max"] == pytest.approx(_rbo_definition(s1, l1, p), abs=1e-12)
        assert got["res"] == pytest.approx(got["max"] - got["min"], abs=1e-15)
        assert got["min"] - 1e-12 <= got["ext"] <= got["max"] + 1e-12
        for _ in range(3):  # a random completion from the pool, then fresh items
            rest = [v for v in pool if v not in short]
            s2 = short + [str(v) for v in rng.permutation(rest)]
            rest_l = [v for v in pool if v not in long_]
            l2 = long_ + [str(v) for v in rng.permutation(rest_l)]
            s2 += [f"y{i}" for i in range(n - len(s2))]
            l2 += [f"w{i}" for i in range(n - len(l2))]
            assert got["min"] - 1e-12 <= _rbo_definition(s2, l2, p) <= got["max"] + 1e-12


def _breaks(scores: dict) -> list[list]:
    values = sorted(set(scores.values()), reverse=True)
    groups = [[k for k, v in scores.items() if v == val] for val in values]
    return [[x for g in combo for x in g] for combo in itertools.product(*[list(itertools.permutations(g))
                                                                          for g in groups])]


def test_min_a_is_the_mean_over_tie_breaks():
    rng = np.random.default_rng(4)
    for _ in range(25):
        s = int(rng.integers(1, 5))
        ln = int(rng.integers(s, 7))
        a = {str(k): float(v) for k, v in zip(rng.choice(list("abcdefgh"), s, replace=False),
                                              rng.integers(0, 2, s), strict=True)}
        b = {str(k): float(v) for k, v in zip(rng.choice(list("abcdefgh"), ln, replace=False),
                                              rng.integers(0, 3, ln), strict=True)}
        p = float(rng.choice([0.4, 0.9]))
        mean = np.mean([rbo_prefix(x, y, p)["min"] for x in _breaks(a) for y in _breaks(b)])
        assert rbo_prefix(a, b, p, "a")["min"] == pytest.approx(mean, abs=1e-12)


def test_complete_orderings_of_the_same_items():
    """Two complete orderings of the same items: RBO_ext = rbo_ext / rbo_ext_tied = RBO_max."""
    rng = np.random.default_rng(2)
    for _ in range(20):
        k = int(rng.integers(1, 12))
        x = np.round(rng.normal(size=k), 0)
        y = np.round(rng.normal(size=k), 0)
        names = [f"s{i}" for i in range(k)]
        p = float(rng.choice([0.5, 0.9]))
        for t in "abw":
            got = rbo_prefix(dict(zip(names, x, strict=True)), dict(zip(names, y, strict=True)), p, t)
            assert got["ext"] == pytest.approx(rbo_ext_tied(x, y, p, t), abs=1e-12)
            assert got["max"] == pytest.approx(got["ext"], abs=1e-12)
        order_a = [names[i] for i in rng.permutation(k)]
        order_b = [names[i] for i in rng.permutation(k)]
        assert rbo_prefix(order_a, order_b, p)["ext"] == pytest.approx(rbo_ext(order_a, order_b, p), abs=1e-12)


def test_against_peers():
    """Corsi & Urbano's code (four forms, ties a/b/w), the PyPI rbo package's rbo_ext (tie-free)."""
    data = json.loads((DATA / "rbo_peer.json").read_text())
    cases = data["uneven"]
    assert len(cases) >= 30 and sum(len(c["a"]) != len(c["b"]) for c in cases) >= 25
    n_pypi = 0
    for c in cases:
        for t in "abw":
            got = rbo_prefix(c["a"], c["b"], c["p"], t)
            for form in FORMS:
                assert got[form] == pytest.approx(c["corsi_urbano"][t][form], abs=1e-12), (c, t, form)
        if "pypi_rbo" in c:
            n_pypi += 1
            assert rbo_prefix(list(c["a"]), list(c["b"]), c["p"])["ext"] == pytest.approx(c["pypi_rbo"], abs=1e-12)
    assert n_pypi >= 10


def test_dlukes_difference_documented():
    """dlukes/rbo replaces X_d/d by 2 X_d/(s + d) beyond the short list's end: a short list agreeing fully
    with the top of a longer one gets RBO_ext 1.048 there (above 1); the paper's eq. 32 gives 1, and its
    residual (eq. 30) is that of two equal prefixes of length s (the long list's extra items change nothing)."""
    c = json.loads((DATA / "rbo_peer.json").read_text())["dlukes_case"]
    got = rbo_prefix(c["a"], c["b"], c["p"])
    assert got["ext"] == pytest.approx(1.0, abs=1e-14) and c["dlukes"]["ext"] > 1.04
    same = rbo_prefix(c["a"], c["a"], c["p"])
    assert got["res"] == pytest.approx(same["res"], abs=1e-14) and got["min"] == pytest.approx(same["min"], abs=1e-14)
    # the figures of docs/zelo_compare.md
    assert (round(c["dlukes"]["ext"], 3), round(c["dlukes"]["res"], 4), round(got["res"], 4)) == (1.048, 0.2393, 0.2329)
    # mpetri/rbo's RBO_min (eq. 11 at depth s) gives 0 to `ec` against the alphabet; the paper's counts e, c
    ec = rbo_prefix(list("ec"), c["b"], 0.9)
    assert round(ec["min"], 4) == 0.1765 and ec["min"] <= ec["ext"] <= ec["max"]
    # where the lists are tie-free, dlukes's min equals the paper's eq. 11 only when nothing of S lies in
    # L beyond depth s; its ext differs whenever l > s and X_s > 0
    for case in json.loads((DATA / "rbo_peer.json").read_text())["uneven"]:
        if "dlukes" in case and len(case["a"]) == len(case["b"]):
            mine = rbo_prefix(list(case["a"]), list(case["b"]), case["p"])
            assert mine["ext"] == pytest.approx(case["dlukes"]["ext"], abs=1e-12)


def test_refusals():
    with pytest.raises(ValueError, match="persistence"):
        rbo_prefix(["a"], ["a"], 1.0)
    with pytest.raises(ValueError, match="ties"):
        rbo_prefix(["a"], ["a"], 0.9, "name")
    with pytest.raises(ValueError, match="twice"):
        rbo_prefix(["a", "a"], ["a"], 0.9)
    with pytest.raises(ValueError, match="non-empty"):
        rbo_prefix([], ["a"], 0.9)
    with pytest.raises(ValueError, match="NaN"):
        rbo_prefix({"a": float("nan")}, ["a"], 0.9)
    with pytest.raises(ValueError, match="RBO lists"):
        compare_orderings({"a": 1, "b": 0}, {"a": 1, "b": 0}, 0.9, "a", "top")


def test_compare_orderings_prefix():
    a = {"rerank": 0.61, "splade": 0.58, "dense": 0.52, "rm3": 0.47, "bm25": 0.45}
    b = {"rerank": 3, "dense": 2, "colbert": 1}
    res = compare_orderings(a, b, 0.9, "a", "prefix")
    want = rbo_prefix(["rerank", "splade", "dense", "rm3", "bm25"], ["rerank", "dense", "colbert"], 0.9)
    assert [res["rbo"], res["rbo_min"], res["rbo_max"], res["rbo_res"]] == [want[f] for f in FORMS]
    assert (res["rbo_len_a"], res["rbo_len_b"], res["rbo_lists"]) == (5, 3, "prefix")
    assert res["n_systems"] == 2  # the correlations still take the common systems only
    common = compare_orderings(a, b, 0.9)
    assert "rbo_min" not in common and common["rbo"] == pytest.approx(1.0)  # rerank > dense in both
    # ties broken by name in each list, then the tie-free prefix RBO: renaming changes the value
    tied = {"x": 1.0, "y": 1.0, "z": 0.0}
    one = compare_orderings(tied, {"x": 2, "z": 1}, 0.9, "name", "prefix")["rbo"]
    two = compare_orderings({"x": 1.0, "a": 1.0, "z": 0.0}, {"x": 2, "z": 1}, 0.9, "name", "prefix")["rbo"]
    assert one == pytest.approx(rbo_prefix(["x", "y", "z"], ["x", "z"], 0.9)["ext"])
    assert two == pytest.approx(rbo_prefix(["a", "x", "z"], ["x", "z"], 0.9)["ext"]) and one != two
    assert compare_orderings(tied, {"x": 2, "z": 1}, 0.9, "a", "prefix")["rbo"] == pytest.approx((one + two) / 2)
    # a tie only among systems outside the common ones (x, z) still names the tie rule in the legend
    from pref_eval.output.comparisons import format_orderings

    res = compare_orderings(tied, {"x": 2, "z": 1}, 0.9, "b", "prefix")
    assert res["ties_a"] == res["ties_b"] == 0 and res["rbo_lists_tied"]
    assert "rbo_ext ties=b" in format_orderings(res, "text", "A", "B")
    common = compare_orderings(tied, {"x": 2, "z": 1}, 0.9, "b")
    assert "rbo_ext ties=b" not in format_orderings(common, "text", "A", "B")
