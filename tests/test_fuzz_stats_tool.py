"""tools/fuzz_stats.py: the differential fuzz of pref_eval.stats, the rank aggregations and the zELO fit against
scipy / statsmodels / choix and oracles written from the definitions (session 24, f33)."""
from __future__ import annotations


import numpy as np
import pytest

from conftest import import_tool

pytest.importorskip("statsmodels")


@pytest.fixture
def fz():
    return import_tool("fuzz_stats")


def test_one_case_agrees(fz, capsys):
    """The cheap checks (paired and corrections import scipy.stats' tests and statsmodels: the slow test)."""
    assert fz.main(["--case", "0:1", "--only", "orderings,aggregation,zelo"]) == 0
    err = capsys.readouterr().err
    assert "1 cases" in err and "tau_b_same 1" in err and "0 findings" in err and "DIFFERENT" not in err


def test_unknown_check_is_one_line_exit_2(fz, capsys):
    assert fz.main(["--only", "paired,bogus"]) == 2
    assert capsys.readouterr().err == "fuzz_stats: unknown check 'bogus'; expected some of " \
        "paired,corrections,orderings,aggregation,zelo,tukey,signflip\n"


def test_a_wrong_borda_count_is_reported(fz, monkeypatch, capsys):
    """The fuzz can fail: Borda points with n the longest ranking's length instead of the first's (runs missing
    from the first query) differ from the definition's loop."""
    import pref_eval.rank_aggregation as ra

    def longest_n(rankings, *, pos=None):
        n = max(map(len, rankings))
        pts: dict[str, int] = {}
        for r in rankings:
            for j, x in enumerate(r):
                pts[x] = pts.get(x, 0) + n - j
        return pts

    monkeypatch.setattr(ra, "borda_points", longest_n)
    assert fz.main(["--cases", "20", "--seed", "5", "--only", "aggregation"]) == 1
    assert '"check": "borda"' in capsys.readouterr().out


def test_tau_ap_a_is_the_expectation_over_tie_breakings(fz):
    """The oracle itself on a hand-worked case: reference a > b > c, evaluated (a ~ b) > c. Breaking the tie
    gives (a, b, c) with tau_AP 1 or (b, a, c) with 2/2 (0/1 + 2/2) - 1 = 0: expectation 1/2."""
    from pref_eval.stats import tau_ap_a

    x, y = np.array([3.0, 2.0, 1.0]), np.array([2.0, 2.0, 1.0])
    vals = [fz.tau_ap_def(r, e) for r in fz.tie_breakings(x) for e in fz.tie_breakings(y)]
    assert sorted(vals) == [0.0, 1.0]
    assert tau_ap_a(x, y) == 0.5


@pytest.mark.slow
def test_three_hundred_cases_agree(fz, capsys):
    only = "paired,corrections,orderings,aggregation,zelo,tukey"  # signflip (~0.5 s a case): below
    assert fz.main(["--cases", "300", "--seed", "11", "--only", only]) == 0, capsys.readouterr().out[:3000]


@pytest.mark.slow
def test_twenty_long_sign_flip_rows_agree(fz, capsys):
    assert fz.main(["--cases", "20", "--seed", "11", "--only", "signflip"]) == 0, capsys.readouterr().out[:3000]


def test_subset_sum_tails_exact_past_int64(fz):
    """The sign-flip oracle's counts (residues modulo coprime int64 moduli, Chinese remainder) against a plain
    Python-integer dynamic programme over every subset sum, at 70 and 90 weights (counts past 2^63, where the
    old int64 count wrapped), on both sides of W/2 and outside [0, W]."""
    rng = np.random.default_rng(3)
    for m in (1, 5, 70, 90):
        w = sorted(rng.integers(1, 40, m).tolist())
        W = sum(w)
        counts = [1] + [0] * W
        for x in w:
            counts = [c + (counts[s - x] if s >= x else 0) for s, c in enumerate(counts)]
        for a in (-1, 0, 1, W // 3, W // 2, W - W // 2, 2 * W // 3, W - 1, W, W + 1):
            want = (sum(counts[:max(a + 1, 0)]), sum(counts[max(a, 0):]) if a <= W else 0)
            assert fz.subset_sum_tails(w, a) == want, (m, a)
    assert max(counts) > 2**63


def test_a_planted_int64_sign_flip_count_is_reported(fz, monkeypatch, capsys):
    """Ours' sign-flip tail wrapped as an int64 count would wrap is reported (``signflip``: rows of 61-400 queries;
    case 1:11 is a row of 91 quarters)."""
    import pref_eval.stats.signed_rank as sr

    orig = sr._sign_flip_lower_tails
    monkeypatch.setattr(sr, "_sign_flip_lower_tails", lambda w, tops: [t % (1 << 63) for t in orig(w, tops)])
    assert fz.main(["--case", "1:11", "--only", "signflip"]) == 1
    assert '"check": "signflip_exact_count"' in capsys.readouterr().out


@pytest.mark.parametrize("tool", ["fuzz_stats", "fuzz_compare"])
def test_the_tools_share_their_command_line(tool, capsys):
    """tools/fuzz_common.py: a malformed --case is one line and exit 2 (was a ValueError traceback), and the summary
    names the case's seed (was --seed's: ``seed 0`` after ``--case 3:41``)."""
    mod = import_tool(tool)
    assert mod.main(["--case", "3-41"]) == 2
    assert capsys.readouterr().err == f"{tool}: --case expects SEED:INDEX (two integers), got '3-41'\n"
    assert mod.main(["--case", "5:0", "--only", "refusal" if tool == "fuzz_compare" else "orderings"]) == 0
    assert capsys.readouterr().err.startswith(f"{tool}: 1 cases (seed 5), 0 findings")
