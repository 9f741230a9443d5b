"""Orderings: tau_b = scipy; tau_AP on hand-worked examples (Yilmaz et al.
2008 definition) and on the R package ircor's golden values; RBO by hand."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from pref_eval.errors import InputError, UsageError
from pref_eval.io.orderings import read_ordering
from pref_eval.stats.orderings import (compare_orderings, kendall_tau_b, rbo_ext, swapped_pairs, tau_ap,
                                       tau_ap_a, tau_ap_b)

DATA = Path(__file__).resolve().parent / "data" / "stats"


def scores(order):
    """best-first list -> scores (higher = better)"""
    return [len(order) - order.index(s) for s in "abcdefgh"[:len(order)]]


def test_tau_b_equals_scipy():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = np.round(rng.random(12), 1), np.round(rng.random(12), 1)  # with ties
        assert kendall_tau_b(a, b)[0] == stats.kendalltau(a, b).statistic
    # the course-notes example (seed 003): A C B E D vs A B C E D -> (9 - 1)/10
    t, p = kendall_tau_b(scores(list("acbed")), scores(list("abced")))
    assert t == pytest.approx(0.8) and p == pytest.approx(0.0833, abs=5e-5)


def test_tau_ap_hand_worked():
    truth = scores(list("abcd"))
    assert tau_ap(truth, truth) == pytest.approx(1.0)
    assert tau_ap(truth, scores(list("dcba"))) == pytest.approx(-1.0)
    # swap at the top, evaluated b a c d: C(2)=0, C(3)=2, C(4)=3 -> 2/3 (0 + 1 + 1) - 1 = 1/3
    assert tau_ap(truth, scores(list("bacd"))) == pytest.approx(1 / 3)
    # swap at the bottom, a b d c: C(2)=1, C(3)=2, C(4)=2 -> 2/3 (1 + 1 + 2/3) - 1 = 7/9
    assert tau_ap(truth, scores(list("abdc"))) == pytest.approx(7 / 9)
    # tau_b cannot tell the two apart
    assert kendall_tau_b(truth, scores(list("bacd")))[0] == pytest.approx(kendall_tau_b(truth, scores(list("abdc")))[0])
    with pytest.raises(ValueError):
        tau_ap([1, 1, 2], [1, 2, 3])


def _tau_ap_plain(truth, order):
    """Straight from the paper: order = evaluated list best first."""
    n = len(order)
    s = 0.0
    for i in range(1, n):
        s += sum(truth[order[j]] > truth[order[i]] for j in range(i)) / i
    return 2 * s / (n - 1) - 1


def test_tau_ap_a_is_expected_value_over_tie_breaks():
    # hand-worked: truth a > b > c; evaluated ties a and b on top, c last.
    # Break (a, b, c): tau_AP = 1; break (b, a, c): C(2) = 0, C(3) = 2 -> 0. Mean 0.5.
    assert tau_ap_a([3, 2, 1], [5, 5, 1]) == pytest.approx(0.5)
    # brute force over every tie break on a larger case
    truth = {s: v for s, v in zip("abcdefg", [7, 6, 5, 4, 3, 2, 1], strict=False)}
    ev = {"a": 3, "b": 5, "c": 3, "d": 5, "e": 1, "f": 3, "g": 0}
    groups = sorted(set(ev.values()), reverse=True)
    vals = []
    for combo in itertools.product(*[list(itertools.permutations([s for s in ev if ev[s] == g])) for g in groups]):
        order = [s for grp in combo for s in grp]
        vals.append(_tau_ap_plain(truth, order))
    names = list(truth)
    assert tau_ap_a([truth[s] for s in names], [ev[s] for s in names]) == pytest.approx(np.mean(vals))


def test_tau_ap_ircor_golden_values():
    data = json.loads((DATA / "ircor_tauap.json").read_text())
    exp = data["expected"]
    for name, s in data["sets"].items():
        assert tau_ap(s["x"], s["y"]) == pytest.approx(exp["tauAP(x, y)"][name], abs=5e-5)
        assert tau_ap_a(s["x"], s["y"]) == pytest.approx(exp["tauAP(x, y)"][name], abs=5e-5)
        assert tau_ap_a(s["x"], s["y.ties"]) == pytest.approx(exp["tauAP_a(x, y.ties)"][name], abs=5e-5)
        assert tau_ap_b(s["x"], s["y"]) == pytest.approx(exp["tauAP_b(x, y)"][name], abs=5e-5)
        assert tau_ap_b(s["x.ties"], s["y.ties"]) == pytest.approx(exp["tauAP_b(x.ties, y.ties)"][name], abs=5e-5)
        assert tau_ap_b(s["y.ties"], s["x.ties"]) == pytest.approx(exp["tauAP_b(x.ties, y.ties)"][name], abs=5e-5)


def test_rbo_hand_worked():
    assert rbo_ext(list("abc"), list("abc"), 0.9) == pytest.approx(1.0)
    # [a, b] vs [b, a], p = 0.5: X1 = 0, X2 = 2 -> (2/2) 0.25 + (0.5/0.5)(0 + 1 * 0.25) = 0.5
    assert rbo_ext(list("ab"), list("ba"), 0.5) == pytest.approx(0.5)
    # [a, b, c] vs [a, c, b], p = 0.5: A = 1, 1/2, 1 -> (1)(1/8) + (1)(1/2 + 1/8 + 1/8) = 0.875
    assert rbo_ext(list("abc"), list("acb"), 0.5) == pytest.approx(0.875)


def test_swapped_pairs_and_compare_orderings():
    names = ["a", "b", "c", "d"]
    assert swapped_pairs(names, [4, 3, 2, 1], [4, 2, 3, 1]) == [("b", "c")]
    assert swapped_pairs(names, [4, 3, 2, 1], [4, 3, 3, 1]) == []  # a tie is not a swap
    res = compare_orderings({"a": 4, "b": 3, "c": 2, "d": 1, "x": 0}, {"d": 1, "c": 3, "b": 2, "a": 4})
    assert res["systems"] == names and res["only_a"] == ["x"]
    assert res["swapped"] == [("b", "c")]
    assert res["kendall_tau_b"] == pytest.approx(stats.kendalltau([4, 3, 2, 1], [4, 2, 3, 1]).statistic)
    assert res["tau_ap_b_given_a"] == pytest.approx(tau_ap([4, 3, 2, 1], [4, 2, 3, 1]))


def test_read_orderings():
    a, desc = read_ordering(DATA / "order_a.tsv")
    assert a == {"bm25": 0.45, "dense": 0.52, "rerank": 0.61, "splade": 0.58, "rm3": 0.47}
    b, _ = read_ordering(DATA / "order_b.txt")
    assert list(b) == ["rerank", "dense", "splade", "rm3", "bm25"] and b["rerank"] > b["dense"]
    mc4, desc = read_ordering(DATA / "aggregate.jsonl", "rpp:mc4")
    assert list(mc4) == ["rerank", "splade", "dense", "bm25", "rm3"] and "rpp:mc4" in desc
    nd, _ = read_ordering(DATA / "aggregate.jsonl", "ndcg")
    assert list(nd)[0] == "rerank"
    with pytest.raises(UsageError):
        read_ordering(DATA / "aggregate.jsonl")  # several lists: a key is needed
    with pytest.raises(UsageError):
        read_ordering(DATA / "aggregate.jsonl", "rpp")  # rpp:mc4 or rpp:borda?


def test_read_ordering_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("a 1\nb 2 3\n")
    with pytest.raises(InputError, match=r"bad.tsv:2:"):
        read_ordering(bad)
    bad.write_text("a 1\nb x\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: expected a number"):
        read_ordering(bad)
    bad.write_text('{"qid": "q1", "m": ["a"]}\n')
    with pytest.raises(InputError, match="no summary line"):
        read_ordering(bad)


def test_kendall_tau_b_rows_equals_scipy_row_by_row():
    """The bootstrap's batched tau_b (zelo_agree -l system) against scipy.stats.kendalltau, live: the same
    values, bit for bit, with ties (rounded scores), all-tied rows (NaN) and n = 2."""
    from scipy.stats import kendalltau

    from pref_eval.stats.orderings import kendall_tau_b_rows

    rng = np.random.default_rng(7)
    rows = 0
    for trial in range(120):
        n, R = int(rng.integers(2, 25)), int(rng.integers(1, 12))
        A = np.round(rng.normal(size=(R, n)), int(rng.integers(0, 3)))
        B = np.round(rng.normal(size=(R, n)), int(rng.integers(0, 3)))
        if trial % 9 == 0:
            A[0] = 1.0
        got = kendall_tau_b_rows(A, B, max_cells=int(rng.integers(1, 400)))  # blocks of every size
        for r in range(R):
            want = kendalltau(A[r], B[r], variant="b").statistic
            assert (np.isnan(got[r]) and np.isnan(want)) or got[r] == want, (A[r], B[r], got[r], want)
            rows += 1
    assert rows > 500


def test_tau_ap_a_rows_is_the_mean_over_tie_breaks():
    """Each row of the batched tau_AP_a (zelo_agree's bootstrap; tau_ap_a is its one-row case) against the
    definition: tau_AP straight from the paper (``_tau_ap_plain``) averaged over every break of the evaluated
    ordering's ties, on random rows (reference without ties, evaluated with ties), blocks of every size."""
    from pref_eval.stats.orderings import tau_ap_a_rows

    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(40):
        n, R = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        X = rng.normal(size=(R, n))
        Y = rng.integers(0, 3, size=(R, n)).astype(float)  # ties in the evaluated ordering
        got = tau_ap_a_rows(X, Y, max_cells=int(rng.integers(1, 200)))
        for r in range(R):
            truth = dict(enumerate(X[r]))
            ev = dict(enumerate(Y[r]))
            groups = sorted(set(ev.values()), reverse=True)
            vals = [_tau_ap_plain(truth, [s for grp in combo for s in grp])
                    for combo in itertools.product(*[list(itertools.permutations([s for s in ev if ev[s] == g]))
                                                     for g in groups])]
            assert got[r] == pytest.approx(np.mean(vals), abs=1e-12), (X[r], Y[r])
            checked += 1
    assert checked > 60
    # the golden value with a tie (test above): one row
    assert tau_ap_a_rows(np.array([[3.0, 2, 1]]), np.array([[5.0, 5, 1]]))[0] == pytest.approx(0.5)
