"""RBO against the worked examples of its paper and the values of its first author's own implementation.

Sources (Webber, Moffat & Zobel, "A similarity measure for indefinite rankings", ACM TOIS 28(4), 2010,
https://doi.org/10.1145/1852102.1852106; the full text was not reached here, so each example is taken as the
public code that tests against it states it):

* the paper's Figure 5, S = a b c d e f g, L = z c a v w x y: average overlap 0.312 at depth 7 ("RBO Paper
  Figure 5" in the tests of the PyPI ``rbo`` package, https://github.com/changyaochen/rbo tests/test.py), and
  depth by depth 0.000, 0.000, 0.222, 0.292, 0.313, 0.317, 0.312 (the ``average_overlap`` doctests of
  https://github.com/dlukes/rbo rbo.py, same lists);
* eq. 21, the weight of the top d ranks, W(1:d) = 1 − p^(d−1) + (1 − p)/p · d · (ln(1/(1 − p)) − Σ_{i<d} p^i/i),
  and the paper's reading of it: with p = 0.9 the top 10 ranks carry 86 % of the weight, and p = 0.98 gives the
  top 50 about the same (``RBO.calcWeight(p, d)`` of https://github.com/holmberd/js-rbo implements it);
* William Webber's RBO implementation: its RBO_ext of 500 uneven and 1,000 permuted lists, six decimals (the
  test data of https://github.com/mpetri/rbo, stored by ``tools/rbo_peer_values.py --webber-values``), and the
  residual of mpetri/rbo's own tests (abcdefg against itself and against the alphabet, p = 0.9: 0.232860).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cli_harness import run_module_inproc
from pref_eval.stats.orderings import rbo_at_depth, rbo_ext, rbo_prefix

DATA = Path(__file__).resolve().parent / "data" / "stats"
S, L = list("abcdefg"), list("zcavwxy")
FIGURE5_AO = (0.000, 0.000, 0.222, 0.292, 0.313, 0.317, 0.312)  # average overlap at depths 1..7


def _run(*args: object) -> tuple[int, str, str]:
    """zelo_compare in process (the console script's code path): (exit code, stdout, stderr)."""
    res = run_module_inproc("compare", args)
    return res.returncode, res.stdout, res.stderr


def _weight(p: float, d: int) -> float:
    """Eq. 21 as the paper writes it."""
    return 1 - p ** (d - 1) + (1 - p) / p * d * (math.log(1 / (1 - p)) - sum(p ** i / i for i in range(1, d)))


def _completed() -> tuple[list[str], list[str]]:
    """Figure 5's two prefixes, each completed with the other's items (after depth 7) so that both are orderings
    of the same 12 items: the depth-K views (K <= 7) are the figure's."""
    return S + [x for x in L if x not in S], L + [x for x in S if x not in L]


def _agreements_via_depth(p: float) -> list[float]:
    """A_1..A_7 of Figure 5's lists read back from ``rbo_at_depth``'s truncated series:
    sum_K - sum_(K-1) = (1 - p)/p · A_K · p^K."""
    a, b = _completed()
    names = sorted(a)
    sa = [-float(a.index(x)) for x in names]
    sb = [-float(b.index(x)) for x in names]
    sums = [0.0] + [rbo_at_depth(sa, sb, p, k)["sum"] for k in range(1, 8)]
    return [(sums[k] - sums[k - 1]) * p / ((1 - p) * p ** k) for k in range(1, 8)]


def test_figure5_average_overlap_depth_by_depth():
    """The overlaps ``rbo_at_depth`` counts on the figure's lists give the figure's average overlap at every
    depth (AO at depth k = the mean of A_1..A_k); it rises to 0.317 and falls back to 0.312, the paper's point
    that AO is not monotonic in depth."""
    agree = _agreements_via_depth(0.5)
    assert agree == pytest.approx([0, 0, 2 / 3, 2 / 4, 2 / 5, 2 / 6, 2 / 7], abs=1e-12)
    ao = [sum(agree[:k]) / k for k in range(1, 8)]
    assert [round(v, 3) for v in ao] == list(FIGURE5_AO)


def test_figure5_through_the_cli(tmp_path):
    """``zelo_compare --orderings A B --rbo-depth K`` on the figure's lists (as files, completed below depth 7):
    ``rbo_sum`` is (1 − p)/p Σ_{d≤K} A_d p^d with the figure's A_d, ``rbo`` adds A_K p^K."""
    a, b = _completed()
    fa, fb = tmp_path / "s.txt", tmp_path / "l.txt"
    fa.write_text("\n".join(a) + "\n")
    fb.write_text("\n".join(b) + "\n")
    agree = [0.0] + [k * v - (k - 1) * u for k, u, v in zip(range(1, 8), (0.0, *FIGURE5_AO), FIGURE5_AO,
                                                              strict=False)]
    exact = [0.0, 0.0, 0.0, 2 / 3, 2 / 4, 2 / 5, 2 / 6, 2 / 7]
    # the figure's AO column (three decimals) read as A_k = k AO_k - (k - 1) AO_(k-1): off by <= (2k - 1) / 2000
    assert agree == pytest.approx(exact, abs=0.007)
    p = 0.9
    for k in (2, 3, 7):
        code, out, err = _run("--orderings", fa, fb, "--rbo-p", p, "--rbo-depth", k, "-o", "jsonl")
        assert code == 0, err
        d = json.loads(out)
        want = (1 - p) / p * sum(exact[i] * p ** i for i in range(1, k + 1))
        assert d["rbo_depth"] == k
        assert d["rbo_sum"] == pytest.approx(want, abs=1e-14)
        assert d["rbo"] == pytest.approx(want + exact[k] * p ** k, abs=1e-14)


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_figure5_prefix_forms(p):
    """RBO_min, RBO_ext, RBO_res and RBO_max of the figure's two depth-7 prefixes (``--rbo-lists prefix``)
    against eqs. 11, 32 and 30 written out with the figure's overlaps X_d = 0, 0, 2, 2, 2, 2, 2."""
    x = [0, 0, 0, 2, 2, 2, 2, 2]  # X_0..X_7
    k, c = 7, (1 - p) / p
    minimum = c * (sum((x[d] - x[k]) * p ** d / d for d in range(1, k + 1)) - x[k] * math.log(1 - p))
    ext = c * sum(x[d] * p ** d / d for d in range(1, k + 1)) + x[k] / k * p ** k
    f = 2 * k - x[k]  # eq. 30 with s = l = k: from depth f on every unseen item can overlap
    res = (p ** k + p ** k - p ** f
           - c * (2 * k * sum(p ** d / d for d in range(k + 1, f + 1))
                  + x[k] * (math.log(1 / (1 - p)) - sum(p ** d / d for d in range(1, f + 1)))))
    got = rbo_prefix(S, L, p)
    assert got["min"] == pytest.approx(minimum, abs=1e-13)
    assert got["ext"] == pytest.approx(ext, abs=1e-13)
    assert got["res"] == pytest.approx(res, abs=1e-13)
    assert got["max"] == pytest.approx(minimum + res, abs=1e-13)


def test_eq21_top_weight():
    """Two prefixes that agree item for item, nothing unseen overlapping: RBO_min is the weight of those ranks,
    eq. 21 (each rank's share of the agreement at every depth below it); the paper's 86 % for the top 10 at
    p = 0.9, and about the same for the top 50 at p = 0.98."""
    for p, d in ((0.9, 10), (0.98, 50), (0.5, 1), (0.5, 3), (0.99, 100), (0.8, 7)):
        top = [f"s{i}" for i in range(d)]
        assert rbo_prefix(top, top, p)["min"] == pytest.approx(_weight(p, d), abs=1e-12), (p, d)
    assert round(_weight(0.9, 10), 2) == 0.86
    assert round(_weight(0.98, 50), 2) == 0.85  # "about the same": 0.852
    assert _weight(0.9, 10) == pytest.approx(0.8555854467473518, abs=1e-15)


def test_residual_of_mpetri_tests():
    """mpetri/rbo's residual tests: abcdefg against itself and against the alphabet at p = 0.9 both leave
    0.232860 unknown (L's extra items can only overlap S's unseen ones, as for two equal prefixes of 7), and
    min + res = 1 for the equal lists."""
    same = rbo_prefix(S, S, 0.9)
    longer = rbo_prefix(S, list("abcdefghijklmnopqrstuvwxyz"), 0.9)
    for r in (same, longer):
        assert r["res"] == pytest.approx(0.232860, abs=1e-6)
    assert same["min"] + same["res"] == pytest.approx(1.0, abs=1e-14)
    assert same["res"] == pytest.approx(1 - _weight(0.9, 7), abs=1e-14)


def test_webber_implementation_values():
    """RBO_ext of William Webber's implementation (six decimals): the alphabet against 500 shorter lists of its
    letters (eq. 32, uneven lengths: ``rbo_prefix``) and 1,000 permutations against their alphabetical order
    (``rbo_ext``), p from 0.1 to 0.99. They agree within one unit of the sixth decimal (largest difference
    6.1e-7, at p = 0.99; 5e-7 would be rounding alone)."""
    data = json.loads((DATA / "rbo_webber.json").read_text())
    alphabet = list("abcdefghijklmnopqrstuvwxyz")
    assert (len(data["uneven"]), len(data["permute"])) == (500, 1000)
    worst = 0.0
    for other, p, want in data["uneven"]:
        worst = max(worst, abs(rbo_prefix(alphabet, list(other), p)["ext"] - want))
    for other, p, want in data["permute"]:
        worst = max(worst, abs(rbo_ext(sorted(other), list(other), p) - want))
    assert worst < 1e-6
    assert worst > 1e-7  # the comparison reads the values (a test that compared nothing would give 0)
