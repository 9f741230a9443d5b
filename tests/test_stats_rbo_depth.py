"""RBO at an evaluation depth K (``zelo_compare --orderings --rbo-depth K``, pref_eval.stats.orderings.rbo_at_depth).

Oracles: values of the PyPI ``rbo`` package (https://github.com/changyaochen/rbo; ``rbo(k=K, p=p, ext=True)``
and ``rbo(k=K, p=p)``) stored by ``tools/rbo_peer_values.py --depth-values`` (it pins numpy < 2, so it is no
test dependency); hand-worked values; with ties, the mean of the tie-free values over every tie break
(RBO^a is linear in the overlaps, so its truncated series and A_K are those means).
"""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pref_eval.stats.orderings import compare_orderings, rbo_at_depth, rbo_ext, rbo_ext_tied

DATA = Path(__file__).resolve().parent / "data" / "stats"


def _scores(order: list[str]) -> dict[str, float]:
    return {s: float(-i) for i, s in enumerate(order)}


def test_against_pypi_rbo_values():
    data = json.loads((DATA / "rbo_depth_peer.json").read_text())
    assert len(data["cases"]) == 40
    for c in data["cases"]:
        a, b = _scores(c["a"]), _scores(c["b"])
        names = list(a)
        got = rbo_at_depth([a[s] for s in names], [b[s] for s in names], c["p"], c["depth"])
        assert got["ext"] == pytest.approx(c["ext"], abs=1e-12), c
        assert got["sum"] == pytest.approx(c["sum"], abs=1e-12), c
        assert got["depth"] == min(c["depth"], len(names))
        assert rbo_ext(c["a"], c["b"], c["p"], c["depth"]) == pytest.approx(c["ext"], abs=1e-12)
    for i, c in enumerate(data["cases"]):
        if len(c["a"]) < 2:
            continue
        a, b = _scores(c["a"]), _scores(c["b"])
        for ties in ("a", "b", "w", "name")[i % 4:i % 4 + 1]:  # no ties: every treatment is the tie-free value
            res = compare_orderings(a, b, c["p"], ties, rbo_depth=c["depth"])
            assert res["rbo"] == pytest.approx(c["ext"], abs=1e-12)
            assert res["rbo_sum"] == pytest.approx(c["sum"], abs=1e-12)


def test_hand_worked():
    # A: s1 s2 s3 s4, B: s2 s1 s3 s4, p = 0.9: A_1 = 0, A_d = 1 for d >= 2
    a, b = [4.0, 3.0, 2.0, 1.0], [3.0, 4.0, 2.0, 1.0]
    assert rbo_at_depth(a, b, 0.9, 1) == {"ext": 0.0, "sum": 0.0, "depth": 1}
    r = rbo_at_depth(a, b, 0.9, 2)  # sum = 0.1/0.9 * 0.81 = 0.09, ext = 0.09 + 1 * 0.81
    assert (r["sum"], r["ext"], r["depth"]) == (pytest.approx(0.09), pytest.approx(0.9), 2)
    r = rbo_at_depth(a, b, 0.9, 3)  # sum = 0.1/0.9 * (0.81 + 0.729) = 0.171
    assert (r["sum"], r["ext"]) == (pytest.approx(0.171), pytest.approx(0.9))
    r = rbo_at_depth(a, b, 0.9, 99)  # the whole lists: K = 4, ext = RBO_ext
    assert (r["sum"], r["ext"], r["depth"]) == (pytest.approx(0.2439), pytest.approx(0.9), 4)
    assert r["ext"] == rbo_ext_tied(a, b, 0.9)
    # disjoint tops: A s1 s2 s3, B s3 s2 s1 at depth 1 and 2: A_1 = 0, A_2 = 1/2; p = 0.5
    r = rbo_at_depth([3.0, 2.0, 1.0], [1.0, 2.0, 3.0], 0.5, 2)  # sum = 1 * 0.5 * 0.25 = 0.125, ext + 0.125
    assert (r["sum"], r["ext"]) == (pytest.approx(0.125), pytest.approx(0.25))


def _all_breaks(scores: list[float]) -> list[list[int]]:
    """Every tie-free order (indices, best first) of ``scores`` consistent with it."""
    groups = [[i for i, v in enumerate(scores) if v == g] for g in sorted(set(scores), reverse=True)]
    return [list(itertools.chain(*combo)) for combo in itertools.product(*(itertools.permutations(g)
                                                                           for g in groups))]


@pytest.mark.parametrize("seed", range(6))
def test_ties_a_is_the_mean_over_tie_breaks(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 7))
    while True:  # ties, but at most 60 pairs of tie breaks
        x = np.round(rng.normal(size=k) * 0.8).tolist()
        y = np.round(rng.normal(size=k) * 0.8).tolist()
        if 1 < len(_all_breaks(x)) * len(_all_breaks(y)) <= 60:
            break
    p = float(rng.choice([0.5, 0.9]))
    for depth in range(1, k + 2):
        sums, exts = [], []
        for ox in _all_breaks(x):
            for oy in _all_breaks(y):
                free = rbo_at_depth([-float(ox.index(i)) for i in range(k)], [-float(oy.index(i)) for i in range(k)],
                                    p, depth)
                sums.append(free["sum"])
                exts.append(free["ext"])
        got = rbo_at_depth(x, y, p, depth, "a")
        assert got["sum"] == pytest.approx(float(np.mean(sums)), abs=1e-12)
        assert got["ext"] == pytest.approx(float(np.mean(exts)), abs=1e-12)
    for ties in "abw":  # depth >= k: the whole-list value
        assert rbo_at_depth(x, y, p, k, ties)["ext"] == pytest.approx(rbo_ext_tied(x, y, p, ties), abs=1e-15)


def test_refused():
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        rbo_at_depth([1.0, 2.0], [2.0, 1.0], 0.9, 0)
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        compare_orderings({"a": 1, "b": 2}, {"a": 2, "b": 1}, rbo_depth=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rbo_lists common"):
        compare_orderings({"a": 1, "b": 2}, {"a": 2, "b": 1}, rbo_lists="prefix", rbo_depth=1)
    assert math.isnan(rbo_ext([], [], 0.9, 3))


def test_cli(tmp_path):
    from test_stats_cli import run

    a, b = DATA / "order_a.tsv", DATA / "order_b.txt"
    code, out, err = run("--orderings", a, b, "--rbo-depth", "3", "-o", "jsonl")
    assert code == 0, err
    d = json.loads(out)
    sa = {"rerank": 0.61, "splade": 0.58, "dense": 0.52, "rm3": 0.47, "bm25": 0.45}
    order_b = ["rerank", "dense", "splade", "rm3", "bm25"]
    want = rbo_at_depth([sa[s] for s in sa], [-order_b.index(s) for s in sa], 0.9, 3)
    # hand-worked: A rerank splade dense, B rerank dense splade: A_1 = 1, A_2 = 1/2, A_3 = 1
    assert want["sum"] == pytest.approx(0.1 / 0.9 * (0.9 + 0.5 * 0.81 + 0.729))
    assert (d["rbo"], d["rbo_sum"], d["rbo_depth"]) == (want["ext"], want["sum"], 3)
    code, out, err = run("--orderings", a, b, "--rbo-depth", "3")
    rows = [ln.split()[0] for ln in out.splitlines() if ln.startswith("rbo_")]
    assert rows == ["rbo_ext(p=0.9,ties=a,depth=3)", "rbo_sum(p=0.9,ties=a,depth=3)"]
    code, out, err = run("--orderings", a, b, "--rbo-depth", "50", "-o", "csv")  # all 5 systems
    assert code == 0 and "rbo_ext(p=0.9,ties=a,depth=5)" in out
    for argv, msg in ((["--rbo-depth", "2", "-P", DATA / "perquery.tsv"], "--rbo-depth applies only with --orderings"),
                      (["--orderings", a, b, "--rbo-p", "0", "--rbo-depth", "2"],
                       "--rbo-depth applies only with --rbo-p above 0"),
                      (["--orderings", a, b, "--rbo-lists", "prefix", "--rbo-depth", "2"],
                       "--rbo-depth applies to --rbo-lists common"),
                      (["--orderings", a, b, "--rbo-depth", "0"], "Invalid value for '--rbo-depth'")):
        code, out, err = run(*argv)
        assert code == 2 and out == "" and msg in err and "Traceback" not in err, err
